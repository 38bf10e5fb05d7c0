# A base backup on an idle server (the one Patroni takes to build a
# replica, a nightly pg_basebackup) switches WAL segments twice, at its
# start and at its stop, as pg_switch_wal() and archive_timeout do: the
# insert position jumps to the next segment's start, up to 16 MB in an
# instant, without a load.  Those positions bring a forced
# checkpoint nearer, and the redo distance counts them, but they are a
# step, not a rate: pg_walsizer grows nothing for them.  (Before, one
# pg_basebackup on an idle server grew 64 MB to 160 MB: "projected 55 MB
# of WAL since the last checkpoint within 3 s at the recent 14 MB/s".)
# The control: the same server does grow for a load that keeps writing.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = walsizer_node('idle_switches',
	init => { allows_streaming => 1 },    # wal_level replica, for pg_basebackup
	conf => {
		max_wal_size => "'64MB'",
		# no timed checkpoint during the test: each redo move is the backups'
		checkpoint_timeout => "'10min'",
		autovacuum => 'off' });
wait_for($node, 'SELECT last_check_at IS NOT NULL FROM walsizer.status',
	'walsizer measured a window');
sleep 3;    # more idle seconds than the recent rate needs

my $lsn_before = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$node->backup('base');
my $skipped_mb = $node->safe_psql('postgres',
	"SELECT round(pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn_before') / 1048576)");
note("the base backup moved the insert position by $skipped_mb MB");
cmp_ok($skipped_mb, '>=', 16, 'its switches skipped at least a segment');

# three windows after it: time for any decision it could cause
my $windows_after = status_value($node, 'last_check_at');
wait_for($node,
	"SELECT last_check_at > '$windows_after'::timestamptz + interval '8 s' FROM walsizer.status",
	'three more windows ended');
note_decisions($node, 'decisions after the base backup');
is(scalar(decision_rows($node, growth_sql())), 0, 'no growth for the base backup');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '64MB', 'max_wal_size is still 64MB');

# the control: a load that keeps writing makes the same server grow
$node->safe_psql('postgres', 'CREATE TABLE t (x int)');
my $deadline = time() + 120;
while (time() < $deadline && !scalar(decision_rows($node, growth_sql())))
{
	$node->safe_psql('postgres',
		'INSERT INTO t SELECT g FROM generate_series(1, 300000) g');
}
ok(scalar(decision_rows($node, growth_sql())) >= 1, 'a sustained load makes it grow');

$node->stop;
done_testing();
