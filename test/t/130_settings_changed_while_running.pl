# walsizer-test: long
# walsizer-test: minutes 2
# The DBA changes settings (ALTER SYSTEM + reload) while walsizer runs
# under load, and walsizer follows at once:
#  - checkpoint_completion_target: the trigger distance in status() is where
#    the server itself starts a checkpoint because of WAL, as measured by
#    writing WAL until it does (the server acts less than a segment past it);
#  - checkpoint_timeout: the size the load needs is recomputed with it;
#  - walsizer.max lowered below a size walsizer set: it shrinks to the new
#    cap, and no further than the DBA's own max_wal_size;
#  - walsizer.min above walsizer.max: the floor is clamped to the cap with
#    one WARNING, and no size outside [floor, cap] results;
#  - walsizer.max below a max_wal_size the DBA set: walsizer leaves it and
#    says so in one WARNING.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use ServerTrigger;
use WalsizerTest;

my $window_s = 2;
my $dba_mb = 64;
my $node = walsizer_node('settings',
	conf => {
		'walsizer.enable' => 'off',
		max_wal_size => "'${dba_mb}MB'",
		'walsizer.interval' => "'${window_s}s'",
		autovacuum => 'off' });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->safe_psql('postgres', 'CHECKPOINT');

sub alter_system
{
	my (%settings) = @_;
	for my $name (sort keys %settings)
	{
		my $value = $settings{$name};
		$node->safe_psql('postgres',
			defined $value
			? "ALTER SYSTEM SET $name = '$value'"
			: "ALTER SYSTEM RESET $name");
	}
	$node->reload;
}

sub size_decisions
{
	my ($since) = @_;
	# a growth the cap blocks entirely is recorded with new_mb = old_mb
	return decision_rows($node,
		"action IN ('grow', 'capped', 'shrink', 'protect') AND new_mb <> old_mb "
		  . "AND at > '$since'");
}

# --- checkpoint_completion_target ------------------------------------------
# At the DBA's 64 MB a 16 MB segment is a third to a half of the trigger, so
# a trigger one segment off cannot pass for the server's.  walsizer stays
# switched off here (it goes on measuring and reporting), so that the WAL
# written to find the server's trigger does not make it grow.
# No timed checkpoint may come first, however slowly a loaded machine
# writes the WAL that finds the trigger: checkpoint_timeout is an hour here.
alter_system(checkpoint_timeout => '1h');
for my $target ('0.5', '0.1', '0.9')
{
	alter_system(checkpoint_completion_target => $target);
	# a new session starts with the reloaded setting once the postmaster has it
	ok($node->poll_query_until('postgres',
			"SELECT current_setting('checkpoint_completion_target') = '$target'"),
		"the server runs with completion target $target");
	my $server = server_trigger_distance($node, 4 * $dba_mb * 1048576);
	ok($server, "completion target $target: the server started a checkpoint for WAL")
	  or next;
	my ($distance, $segment) = @$server{qw(distance_bytes segment_bytes)};
	ok(poll_until($node,
			"SELECT trigger_bytes <= $distance AND $distance < trigger_bytes + $segment "
			  . 'FROM walsizer.status', 30),
		sprintf('completion target %s: walsizer\'s trigger of %.1f MB is where the server '
			  . 'started its checkpoint, %.1f MB from the start of the redo segment',
			$target, status_value($node, 'trigger_bytes') / 1048576,
			$distance / 1048576));
}

alter_system('walsizer.enable' => 'on', checkpoint_timeout => undef);
wait_for($node, 'SELECT enabled FROM walsizer.status', 'walsizer enabled');

# a light load all along, heavy bursts where walsizer must grow
my $light = start_pgbench($node, '-c', '1', '-R', '20', '-T', '300');
# ten seconds of heavy load, and more if walsizer has not grown by then (a
# slow machine writes the WAL more slowly), at most a minute more
run_pgbench($node, 10, 4);
ok(pgbench_until($node,
		'SELECT EXISTS (SELECT FROM walsizer.decisions WHERE ' . growth_sql() . ')',
		60, '-c', 4, '-j', 4),
	'walsizer grew under the heavy load');
# From here until the DBA's caps ask for it, the size walsizer grew to
# stays by construction: its own growths and shrinks (a last growth from
# the load's last samples, a settling, quiet windows under the light load)
# are held, so that every change checked below is the one the setting
# made.  A window end after the hold shows no change is still under way.
my $held_at = $node->safe_psql('postgres', 'SELECT now()');
hold_worker($node, 'grow', 'shrink');
wait_for($node, "SELECT last_check_at > '$held_at' FROM walsizer.status",
	'a window ended with the size held');
