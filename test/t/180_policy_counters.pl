# The policy's counters (quiet windows before a shrink, windows since the
# last change) survive a clean stop and pg_terminate_backend() of the worker
# (which comes back by itself) exactly, and a crash of the worker with
# at most a few seconds lost, and windows cut short by walsizer.check_now()
# count towards neither: a dozen calls do not stand for a dozen windows.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use WalsizerTest;

# An idle server at 1 GB with walsizer.min 32 MB: every window is quiet.
# shrink_after is far away, so the count only grows.
my $node = walsizer_node('counters',
	conf => {
		max_wal_size => "'1GB'",
		'walsizer.min' => "'32MB'",
		'walsizer.interval' => "'1s'",
		'walsizer.shrink_after' => 100000,
		restart_after_crash => 'on',
	});

# The quiet-window count the plan shows: what it would be if the window
# ended now, so one more than the count kept.
sub planned_quiet_windows
{
	my $reason = status_value($node, 'next_reason');
	my ($count) = $reason =~ /(\d+) of \d+ quiet windows before shrinking/;
	return $count // 0;
}

sub wait_for_quiet_windows
{
	my ($at_least) = @_;
	ok(poll_until($node,
			"SELECT coalesce(substring(next_reason from '(\\d+) of \\d+ quiet windows')::int, 0) >= $at_least FROM walsizer.status",
			120),
		"at least $at_least quiet windows counted");
}

sub alter_system
{
	my ($setting, $value) = @_;
	$node->safe_psql('postgres', "ALTER SYSTEM SET $setting = '$value'");
	$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
}

# A new worker runs, and has published its plan: it shows its pid before
# it has loaded its state and sampled (a count read then is no count), and
# after pg_terminate_backend() the old worker's plan is still shown.  With
# $since (a time before the old worker stopped) and hour-long windows, the
# plan is the new worker's once its window, started after $since, ends an
# hour after it; otherwise (fresh shared memory) once there is one.
sub worker_back
{
	my ($old_pid, $since) = @_;
	wait_for($node,
		"SELECT worker_pid IS NOT NULL AND worker_pid <> $old_pid "
		  . "AND next_reason ~ ' quiet windows before shrinking' "
		  . (defined $since ? "AND next_check_at > '$since'::timestamptz + interval '3600 s' " : '')
		  . 'FROM walsizer.status',
		'a new worker runs, and shows its plan');
}

# --- a clean stop keeps the count exactly ---------------------------------
wait_for_quiet_windows(6);
# no window ends for an hour: the count stands still from here on
alter_system('walsizer.interval', '1h');
wait_for($node, 'SELECT window_s = 3600 FROM walsizer.status', 'windows of an hour');
my $before_stop = planned_quiet_windows();
my $pid = status_value($node, 'worker_pid');
$node->restart;
worker_back($pid);
is(planned_quiet_windows(), $before_stop,
	"the quiet-window count survives a clean stop ($before_stop planned before and after)");
is(scalar decision_rows($node), 0, 'nothing was decided: the count is only the policy state');

# --- pg_terminate_backend() neither switches it off nor loses the count ---
# A superuser's "terminate every other backend" before maintenance hits the
# worker too: it saves its state and the postmaster starts it again after
# bgw_restart_time (5 s), twice in a row as well.
for my $round (1, 2)
{
	$pid = status_value($node, 'worker_pid');
	my $offset = -s $node->logfile;
	my $stopped_after = $node->safe_psql('postgres', 'SELECT now()');
	my $t0 = time();
	is($node->safe_psql('postgres',
			"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'pg_walsizer'"),
		't', "pg_terminate_backend() of the worker ($round)");
	ok(poll_until($node,
			"SELECT worker_pid IS NOT NULL AND worker_pid <> $pid FROM walsizer.status", 90),
		"terminated ($round): a new worker runs");
	my $took = time() - $t0;
	# bgw_restart_time is 5 s; a worker that exited 0 would never come back
	cmp_ok($took, '>=', 4, "terminated ($round): back after the restart time (${took} s)");
	worker_back($pid, $stopped_after);
	is(planned_quiet_windows(), $before_stop,
		"terminated ($round): the quiet-window count kept ($before_stop)");
	my $log = slurp_file($node->logfile, $offset);
	like($log, qr/pg_walsizer is stopping on a termination request; its state is saved/,
		"terminated ($round): the stop is logged");
	unlike($log, qr/reinitializing|terminated by signal/,
		"terminated ($round): not a crash: the server was not reinitialized");
}
is(scalar decision_rows($node), 0, 'nothing was decided through the terminations');

# --- a crash loses at most a few seconds of it ----------------------------
alter_system('walsizer.interval', '1s');
wait_for_quiet_windows($before_stop + 25);
my $before_crash = planned_quiet_windows();
$pid = status_value($node, 'worker_pid');
my $log_offset = -s $node->logfile;
kill 'KILL', $pid;
ok($node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset),
	'SIGKILL of the worker reinitializes the server');
worker_back($pid);
my $after_crash = planned_quiet_windows();
# the counters are saved at a window end at most 10 s after the last save
cmp_ok($after_crash, '>=', $before_crash - 15,
	"after the crash the count goes on from a recent save: $after_crash, was $before_crash");

# --- check_now() measures and decides, but counts no window ---------------
alter_system('walsizer.interval', '1h');
wait_for($node, 'SELECT window_s = 3600 FROM walsizer.status', 'windows of an hour again');
my $kept = planned_quiet_windows() - 1;
# three more quiet windows would shrink; twelve calls must not
alter_system('walsizer.shrink_after', $kept + 3);
wait_for($node, "SELECT next_reason ~ ' of " . ($kept + 3) . " quiet windows' FROM walsizer.status",
	'shrink_after three windows away');
my $calls = 0;
for (1 .. 12)
{
	my $checked = $node->safe_psql('postgres', 'SELECT last_check_at FROM walsizer.status');
	my $ended = $checked eq '' ? 'last_check_at IS NOT NULL' : "last_check_at > '$checked'";
	$calls++ if $node->safe_psql('postgres', 'SELECT walsizer.check_now()') eq 't';
	ok(poll_until($node, "SELECT $ended FROM walsizer.status", 30),
		'the worker ended the window early');
}
is($calls, 12, 'check_now() reached the worker twelve times');
is(scalar decision_rows($node, "action = 'shrink'"), 0, 'no shrink after twelve calls');
is(setting_mb($node, 'max_wal_size'), 1024, 'max_wal_size is still 1 GB');
# right after a window ends the plan previews a sample, not a window end,
# and shows the count kept rather than one more
my $planned = planned_quiet_windows();
ok($planned == $kept || $planned == $kept + 1,
	"the quiet-window count did not move: $planned planned, $kept kept before");

# a real shutdown still stops the worker: the postmaster does not start it
# again, and the server stops cleanly
my $offset = -s $node->logfile;
$node->stop('fast');
my $log = slurp_file($node->logfile, $offset);
like($log, qr/pg_walsizer is stopping on a termination request.*database system is shut down/s,
	'a shutdown stops the worker, and the server shuts down');
unlike($log, qr/terminated by signal|reinitializing/, 'the shutdown is clean');
done_testing();
