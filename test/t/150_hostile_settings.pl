# walsizer-test: long
# walsizer-test: minutes 3
# Every walsizer setting at its limits, changed with ALTER SYSTEM + reload
# on a running server under load: the limits are accepted, anything beyond
# them is rejected and the old value stays.  The extremes are harmless:
# walsizer.max at 2147483647 MB with walsizer.disk_fraction = 1 leaves the
# disk as the cap without overflowing anything; walsizer.max = 2 MB never
# takes max_wal_size below the DBA's own value; sample_interval 100ms with
# a 1 s window keeps the cadence; shrink_after = 0 never shrinks.  The
# worker never restarts and no size walsizer sets leaves [floor, cap].
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my $node = walsizer_node('hostile',
	conf => {
		'walsizer.enable' => 'off',
		'walsizer.interval' => "'2s'",
		autovacuum => 'off' });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->safe_psql('postgres', 'CHECKPOINT');
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
wait_for($node, 'SELECT last_check_at IS NOT NULL FROM walsizer.status',
	'walsizer enabled and measuring');
my $pid = status_value($node, 'worker_pid');
my $log_start = -s $node->logfile;

sub setting
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT setting FROM pg_settings WHERE name = '$name'");
}

# one session: every ALTER SYSTEM, then the reload
sub alter_system
{
	my (%settings) = @_;
	$node->safe_psql('postgres',
		join('', map {
			defined $settings{$_}
			  ? "ALTER SYSTEM SET $_ = '$settings{$_}';\n"
			  : "ALTER SYSTEM RESET $_;\n"
		} sort keys %settings)
		  . "SELECT pg_reload_conf();\n");
}

# the worker has taken the settings and goes on: a window end proves it
sub worker_settles
{
	my $before = status_value($node, 'last_check_at');
	$node->safe_psql('postgres', 'SELECT walsizer.check_now()');
	return poll_until($node,
		"SELECT last_check_at > '$before' FROM walsizer.status", 10);
}

# --- the limits, under a light load -------------------------------------
# name => [ [value, setting in base units], ... accepted ], [ rejected ]
my @limits = (
	[ 'walsizer.enable', [ [ 'off', 'off' ], [ 'on', 'on' ] ], [ 'maybe', '2' ] ],
	[ 'walsizer.dry_run', [ [ 'on', 'on' ], [ 'off', 'off' ] ], [ 'perhaps' ] ],
	[ 'walsizer.max', [ [ '2MB', 2 ], [ '2147483647MB', 2147483647 ] ],
		[ '1MB', '2147483648MB', '-1', '3PB' ] ],
	[ 'walsizer.min', [ [ '0', 0 ], [ '2147483647MB', 2147483647 ] ],
		[ '-1', '2147483648MB' ] ],
	[ 'walsizer.threshold', [ [ '1', 1 ], [ '1000000', 1000000 ] ],
		[ '0', '1000001', 'ten' ] ],
	[ 'walsizer.ratio', [ [ '0', 0 ], [ '1', 1 ] ],
		[ '-0.01', '1.01', 'NaN', 'Infinity' ] ],
	[ 'walsizer.headroom', [ [ '0', 0 ], [ '10', 10 ] ],
		[ '-0.1', '10.01', 'NaN', 'Infinity' ] ],
	[ 'walsizer.interval', [ [ '0', 0 ], [ '604800s', 604800 ] ],
		[ '-1', '604801s', '1y' ] ],
	[ 'walsizer.sample_interval', [ [ '100ms', 100 ], [ '3600000ms', 3600000 ] ],
		[ '99ms', '3600001ms', '0' ] ],
	[ 'walsizer.shrink_after', [ [ '0', 0 ], [ '1000000', 1000000 ] ],
		[ '-1', '1000001' ] ],
	[ 'walsizer.cooldown', [ [ '1', 1 ], [ '1000000', 1000000 ] ],
		[ '0', '1000001' ] ],
	[ 'walsizer.disk_fraction', [ [ '0.01', 0.01 ], [ '1', 1 ] ],
		[ '0.009', '1.01', 'NaN', '-Infinity' ] ]);

