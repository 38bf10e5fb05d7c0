# On a streaming standby walsizer's worker does not run while the server is
# in recovery: no pg_walsizer process, no decision, and the standby's
# max_wal_size stays what it was while the primary's load makes walsizer
# change the primary's.  Its SQL functions (replicated with the primary's
# CREATE EXTENSION) answer without a worker.  Once the standby is promoted
# the worker starts, measures, and acts on a load there.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my %conf = (
	'walsizer.interval' => "'2s'",
	# the streaming defaults of the test cluster are too small for pgbench
	shared_buffers => "'32MB'",
	max_connections => 20);
my $primary = walsizer_node('primary',
	init => { allows_streaming => 1 },
	conf => { %conf, 'walsizer.enable' => 'off' });
$primary->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $primary->host,
	'-p', $primary->port, 'postgres' ], 'pgbench tables created on the primary');
$primary->safe_psql('postgres', 'CHECKPOINT');

# the standby is cloned before walsizer has decided anything
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "walsizer.enable = on\n");
$standby->start;
$primary->append_conf('postgresql.conf', "walsizer.enable = on\n");
$primary->reload;
wait_for($primary, 'SELECT enabled FROM walsizer.status()', 'walsizer enabled on the primary');
$primary->wait_for_catchup($standby);

is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't',
	'the standby is in recovery');
my $standby_auto_conf = slurp_file($standby->data_dir . '/postgresql.auto.conf');
my $worker_sql = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_walsizer'";
is($primary->safe_psql('postgres', $worker_sql), 1, 'the primary runs the worker');
is($standby->safe_psql('postgres', $worker_sql), 0, 'the standby runs no worker');

# what walsizer's functions say on the standby
is($standby->safe_psql('postgres',
		'SELECT worker_pid IS NULL AND last_check_at IS NULL AND decisions_total = 0 '
		  . 'AND last_action IS NULL AND next_action IS NULL FROM walsizer.status()'),
	't', 'status(): no worker, no window, no decision');
is($standby->safe_psql('postgres', 'SELECT max_wal_size_mb FROM walsizer.status()'),
	32, "status(): the standby's own max_wal_size");
is($standby->safe_psql('postgres', 'SELECT walsizer.check_now()'), 'f',
	'check_now(): false, no worker to wake');
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT * FROM walsizer.recommend()');
isnt($ret, 0, 'recommend() fails on the standby');
like($err, qr/pg_walsizer has not measured anything yet/, 'and says nothing was measured');

# a load on the primary, watched from the standby every half second
my $log_offset = -s $standby->logfile;
my $replay_start = $standby->safe_psql('postgres', 'SELECT pg_last_wal_replay_lsn()');
my $load = start_pgbench($primary, '-c', '4', '-j', '4', '-T', '15');
my %standby_sizes;
my $samples = 0;
my $until = time + 15;
while (time < $until)
{
	$standby_sizes{ setting_mb($standby, 'max_wal_size') }++;
	$samples++;
	sleep 0.5;
}
my ($rc) = finish_pgbench($load);
is($rc, 0, 'the load ran on the primary');
my @primary_changes = decision_rows($primary, "action IN ('grow', 'capped')");
ok(@primary_changes >= 1,
	'walsizer changed the primary: '
	  . join(', ', map { "$_->{old_mb} -> $_->{new_mb} MB" } @primary_changes));
$primary->wait_for_catchup($standby);
is_deeply([ keys %standby_sizes ], [32],
	"the standby's max_wal_size stayed 32 MB in all $samples samples");
is(slurp_file($standby->data_dir . '/postgresql.auto.conf'), $standby_auto_conf,
	"the standby's postgresql.auto.conf is untouched");
is($standby->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions()'), 0,
	'no decision on the standby');
is($standby->safe_psql('postgres', $worker_sql), 0, 'still no worker on the standby');
my $standby_log = slurp_file($standby->logfile, $log_offset);
unlike($standby_log, qr/pg_walsizer (started|grew|shrank|adopted)/,
	'the standby log shows no walsizer activity during recovery');
my $replayed = $standby->safe_psql('postgres',
	"SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '$replay_start') / 1048576");
cmp_ok($replayed, '>', 50, sprintf('yet it replayed %.0f MB of the load', $replayed));

# promotion: the worker starts and works
my $promoted_at = time;
$standby->promote;
wait_for($standby, 'SELECT NOT pg_is_in_recovery()', 'the standby is promoted');
wait_for($standby, 'SELECT worker_pid IS NOT NULL FROM walsizer.status()',
	'the worker starts after promotion');
is($standby->safe_psql('postgres', $worker_sql), 1, 'one pg_walsizer process');
wait_for($standby, 'SELECT last_check_at IS NOT NULL FROM walsizer.status()',
	'the worker ends its first window');
my $first_check = status_value($standby, 'extract(epoch FROM last_check_at)');
cmp_ok($first_check, '>=', $promoted_at, 'its first window ended after the promotion');

run_pgbench($standby, 12, 4);
my @grows = decision_rows($standby, "action = 'grow'");
ok(@grows >= 1, 'the load on the promoted server made walsizer grow: '
	  . join(', ', map { "$_->{old_mb} -> $_->{new_mb} MB" } @grows));
is($grows[0]{old_mb}, 32, 'from the 32 MB the standby had');
wait_for($standby,
	"SELECT confirmed FROM walsizer.decisions() WHERE action = 'grow' ORDER BY at DESC LIMIT 1",
	'the last grow is applied on the promoted server');
cmp_ok(status_value($standby, 'extract(epoch FROM last_check_at)'), '>', $first_check,
	'windows keep advancing');
is($standby->safe_psql('postgres',
		"SELECT count(*) FROM walsizer.decisions() WHERE at < to_timestamp($promoted_at)"),
	0, 'every decision there was made after the promotion');

$standby->stop;
$primary->stop;
done_testing();
