# walsizer-test: long
# walsizer-test: minutes 5
# (about 6 minutes, most of it fixed-rate load: runs on 15, where
# test/pg-matrix.sh installs Debian 12's patroni and etcd, and on the newest
# major, whose sid chroot test/chroot.sh gives them; without them it skips)
#
# pg_walsizer under Patroni (Debian 12's 3.0.2, sid's 4.1.5) with etcd (3.4,
# 3.5), two nodes,
# every service on 127.0.0.1 and started and stopped by this test.  The
# library is preloaded through Patroni's postgresql.parameters (the DCS),
# max_wal_size 64 MB there too.  Under a fixed-rate pgbench on the leader:
# the leader grows, with at most 1 checkpoint forced by WAL after its first
# growth; the replica sizes itself for the WAL it replays (a growth made as
# a standby).  A switchover (patronictl switchover), then a failover (the
# leader's Patroni and PostgreSQL SIGKILLed), each forces at most 1
# checkpoint on the new leader under the same load, counted in its log
# before any DBA edit, so that what the new leader runs is its own size as
# a standby.  Then `patronictl edit-config` sets max_wal_size = 3GB in the
# DCS: both nodes adopt it as the DBA's value (an `adopt` decision, 3072 MB
# running).  Patroni never has a restart pending and logs no restart,
# reinitialisation or rewind while only pg_walsizer acts (the failover's
# own recovery of the killed node, a pg_rewind, is noted, not counted).
# Last, for comparison and only noted: the replica's worker off and its
# max_wal_size the DCS's 64 MB again, a switchover to it under the same
# load, and the checkpoints WAL forces there.  Every figure is in the test's log
# (note lines; the last one starts with "figures:").
#
# walsizer.shrink_after = 100 (5 minutes of quiet windows): the seconds
# without load while the leader changes shrink nothing.
#
# Without /usr/bin/patroni, /usr/bin/patronictl or /usr/bin/etcd the test
# skips, unless WALSIZER_REQUIRE_PATRONI=1 (test/run-suites.sh sets it
# where they are installed): there a skip would hide that it never ran.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use File::Basename qw(dirname basename);
use HTTP::Tiny;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my %tool = (patroni => '/usr/bin/patroni', patronictl => '/usr/bin/patronictl',
	etcd => '/usr/bin/etcd');
my @missing = grep { !-x $tool{$_} } sort keys %tool;
if (@missing)
{
	my $why = join(', ', map { $tool{$_} } @missing)
	  . ' not installed (Debian: apt-get install patroni etcd-server etcd-client)';
	plan skip_all => $why unless $ENV{WALSIZER_REQUIRE_PATRONI};
	plan tests => 1;
	fail("$why, and WALSIZER_REQUIRE_PATRONI is set");
	exit;
}

my $timeout_s = 30;    # checkpoint_timeout
my $window_s = 3;      # walsizer.interval
# The load: pgbench at scale 10, 4 clients, 150 transactions per second:
# 2 to 3 MB of WAL per second at 64 MB, so checkpoints forced by WAL every
# few seconds there; under a tenth of what this 2-core machine runs idle,
# so a busy machine still sustains it (fixed_rate_held() checks).
my $rate = 150;
my $measure_s = 2 * $timeout_s;    # the load after a switchover or failover
my $scope = 'walsizer290';

my $bindir = `pg_config --bindir`;
chomp $bindir;
my $user = getpwuid($<);
my $tmp = PostgreSQL::Test::Utils::tempdir('patroni');
my $http = HTTP::Tiny->new(timeout => 5);

# The private install of run-suites.sh --tap-only (TEMP_CONFIG: Debian's
# extension_destdir or extension_control_path, dynamic_library_path), as
# Patroni parameters of each node.
my %private;
if ($ENV{TEMP_CONFIG} && -f $ENV{TEMP_CONFIG})
{
	for my $line (split /\n/, slurp_file($ENV{TEMP_CONFIG}))
	{
		$private{$1} = $2 if $line =~ /^\s*(\w+)\s*=\s*'(.*)'\s*$/;
	}
}