my $light = start_pgbench($node, '-c', '1', '-R', '50', '-T', '300');
for my $limit (@limits)
{
	my ($name, $accepted, $rejected) = @$limit;
	my $default = setting($name);
	for my $value (@$accepted)
	{
		alter_system($name => $value->[0]);
		ok(poll_until($node,
				"SELECT setting = '$value->[1]' FROM pg_settings WHERE name = '$name'", 20),
			"$name = '$value->[0]' accepted");
	}
	ok(worker_settles(), "$name at its limits: the worker goes on");
	my $kept = setting($name);
	my (undef, undef, $err) = $node->psql('postgres',
		join('', map { "ALTER SYSTEM SET $name = '$_';\n" } @$rejected),
		on_error_stop => 0);
	my @errors = $err =~ /ERROR:  (.*)/g;
	is(scalar(grep { /invalid value for parameter|outside the valid range|requires a Boolean value/ }
			@errors),
		scalar(@$rejected),
		"$name: " . join(', ', map { "'$_'" } @$rejected) . ' rejected, each with a reason')
	  or diag($err);
	$node->reload;
	is(setting($name), $kept, "$name keeps $kept");
	alter_system($name => undef);
	ok(poll_until($node,
			"SELECT setting = '$default' FROM pg_settings WHERE name = '$name'", 20),
		"$name back to its default");
}
ok(worker_settles(), 'after all that the worker still ends its windows');

# beyond the limits in postgresql.conf: the reload keeps the old value
for my $bad ([ 'walsizer.max', '2147483648MB', 4096 ],
	[ 'walsizer.disk_fraction', 'NaN', 0.5 ])
{
	my ($name, $value, $kept) = @$bad;
	my $offset = -s $node->logfile;
	$node->append_conf('postgresql.conf', "$name = '$value'\n");
	$node->reload;
	ok($node->wait_for_log(qr/invalid value for parameter "\Q$name\E"|"\Q$name\E".*outside the valid range/,
			$offset), "$name = '$value' in postgresql.conf is reported");
	is(setting($name), $kept, "$name keeps $kept");
	$node->append_conf('postgresql.conf', "$name = '$kept'\n");
	$node->reload;
}
$light->{handle}->kill_kill;
is(status_value($node, 'worker_pid'), $pid, 'the same worker after every change');

# --- walsizer.max = 2 MB: never below the DBA's 32 MB ------------------------
my $since = $node->safe_psql('postgres', 'SELECT now()');
alter_system('walsizer.max' => '2MB');
wait_for($node, 'SELECT max_wal_size_mb = 32 AND cap_mb = 32 FROM walsizer.status',
	"walsizer.max 2 MB: back to the DBA's 32 MB, the smallest cap");
run_pgbench($node, 6, 4);
my @small = decision_rows($node, "at > '$since'");
note('decisions: ' . join(', ', map { "$_->{action} $_->{old_mb} -> $_->{new_mb}" } @small));
is(scalar(grep { $_->{new_mb} != 32 && $_->{action} =~ /^(grow|capped|shrink|protect)$/ }
		@small), 0, 'no size other than 32 MB set');
is(setting('max_wal_size'), 32, 'the server runs with 32 MB');

# --- walsizer.max at its maximum, the whole disk allowed ------------------
# the load of the previous phase still asks for more: raising the cap lets
# walsizer grow at once, and the load below adds whatever else it needs.
# No recovery-time bound here: by default it caps at 300 s x the assumed
# 20 MB/s = 6000 MB, below this disk (210 and the unit tests cover it).
# Its shrinks are held from here until shrink_after = 0 is in force below,
# so that every change read after the load is one the load made.
hold_worker($node, 'shrink');
$since = $node->safe_psql('postgres', 'SELECT now()');
alter_system('walsizer.max' => '2147483647MB', 'walsizer.disk_fraction' => '1',
	'walsizer.max_recovery_time' => '0');
