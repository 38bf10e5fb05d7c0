# Without shared_preload_libraries there is no worker and no shared memory:
# the extension can be created, but its views and functions say clearly
# what to do; preloaded, what was not measured yet says so.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = PostgreSQL::Test::Cluster->new('not_preloaded');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pg_walsizer');

for my $call ('SELECT * FROM walsizer.status',
	'SELECT * FROM walsizer.decisions',
	'SELECT * FROM walsizer.decision_counts',
	'SELECT * FROM walsizer.recommendation',
	'SELECT * FROM walsizer.status()',
	'SELECT * FROM walsizer.what_if()',
	'SELECT walsizer.check_now()')
{
	my ($ret, $out, $err) = $node->psql('postgres', $call);
	isnt($ret, 0, "$call fails");
	like($err, qr/ERROR:  pg_walsizer is not loaded/, "$call: clear error");
	like($err, qr/HINT:  Add pg_walsizer to "shared_preload_libraries"/,
		"$call: hint says how to fix it");
}

# the settings still exist, so postgresql.conf lines are not typos
is($node->safe_psql('postgres', "LOAD 'pg_walsizer'; SHOW walsizer.max"),
	'4GB', 'settings are defined when the library is loaded later');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_walsizer'"),
	0, 'no worker runs');

$node->stop;

# Preloaded, but no worker could start (max_worker_processes exhausted):
# what was never measured reads NULL in the views, not 0 (the functions of
# 1.4 keep their 0), and the recommendation says nothing was measured.
my $idle = PostgreSQL::Test::Cluster->new('no_worker');
$idle->init;
$idle->append_conf('postgresql.conf',
	"shared_preload_libraries = 'pg_walsizer'\nmax_worker_processes = 0\n");
$idle->start;
$idle->safe_psql('postgres', 'CREATE EXTENSION pg_walsizer');
is($idle->safe_psql('postgres',
		'SELECT worker_pid IS NULL, cap_mb IS NULL, cap_source IS NULL, floor_mb IS NULL,'
		  . ' needed_mb IS NULL, wal_rate_bytes_per_s IS NULL, trigger_bytes IS NULL,'
		  . ' projected_fill IS NULL, record_rate_bytes_per_s IS NULL, fpi_bytes_source IS NULL'
		  . ' FROM walsizer.status'),
	't|t|t|t|t|t|t|t|t|t', 'no worker: what was never measured is NULL in walsizer.status');
is($idle->safe_psql('postgres',
		'SELECT max_wal_size_mb, enabled FROM walsizer.status'),
	'1024|t', 'no worker: the settings still show');
is($idle->safe_psql('postgres', 'SELECT cap_mb, needed_mb FROM walsizer.status()'),
	'0|0', "no worker: 1.4's status() keeps its 0");
my ($ret, $out, $err) = $idle->psql('postgres', 'SELECT * FROM walsizer.recommendation');
like($err, qr/ERROR:  pg_walsizer has not measured anything yet/,
	'no worker: the recommendation says nothing was measured');
($ret, $out, $err) = $idle->psql('postgres', "SELECT * FROM walsizer.what_if(sizes => '{2GB}')");
like($err, qr/ERROR:  pg_walsizer has not measured anything yet/,
	'no worker: what_if() says nothing was measured');

# With a worker: no table before it has seen one whole checkpoint cycle
# (the redo pointer move twice), then one with the running size
$idle->append_conf('postgresql.conf', "max_worker_processes = 8\n");
$idle->restart;
ok(poll_until($idle, 'SELECT worker_pid IS NOT NULL AND next_action IS NOT NULL FROM walsizer.status', 60),
	'the worker measures');
($ret, $out, $err) = $idle->psql('postgres', 'SELECT * FROM walsizer.what_if()');
like($err, qr/ERROR:  pg_walsizer has not measured a whole checkpoint cycle yet\n.*DETAIL:  .*one cycle.*\nHINT:  Try again after the next checkpoint/s,
	'before a whole checkpoint cycle: what_if() says what it waits for');
# each redo pointer move seen: WAL written, seen, then a CHECKPOINT, seen
for my $move (1, 2)
{
	# (not CREATE TABLE AS: wal_level is minimal here)
	$idle->safe_psql('postgres',
		"CREATE TABLE IF NOT EXISTS t (i int); INSERT INTO t SELECT generate_series(1, 100000)");
	ok(poll_until($idle, 'SELECT wal_since_redo_bytes > 1048576 FROM walsizer.status', 60),
		"move $move: the worker saw the WAL");
	$idle->safe_psql('postgres', 'CHECKPOINT');
	ok(poll_until($idle, 'SELECT wal_since_redo_bytes < 1048576 FROM walsizer.status', 60),
		"move $move: the worker saw the checkpoint");
}
ok(poll_until($idle, 'SELECT last_cycle_s > 0 FROM walsizer.status', 60),
	'the worker measured a cycle');
is($idle->safe_psql('postgres',
		"SELECT kind FROM walsizer.what_if() WHERE size_mb = 1024 AND kind LIKE '%running%'"),
	'running,recommended', 'after one: the table, with the running size');
$idle->stop;
done_testing();