my @grows = size_decisions('-infinity');
ok(@grows >= 1, 'the load made walsizer grow: '
	  . join(', ', map { "$_->{old_mb} -> $_->{new_mb} MB" } @grows));
my $grown_mb = $grows[-1]{new_mb};
wait_for($node, "SELECT max_wal_size_mb = $grown_mb FROM walsizer.status",
	"the server runs with $grown_mb MB");

# --- checkpoint_timeout ------------------------------------------------------
# needed = (1 + target) x rate x timeout x (1 + headroom), in segments;
# computed in float8 in the same order as the policy.  Before whole timed
# cycles the rate is the peak over the horizon or, at a window's end, the
# window's own rate if higher (a machine so busy that the light load's
# transactions come in bursts makes a 2 s window heavier than the peak).
my $needed_of = sub {
	my ($rate) = @_;
	return "(ceil(ceil((1::float8 + 0.9::float8) * $rate * %d::float8 "
	  . "* (1::float8 + 0.25::float8) / 1048576::float8) / 16) * 16)::bigint";
};
my $needed_sql = $needed_of->('peak_wal_rate_bytes_per_s');
my $needed_at_window_sql =
  $needed_of->('greatest(peak_wal_rate_bytes_per_s, last_wal_bytes_per_s)');
# Whole timed cycles size the need before the peak rate does, but only
# those as long as the checkpoint_timeout in force (within 10 %): the
# timeouts here are ten and twenty times the 30 s the load ran at, so
# that no cycle of the load counts for them (at 60 s, a 30 s cycle that a
# loaded machine's slow checkpoint stretched to 55 s did, and sized the
# need from it), and the CHECKPOINT restarts the checkpointer's timer, so
# that none of 300 s ends while this phase runs.
$node->safe_psql('postgres', 'CHECKPOINT');
my %needed;
for my $timeout (300, 600, 300)
{
	alter_system(checkpoint_timeout => "${timeout}s");
	my $expected = sprintf($needed_sql, $timeout);
	my $expected_at_window = sprintf($needed_at_window_sql, $timeout);
	ok(poll_until($node,
			"SELECT needed_mb IN ($expected, $expected_at_window) AND needed_mb > 0 "
			  . 'FROM walsizer.status', 30),
		"checkpoint_timeout ${timeout}s: the needed size follows");
	my ($needed, $peak, $formula) = split /\|/, $node->safe_psql('postgres',
		"SELECT needed_mb, peak_wal_rate_bytes_per_s, $expected FROM walsizer.status");
	note(sprintf('checkpoint_timeout %d s: peak %.1f MB/s, needed %d MB, formula %d MB',
			$timeout, $peak / 1048576, $needed, $formula));
	$needed{$timeout} = $needed;
}
isnt($needed{600}, $needed{300}, "the needed size changes with the timeout "
	  . "($needed{300} MB at 300 s, $needed{600} MB at 600 s)");
alter_system(checkpoint_timeout => undef);

# --- walsizer.max lowered below what walsizer set ------------------------
my $since = $node->safe_psql('postgres', 'SELECT now()');
# a cap between the DBA's 64 MB and what walsizer grew to (at least a
# segment more)
my ($cap_mb) = grep { $_ < $grown_mb } 256, 128, 96, 80;
alter_system('walsizer.max' => "${cap_mb}MB");
# the shrink the cap asks for, decided (and held) once the worker runs the
# cap, then let go; growths stay held until the floor is clamped below
wait_for($node, "SELECT cap_mb = $cap_mb FROM walsizer.status", "the worker runs the $cap_mb MB cap");
hold_worker($node, 'grow', 'shrink');
wait_until_held($node, 'shrink', "a shrink to the $cap_mb MB cap is due (held until now)", 60);
hold_worker($node, 'grow');
wait_for($node, "SELECT max_wal_size_mb = $cap_mb FROM walsizer.status",
	"walsizer.max $cap_mb MB brings max_wal_size down to it");
my @shrinks = size_decisions($since);
is(scalar @shrinks, 1, 'in one shrink');
is("$shrinks[0]{action} $shrinks[0]{old_mb} $shrinks[0]{new_mb}",
	"shrink $grown_mb $cap_mb", "shrink $grown_mb -> $cap_mb MB");
like($shrinks[0]{reason}, qr/walsizer\.max is $cap_mb MB, below the $grown_mb MB walsizer had set/,
	'the reason names the setting');