ok(worker_settles(), 'the worker took walsizer.max 2147483647MB');
my $wal_dir = $node->data_dir . '/pg_wal';
sub disk_mb
{
	my ($avail_kb) = (`df -P -k $wal_dir` =~ /\n\S+\s+\d+\s+\d+\s+(\d+)/);
	my $wal_bytes = 0;
	$wal_bytes += -s $_ for grep { -f $_ && !-l $_ } glob "$wal_dir/*";
	return int(($avail_kb * 1024 + $wal_bytes) / 1048576 / 16) * 16;
}
# the disk is measured every 10 s (polled for up to 3 times that)
ok(poll_until($node,
		"SELECT cap_source = 'disk' AND cap_mb > 0.9 * " . disk_mb() . ' FROM walsizer.status', 30),
	'the whole disk is the cap');
my $disk_mb = disk_mb();
my $cap_mb = status_value($node, 'cap_mb');
note("disk cap $cap_mb MB, df says $disk_mb MB");
cmp_ok(abs($cap_mb - $disk_mb), '<=', $disk_mb * 0.03 + 16,
	"cap_mb $cap_mb is the free space plus pg_wal ($disk_mb MB)");
cmp_ok($cap_mb, '<', 2147483647, 'below walsizer.max');
is($cap_mb % 16, 0, 'in whole segments');
# until walsizer has grown (seconds on an idle machine)
pgbench_until($node, "SELECT EXISTS (SELECT FROM walsizer.decisions WHERE "
	  . growth_sql() . " AND at > '$since')", 60, '-c', 4, '-j', 4);
my @changes = decision_rows($node, "new_mb <> old_mb AND at > '$since'");
ok(@changes >= 1, 'the load made walsizer act: '
	  . join(', ', map { "$_->{action} $_->{old_mb} -> $_->{new_mb}" } @changes));
is(scalar(grep { $_->{action} ne 'grow' } @changes), 0, 'from 32 MB, only grows');
is(scalar(grep { $_->{new_mb} > $cap_mb || $_->{new_mb} % 16 } @changes), 0,
	'all within the disk cap, in segments');
my ($needed, $recommend) = split /\|/, $node->safe_psql('postgres',
	'SELECT s.needed_mb, r.recommended_mb FROM walsizer.status s, walsizer.recommendation r');
cmp_ok($needed, '<', $cap_mb, "status needed_mb $needed is sane");
cmp_ok($recommend, '<=', $cap_mb, "recommend() says $recommend MB");
my $grown_mb = setting('max_wal_size');

# --- shrink_after = 0 never shrinks --------------------------------------
# Nothing writes now.  Once the load above has left what walsizer
# measures, it needs less than half of what walsizer grew to, so any other
# shrink_after would shrink; no headroom and no completion target only make
# that sooner.  How soon follows from the settings, whatever the machine:
# the checkpoint cycle holding the load ends at the next checkpoint, at
# most two checkpoint_timeouts after it, and counts until it leaves the
# horizon (the larger of 4 windows and 2 checkpoint_timeouts).  Twice
# that, for a machine twice as slow.
$since = $node->safe_psql('postgres', 'SELECT now()');
alter_system('walsizer.shrink_after' => '0', 'walsizer.headroom' => '0',
	checkpoint_completion_target => '0');
ok(worker_settles(), 'the worker took shrink_after = 0');
release_worker($node);
my $timeout_s = setting('checkpoint_timeout');
my $window_s = setting('walsizer.interval');
my $horizon_s = 4 * $window_s > 2 * $timeout_s ? 4 * $window_s : 2 * $timeout_s;
my $idle_bound_s = 2 * (2 * $timeout_s + $horizon_s);
my $idle_at = time;
ok(poll_until($node, 'SELECT needed_mb * 2 < max_wal_size_mb FROM walsizer.status',
		$idle_bound_s),
	"idle, the load needs less than half within $idle_bound_s s")
  or diag('needed_mb ' . status_value($node, 'needed_mb') . ", max_wal_size $grown_mb MB");
note(sprintf('needed_mb %d, under half of %d MB, after %.0f s idle',
		status_value($node, 'needed_mb'), $grown_mb, time - $idle_at));
