# walsizer-test: long
# walsizer-test: minutes 2
# walsizer-test: version-dependent
# (each major resets its checkpoint counters its own way: test/pg-matrix.sh runs it on every major)
#
# A monitoring job that resets the statistics more often than a window
# lasts must not freeze the size: pg_walsizer sizes from the WAL position
# and the redo pointer, which no reset touches.  A reset costs the figures
# of the counters it reset (the window's checkpoint counts, its image
# share), not the window's decision.
#
# Two servers run the same fixed-rate pgbench load side by side from
# 64 MB, then go idle.  On one, a job resets pg_stat_wal every 3 s and the
# checkpoint counters (pg_stat_bgwriter on 15 and 16, pg_stat_checkpointer
# on 17+) every 2 s, shorter than the 3 s window, so that every window
# sees a reset, as a reset every 21 s does to 30 s windows.  The other is
# left alone: it shows what the same load makes of the size.  Both grow,
# and once the load has left the horizon quiet windows bring both back
# down: before, no window of the reset server ever decided, so it stayed
# at its peak for as long as the job ran.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my $cap_mb = 4096;
my %conf = (
	max_wal_size => "'64MB'",
	'walsizer.enable' => 'off',
	'walsizer.interval' => "'3s'",
	'walsizer.shrink_after' => 2,
	'walsizer.max' => "'${cap_mb}MB'");
my %node = map { $_ => walsizer_node($_, conf => \%conf) } qw(resets calm);

for my $name (sort keys %node)
{
	my $node = $node{$name};
	$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
		'-p', $node->port, 'postgres' ], "$name: pgbench tables created");
	$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
	$node->reload;
	wait_for($node, 'SELECT enabled FROM walsizer.status', "$name: walsizer enabled");
}

# the same fixed rate on both: what the load needs does not depend on the
# machine's speed, as long as it keeps up
my $load_s = 20;
my %bench = map {
	$_ => start_pgbench($node{$_}, '-c', '2', '-j', '2', '-R', '500',
		'-T', $load_s)
} keys %node;

# The job resets all along; the sizes are read twice a second.
my $reset_counters = reset_checkpointer_sql($node{resets});
my $start = time();
my ($next_wal, $next_counters) = ($start + 3, $start + 2);
my %sizes = (resets => [], calm => []);
my %peak = (resets => 0, calm => 0);
sub watch_for
{
	my ($seconds, $done) = @_;
	my $until = time() + $seconds;
	while (time() < $until)
	{
		my $now = time();
		if ($now >= $next_wal)
		{
			$node{resets}->safe_psql('postgres', "SELECT pg_stat_reset_shared('wal')");
			$next_wal += 3;
		}
		if ($now >= $next_counters)
		{
			$node{resets}->safe_psql('postgres', $reset_counters);
			$next_counters += 2;
		}
		for my $name (sort keys %node)
		{
			my $mb = status_value($node{$name}, 'max_wal_size_mb');
			push @{ $sizes{$name} }, $mb;
			$peak{$name} = $mb if $mb > $peak{$name};
		}
		return 1 if $done && $done->();
		sleep 0.5;
	}
	return 0;
}

# the load makes both grow
watch_for($load_s);
for my $name (sort keys %node)
{
	my ($rc, $out, $err) = finish_pgbench($bench{$name});
	is($rc, 0, "$name: pgbench ran") or diag($err);
}

# Idle: once the load has left the horizon (2 x checkpoint_timeout), quiet
# windows bring the calm server back down to its 64 MB, the DBA's value.
# A slow machine takes longer, so poll generously.
ok(watch_for(240, sub { $sizes{calm}[-1] <= 64 }),
	"without resets the size came back down to 64 MB from $peak{calm} MB");
# the reset server runs the same windows, but its growth may have come
# later than the calm one's (a busy machine moves both): wait for what is
# checked below, its size below its peak and within twice the calm one's
watch_for(120, sub {
	$sizes{resets}[-1] < $peak{resets} && $sizes{resets}[-1] <= 2 * $sizes{calm}[-1] });

my %final = map { $_ => $sizes{$_}[-1] } keys %node;
note_decisions($node{$_}, "$_ decisions") for sort keys %node;
note("peaks: resets $peak{resets} MB, calm $peak{calm} MB; "
	  . "final: resets $final{resets} MB, calm $final{calm} MB");

cmp_ok($peak{resets}, '>', 64, 'the load made the reset server grow too');
cmp_ok($peak{resets}, '<', $cap_mb / 2, 'to well below the cap');
my $at_cap = grep { $_ >= $cap_mb } @{ $sizes{resets} };
cmp_ok($at_cap, '<', scalar @{ $sizes{resets} }, 'never parked at the cap');
# the windows decided although each saw a reset: quiet ones counted
cmp_ok($final{resets}, '<', $peak{resets},
	'with the resets, the size came back down too');
cmp_ok($final{resets}, '<=', 2 * $final{calm},
	'to within twice the size without resets');
ok($node{resets}->log_contains(qr/pg_walsizer noticed a reset of the checkpoint statistics/),
	'the resets were noticed');
# a reset costs the window its checkpoint counts: no growth on forced ones
is(scalar(decision_rows($node{resets},
			growth_sql() . " AND reason LIKE '%were forced by WAL%'")),
	0, 'and no growth came from checkpoint counts the resets made unknown');

$_->stop for values %node;
done_testing();
