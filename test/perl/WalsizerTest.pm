# WalsizerTest: helpers shared by pg_walsizer's TAP tests.
#
# Each test starts its own throwaway cluster with the library preloaded,
# short windows and checkpoint logging, drives WAL with pgbench or bulk SQL,
# and reads what walsizer did through its SQL functions and the server log.
package WalsizerTest;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(
  walsizer_node status_value decision_rows wait_for wal_forced_checkpoints
  run_pgbench auto_conf_max_wal_size reset_checkpointer_sql server_major
  growth_sql note_decisions advisor_path run_advisor
  metric_sql_from_status decision_actions
);

# A started node with pg_walsizer preloaded and the extension created.
# Options override the settings below; extra => [lines] adds more.
sub walsizer_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%{ $opt{init} // {} });
	my %conf = (
		shared_preload_libraries => "'pg_walsizer'",
		max_wal_size => "'32MB'",
		min_wal_size => "'32MB'",
		checkpoint_timeout => "'30s'",
		log_checkpoints => 'on',
		'walsizer.interval' => "'3s'",
		'walsizer.sample_interval' => "'200ms'",
		%{ $opt{conf} // {} });
	$node->append_conf('postgresql.conf',
		join("\n", map { "$_ = $conf{$_}" } sort keys %conf) . "\n"
		  . join("\n", @{ $opt{extra} // [] }) . "\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_walsizer');
	return $node;
}

sub server_major
{
	my ($node) = @_;
	return int($node->safe_psql('postgres', 'SHOW server_version_num') / 10000);
}

# One column (or expression) of walsizer.status.
sub status_value
{
	my ($node, $expr) = @_;
	return $node->safe_psql('postgres', "SELECT $expr FROM walsizer.status");
}

# Rows of walsizer.decisions as hashes, oldest first; optional filter.
sub decision_rows
{
	my ($node, $where) = @_;
	$where = $where ? "WHERE $where" : '';
	my $out = $node->safe_psql('postgres',
		"SELECT action, old_mb, new_mb, requested, timed, wal_forced, "
		  . "wal_bytes, window_s, coalesce(confirmed::text, ''), reason, role "
		  . "FROM walsizer.decisions $where");
	my @rows;
	for my $line (split /\n/, $out)
	{
		# a reason may hold "|", a role never: it is the last field
		my ($rest, $role) = $line =~ /^(.*)\|([^|]*)$/;
		my @f = split /\|/, $rest, 10;
		push @rows, {
			action => $f[0], old_mb => $f[1], new_mb => $f[2],
			requested => $f[3], timed => $f[4], wal_forced => $f[5],
			wal_bytes => $f[6], window_s => $f[7], confirmed => $f[8],
			reason => $f[9], role => $role };
	}
	return @rows;
}

# A growth: walsizer raised max_wal_size, to what the load needs ('grow')
# or, when that is beyond walsizer.max or the disk cap, to the cap
# ('capped').  A 'capped' decision that keeps the size is not a growth.
sub growth_sql
{
	return "(action IN ('grow', 'capped') AND new_mb > old_mb)";
}

# Notes the decisions so far, oldest first, one line each (for diagnosis).
sub note_decisions
{
	my ($node, $what) = @_;
	my @rows = decision_rows($node);
	note(($what // 'decisions') . ': ' . (@rows ? '' : 'none'));
	note("  $_->{action} $_->{old_mb} -> $_->{new_mb} MB"
		  . ($_->{confirmed} eq '' ? '' : " confirmed=$_->{confirmed}")
		  . ": $_->{reason}")
	  for @rows;
	return @rows;
}

# Polls a boolean SQL expression until true; fails the test on timeout.
sub wait_for
{
	my ($node, $condition, $what) = @_;
	ok($node->poll_query_until('postgres', "SELECT ($condition)"),
		$what // "waited for: $condition");
}

# Checkpoints the server itself started because of WAL volume, counted in
# the log from byte offset $from (log_checkpoints is on).
sub wal_forced_checkpoints
{
	my ($node, $from) = @_;
	my $log = slurp_file($node->logfile, $from // 0);
	my @hits = ($log =~ /checkpoint starting: wal\b/g);
	return scalar @hits;
}

# pgbench for $seconds with $clients against database postgres.
sub run_pgbench
{
	my ($node, $seconds, $clients, @extra) = @_;
	my ($out, $err) = ('', '');
	my @cmd = ('pgbench', '-n', '-c', $clients, '-j', $clients,
		'-T', $seconds, @extra,
		'-h', $node->host, '-p', $node->port, 'postgres');
	my $ok = IPC::Run::run(\@cmd, '>', \$out, '2>', \$err);
	ok($ok, "pgbench ran for $seconds s with $clients clients")
	  or diag($err);
	my ($tps) = $out =~ /tps = ([\d.]+)/;
	return $tps // 0;
}

# max_wal_size as written in postgresql.auto.conf, or undef.
sub auto_conf_max_wal_size
{
	my ($node) = @_;
	my $conf = slurp_file($node->data_dir . '/postgresql.auto.conf');
	my ($value) = $conf =~ /^max_wal_size = '([^']*)'/m;
	return $value;
}

# The reset of the checkpoint counters, named as each major names it.
sub reset_checkpointer_sql
{
	my ($node) = @_;
	return server_major($node) >= 17
	  ? "SELECT pg_stat_reset_shared('checkpointer')"
	  : "SELECT pg_stat_reset_shared('bgwriter')";
}

# --- Helpers for the crash, disk and concurrency tests -------------------

push @EXPORT, qw(
  kill9_all state_file_header start_pgbench finish_pgbench log_count
  setting_mb poll_until reap_orphans_here pgbench_until
);

# The pids of the postmaster and of all its descendants, from /proc.
sub _postmaster_tree
{
	my ($node) = @_;
	my $pidfile = $node->data_dir . '/postmaster.pid';
	open(my $fh, '<', $pidfile) or return ();
	my $postmaster = <$fh>;
	close $fh;
	chomp $postmaster;
	my %children;
	for my $stat (glob '/proc/[0-9]*/stat')
	{
		open(my $sf, '<', $stat) or next;
		my $line = <$sf>;
		close $sf;
		next unless defined $line && $line =~ /^(\d+) \(.*\) \S+ (\d+) /s;
		push @{ $children{$2} }, $1;
	}
	my @tree = ($postmaster);
	for (my $i = 0; $i < @tree; $i++)
	{
		push @tree, @{ $children{ $tree[$i] } // [] };
	}
	return @tree;
}

sub _process_gone
{
	my ($pid) = @_;
	return 1 unless kill 0, $pid;
	open(my $sf, '<', "/proc/$pid/stat") or return 1;
	my $line = <$sf>;
	close $sf;
	# a zombie holds no resources: its parent died with the server
	return defined $line && $line =~ /^\d+ \(.*\) Z /s;
}

# A postmaster outlives the pg_ctl that started it, so its parent is init.
# Where init does not reap orphans, a killed postmaster stays a zombie and
# its pid keeps postmaster.pid "in use", so the server cannot start again.
# Making the test the reaper of its orphaned descendants (Linux) lets
# kill9_all() reap them itself.  Call it before starting the node.
sub reap_orphans_here
{
	require 'syscall.ph';    # defines SYS_prctl in this package
	my $prctl = __PACKAGE__->can('SYS_prctl') or return 0;
	# prctl(PR_SET_CHILD_SUBREAPER, 1)
	return syscall($prctl->(), 36, 1, 0, 0, 0) == 0;
}

# Kills the whole server at one instant, as a power cut would: every process
# is stopped first, so none of them sees the others die and reacts, then all
# get SIGKILL.  Returns the number of processes killed.
sub kill9_all
{
	my ($node) = @_;
	my @tree = _postmaster_tree($node);
	die "no running postmaster for node " . $node->name unless @tree;
	kill 'STOP', @tree;
	kill 'KILL', @tree[ 1 .. $#tree ];
	$node->kill9;    # the postmaster, and the node object learns it is down
	for my $try (1 .. 300)
	{
		# those that became this process's children (reap_orphans_here)
		waitpid($_, 1) for @tree;    # 1 = WNOHANG
		last unless grep { kill 0, $_ } @tree;
		select(undef, undef, undef, 0.05);
	}
	my @left = grep { !_process_gone($_) } @tree;
	die "processes survived SIGKILL: @left" if @left;
	die "the killed postmaster $tree[0] is a zombie nobody reaps: "
	  . "call reap_orphans_here() before starting the node"
	  if kill 0, $tree[0];
	return scalar @tree;
}

# The header of pg_walsizer.state (layout version 1: see state_format.c), as
# a hash, or undef when the file is absent or too short.
sub state_file_header
{
	my ($node) = @_;
	my $file = $node->data_dir . '/pg_walsizer.state';
	open(my $fh, '<:raw', $file) or return undef;
	my $got = read($fh, my $buf, 48);
	close $fh;
	return undef unless defined $got && $got == 48;
	my ($magic, $version, $count, undef, $baseline, $last_set, $intent,
		$total) = unpack('V V V V q< q< q< Q<', $buf);
	return {
		magic => $magic, version => $version, count => $count,
		baseline_mb => $baseline, last_set_mb => $last_set,
		intent_mb => $intent, decisions_total => $total };
}

# pgbench in the background against database postgres; finish_pgbench()
# waits for it and returns (exit status, stdout, stderr).
sub start_pgbench
{
	my ($node, @args) = @_;
	my $run = { out => '', err => '', started => time() };
	$run->{handle} = IPC::Run::start(
		[ 'pgbench', '-n', @args, '-h', $node->host, '-p', $node->port,
		  'postgres' ],
		'>', \$run->{out}, '2>', \$run->{err});
	return $run;
}

sub finish_pgbench
{
	my ($run) = @_;
	$run->{handle}->finish;
	return ($run->{handle}->result(0), $run->{out}, $run->{err});
}

# How many times a pattern occurs in the server log from byte offset $from.
sub log_count
{
	my ($node, $re, $from) = @_;
	my $log = slurp_file($node->logfile, $from // 0);
	my $count = 0;
	$count++ while $log =~ /$re/g;
	return $count;
}

# A setting as the server runs it, in its base unit (MB for max_wal_size).
sub setting_mb
{
	my ($node, $name) = @_;
	return $node->safe_psql('postgres',
		"SELECT setting FROM pg_settings WHERE name = '$name'");
}

# Polls a boolean SQL expression for at most $seconds; true once it held.
# Unlike wait_for() it asserts nothing, so a test can say what it expected.
sub poll_until
{
	my ($node, $condition, $seconds) = @_;
	my $deadline = time() + $seconds;
	while (1)
	{
		return behind(1)
		  if $node->safe_psql('postgres', "SELECT ($condition)") eq 't';
		return 0 if time() >= $deadline;
		select(undef, undef, undef, 0.2);
	}
}

# pgbench in the background (arguments as for start_pgbench(), without -T)
# until a boolean SQL expression holds, for at most $seconds, then stopped;
# true once it held.  A load that must make walsizer act runs until it has,
# not for a fixed time: a slower machine writes the same WAL more slowly.
sub pgbench_until
{
	my ($node, $condition, $seconds, @args) = @_;
	my $run = start_pgbench($node, @args, '-T', int($seconds) + 10);
	my $held = poll_until($node, $condition, $seconds);
	$run->{handle}->kill_kill;
	return $held;
}

# pg_walsizer_advisor as installed (make install puts it in pg_config
# --bindir, which installcheck puts first on PATH).
sub advisor_path
{
	# run-suites.sh --tap-only installs the build elsewhere and says where
	return $ENV{WALSIZER_ADVISOR} if $ENV{WALSIZER_ADVISOR};
	my $bindir = `pg_config --bindir`;
	chomp $bindir;
	my $path = "$bindir/pg_walsizer_advisor";
	BAIL_OUT("pg_walsizer_advisor is not installed in $bindir") unless -x $path;
	return $path;
}

# Runs the advisor; returns (exit status, stdout, stderr).
sub run_advisor
{
	my @args = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ advisor_path(), @args ], '<', \undef, '>', \$out, '2>', \$err);
	return ($? >> 8, $out, $err);
}

# --- Fixed-rate loads ------------------------------------------------------

push @EXPORT, qw(start_fixed_rate_pgbench stop_pgbench fixed_rate_held log_timed_starts
  growth_judged);

# pgbench at a fixed rate (-R, transactions per second) in the background,
# with a progress line every 5 s: its WAL rate is a property of the rate,
# not of how fast the machine is, as long as the machine sustains it (see
# fixed_rate_held()).  finish_pgbench() or stop_pgbench() ends it.
sub start_fixed_rate_pgbench
{
	my ($node, $rate, $seconds, @extra) = @_;
	return start_pgbench($node, '-R', $rate, '-P', 5, '-T', $seconds, @extra);
}

# Ends a background pgbench at once, keeping what it printed so far (its
# progress lines are still in the pipe: a kill alone would drop them).
sub stop_pgbench
{
	my ($run) = @_;
	$run->{handle}->pump_nb for 1 .. 3;
	$run->{handle}->kill_kill;
	return;
}

# Asserts that a fixed-rate load, once ended, ran at its rate: the mean of
# its progress lines at least 0.9 of it (pgbench catches up on a schedule
# it fell behind, so a short stall costs nothing; a machine too slow for
# the rate fails here, not in a comparison of sizes).  With $until (a
# time() the caller noted), only the progress lines up to it count: the
# part of the load a comparison was made on, not what ran after it.
# Returns the mean.
sub fixed_rate_held
{
	my ($run, $rate, $what, $until) = @_;
	my $last_s = defined $until ? $until - $run->{started} : undef;
	my @tps;
	my $max_lag = 0;
	while ($run->{err} =~ /^progress: ([\d.]+) s, ([\d.]+) tps.*?lag ([\d.]+) ms/mg)
	{
		last if defined $last_s && $1 > $last_s;
		push @tps, $2;
		$max_lag = $3 if $3 > $max_lag;
	}
	my $mean = 0;
	$mean += $_ / @tps for @tps;
	ok(@tps && $mean >= 0.9 * $rate,
		sprintf('%s: the load held its %d tps (mean %.0f over %d progress lines, '
			  . 'schedule lag at most %.0f ms)', $what, $rate, $mean, scalar @tps, $max_lag))
	  or diag(substr($run->{err}, -2000));
	return $mean;
}

# Timed checkpoints started in the log from byte offset $from.
sub log_timed_starts
{
	my ($node, $from) = @_;
	return log_count($node, qr/checkpoint starting: time\b/, $from);
}

# Whether the worker has judged its last growth, polled with a hash the
# caller keeps ($track; $track->{size} is then the size judged).  Every
# growth is provisional until two whole timed checkpoint cycles were
# measured at it (SETTLE_MIN_TIMED_CYCLES in policy_shrink.c); at the next window
# end the worker either settles it down (a 'settling' decision) or keeps
# it without a decision.  So: true once the size is above $from_mb and
# either the last change was a settling the server runs, or three timed
# checkpoints started since the size was seen to change (two whole cycles
# between them) and a window ended after the third with no change.  This
# follows the server's own cadence, whatever the machine's speed.  The
# worker records a decision before it publishes the window's end
# (walsizer_act() before walsizer_publish()), so a change made at that
# window end is seen here even before this backend reloads the setting.
sub growth_judged
{
	my ($node, $track, $from_mb) = @_;
	my $size = setting_mb($node, 'max_wal_size');
	if (!defined $track->{size} || $size != $track->{size})
	{
		%$track = (size => $size, log_offset => -s $node->logfile);
		return 0;
	}
	return 0 if $size <= $from_mb;
	my $ended = defined $track->{third_at}
	  && status_value($node, "last_check_at > '$track->{third_at}'") eq 't';
	my ($last_mb, $settling) = split /\|/, $node->safe_psql('postgres',
		"SELECT new_mb, reason LIKE 'settling%' FROM walsizer.decisions "
		  . "WHERE action IN ('grow', 'capped', 'shrink') ORDER BY at DESC LIMIT 1");
	# a change this backend does not run yet: the next poll starts over
	return 0 if defined $last_mb && $last_mb != $size;
	return 1 if defined $settling && $settling eq 't';
	return 1 if $ended;
	if (!defined $track->{third_at}
		&& log_timed_starts($node, $track->{log_offset}) >= 3)
	{
		$track->{third_at} = $node->safe_psql('postgres', 'SELECT now()');
	}
	return 0;
}

# --- Holding the worker still ----------------------------------------------
#
# A test that needs the worker in a state when it acts ("a shrink is due
# but has not happened") puts it there by construction: it holds the
# actions that would move the worker past that state, waits until the
# worker has decided one of them (and was held), acts, and releases.  A
# held decision is neither written nor recorded, and is decided again on
# fresh figures after the release (src/server/test_hold.c).  The hold
# lives in shared memory and is set by a SQL call, never by a reload
# (which would apply the very DBA change under test); a restart drops it.
#
# WALSIZER_TEST_BEHIND=N proves that no test relies on being quicker than
# the worker: every wait for a server or worker state then sleeps N more
# seconds once it holds, so the worker always gets ahead of the test's
# next step.  Every file passes in that mode (TESTING.md).

push @EXPORT, qw(hold_worker release_worker wait_until_held behind);

# Sleeps WALSIZER_TEST_BEHIND seconds (0 by default); returns @_.
sub behind
{
	my $seconds = $ENV{WALSIZER_TEST_BEHIND} // 0;
	sleep $seconds if $seconds > 0;
	return wantarray ? @_ : $_[0];
}

# Every wait of PostgreSQL::Test::Cluster that held (wait_for() polls
# with it) falls behind too.
if ($ENV{WALSIZER_TEST_BEHIND})
{
	no warnings 'redefine';
	for my $name (qw(poll_query_until wait_for_log))
	{
		my $wait = PostgreSQL::Test::Cluster->can($name);
		no strict 'refs';
		*{"PostgreSQL::Test::Cluster::$name"} = sub {
			my $held = $wait->(@_);
			return $held ? behind($held) : $held;
		};
	}
}

# The test-only functions of the library (not in the extension's SQL
# API), created on first use in database postgres.
sub _hold_functions
{
	my ($node) = @_;
	$node->safe_psql('postgres', q{
		CREATE OR REPLACE FUNCTION public.walsizer_test_hold(text) RETURNS void
		  LANGUAGE C STRICT AS 'pg_walsizer', 'walsizer_test_hold';
		CREATE OR REPLACE FUNCTION public.walsizer_test_held(text) RETURNS bigint
		  LANGUAGE C STRICT AS 'pg_walsizer', 'walsizer_test_held';
	});
	return;
}

# Holds decisions of the actions named (grow, shrink, protect, adopt, ...)
# and only those, and starts counting the held ones afresh.
sub hold_worker
{
	my ($node, @actions) = @_;
	_hold_functions($node);
	my $list = join(',', @actions);
	$node->safe_psql('postgres', "SELECT walsizer_test_hold('$list')");
	return;
}

# Releases every hold: the worker decides again at its next sample.
sub release_worker
{
	my ($node) = @_;
	return hold_worker($node);
}

# Waits until the worker decided a change of $action and was held: that
# change is then due, and has not happened.  Bounded by $seconds (300 by
# default: a shrink comes only after the load left the peak rate's
# horizon and quiet windows, 3.5 minutes on a loaded machine).
sub wait_until_held
{
	my ($node, $action, $what, $seconds) = @_;
	ok(poll_until($node, "walsizer_test_held('$action') > 0", $seconds // 300),
		$what // "a $action is due, and held")
	  or note_decisions($node);
	return;
}

# Waits until the worker has ended $windows more windows, counted one by
# one (each a whole walsizer.interval: check_now() would end them early,
# and such a window is not a quiet one): what it would wrongly do at a look
# or a window end has then had that many chances, however slow the
# machine, so a check that it did nothing cannot pass only because the
# worker had not got there yet.
sub windows_end
{
	my ($node, $windows, $what) = @_;
	my $sql = "SELECT coalesce(last_check_at, '-infinity') FROM walsizer.status";
	my $last = $node->safe_psql('postgres', $sql);
	my ($ended, $deadline) = (0, time() + 60 + 10 * $windows);
	while ($ended < $windows && time() < $deadline)
	{
		my $now = $node->safe_psql('postgres', $sql);
		if ($now ne $last)
		{
			($ended, $last) = ($ended + 1, $now);
			next;
		}
		select(undef, undef, undef, 0.1);
	}
	ok($ended >= $windows, $what // "$windows more windows ended");
	return behind(1);
}
push @EXPORT, qw(windows_end);

# The tmpfs the test runner mounted for tests that fill a filesystem
# (WALSIZER_TEST_TMPFS). Without one the test skips, but a
# WALSIZER_TEST_TMPFS that names an unusable one is a mistake, and
# test/run-suites.sh, which mounts one, sets WALSIZER_REQUIRE_TMPFS: there a
# skip would only hide that the test never ran. Both fail instead (and
# exit). Returns the tmpfs's path.
sub test_tmpfs
{
	my $fs = $ENV{WALSIZER_TEST_TMPFS};
	my $problem =
	    !defined $fs || $fs eq '' ? 'WALSIZER_TEST_TMPFS is not set: needs a tmpfs mounted by the test runner'
	  : !-d $fs || !-w $fs ? "WALSIZER_TEST_TMPFS=$fs is not a writable directory"
	  : `stat -f -c %T '$fs'` !~ /^tmpfs$/m ? "WALSIZER_TEST_TMPFS=$fs is not a tmpfs"
	  : undef;
	return $fs unless defined $problem;
	plan(skip_all => $problem)
	  unless $ENV{WALSIZER_REQUIRE_TMPFS} || ($fs // '') ne '';
	plan(tests => 1);
	fail($problem . ($ENV{WALSIZER_REQUIRE_TMPFS} ? ' (WALSIZER_REQUIRE_TMPFS is set)' : ''));
	exit;
}
push @EXPORT, qw(test_tmpfs);


# Every metric the exporters serve from walsizer.status, each with the SQL
# over that view that gives its value, written here and not copied from
# the exporters' configurations (so a wrong column, unit or conversion
# there shows against it): test/t/240 (postgres_exporter)
# and test/t/245 (prometheus-sql-exporter) compare their scrapes with it.
# A metric added to the queries file is added here, once.
sub metric_sql_from_status
{
	return (walsizer_worker_up => 'CASE WHEN worker_pid IS NULL THEN 0 ELSE 1 END',
		walsizer_enabled => 'CASE WHEN enabled THEN 1 ELSE 0 END',
		walsizer_dry_run => 'CASE WHEN dry_run THEN 1 ELSE 0 END',
		walsizer_max_wal_size_bytes => 'max_wal_size_mb * 1024 * 1024',
		walsizer_cap_bytes => 'cap_mb * 1024 * 1024',
		walsizer_floor_bytes => 'floor_mb * 1024 * 1024',
		walsizer_needed_bytes => 'needed_mb * 1024 * 1024',
		walsizer_pending_bytes => 'CASE WHEN pending_mb IS NULL THEN 0 ELSE pending_mb * 1024 * 1024 END',
		walsizer_shadowed_max_wal_size_bytes =>
		  'CASE WHEN shadowed_max_wal_size_mb IS NULL THEN 0 ELSE shadowed_max_wal_size_mb * 1024 * 1024 END',
		walsizer_window_seconds => 'window_s',
		walsizer_last_check_timestamp_seconds => 'date_part(\'epoch\', last_check_at)',
		walsizer_checkpoints_timed_total => 'total_timed',
		walsizer_checkpoints_requested_total => 'total_requested',
		walsizer_checkpoints_wal_forced_total => 'total_wal_forced',
		walsizer_wal_bytes_total => 'total_wal_bytes',
		walsizer_wal_rate_bytes_per_second => 'wal_rate_bytes_per_s',
		walsizer_peak_wal_rate_bytes_per_second => 'peak_wal_rate_bytes_per_s',
		walsizer_record_rate_bytes_per_second => 'record_rate_bytes_per_s',
		walsizer_wal_since_redo_bytes => 'wal_since_redo_bytes',
		walsizer_trigger_bytes => 'trigger_bytes',
		walsizer_projected_bytes => 'projected_bytes',
		walsizer_projected_fill_ratio => 'CASE WHEN trigger_bytes > 0 THEN projected_bytes::float8 / trigger_bytes ELSE 0 END',
		walsizer_alter_system_blocked => 'CASE WHEN blocked THEN 1 ELSE 0 END',
		walsizer_estimated_recovery_seconds => 'estimated_recovery_s',
		walsizer_replay_rate_bytes_per_second => 'replay_rate_bytes_per_s',
		walsizer_max_recovery_time_seconds =>
		  "(SELECT setting FROM pg_settings WHERE name = 'walsizer.max_recovery_time')",
		walsizer_change_failing_since_timestamp_seconds =>
		  "CASE WHEN failing_since IS NULL THEN 0 ELSE date_part('epoch', failing_since) END",
		walsizer_wal_held_bytes => 'CASE WHEN wal_held_bytes IS NULL THEN 0 ELSE wal_held_bytes END',
		walsizer_status_info => '1');
}

# The actions walsizer_decisions_total has a series for, one each.
sub decision_actions
{
	return qw(grow capped shrink protect advise adopt error blocked unconfirmed);
}

1;
