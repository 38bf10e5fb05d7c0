# walsizer-test: long
# walsizer-test: minutes 2
# After a load has made walsizer grow max_wal_size, quiet windows make it
# step back down: only after walsizer.shrink_after windows below half, at
# most halving per step, one change per window, never below the floor.
# How long the way down takes follows from the settings, not from the
# machine's speed: the test polls for it with a bound derived from them.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = walsizer_node('shrink',
	conf => {
		'walsizer.enable' => 'off',
		# windows of 2 s: two shrinks are told apart by whole windows,
		# with half a window left for the time a change takes to write
		# (two fsyncs: a loaded disk may take a second)
		'walsizer.interval' => "'2s'",
		'walsizer.shrink_after' => 3,
		# idle must be idle: a vacuum's WAL minutes after the load ends the
		# checkpoint cycle that holds the load late, which keeps the load
		# in what walsizer measures for another horizon
		autovacuum => 'off' });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
wait_for($node, 'SELECT enabled FROM walsizer.status', 'walsizer enabled');

# a growth is 'grow', or 'capped' when the load needs more than walsizer.max
# (a fast machine writes that much in the first seconds); the load runs
# until walsizer has grown (seconds on an idle machine, longer on a slow
# one, which writes WAL more slowly)
ok(pgbench_until($node, 'SELECT EXISTS (SELECT FROM walsizer.decisions WHERE '
		  . growth_sql() . ')', 120, '-c', 4, '-j', 4),
	'the load made it grow');
my @grows = decision_rows($node, growth_sql());
my $peak = (sort { $b <=> $a } map { $_->{new_mb} } @grows)[0] // 32;
note("grew to $peak MB");

# idle: the load leaves what walsizer measures, then it steps down.  The
# checkpoint cycle that holds the load ends at the next checkpoint, at most
# two checkpoint_timeouts after the load (one in progress, then a timed
# one); it counts until it leaves the horizon (the larger of 4 windows and
# 2 checkpoint_timeouts); then each halving waits shrink_after quiet
# windows and the cooldown.  Twice that, for a machine twice as slow.
my %set = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
	"SELECT name, setting FROM pg_settings WHERE name IN "
	  . "('checkpoint_timeout', 'walsizer.interval', 'walsizer.shrink_after', "
	  . "'walsizer.cooldown')");
my $window_s = $set{'walsizer.interval'};
my $horizon_s = 4 * $window_s > 2 * $set{checkpoint_timeout}
  ? 4 * $window_s : 2 * $set{checkpoint_timeout};
my $steps = 1;    # a settle, then halvings from the peak to the floor
$steps++ while 32 * 2**($steps - 1) < $peak;
my $bound_s = 2 * (2 * $set{checkpoint_timeout} + $horizon_s
	  + $steps * ($set{'walsizer.shrink_after'} + $set{'walsizer.cooldown'}) * $window_s);
my $idle_at = time();
ok(poll_until($node, 'SELECT max_wal_size_mb = 32 FROM walsizer.status', $bound_s),
	"back at the floor of 32 MB within $bound_s s")
  or diag('max_wal_size_mb is ' . status_value($node, 'max_wal_size_mb'));
note(sprintf('from %d MB to the floor in %d s', $peak, time() - $idle_at));
note_decisions($node);
my @shrinks = decision_rows($node, "action = 'shrink'");
ok(@shrinks >= 1, scalar(@shrinks) . ' shrink steps');
# a settle (the grown size corrected once whole checkpoint cycles were
# measured) is at most one step: the way down to the floor is quiet windows
my @quiet = grep { $_->{reason} !~ /^settling/ } @shrinks;
ok(@quiet >= 1, scalar(@quiet) . ' of them after quiet windows');
for my $step (@shrinks)
{
	# a settle goes in one step to what whole cycles need; a quiet shrink
	# at most halves
	cmp_ok($step->{new_mb}, '>=', int(($step->{old_mb} + 1) / 2),
		"$step->{old_mb} -> $step->{new_mb} MB: at most halved")
	  if $step->{reason} !~ /^settling/;
	cmp_ok($step->{new_mb}, '>=', 32, 'never below the floor');
	# a size grown on a projection may settle before the quiet windows
	like($step->{reason},
		qr/for 3 windows the load needed at most \d+ MB|^settling: whole checkpoint cycles/,
		'the reason explains the quiet windows or the settling');
}
# windows between shrinks: a change restarts the count of quiet windows,
# so a shrink after quiet windows comes shrink_after windows after the
# change before it (a window is never shorter than walsizer.interval; a
# slower machine only makes it longer).  The margin, half a window, is
# for the time the worker takes to write and record a change: a decision
# is stamped once written, so a slow write of the first shrink shortens
# the gap to the next.
my @times = split /\n/, $node->safe_psql('postgres',
	"SELECT extract(epoch FROM at) || '|' || (reason NOT LIKE 'settling%')::int "
	  . "FROM walsizer.decisions WHERE action = 'shrink' ORDER BY at");
my $apart_s = ($set{'walsizer.shrink_after'} - 0.5) * $window_s;
my @too_close = grep {
	my ($at, $quiet) = split /\|/, $times[$_];
	$quiet && $at - (split /\|/, $times[ $_ - 1 ])[0] < $apart_s
} 1 .. $#times;
is(scalar @too_close, 0,
	"each shrink after quiet windows at least $apart_s s after the shrink before it")
  or diag('shrinks at (epoch|after quiet windows): ' . join(', ', @times));

$node->safe_psql('postgres', 'SELECT pg_sleep(4)');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '32MB',
	'it stays at the floor');

$node->stop;
done_testing();
