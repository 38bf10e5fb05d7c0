# walsizer-test: long
# walsizer-test: minutes 5
# The DBA's value while a DBA change waits for a reload, on a real server:
# walsizer never writes (and so never reloads) while ALTER SYSTEM RESET,
# ALTER SYSTEM SET "MAX_WAL_SIZE" or an edit of postgresql.conf is not yet
# loaded, and goes on once the DBA reloads.  Each section names the defect
# it would catch.  255_dba_value_sources.pl covers which of the DBA's
# sources wins.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# Quiet windows of 1 s: after a growth, a shrink is due shrink_after
# windows after the load stops (the floor is postgresql.conf's 32 MB).
my $node = walsizer_node('seams',
	conf => {
		'walsizer.interval' => "'1s'",
		'walsizer.cooldown' => 1,
		'walsizer.shrink_after' => 2 });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');

# Grows under load until walsizer's own value runs; returns it.
sub grow
{
	my ($what) = @_;
	my $before = decision_rows($node, growth_sql() . ' AND confirmed');
	ok(pgbench_until($node,
			"(SELECT count(*) FROM walsizer.decisions WHERE "
			  . growth_sql() . " AND confirmed) > $before",
			90, '-c', 4, '-j', 4),
		"walsizer grew $what");
	return settled_size_mb();
}

# The size once it holds for three windows: the load's last samples may
# grow it once more after pgbench has stopped (a lookahead that saw the
# checkpoint coming), and a check against the size before that growth
# would blame walsizer for a change it made before the DBA's.
sub settled_size_mb
{
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

# Waits (bounded) for walsizer to postpone a change for a pending reload.
# The change is the shrink due once the load has left the peak rate's
# horizon (two checkpoint cycles of 30 s) and whole cycles were measured
# without it, then shrink_after quiet windows: about two minutes at most on
# a quiet machine; twice that on one twice as slow.
sub postponed_since
{
	my ($offset, $why) = @_;
	my $deadline = time + 2 * (2 * 30 + 60 + 2 * 1);
	while (time < $deadline)
	{
		return 1
		  if slurp_file($node->logfile, $offset) =~
		  /pg_walsizer postponed changing max_wal_size to \d+ MB until the configuration is reloaded\n.*DETAIL:  \Q$why\E/;
		sleep 1;
	}
	return 0;
}

# --- 1. a pending ALTER SYSTEM RESET is not undone ----------------------------

my $grown = grow('for the RESET');
ok(defined auto_conf_max_wal_size($node), 'walsizer wrote postgresql.auto.conf');
my $offset = -s $node->logfile;
$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
# idle now: a shrink is due within a few windows, and must wait
ok(postponed_since($offset,
		'postgresql.auto.conf no longer sets max_wal_size (ALTER SYSTEM RESET), which the server has not loaded yet'),
	'the shrink is postponed for the pending RESET, and the log says why');
like(status_value($node, 'next_reason'),
	qr/^postponed until the configuration is reloaded \(postgresql\.auto\.conf no longer sets max_wal_size/,
	'status() says it waits for a reload');
is(auto_conf_max_wal_size($node), undef, 'postgresql.auto.conf still sets no max_wal_size');
is(setting_mb($node, 'max_wal_size'), $grown, 'nothing was reloaded on the DBA\'s behalf');
$node->reload;
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 32 "
	  . "AND reason LIKE '%with ALTER SYSTEM%')",
	'after the reload the reset value (postgresql.conf\'s 32 MB) is adopted');
is(status_value($node, 'max_wal_size_source') =~ /^postgresql\.conf:\d+$/ ? 1 : 0, 1,
	'status() says it comes from postgresql.conf');

# --- 2. ALTER SYSTEM SET "MAX_WAL_SIZE" is a pending change too -----------------

$grown = grow('for the upper-case ALTER SYSTEM');
$offset = -s $node->logfile;
$node->safe_psql('postgres', q{ALTER SYSTEM SET "MAX_WAL_SIZE" = '320MB'});
ok(postponed_since($offset,
		'postgresql.auto.conf sets max_wal_size = 320 MB, which the server has not loaded yet'),
	'the upper-case name is recognised as a pending change');
is(setting_mb($node, 'max_wal_size'), $grown, 'and not reloaded');
like(slurp_file($node->data_dir . '/postgresql.auto.conf'), qr/^max_wal_size = '320MB'$/mi,
	'the DBA\'s 320 MB is still in postgresql.auto.conf');
$node->reload;
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 320)",
	'after the reload the DBA\'s 320 MB is adopted');
# status() is published at the end of the iteration that recorded the adoption
wait_for($node, 'SELECT floor_mb = 320 FROM walsizer.status', 'and is the floor');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
$node->reload;
wait_for($node, 'SELECT floor_mb = 32 FROM walsizer.status', 'reset to 32 MB again');

# --- 3. an unreloaded postgresql.conf edit is not reloaded by walsizer ------------

$grown = grow('for the postgresql.conf edit');
$offset = -s $node->logfile;
my $work_mem = $node->safe_psql('postgres', 'SHOW work_mem');
$node->append_conf('postgresql.conf', "work_mem = '7MB'\n");
ok(postponed_since($offset,
		'"postgresql.conf" was modified after the server last loaded its configuration'),
	'a change is postponed while postgresql.conf has an edit not yet loaded');
is($node->safe_psql('postgres', 'SHOW work_mem'), $work_mem,
	'the DBA\'s unreloaded work_mem was not applied for them');
is(setting_mb($node, 'max_wal_size'), $grown, 'nor was max_wal_size changed');
$node->reload;
wait_for($node, "EXISTS (SELECT FROM walsizer.decisions WHERE action = 'shrink' AND confirmed "
	  . "AND at > now() - interval '60 s')",
	'after the DBA\'s reload walsizer goes on (it shrinks)');

done_testing();
