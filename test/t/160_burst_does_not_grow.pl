# A bulk statement on a server whose max_wal_size is already large is a
# burst, not a rate: pgbench -i -s 5 writes about 80 MB of WAL in a second
# or two, far from the 1 GB size's trigger (about 500 MB after the redo
# pointer), and is over before the WAL since the last checkpoint comes near
# it.  walsizer changes nothing, and says why.  The same load run long
# enough to approach the trigger does make it grow (the control: the
# worker is watching).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = walsizer_node('burst',
	conf => {
		max_wal_size => "'1GB'",
		# minimal (the test cluster's default) would log no WAL for the
		# tables pgbench -i creates and fills in one transaction
		wal_level => 'replica',
		'walsizer.interval' => "'2s'",
		autovacuum => 'off' });
wait_for($node, 'SELECT last_check_at IS NOT NULL FROM walsizer.status',
	'walsizer measured a window');
$node->safe_psql('postgres', 'CHECKPOINT');

my $lsn_before = $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'a bulk load of about 80 MB of WAL');
my $burst_mb = $node->safe_psql('postgres',
	"SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn_before') / 1048576)");
note("the burst wrote $burst_mb MB of WAL");
cmp_ok($burst_mb, '>', 40, 'the burst wrote tens of MB');
cmp_ok($burst_mb, '<', 400, 'and stayed well below the 1 GB trigger');

# three windows after it: time for any decision the burst could cause
my $windows_after = status_value($node, 'last_check_at');
wait_for($node,
	"SELECT last_check_at > '$windows_after'::timestamptz + interval '5 s' FROM walsizer.status",
	'three more windows ended');
note_decisions($node, 'decisions after the burst');
is(scalar(decision_rows($node, "new_mb <> old_mb")), 0,
	'no size change for the burst');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '1GB',
	'max_wal_size is still 1GB');
like(status_value($node, 'next_reason'), qr/needs \d+ MB|no WAL load/,
	'status says what the load needs');

# the control: a load that keeps writing does approach the trigger, and
# walsizer grows before a checkpoint is forced
my $log_before = -s $node->logfile;
$node->safe_psql('postgres',
	'CREATE TABLE filler AS SELECT g AS id, repeat(md5(g::text), 8) AS pad '
	  . 'FROM generate_series(1, 10) g');
my $deadline = time() + 120;
while (time() < $deadline
	&& !scalar(decision_rows($node, growth_sql())))
{
	$node->safe_psql('postgres',
		'INSERT INTO filler SELECT g, repeat(md5(g::text), 8) '
		  . 'FROM generate_series(1, 200000) g');
}
my @grows = decision_rows($node, growth_sql());
ok(@grows >= 1, 'a sustained load makes it grow');
like($grows[0]->{reason} // '', qr/projected \d+ MB of WAL since the last checkpoint/,
	'because a forced checkpoint was imminent');
is(wal_forced_checkpoints($node, $log_before), 0,
	'before any checkpoint was forced');

$node->stop;
done_testing();
