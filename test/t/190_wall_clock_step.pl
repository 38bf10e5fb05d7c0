# A step of the wall clock (an administrator's date command, NTP after a
# drift) does not pause the worker: it keeps sampling and ending windows on
# the monotonic clock.  The server runs with test/tools/wall_clock_shift.c
# preloaded, which moves only the wall clock of the processes it is loaded
# into, as a real step does.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use WalsizerTest;

my $shim = "$PostgreSQL::Test::Utils::tmp_check/wall_clock_shift.so";
my $shift_file = "$PostgreSQL::Test::Utils::tmp_check/wall_clock_shift";
my $source = "$FindBin::RealBin/../tools/wall_clock_shift.c";
system('cc', '-shared', '-fPIC', '-O2', '-o', $shim, $source, '-ldl') == 0
  or BAIL_OUT("cannot build $source");
PostgreSQL::Test::Utils::append_to_file($shift_file, "0\n");

# An idle server at 1 GB with walsizer.min 32 MB: every 1 s window is
# quiet, so the count of quiet windows the plan shows goes up by one per
# window end.
my $node = walsizer_node('clock_step',
	conf => {
		max_wal_size => "'1GB'",
		'walsizer.min' => "'32MB'",
		'walsizer.interval' => "'1s'",
		'walsizer.shrink_after' => 100000,
	});
$node->stop;
{
	local $ENV{LD_PRELOAD} = $shim;
	local $ENV{WALSIZER_CLOCK_SHIFT_FILE} = $shift_file;
	$node->start;
}

sub quiet_windows
{
	my ($count) = status_value($node, 'next_reason') =~ /(\d+) of \d+ quiet windows/;
	return $count // 0;
}

sub set_shift
{
	my ($seconds) = @_;
	open(my $fh, '>', $shift_file) or die "cannot write $shift_file: $!";
	print $fh "$seconds\n";
	close $fh;
}

ok(poll_until($node,
		"SELECT (SELECT coalesce(substring(next_reason from '(\\d+) of \\d+ quiet windows')::int, 0) FROM walsizer.status) >= 3",
		60),
	'windows end before the step');

# the wall clock goes back an hour
set_shift(-3600);
ok(poll_until($node, "SELECT now() < to_timestamp(" . time() . ") - interval '50 minutes'", 10),
	'the server sees its wall clock an hour back');
# windows go on ending: four of them, waited for (a worker paused by the
# step would end none for an hour), not counted in a fixed sleep that a
# loaded machine's worker may not fill
my $before = quiet_windows();
ok(poll_until($node,
		"SELECT coalesce(substring(next_reason from '(\\d+) of \\d+ quiet windows')::int, 0) >= "
		  . ($before + 4) . ' FROM walsizer.status', 60),
	"windows went on ending after the step: four more after $before");
ok(poll_until($node, "SELECT last_check_at > now() - interval '5 seconds' FROM walsizer.status", 10),
	'the latest window end is stamped with the new wall clock');

# and forward again: an hour of wall time passes in an instant, which must
# not end a burst of windows at once.  The count is read before the step
# and after it is seen, and the windows are held to the time between the
# two reads (1 s windows: at most twice that many), however long the
# test itself took.
my $read_at = time();
$before = quiet_windows();
set_shift(0);
ok(poll_until($node, "SELECT now() > to_timestamp(" . time() . ") - interval '10 minutes'", 10),
	'the server sees its wall clock back in place');
$node->safe_psql('postgres', 'SELECT pg_sleep(3)');
my $after = quiet_windows();
my $between_s = time() - $read_at;
cmp_ok($after - $before, '<=', 2 * $between_s,
	sprintf('a forward step ends no burst of windows: %d -> %d in %.1f s', $before, $after, $between_s));

$node->stop;
done_testing();
