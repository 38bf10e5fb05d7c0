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

our @EXPORT = qw(dba_value_node grow_settled settled_size_mb postponed_since);

# A server with pgbench's tables and quiet windows of 1 s: after a growth,
# a shrink is due shrink_after windows after the load stops (the floor is
# postgresql.conf's 32 MB).
sub dba_value_node
{
	my ($name) = @_;
	my $node = walsizer_node($name,
		conf => {
			'walsizer.interval' => "'1s'",
			'walsizer.cooldown' => 1,
			'walsizer.shrink_after' => 2 });
	$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
		'-p', $node->port, 'postgres' ], 'pgbench tables created');
	return $node;
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
	return setting_mb($node, 'max_wal_size');
}

# Waits (bounded) for walsizer to postpone a change for a pending reload,
# the log's DETAIL saying $why.  The change is the shrink due once the
# load has left the peak rate's horizon (two checkpoint cycles of 30 s)
# and whole cycles were measured without it, then shrink_after quiet
# windows: a few seconds after a growth that overshot, about two minutes
# at most on a quiet machine otherwise (3.5 minutes were seen on a loaded
# one), so up to 5 minutes.
sub postponed_since
{
	my ($node, $offset, $why) = @_;
	my $deadline = time + 300;
	while (time < $deadline)
	{
		return 1
		  if slurp_file($node->logfile, $offset) =~
		  /pg_walsizer postponed changing max_wal_size to \d+ MB until the configuration is reloaded\n.*DETAIL:  \Q$why\E/;
		sleep 1;
	}
	return 0;
}

1;
