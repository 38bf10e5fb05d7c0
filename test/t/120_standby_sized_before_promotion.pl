# walsizer-test: slow
# (about 4 minutes, two of them the load after the promotion:
# test/pg-matrix.sh runs it on the newest major only)
#
# A hot standby's worker sizes it for the WAL it replays, so that a
# failover forces no checkpoints.  Primary and streaming standby (and a
# cascading standby replaying from the standby) start at 64 MB; the
# primary's worker grows and settles under pgbench, the standbys' workers
# come within 1.3x of the primary's settled size while they replay,
# recording each decision as made on a standby.  Then the load moves to
# the promoted standby: its worker goes on with the size and history it
# had, and at most one checkpoint is forced by WAL in the two minutes after
# the promotion.  A standby with hot_standby = off runs no worker until it
# is promoted (nobody can connect to it to read status() either).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

# the settled-size comparison of the issue: the standbys within this factor
my $within = 1.3;
my $after_promotion_s = 120;

my %conf = (
	max_wal_size => "'64MB'",
	min_wal_size => "'32MB'",
	shared_buffers => "'128MB'",
	checkpoint_completion_target => '0.9',
	autovacuum => 'off',
	max_connections => 20,
	'walsizer.interval' => "'10s'",
	'walsizer.sample_interval' => "'500ms'");
my $primary = walsizer_node('primary',
	init => { allows_streaming => 1 },
	conf => { %conf, 'walsizer.enable' => 'off' });
$primary->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $primary->host,
	'-p', $primary->port, 'postgres' ], 'pgbench tables created on the primary');
$primary->safe_psql('postgres', 'CHECKPOINT');
$primary->backup('base');

# walsizer.enable = on in every clone; the primary turns it on below
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "walsizer.enable = on\n");
$standby->start;
my $cascade = PostgreSQL::Test::Cluster->new('cascade');
$cascade->init_from_backup($primary, 'base', has_streaming => 1);
$cascade->append_conf('postgresql.conf',
	"walsizer.enable = on\nprimary_conninfo = '" . $standby->connstr . "'\n");
$cascade->start;
my $cold = PostgreSQL::Test::Cluster->new('cold');
$cold->init_from_backup($primary, 'base', has_streaming => 1);
$cold->append_conf('postgresql.conf', "walsizer.enable = on\nhot_standby = off\n");
$cold->start;