# a shrink is due from here on: three windows more, for good measure (the
# worker's windows, not the test's sleep)
my $below_at = $node->safe_psql('postgres', 'SELECT now()');
wait_for($node,
	"SELECT last_check_at > '$below_at'::timestamptz + interval '" . (2 * $window_s) . " s' FROM walsizer.status",
	'three more windows ended');
is(scalar decision_rows($node, "action = 'shrink' AND at > '$since'"), 0,
	'shrink_after = 0: no shrink while the need fell, nor in three windows below half');
is(setting('max_wal_size'), $grown_mb, "max_wal_size stays $grown_mb MB");
cmp_ok(status_value($node, 'needed_mb') * 2, '<', $grown_mb, 'still less than half');
alter_system('walsizer.shrink_after' => '1');
ok(worker_settles(), 'the worker took shrink_after = 1');
# one quiet window and the cooldown, twice over, counted in the worker's
# windows once it runs the setting (not in seconds a loaded machine's
# worker may not keep up with)
my $shrink_windows = 2 * (1 + setting('walsizer.cooldown') + 1);
my $settled_at = $node->safe_psql('postgres', 'SELECT now()');
my $shrink = "EXISTS (SELECT FROM walsizer.decisions WHERE action = 'shrink' AND at > '$since')";
poll_until($node,
	"SELECT $shrink OR last_check_at > '$settled_at'::timestamptz + interval '"
	  . (($shrink_windows - 1) * $window_s) . " s' FROM walsizer.status",
	10 * $shrink_windows * $window_s);
is($node->safe_psql('postgres', "SELECT $shrink"), 't',
	"the same state with shrink_after = 1 does shrink, within $shrink_windows windows");
alter_system('walsizer.shrink_after' => '0', 'walsizer.headroom' => undef,
	checkpoint_completion_target => undef);

# --- the fastest cadence -----------------------------------------------------
alter_system('walsizer.sample_interval' => '100ms',
	'walsizer.interval' => '1s');
wait_for($node, 'SELECT window_s = 1 AND sample_interval_ms = 100 FROM walsizer.status',
	'a 1 s window sampled every 100 ms');
my %windows;
my $max_age = 0;
# a stall of the whole machine delays the worker and this loop alike: the
# loop's own longest pause beyond its 0.2 s sleep is allowed for
my $stall = 0;
my $started = time;
my $until = $started + 5;
my $previous = $started;
while (time < $until)
{
	my ($last, $age) = split /\|/, $node->safe_psql('postgres',
		'SELECT last_check_at, extract(epoch FROM clock_timestamp() - last_check_at) '
		  . 'FROM walsizer.status');
	$windows{$last} = 1;
	$max_age = $age if $age > $max_age;
	sleep 0.2;
	$stall = time - $previous - 0.2 if time - $previous - 0.2 > $stall;
	$previous = time;
}
my $looked_s = time - $started;
cmp_ok(scalar keys %windows, '>=', int($looked_s - 1 - $stall),
	sprintf('%d windows ended in %.1f s, with a longest stall of %.2f s',
		scalar(keys %windows), $looked_s, $stall));
cmp_ok($max_age, '<=', 2 + $stall,
	sprintf('the last window was at most %.2f s old (allowed 2 s plus the stall)', $max_age));

# --- all along ---------------------------------------------------------------
is(status_value($node, 'worker_pid'), $pid, 'the worker never restarted');
my $log = slurp_file($node->logfile, $log_start);
unlike($log, qr/background worker "pg_walsizer".*(exited|terminated)|PANIC|TRAP/,
	'no exit, crash or assertion failure');
unlike($log, qr/pg_walsizer (could not|cannot encode)|This is a bug in pg_walsizer/,
	'no walsizer error in the log');
my @all = decision_rows($node, "action IN ('grow', 'capped', 'shrink', 'protect')");
is(scalar(grep { $_->{new_mb} < 32 || $_->{new_mb} > $cap_mb || $_->{new_mb} % 16 } @all),
	0, scalar(@all) . ' size decisions, all in [32 MB, disk cap] and in segments');

$node->stop;
done_testing();
