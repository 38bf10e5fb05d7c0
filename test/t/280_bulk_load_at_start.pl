# A bulk load right after start on a small size, every other setting at its
# default (checkpoint_timeout 5min, walsizer.interval 5min): pgbench -i -s 20
# writes about 300 MB of WAL in a few seconds.  Projected over the rest of
# a 5-minute cycle those seconds would ask for the cap, with a WARNING
# telling the DBA to make room for it, for a load that is over by the next
# sample.  A growth from seconds goes no further than they justify: at most
# about twice (2.5 times, for the last lookahead) what a cycle holding the
# whole bulk load needs, not capped, no WARNING.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = walsizer_node('bulk_at_start',
	conf => {
		max_wal_size => "'64MB'",
		checkpoint_timeout => "'5min'",
		'walsizer.interval' => "'5min'",
		'walsizer.sample_interval' => "'1s'",
		# minimal (the test cluster's default) would log no WAL for the
		# tables pgbench -i creates and fills in one transaction
		wal_level => 'replica',
		autovacuum => 'off' });
wait_for($node, 'SELECT wal_since_redo_bytes IS NOT NULL FROM walsizer.status',
	'walsizer took its first samples');
my $log_from = -s $node->logfile;

my $lsn_before = $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
# the cycle the bulk load falls in starts at the last checkpoint's redo
my $redo_before = $node->safe_psql('postgres',
	'SELECT redo_lsn FROM pg_control_checkpoint()');
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '20', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench -i -s 20');
my $bulk_mb = $node->safe_psql('postgres',
	"SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn_before') / 1048576)");
note("the bulk load wrote $bulk_mb MB of WAL");
cmp_ok($bulk_mb, '>', 150, 'the bulk load wrote hundreds of MB');

# Any growth its last seconds ask for comes at a sample whose recent rate
# (the last 2 to 5 s) still holds them: wait, however slow the worker,
# until a sample's recent rate is idle (it is published after that
# sample's decision) and the last change is running, not for a fixed time.
ok(poll_until($node,
		'SELECT wal_rate_bytes_per_s < 1048576 AND pending_mb IS NULL FROM walsizer.status', 120),
	'the worker sampled past the bulk load, and runs its last change');
note_decisions($node, 'decisions');
my $largest = $node->safe_psql('postgres',
	'SELECT coalesce(max(new_mb), 64) FROM walsizer.decisions');
# a cycle holding all of the bulk load (from the redo pointer before it),
# with the headroom
my $cycle_mb = $node->safe_psql('postgres',
	"SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$redo_before') / 1048576)");
my $cycle_need_mb = 1.9 * 1.25 * $cycle_mb;
note(sprintf('largest size %d MB; a cycle holding the bulk load needs %.0f MB',
		$largest, $cycle_need_mb));
cmp_ok(setting_mb($node, 'max_wal_size'), '>', 64,
	'the bulk load grew the size (the worker was watching)');
# About twice: each step goes at most to twice the size or to room for the
# WAL the lookahead sees coming, and the last step's lookahead may still
# see a few seconds of a load that ends before them (1184 MB against a
# cycle need of 582 MB on a machine at load 10).
cmp_ok($largest, '<=', 2.5 * $cycle_need_mb,
	'no size above about twice what a cycle holding the whole bulk load needs');
cmp_ok($largest, '<', 4096, 'nor the cap');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM walsizer.decisions WHERE action = 'capped'"),
	'0', 'no growth was capped');
is(log_count($node, qr/WARNING:.*walsizer/i, $log_from), 0,
	'and no WARNING was logged');

$node->stop;
done_testing();