$primary->append_conf('postgresql.conf', "walsizer.enable = on\n");
$primary->reload;
wait_for($primary, 'SELECT enabled FROM walsizer.status()', 'walsizer enabled on the primary');
my $worker_sql = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_walsizer'";
for my $node ($standby, $cascade)
{
	my $name = $node->name;
	is($node->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', "$name in recovery");
	wait_for($node, "($worker_sql) = 1", "$name runs the worker");
	is(status_value($node, 'role'), 'standby', "$name: status() says standby");
}
is(status_value($primary, 'role'), 'primary', 'primary: status() says primary');

# 1. The load on the primary; every standby replays it.
my $load = start_pgbench($primary, '-c', '4', '-j', '2', '-T', '900');
my ($primary_mb, %standby_mb);
($primary_mb, @standby_mb{qw(standby cascade)}) = settled_sizes($primary, [ $standby, $cascade ], 360);
for my $node ($standby, $cascade)
{
	my $name = $node->name;
	my $mb = $standby_mb{$name};
	note_decisions($node, "$name decisions");
	my $ratio = $mb / $primary_mb;
	cmp_ok($ratio, '<=', $within, sprintf('%s: %d MB, %.2fx the primary\'s %d MB (at most %.1fx)',
		$name, $mb, $ratio, $primary_mb, $within));
	cmp_ok($ratio, '>=', 1 / $within, "$name: and at least 1/${within}x of it");
	my @changes = decision_rows($node, "action IN ('grow', 'capped', 'shrink')");
	ok(@changes >= 1, "$name: its worker changed the size (" . scalar(@changes) . ' changes)');
	is(scalar(grep { $_->{role} ne 'standby' } @changes), 0,
		"$name: every change is recorded as made on a standby");
	like($changes[0]{reason}, qr/^standby: it replays up to \d+ MB of WAL per checkpoint_timeout/,
		"$name: the first says it sized for the replayed WAL");
	is(status_value($node, 'max_wal_size_mb'), $mb, "$name: status() shows the size");
	like(auto_conf_max_wal_size($node), qr/^\d+MB$/, "$name: written by ALTER SYSTEM");
	is($node->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', "$name: still in recovery");
}
note_decisions($primary, 'primary decisions');

# hot_standby = off: no connection, no consistent-state worker
my $cold_log = slurp_file($cold->logfile);
unlike($cold_log, qr/pg_walsizer started/, 'hot_standby = off: the worker did not start');
like($cold_log, qr/consistent recovery state reached/, 'although it replays');
$cold->stop;

# 2. Failover: the primary stops, the standby is promoted, the load moves.
$load->{handle}->kill_kill;
$primary->stop('immediate');
my $log_offset = -s $standby->logfile;
my $decisions_before = status_value($standby, 'decisions_total');
my $size_before = setting_mb($standby, 'max_wal_size');
my $promoted_at = time;
$standby->promote;
wait_for($standby, 'SELECT NOT pg_is_in_recovery()', 'the standby is promoted');
is($standby->safe_psql('postgres', $worker_sql), 1, 'the same worker goes on: one process');
is(setting_mb($standby, 'max_wal_size'), $size_before, "it keeps the standby's $size_before MB");
my $promotion_logged = qr/pg_walsizer: the server is now a primary; max_wal_size \d+ MB is kept/;
run_pgbench($standby, $after_promotion_s, 4, '-j', 2);
is(log_count($standby, $promotion_logged, $log_offset), 1, 'the worker logged the promotion once');
my $forced = wal_forced_checkpoints($standby, $log_offset);
my $checkpoints = log_count($standby, qr/checkpoint starting:/, $log_offset);
cmp_ok($forced, '<=', 1,
	"$forced of $checkpoints checkpoints forced by WAL in the $after_promotion_s s after the promotion");
is(status_value($standby, 'role'), 'primary', 'status() says primary');
cmp_ok(status_value($standby, 'decisions_total'), '>=', $decisions_before,
	'the history goes on');
my @roles = split /\n/, $standby->safe_psql('postgres',
	'SELECT DISTINCT role FROM walsizer.decisions() ORDER BY 1');
ok(grep({ $_ eq 'standby' } @roles), 'its history still has the decisions made as a standby');
note_decisions($standby, 'promoted standby decisions');
note(sprintf('figures: primary settled %d MB; standby %d MB; cascade %d MB; '
	  . 'after promotion %d of %d checkpoints forced by WAL in %d s; size now %d MB',
	$primary_mb, $standby_mb{standby}, $standby_mb{cascade}, $forced, $checkpoints,
	$after_promotion_s, setting_mb($standby, 'max_wal_size')));

$cascade->stop;
$standby->stop;
done_testing();

# Waits until the primary's size holds on the steady load (a settling
# after its last growth, or no change for 90 s) and every standby's size
# is within $within of it and has held for 30 s (three windows: they decide
# at window ends), all at once; at most $seconds.  Returns the primary's
# size and the standbys', in MB.
sub settled_sizes
{
	my ($primary, $standbys, $seconds) = @_;
	my $deadline = time() + $seconds;
	my ($primary_since, $primary_last) = (time(), 0);
	my ($standbys_since, $standbys_last) = (time(), '');
	while (1)
	{
		my $size = setting_mb($primary, 'max_wal_size');
		my $settling = $primary->safe_psql('postgres',
			"SELECT coalesce((SELECT reason LIKE 'settling%' FROM walsizer.decisions() "
			  . "WHERE action IN ('grow', 'capped', 'shrink') ORDER BY at DESC LIMIT 1), false)");
		($primary_since, $primary_last) = (time(), $size) if $size != $primary_last;
		my $held = $size > 64 && ($settling eq 't' || time() - $primary_since >= 90);
		my @sizes = map { setting_mb($_, 'max_wal_size') } @$standbys;
		($standbys_since, $standbys_last) = (time(), "@sizes") if "@sizes" ne $standbys_last;
		my $near = grep { $_ <= $size * $within && $_ >= $size / $within } @sizes;
		if (($held && $near == @sizes && time() - $standbys_since >= 30)
			|| time() >= $deadline)
		{
			note("the primary held $size MB; the standbys @sizes MB");
			fail("the primary did not settle within $seconds s") unless $held;
			return ($size, @sizes);
		}
		sleep 2;
	}
}
