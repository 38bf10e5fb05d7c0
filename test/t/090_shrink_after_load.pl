# After a load has made walsizer grow max_wal_size, quiet windows make it
# step back down: only after walsizer.shrink_after windows below half, at
# most halving per step, one change per window, never below the floor.
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
		'walsizer.interval' => "'1s'",
		'walsizer.shrink_after' => 3 });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
wait_for($node, 'SELECT enabled FROM walsizer.status()', 'walsizer enabled');

run_pgbench($node, 10, 4);
# a growth is 'grow', or 'capped' when the load needs more than walsizer.max
# (a fast machine writes that much in the first seconds)
my @grows = decision_rows($node, growth_sql());
ok(@grows >= 1, 'the load made it grow');
my $peak = (sort { $b <=> $a } map { $_->{new_mb} } @grows)[0];
note("grew to $peak MB");

# idle: the peak leaves the horizon (here 2 x checkpoint_timeout), then it
# steps down
wait_for($node, 'SELECT max_wal_size_mb = 32 FROM walsizer.status()',
	'back at the floor of 32 MB');
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
# windows between shrinks: the decision times are at least one window apart
# (growth for an imminent checkpoint may take several steps in a window)
my @times = split /\n/, $node->safe_psql('postgres',
	"SELECT extract(epoch FROM at) FROM walsizer.decisions() "
	  . "WHERE action = 'shrink' ORDER BY at");
my $too_close = grep { $times[$_] - $times[ $_ - 1 ] < 0.9 } 1 .. $#times;
is($too_close, 0, 'no two shrinks within one window');

$node->safe_psql('postgres', 'SELECT pg_sleep(4)');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '32MB',
	'it stays at the floor');

$node->stop;
done_testing();