# --- etcd ---------------------------------------------------------------
my $etcd_port = PostgreSQL::Test::Cluster::get_free_port();
my $etcd_peer = PostgreSQL::Test::Cluster::get_free_port();
my $etcd_log = "$PostgreSQL::Test::Utils::log_path/290_etcd.log";
my $etcd = IPC::Run::start(
	[ $tool{etcd}, '--name', 'etcd1', '--data-dir', "$tmp/etcd",
	  '--listen-client-urls', "http://127.0.0.1:$etcd_port",
	  '--advertise-client-urls', "http://127.0.0.1:$etcd_port",
	  '--listen-peer-urls', "http://127.0.0.1:$etcd_peer",
	  '--initial-advertise-peer-urls', "http://127.0.0.1:$etcd_peer",
	  '--initial-cluster', "etcd1=http://127.0.0.1:$etcd_peer",
	  '--initial-cluster-state', 'new', '--enable-v2=false' ],
	'<', \undef, '>', $etcd_log, '2>&1');
ok(until_true(30, sub { my $r = $http->get("http://127.0.0.1:$etcd_port/health");
			$r->{success} && $r->{content} =~ /"health":\s*"true"/ }),
	"etcd answers on 127.0.0.1:$etcd_port");

# --- the two nodes --------------------------------------------------------
# Cluster objects only for their ports, data directories, sockets and log
# files (so safe_psql, setting_mb, decision_rows, log_count work): Patroni
# initialises, starts and stops the servers.
my %node;
for my $name (qw(node1 node2))
{
	my $pg = PostgreSQL::Test::Cluster->new($name);
	my $n = { name => $name, pg => $pg,
		rest => PostgreSQL::Test::Cluster::get_free_port(),
		conf => "$tmp/$name.yml",
		log => "$PostgreSQL::Test::Utils::log_path/290_patroni_daemon_$name.log" };
	write_patroni_conf($n);
	$node{$name} = $n;
}
my ($n1, $n2) = @node{qw(node1 node2)};

# 1. The leader: bootstrapped with walsizer.enable = off while pgbench's
# tables are created (that load is not what is measured), then the
# replica is built from it, then the worker is switched on through the DCS.
start_patroni($n1);
ok(until_true(120, sub { is_leader($n1) }), 'node1 is bootstrapped and leads')
  or bail('node1 did not become the leader');
wait_for($n1->{pg}, 'SELECT NOT pg_is_in_recovery()', 'node1 accepts writes');
$n1->{pg}->safe_psql('postgres', 'CREATE EXTENSION pg_walsizer');
is(setting_mb($n1->{pg}, 'max_wal_size'), 64, 'node1 runs the DCS\'s 64 MB');
$n1->{pg}->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $n1->{pg}->host,
	'-p', $n1->{pg}->port, 'postgres' ], 'pgbench tables created on node1');
$n1->{pg}->safe_psql('postgres', 'CHECKPOINT');

start_patroni($n2);
ok(until_true(180, sub { is_streaming_replica($n2) }),
	'node2 is built by Patroni (pg_basebackup) and streams from node1')
  or bail('node2 did not become a streaming replica');
wait_for($n2->{pg}, 'SELECT pg_is_in_recovery()', 'node2 is in recovery');

patronictl($n1, 'edit-config', '-s', "postgresql.parameters.walsizer.enable='on'", '--force', $scope);
for my $n ($n1, $n2)
{
	wait_for($n->{pg}, "SELECT enabled AND last_check_at IS NOT NULL FROM walsizer.status",
		"$n->{name}: Patroni's reload switched the worker on");
}
is(status_value($n2->{pg}, 'role'), 'standby', 'node2: status() says standby');
is(setting_mb($n2->{pg}, 'max_wal_size'), 64, 'node2 starts at 64 MB');
my @patroni_pass = patroni_log_offsets();