# below the DBA's own value: down to that value, not to the cap
$since = $node->safe_psql('postgres', 'SELECT now()');
alter_system('walsizer.max' => '48MB');
wait_for($node, "SELECT max_wal_size_mb = $dba_mb FROM walsizer.status",
	"walsizer.max 48 MB brings it down to the DBA's $dba_mb MB");
windows_end($node, 2);
is(setting_mb($node, 'max_wal_size'), $dba_mb, "and it stays at $dba_mb MB");
@shrinks = size_decisions($since);
is(join(', ', map { "$_->{old_mb} -> $_->{new_mb}" } @shrinks), "$cap_mb -> $dba_mb",
	'one shrink, never below the baseline');

# --- walsizer.min above walsizer.max -------------------------------------
# (growths still held: none before the floor is clamped)
alter_system('walsizer.max' => undef);
wait_for($node, 'SELECT cap_mb = 4096 AND floor_mb = 64 FROM walsizer.status',
	'back to the default cap, the floor unclamped');
$since = $node->safe_psql('postgres', 'SELECT now()');
my $log_offset = -s $node->logfile;
alter_system('walsizer.min' => '512MB', 'walsizer.max' => '256MB');
wait_for($node, 'SELECT floor_mb = 256 AND cap_mb = 256 FROM walsizer.status',
	'walsizer.min 512 MB above walsizer.max 256 MB: the floor is clamped to 256 MB');
release_worker($node);
# a write load heavy enough to bring a forced checkpoint near at 64 MB on
# any machine: bulk inserts until walsizer acts (or a minute passes)
$node->safe_psql('postgres', 'CREATE TABLE clamp_fill (id int, pad text)');
my $fill_deadline = time() + 60;
while (time() < $fill_deadline && !scalar(size_decisions($since)))
{
	$node->safe_psql('postgres',
		'INSERT INTO clamp_fill SELECT g, repeat(md5(g::text), 8) '
		  . 'FROM generate_series(1, 50000) g');
}
is(log_count($node, qr/WARNING:  pg_walsizer floor is above its cap; using 256 MB as the floor/,
		$log_offset),
	1, 'one WARNING says so');
my @clamped = size_decisions($since);
ok(@clamped >= 1, 'the load made walsizer act: '
	  . join(', ', map { "$_->{action} $_->{old_mb} -> $_->{new_mb}" } @clamped));
is(scalar(grep { $_->{new_mb} != 256 } @clamped), 0,
	'no size outside [256, 256] resulted');
cmp_ok(setting_mb($node, 'max_wal_size'), '<=', 256, 'the server runs within the cap');

# another clamp while clamped: the new floor is reported too
$since = $node->safe_psql('postgres', 'SELECT now()');
$log_offset = -s $node->logfile;
alter_system('walsizer.max' => '128MB');
wait_for($node, 'SELECT floor_mb = 128 AND cap_mb = 128 AND max_wal_size_mb <= 128 FROM walsizer.status',
	'walsizer.max 128 MB: floor and cap 128 MB, and max_wal_size within');
windows_end($node, 2);
is(log_count($node, qr/WARNING:  pg_walsizer floor is above its cap; using 128 MB as the floor/,
		$log_offset),
	1, 'one WARNING names the new floor of 128 MB');
@clamped = size_decisions($since);
is(join(', ', map { "$_->{action} $_->{old_mb} -> $_->{new_mb}" } @clamped),
	"shrink 256 -> 128", 'one shrink to the new cap, nothing outside [128, 128]');

# --- walsizer.max below the DBA's own max_wal_size ------------------------
alter_system('walsizer.min' => undef, 'walsizer.max' => undef, max_wal_size => '512MB');
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 512)",
	"the DBA's 512 MB is adopted");
$since = $node->safe_psql('postgres', 'SELECT now()');
$log_offset = -s $node->logfile;
alter_system('walsizer.max' => '256MB');
# three windows once the worker runs the cap: time to change the size or
# warn again, were it to
wait_for($node, 'SELECT cap_mb = 256 FROM walsizer.status', 'the worker runs the 256 MB cap');
windows_end($node, 3);
is(setting_mb($node, 'max_wal_size'), 512, 'walsizer left the DBA\'s 512 MB alone');
is(scalar size_decisions($since), 0, 'no change decided');
is(log_count($node, qr/WARNING:  max_wal_size 512 MB is above pg_walsizer's cap of 256 MB/,
		$log_offset),
	1, 'one WARNING over three windows says so');
is(status_value($node, 'cap_mb'), 256, 'status shows the cap');

$light->{handle}->kill_kill;
$node->stop;
done_testing();
