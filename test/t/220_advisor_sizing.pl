# walsizer-test: slow
#
# The advisor against the worker, on the same server and load: run as a
# role with only pg_monitor against the benchmark's steady load at 64 MB
# (every checkpoint forced by WAL), it recommends within 1.3x of the size
# the extension then settles to on that load; its recorded trace, replayed,
# recommends the same; run again once the server is large enough, it
# recommends no growth.
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use JSON::PP;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $advisor = advisor_path();

# The benchmark's steady scenario: production cadence, realistic buffers.
my $node = walsizer_node('advisor_sizing',
	conf => {
		'walsizer.enable' => 'off',
		max_wal_size => "'64MB'",
		min_wal_size => "'32MB'",
		shared_buffers => "'128MB'",
		checkpoint_completion_target => '0.9',
		autovacuum => 'off',
		'walsizer.interval' => '0',
		'walsizer.sample_interval' => "'1s'",
	});
$node->safe_psql('postgres', 'CREATE ROLE monitor LOGIN IN ROLE pg_monitor');
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '20', '-h', $node->host,
		'-p', $node->port, 'postgres' ], 'pgbench -i -s 20');
# the benchmark's 4 clients; WALSIZER_ADVISOR_CLIENTS records another level
my $clients = $ENV{WALSIZER_ADVISOR_CLIENTS} // 4;
my $load = start_pgbench($node, '-c', $clients, '-j', 2, '-T', 900);
sleep 5;

# 1. At 64 MB, as the pg_monitor role, recording a trace.
my $trace = "${PostgreSQL::Test::Utils::tmp_check}/advisor_steady.trace";
my ($rc, $out, $err) = run_advisor(
	'--duration=30s', '--interval=10s', '--json', "--record=$trace",
	'-h', $node->host, '-p', $node->port, '-U', 'monitor', '-d', 'postgres');
is($rc, 0, 'the advisor measured the server at 64 MB') or diag($err);
my $small = decode_json($out)->{servers}[0];
note("pgbench scale 20, $clients clients");
note(sprintf('at 64 MB: %s to %d MB; forced %d of %d checkpoints; %s; %s',
		@$small{qw(verdict recommended_mb checkpoints_forced_by_wal)},
		$small->{checkpoints_timed} + $small->{checkpoints_requested},
		@$small{qw(reason basis)}));
is($small->{verdict}, 'grow', 'at 64 MB it recommends a growth');
cmp_ok($small->{checkpoints_forced_by_wal}, '>', 0, 'it saw checkpoints forced by WAL');
cmp_ok($small->{forced_per_hour_after}, '<', $small->{forced_per_hour_now},
	'its expected effect is fewer forced checkpoints');
is($small->{redo_source}, 'pg_control_checkpoint', 'the redo pointer was read');

# 2. The recorded trace, replayed offline, gives the same recommendation.
my ($rrc, $rout, $rerr) = run_advisor('--replay', $trace, '--json', '--interval=10s');
is($rrc, 0, 'the trace replays') or diag($rerr);
my $replayed = decode_json($rout)->{servers}[0];
is($replayed->{recommended_mb}, $small->{recommended_mb},
	'the replayed trace recommends the same size');
is($replayed->{verdict}, $small->{verdict}, 'and the same verdict');

# 3. The extension on the same load: grow, then settle on whole cycles.
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
$node->reload;
my $settled = settled_size($node, 420);
note("the extension settled to $settled MB");
my $ratio = $small->{recommended_mb} / $settled;
note(sprintf('advisor %d MB / extension %d MB = %.2f',
		$small->{recommended_mb}, $settled, $ratio));
cmp_ok($ratio, '>=', 1 / 1.3, 'the advisor recommends at least 1/1.3 of the settled size');
cmp_ok($ratio, '<=', 1.3, 'and at most 1.3 times it');

# 4. Now large enough: the advisor sees whole timed cycles, no growth.
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = off');
$node->reload;
($rc, $out, $err) = run_advisor(
	'--duration=75s', '--json',
	'-h', $node->host, '-p', $node->port, '-U', 'monitor', '-d', 'postgres');
is($rc, 0, 'the advisor measured the large server') or diag($err);
my $large = decode_json($out)->{servers}[0];
note(sprintf('at %d MB: %s to %d MB; %d timed, %d forced; %s; %s',
		@$large{qw(max_wal_size_mb verdict recommended_mb checkpoints_timed checkpoints_forced_by_wal reason basis)}));
isnt($large->{verdict}, 'grow', 'a server large enough is not grown');
isnt($large->{verdict}, 'capped', 'nor capped');
cmp_ok($large->{recommended_mb}, '<=', $large->{max_wal_size_mb},
	'the recommendation is no larger than the size it runs with');
cmp_ok($large->{checkpoints_timed}, '>=', 1, 'it measured timed checkpoints');

$load->{handle}->kill_kill;
$node->stop;
done_testing();

# Waits until the worker's size holds: its growth settled (a 'settling'
# decision after the last growth), or no change for 150 s (a growth within
# its margin of what whole cycles need stays, without a decision; the
# worker judges it once two whole timed 30 s cycles were measured at it, at
# a window end after the cooldown).  Returns it in MB.
sub settled_size
{
	my ($node, $seconds) = @_;
	my $deadline = time() + $seconds;
	my ($last_change, $last_size) = (time(), 0);
	while (time() < $deadline)
	{
		my $size = setting_mb($node, 'max_wal_size');
		my $settled = $node->safe_psql('postgres',
			"SELECT coalesce((SELECT reason LIKE 'settling%' FROM walsizer.decisions() "
			  . "WHERE action IN ('grow', 'capped', 'shrink') ORDER BY at DESC LIMIT 1), false)");
		if ($size != $last_size)
		{
			($last_change, $last_size) = (time(), $size);
		}
		elsif ($size > 64 && ($settled eq 't' || time() - $last_change >= 150))
		{
			return $size;
		}
		sleep 2;
	}
	note_decisions($node);
	fail("the extension did not settle within $seconds s");
	return setting_mb($node, 'max_wal_size');
}
