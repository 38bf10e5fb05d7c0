# DbaValue: helpers of the TAP tests of the DBA's value against walsizer's
# (250-255): a server whose size grows under load and shrinks soon after
# it, and waits for what walsizer does with a change the DBA has not yet
# reloaded.
package DbaValue;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

our @EXPORT = qw(dba_value_node grow_settled settled_size_mb postponed_since
  allow_shrink_after_dba_change);

# A server with pgbench's tables and quiet windows of 1 s: after a growth,
# a shrink is due shrink_after windows after the load stops (the floor is
# postgresql.conf's 32 MB).  Its shrinks are held (hold_worker()) from the
# start, so that the size a test grows stays until the test has made the
# DBA's change and allows the shrink (allow_shrink_after_dba_change()).
sub dba_value_node
{
	my ($name) = @_;
	my $node = walsizer_node($name,
		conf => {
			'walsizer.interval' => "'1s'",
			'walsizer.cooldown' => 1,
			'walsizer.shrink_after' => 2 });
	hold_worker($node, 'shrink');
	$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
		'-p', $node->port, 'postgres' ], 'pgbench tables created');
	return $node;
}

# The DBA's change is made: hold the worker's shrinks afresh, wait until it
# decides one after the change (it is due, and has not happened), then let
# it go on, so that what it does with that shrink is what the test checks.
sub allow_shrink_after_dba_change
{
	my ($node) = @_;
	hold_worker($node, 'shrink');
	wait_until_held($node, 'shrink',
		'a shrink is due after the DBA\'s change (held until now)');
	release_worker($node);
	return;
}

# Grows under load until walsizer's own value runs; returns the size once
# it has settled (settled_size_mb()).
sub grow_settled
{
	my ($node, $what) = @_;
	my $before = decision_rows($node, growth_sql() . ' AND confirmed');
	ok(pgbench_until($node,
			"(SELECT count(*) FROM walsizer.decisions WHERE "
			  . growth_sql() . " AND confirmed) > $before",
			90, '-c', 4, '-j', 4),
		"walsizer grew $what");
	return settled_size_mb($node);
}

# The size once it holds for three windows: the load's last samples may
# grow it once more after pgbench has stopped (a lookahead that saw the
# checkpoint coming), and a check against the size before that growth
# would blame walsizer for a change it made before the DBA's.
sub settled_size_mb
{
	my ($node) = @_;
	my ($last, $now) = ('', '');
	for (1 .. 30)
	{
		$now = $node->safe_psql('postgres',
			"SELECT current_setting('max_wal_size'), count(*) FROM walsizer.decisions");
		last if $now eq $last;
		$last = $now;
		sleep 3;
	}
	return behind(setting_mb($node, 'max_wal_size'));
}

# Waits (bounded) for walsizer to postpone a change for a pending reload,
# the log's DETAIL saying $why.  The change is the shrink
# allow_shrink_after_dba_change() released: due at the next window end.
sub postponed_since
{
	my ($node, $offset, $why) = @_;
	my $deadline = time + 120;
	while (time < $deadline)
	{
		return behind(1)
		  if slurp_file($node->logfile, $offset) =~
		  /pg_walsizer postponed changing max_wal_size to \d+ MB until the configuration is reloaded\n.*DETAIL:  \Q$why\E/;
		sleep 1;
	}
	note_decisions($node, 'no postponement; decisions');
	return 0;
}

1;
