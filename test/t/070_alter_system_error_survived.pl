# When ALTER SYSTEM fails (here: the data directory is read-only, as on a
# full or broken disk), walsizer records an "error" decision, logs it at most
# once per window, keeps running, and succeeds once the problem is gone.
# walsizer.status.failing_since says since when, across a worker restart,
# until a change goes through.
# (170 covers a change that does not wait for the cooldown.)
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = walsizer_node('alter_error',
	conf => { 'walsizer.enable' => 'off', 'walsizer.interval' => "'2s'" });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
# the server may answer before its worker has started
wait_for($node, 'SELECT worker_pid IS NOT NULL FROM walsizer.status', 'the worker runs');
my $pid = status_value($node, 'worker_pid');

# postgresql.auto.conf cannot be replaced while the directory is read-only
my $data_dir = $node->data_dir;
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
chmod 0500, $data_dir or die "chmod $data_dir: $!";
$node->reload;
wait_for($node, 'SELECT enabled FROM walsizer.status', 'walsizer enabled');

my $log_offset = -s $node->logfile;
my $started = time;
# the load goes on until walsizer has tried to grow and failed, and a few
# windows more to show it does not flood
ok(pgbench_until($node,
		"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'error')",
		60, '-c', 4, '-j', 4),
	'the failure is recorded');
run_pgbench($node, 8, 4);
my $elapsed = time - $started;
my @errors = decision_rows($node, "action = 'error'");
# the state file (written first, to record the intent) or
# postgresql.auto.conf: whichever write fails first is named
like($errors[0]{reason},
	qr/^(ALTER SYSTEM failed: could not open file .*postgresql\.auto\.conf|could not save the state file before changing max_wal_size to \d+ MB; not changed)/,
	'the reason names the write that failed');
cmp_ok($errors[0]{new_mb}, '>', $errors[0]{old_mb}, 'it was trying to grow');
cmp_ok(scalar @errors, '<=', int($elapsed / 2) + 2,
	scalar(@errors) . " error decisions in $elapsed s: at most one per 2 s window");
is(status_value($node, 'worker_pid'), $pid, 'the worker kept running: same pid');
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/background worker "pg_walsizer".*exited/, 'the worker never exited');
like($log, qr/WARNING:  pg_walsizer could not change max_wal_size from 32 MB to \d+ MB/,
	'a WARNING names the change');
like($log, qr/HINT:  pg_walsizer keeps running and tries again in \d+ s, less often while it keeps failing/,
	'with a hint');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '32MB',
	'max_wal_size unchanged while it fails');

# failing_since: the time of the first failure, kept while changes fail,
# a restart of the worker included (pg_terminate_backend, as a DBA might)
my $since = status_value($node, 'failing_since');
isnt($since, '', "failing_since is set while changes fail ($since)");
is($node->safe_psql('postgres',
		"SELECT '$since'::timestamptz <= min(at) FROM walsizer.decisions WHERE action = 'error'"),
	't', 'failing_since is when the first failure happened');
my $terminated_at = $node->safe_psql('postgres', 'SELECT now()');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
wait_for($node,
	"SELECT worker_pid IS NOT NULL AND worker_pid <> $pid FROM walsizer.status",
	'a new worker runs');
$pid = status_value($node, 'worker_pid');
ok(pgbench_until($node,
		"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'error' AND at > '$terminated_at')",
		60, '-c', 4, '-j', 4),
	'the new worker fails too');
is(status_value($node, 'failing_since'), $since,
	'failing_since is kept across the worker restart: the first failure');

# space (here: permission) comes back: the next window succeeds
chmod 0700, $data_dir or die "chmod $data_dir: $!";
ok(pgbench_until($node,
		"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'grow' AND confirmed)",
		60, '-c', 4, '-j', 4),
	'the change goes through once ALTER SYSTEM works again');
isnt($node->safe_psql('postgres', 'SHOW max_wal_size'), '32MB', 'max_wal_size grew');
is(status_value($node, 'worker_pid'), $pid, 'still the same worker');
is(status_value($node, 'failing_since'), '', 'failing_since is cleared by the change that went through');

$node->stop;
done_testing();