# 2. The load on the leader, until the leader has grown and the replica has
# sized itself as a standby, and then a while: 2 checkpoint_timeouts after
# the leader's first growth.  The load then moves to each new leader as
# soon as it leads, as an application's would.
my $standby_growth = "SELECT EXISTS (SELECT FROM walsizer.decisions WHERE role = 'standby' "
  . "AND action IN ('grow', 'capped') AND new_mb > old_mb)";
my $load = start_fixed_rate_pgbench($n1->{pg}, $rate, 40 * $timeout_s, '-c', 4, '-j', 2);
my ($first_growth_offset, $first_growth_at, $replica_at);
my $deadline = time() + 12 * $timeout_s;
while (time() < $deadline)
{
	if (!defined $first_growth_offset
		&& $n1->{pg}->safe_psql('postgres',
			'SELECT EXISTS (SELECT FROM walsizer.decisions WHERE ' . growth_sql() . ')') eq 't')
	{
		($first_growth_offset, $first_growth_at) = (-s $n1->{pg}->logfile, time());
	}
	$replica_at //= time() if $n2->{pg}->safe_psql('postgres', $standby_growth) eq 't';
	last if defined $first_growth_at && defined $replica_at
	  && time() - $first_growth_at >= 2 * $timeout_s;
	sleep 1;
}
ok(defined $first_growth_at, 'node1 (leader) grew under the load');
ok(defined $replica_at, 'node2 (replica) grew as a standby for the WAL it replays');
my $leader_forced = wal_forced_checkpoints($n1->{pg}, $first_growth_offset // 0);
cmp_ok($leader_forced, '<=', 1, "node1: $leader_forced checkpoints forced by WAL after its first growth");
my %size = (leader => setting_mb($n1->{pg}, 'max_wal_size'),
	replica => setting_mb($n2->{pg}, 'max_wal_size'));
cmp_ok($size{replica}, '>', 64, "node2 sized itself: $size{replica} MB (node1 $size{leader} MB)");
note_decisions($n1->{pg}, 'node1 decisions (leader)');
note_decisions($n2->{pg}, 'node2 decisions (replica)');
check_patroni_quiet('under load', @patroni_pass);

# 3. Switchover to node2; the load moves to it.
my $n2_offset = -s $n2->{pg}->logfile;
my $n2_size_before = setting_mb($n2->{pg}, 'max_wal_size');
my $switch_at = time();
patronictl($n1, 'switchover', '--leader', 'node1', '--candidate', 'node2', '--force', $scope);
ok(until_true(120, sub { is_leader($n2) && $n2->{pg}->safe_psql('postgres',
				'SELECT NOT pg_is_in_recovery()') eq 't' }), 'switchover: node2 leads')
  or bail('the switchover did not complete');
end_load($load);
fixed_rate_held($load, $rate, 'on node1', $switch_at);
$load = start_fixed_rate_pgbench($n2->{pg}, $rate, 40 * $timeout_s, '-c', 4, '-j', 2);
my $moved_at = time();
note(sprintf('the load runs on node2 %.0f s after the switchover began', $moved_at - $switch_at));
# the size it had as a replica (test 120 checks that it is kept exactly;
# here a settling as a standby in the seconds before may have moved it)
$size{switchover_start} = setting_mb($n2->{pg}, 'max_wal_size');
cmp_ok($size{switchover_start}, '>', 64,
	"node2 leads at $size{switchover_start} MB ($n2_size_before MB before the switchover)");
ok(until_true(120, sub { is_streaming_replica($n1) }), 'node1 streams from node2')
  or bail('node1 did not follow node2');
my @switch_lines = patroni_lines_since($n1, $patroni_pass[0]);
note("node1's Patroni during the switchover: " . (@switch_lines ? '' : 'nothing about restart, reinit or rewind'));
note("  $_") for @switch_lines;
@patroni_pass = patroni_log_offsets();
my $switchover_forced = measure_new_leader($n2, $n2_offset, $moved_at, 'after the switchover');
$size{after_switchover} = setting_mb($n2->{pg}, 'max_wal_size');
$size{node1_replica} = setting_mb($n1->{pg}, 'max_wal_size');
check_patroni_quiet('after the switchover', @patroni_pass);

# 4. Failover: node2's Patroni and PostgreSQL are SIGKILLed under the load;
# node1 takes the leader key when its TTL ends, and the load moves to it.
my $n1_offset = -s $n1->{pg}->logfile;
my $n1_size_before = setting_mb($n1->{pg}, 'max_wal_size');
my $killed_at = time();
kill_node($n2);
end_load($load);
fixed_rate_held($load, $rate, 'on node2', $killed_at);
ok(until_true(120, sub { is_leader($n1) && $n1->{pg}->safe_psql('postgres',
				'SELECT NOT pg_is_in_recovery()') eq 't' }), 'failover: node1 takes the leader key')
  or bail('node1 did not take over');
$load = start_fixed_rate_pgbench($n1->{pg}, $rate, 40 * $timeout_s, '-c', 4, '-j', 2);
$moved_at = time();
note(sprintf('node1 leads and runs the load %.0f s after node2 was killed', $moved_at - $killed_at));
$size{failover_start} = setting_mb($n1->{pg}, 'max_wal_size');
cmp_ok($size{failover_start}, '>', 64,
	"node1 leads at $size{failover_start} MB ($n1_size_before MB before the failover)");
my $failover_forced = measure_new_leader($n1, $n1_offset, $moved_at, 'after the failover');
$size{after_failover} = setting_mb($n1->{pg}, 'max_wal_size');

# node2 rejoins: Patroni recovers the killed server (and may rewind it:
# that is the failover's doing, not pg_walsizer's) and makes it a replica
my $rejoin_offset = -s $n2->{log};
start_patroni($n2);
ok(until_true(180, sub { is_streaming_replica($n2) }), 'node2 rejoins as a replica')
  or bail('node2 did not rejoin');
my @rejoin_lines = patroni_lines_since($n2, $rejoin_offset);
note("node2's Patroni while it rejoined: " . (@rejoin_lines ? '' : 'nothing about restart, reinit or rewind'));
note("  $_") for @rejoin_lines;
@patroni_pass = patroni_log_offsets();

# 5. The DBA's value through the DCS, under the load: adopted on both nodes.
my @edit_offsets = map { -s $_->{pg}->logfile } $n1, $n2;
my $edit_at = $n1->{pg}->safe_psql('postgres', 'SELECT clock_timestamp()');
patronictl($n1, 'edit-config', '-s', 'postgresql.parameters.max_wal_size=3GB', '--force', $scope);
for my $n ($n1, $n2)
{
	my $name = $n->{name};
	wait_for($n->{pg}, "SELECT max_wal_size_mb = 3072 FROM walsizer.status",
		"$name: status() shows the DCS's 3 GB");
	ok(poll_until($n->{pg}, "EXISTS (SELECT FROM walsizer.decisions "
			. "WHERE action = 'adopt' AND new_mb = 3072 AND at > '$edit_at')", 30),
		"$name: recorded as adopted (the DBA's value)");
	is(setting_mb($n->{pg}, 'max_wal_size'), 3072, "$name runs 3072 MB");
	my ($adopt) = decision_rows($n->{pg}, "action = 'adopt' AND new_mb = 3072");
	note("$name: $adopt->{reason}") if $adopt;
}
for my $n ($n1, $n2)
{
	is(log_count($n->{pg}, qr/WARNING:.*pg_walsizer/, shift @edit_offsets), 0,
		"$n->{name}: no pg_walsizer WARNING for the DCS change");
}
sleep 4;    # two of Patroni's loop_waits: a restart it wanted would show
check_patroni_quiet('after edit-config', @patroni_pass);
for my $n ($n1, $n2)
{
	my $state = patroni_state($n);
	is($state && $state->{state}, 'running', "$n->{name}: Patroni says running");
}

# 6. For comparison, what the new leader would have without its worker:
# node2's worker off, the DCS back to 64 MB and node2's own value reset
# (so it runs the DCS's, as without pg_walsizer), then a switchover to
# node2 under the same load.  Recorded, not asserted.  (With its worker on,
# node2 would adopt the 64 MB and grow again for what it replays.)
$n2->{pg}->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = off');
$n2->{pg}->safe_psql('postgres', 'SELECT pg_reload_conf()');
wait_for($n2->{pg}, 'SELECT NOT enabled FROM walsizer.status', "node2's worker is off");
patronictl($n1, 'edit-config', '-s', 'postgresql.parameters.max_wal_size=64MB', '--force', $scope);
ok(until_true(30, sub { slurp_file($n2->{pg}->data_dir . '/postgresql.conf') =~ /^max_wal_size = '64MB'/m }),
	"Patroni wrote the DCS's 64 MB into node2's postgresql.conf");
$n2->{pg}->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
$n2->{pg}->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok(poll_until($n2->{pg}, "current_setting('max_wal_size') = '64MB'", 30), 'node2 runs 64 MB');
$n2_offset = -s $n2->{pg}->logfile;
$switch_at = time();
patronictl($n1, 'switchover', '--leader', 'node1', '--candidate', 'node2', '--force', $scope);
ok(until_true(120, sub { is_leader($n2) && $n2->{pg}->safe_psql('postgres',
				'SELECT NOT pg_is_in_recovery()') eq 't' }), 'switchover: node2 leads, without its worker')
  or bail('the second switchover did not complete');
end_load($load);
$load = start_fixed_rate_pgbench($n2->{pg}, $rate, 40 * $timeout_s, '-c', 4, '-j', 2);
$moved_at = time();
sleep 1 while time() < $moved_at + $measure_s;
eval { $load->{handle}->pump_nb for 1 .. 3; };
fixed_rate_held($load, $rate, 'node2 without its worker', time());
end_load($load);
my $off_forced = wal_forced_checkpoints($n2->{pg}, $n2_offset);
my $off_all = log_count($n2->{pg}, qr/checkpoint starting:/, $n2_offset);
note("without its worker, node2 after the switchover: $off_forced of $off_all checkpoints "
	  . "forced by WAL in $measure_s s at " . setting_mb($n2->{pg}, 'max_wal_size') . ' MB');

note(sprintf('figures: node1 (leader) %d MB with %d forced checkpoints after its first growth; '
	  . 'node2 (replica) %d MB; after the switchover node2 %d MB, %d checkpoints forced by WAL in %d s '
	  . '(node1 as replica %d MB); after the failover node1 %d MB, %d forced in %d s',
	$size{leader}, $leader_forced, $size{replica}, $size{after_switchover}, $switchover_forced,
	$measure_s, $size{node1_replica}, $size{after_failover}, $failover_forced, $measure_s)
	  . "; without the replica's worker, $off_forced forced in $measure_s s at 64 MB");

stop_everything();
done_testing();

# --- helpers ---------------------------------------------------------------

sub until_true
{
	my ($seconds, $check) = @_;
	my $until = time() + $seconds;
	while (1)
	{
		return 1 if eval { $check->() };
		return 0 if time() >= $until;
		sleep 0.5;
	}
}

sub bail
{
	my ($why) = @_;
	diag($why);
	stop_everything();
	done_testing();
	exit 1;
}

sub write_patroni_conf
{
	my ($n) = @_;
	my $pg = $n->{pg};
	my $q = sub { my $v = shift; $v =~ s/'/''/g; "'$v'" };
	my $local = join '', map { "    $_: " . $q->($private{$_}) . "\n" } sort keys %private;
	my $rest = $n->{rest};
	my $port = $pg->port;
	my $log_dir = dirname($pg->logfile);
	my $log_file = basename($pg->logfile);
	my $yml = <<"EOF";
scope: $scope
name: $n->{name}
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$rest
  connect_address: 127.0.0.1:$rest
etcd3:
  hosts: 127.0.0.1:$etcd_port
watchdog:
  mode: 'off'
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1073741824
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        shared_preload_libraries: pg_walsizer
        max_wal_size: 64MB
        min_wal_size: 32MB
        checkpoint_timeout: ${timeout_s}s
        checkpoint_completion_target: 0.9
        log_checkpoints: 'on'
        wal_log_hints: 'on'
        shared_buffers: 128MB
        autovacuum: 'off'
        max_connections: 30
        walsizer.enable: 'off'
        walsizer.interval: ${window_s}s
        walsizer.sample_interval: 200ms
        walsizer.shrink_after: 100
  initdb:
  - encoding: UTF8
  - locale: C
postgresql:
  listen: 127.0.0.1:$port
  connect_address: 127.0.0.1:$port
  use_unix_socket: true
  data_dir: ${\ $pg->data_dir}
  bin_dir: $bindir
  pgpass: $tmp/pgpass_$n->{name}
  authentication:
    superuser:
      username: $user
    replication:
      username: replicator
      password: rep
  pg_hba:
  - local all all trust
  - local replication all trust
  - host all all 127.0.0.1/32 trust
  - host replication all 127.0.0.1/32 trust
  parameters:
    unix_socket_directories: '${\ $pg->host}'
    logging_collector: 'on'
    log_directory: '$log_dir'
    log_filename: '$log_file'
$local
EOF
	open(my $fh, '>', $n->{conf}) or die "cannot write $n->{conf}: $!";
	print $fh $yml;
	close $fh;
	return;
}

# Patroni under a small reaper: the postmasters Patroni starts are orphans,
# and Patroni waits for a stopped one's pid to go away, which a zombie
# nobody reaps never does.  The reaper is their subreaper (Linux), runs
# Patroni as its child, writes its pid, and reaps until none is left.
sub reaper_script
{
	return <<'EOF';
require 'syscall.ph';
syscall(&SYS_prctl, 36, 1, 0, 0, 0) == 0 or die "prctl: $!";    # PR_SET_CHILD_SUBREAPER
my $pidfile = shift @ARGV;
my $pid = fork() // die "fork: $!";
if (!$pid) { exec @ARGV or die "exec $ARGV[0]: $!" }
open(my $fh, '>', $pidfile) or die "$pidfile: $!";
print $fh "$pid\n";
close $fh;
1 while wait() != -1;
EOF
}

sub start_patroni
{
	my ($n) = @_;
	$n->{pidfile} = "$tmp/$n->{name}.patroni.pid";
	unlink $n->{pidfile};
	$n->{handle} = IPC::Run::start([ $^X, '-e', reaper_script(), $n->{pidfile}, $tool{patroni}, $n->{conf} ],
		'<', \undef, '>>', $n->{log}, '2>&1');
	until_true(10, sub { -s $n->{pidfile} });
	return;
}

sub kill_patroni
{
	my ($n) = @_;
	return unless $n->{handle};
	my ($pid) = -s $n->{pidfile} ? slurp_file($n->{pidfile}) =~ /(\d+)/ : ();
	kill 'KILL', $pid if $pid;
	return;
}

sub patroni_state
{
	my ($n) = @_;
	my $r = $http->get("http://127.0.0.1:$n->{rest}/patroni");
	return undef unless $r->{content} && $r->{content} =~ /^\{/;
	return decode_json($r->{content});
}

# GET /primary answers 200 on the leader only (GET /replica on a running
# replica).
sub is_leader
{
	my ($n) = @_;
	return $http->get("http://127.0.0.1:$n->{rest}/primary")->{status} == 200;
}

sub is_streaming_replica
{
	my ($n) = @_;
	return 0 unless $http->get("http://127.0.0.1:$n->{rest}/replica")->{status} == 200;
	return $n->{pg}->safe_psql('postgres',
		"SELECT EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming')") eq 't';
}

sub patronictl
{
	my ($n, @args) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ $tool{patronictl}, '-c', $n->{conf}, @args ],
		'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	ok($ok, "patronictl @args") or diag("$out\n$err");
	return $out;
}

# $measure_s of the load that runs on a new leader since $since: the
# checkpoints forced by WAL in its log from $offset (taken before it led).
sub measure_new_leader
{
	my ($n, $offset, $since, $what) = @_;
	sleep 1 while time() < $since + $measure_s;
	# what pgbench printed so far (its progress lines wait in the pipe)
	eval { $load->{handle}->pump_nb for 1 .. 3; };
	fixed_rate_held($load, $rate, "$n->{name} $what", time());
	my $forced = wal_forced_checkpoints($n->{pg}, $offset);
	my $all = log_count($n->{pg}, qr/checkpoint starting:/, $offset);
	cmp_ok($forced, '<=', 1,
		"$n->{name} $what: $forced of $all checkpoints forced by WAL in $measure_s s at "
		  . setting_mb($n->{pg}, 'max_wal_size') . ' MB');
	note_decisions($n->{pg}, "$n->{name} decisions $what");
	return $forced;
}

# Ends a background pgbench whose server may have gone (a switchover, a
# kill) and with it pgbench, keeping what it printed.
sub end_load
{
	my ($run) = @_;
	eval { $run->{handle}->pump_nb for 1 .. 3; };
	eval { $run->{handle}->kill_kill; };
	eval { $run->{handle}->finish; };
	return;
}

sub patroni_log_offsets
{
	return map { -s $_->{log} // 0 } $n1, $n2;
}

# What Patroni logged about a restart, a reinitialisation or a rewind.
sub patroni_lines_since
{
	my ($n, $from) = @_;
	return grep { /restart|reiniti|rewind/i } split /\n/, slurp_file($n->{log}, $from);
}

# Nothing about a restart, a reinitialisation or a rewind in either
# Patroni's log since the offsets, and no restart pending.
sub check_patroni_quiet
{
	my ($what, @offsets) = @_;
	for my $n ($n1, $n2)
	{
		my $from = shift @offsets;
		my @lines = patroni_lines_since($n, $from);
		is(scalar @lines, 0, "$n->{name}: Patroni logged no restart, reinit or rewind $what")
		  or diag(join("\n", @lines));
		my $state = patroni_state($n);
		ok($state && !$state->{pending_restart}, "$n->{name}: no restart pending $what");
	}
	return;
}

# SIGKILL: Patroni first (so it restarts nothing), then the server.
sub kill_node
{
	my ($n) = @_;
	kill_patroni($n);
	my $pg = $n->{pg};
	my $pidfile = $pg->data_dir . '/postmaster.pid';
	if (-f $pidfile)
	{
		my ($pid) = slurp_file($pidfile) =~ /^(\d+)/;
		$pg->{_pid} = $pid;    # kill9_all() kills through the node object
		kill9_all($pg);
	}
	return;
}

sub stop_everything
{
	for my $n (grep { defined } $n1, $n2)
	{
		kill_patroni($n);
		system($bindir . '/pg_ctl', '-D', $n->{pg}->data_dir, '-m', 'immediate', 'stop')
		  if -f $n->{pg}->data_dir . '/postmaster.pid';
		# the reaper ends once the server is gone
		$n->{handle}->kill_kill(grace => 5) if $n->{handle};
		$n->{handle} = undef;
	}
	if ($etcd)
	{
		$etcd->kill_kill(grace => 2);
		$etcd = undef;
	}
	return;
}

END
{
	my $rc = $?;
	stop_everything() if defined $n1;
	$? = $rc;
}
