# A change that cannot be written and does not wait for the cooldown (here:
# lowering max_wal_size to protect the WAL volume, decided at every sample)
# is not retried at every sample: one WARNING and one "error" decision for
# the whole failure, a LOG line per retry, retries no more often than every
# 10 s, and the change goes through once writing works again.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# 100 GB of max_wal_size is far above 1 % of any test machine's free disk:
# walsizer wants to lower it at once ("protect"), at every 100 ms sample.
my $node = walsizer_node('no_flood',
	conf => {
		'walsizer.enable' => 'off',
		max_wal_size => "'100GB'",
		'walsizer.disk_fraction' => '0.01',
		'walsizer.sample_interval' => "'100ms'",
		'walsizer.interval' => "'1s'",
	});
# the worker publishes its pid and the disk cap at its first sample
wait_for($node, 'SELECT worker_pid IS NOT NULL AND cap_mb > 0 FROM walsizer.status',
	'the worker runs and has measured the disk');
my $pid = status_value($node, 'worker_pid');
my $data_dir = $node->data_dir;
cmp_ok(status_value($node, 'cap_mb'), '<', 102400,
	'the disk cap is below 100 GB on this machine');

# neither postgresql.auto.conf nor the state file can be replaced while the
# directory is read-only; postgresql.conf itself stays writable
chmod 0500, $data_dir or die "chmod $data_dir: $!";
my $log_offset = -s $node->logfile;
my $since = $node->safe_psql('postgres', 'SELECT now()');
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'error')",
	'the failure is recorded');

# At least 25 s after the failure (250 samples, each of which decides to
# protect the volume), and until the first retry: the count of retries is
# bounded by the time that passed since the failure as the server measures
# it, not by a fixed sleep (a loaded machine's test falls behind).
ok($node->wait_for_log(
		qr/LOG:  pg_walsizer still cannot change max_wal_size from 102400 MB/, $log_offset),
	'it retries');
$node->safe_psql('postgres',
	"SELECT pg_sleep(greatest(0, 25 - extract(epoch FROM clock_timestamp() - min(at)))) "
	  . "FROM walsizer.decisions WHERE action = 'error' AND at >= '$since'");
my @errors = decision_rows($node, "action = 'error' AND at >= '$since'");
is(scalar @errors, 1, 'one error decision for the whole failure');
like($errors[0]{reason} // '',
	qr/^could not save the state file before changing max_wal_size to \d+ MB; not changed/,
	'it names the write that failed');
cmp_ok($errors[0]{new_mb} // 0, '<', $errors[0]{old_mb} // 0, 'it was lowering the size');
my $warnings = log_count($node, qr/WARNING:  pg_walsizer could not change max_wal_size/,
	$log_offset);
is($warnings, 1, 'one WARNING about the change');
is(log_count($node, qr/WARNING:  pg_walsizer could not create state file/, $log_offset),
	1, 'one WARNING about the state file');
my $retries = log_count($node,
	qr/LOG:  pg_walsizer still cannot change max_wal_size from 102400 MB to \d+ MB \(attempt \d+\)/,
	$log_offset);
# read after the count, so that no retry counted came after it
my $failing_s = $node->safe_psql('postgres',
	"SELECT extract(epoch FROM clock_timestamp() - min(at)) FROM walsizer.decisions "
	  . "WHERE action = 'error' AND at >= '$since'");
cmp_ok($retries, '>=', 1, "retried: $retries LOG lines");
cmp_ok($retries, '<=', 1 + int($failing_s / 10),
	sprintf('no more often than every 10 s (%.0f s since the failure)', $failing_s));
is(status_value($node, 'worker_pid'), $pid, 'the worker kept running');

# writing works again: the change goes through at the next retry
chmod 0700, $data_dir or die "chmod $data_dir: $!";
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'protect' AND confirmed AND at >= '$since')",
	'the protecting change goes through once writing works');
cmp_ok(setting_mb($node, 'max_wal_size'), '<', 102400, 'max_wal_size was lowered');
is(log_count($node, qr/LOG:  pg_walsizer changed max_wal_size after \d+ failed attempts/,
		$log_offset),
	1, 'the log says it worked after failing');
is(log_count($node, qr/LOG:  pg_walsizer saved its state file "pg_walsizer.state" again/,
		$log_offset),
	1, 'and that the state file is saved again');
is(status_value($node, 'worker_pid'), $pid, 'still the same worker');

$node->stop;
done_testing();
