# Under a write load that forces checkpoints with max_wal_size = 32MB,
# walsizer grows max_wal_size from the measured WAL rate, the server applies
# it, the decision is recorded with its figures, and the same load afterwards
# forces no more checkpoints.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = walsizer_node('grow', conf => { 'walsizer.enable' => 'off' });

# load the data while walsizer is off, so that the bulk load does not count
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->safe_psql('postgres', 'CHECKPOINT');
is(scalar(decision_rows($node)), 0, 'disabled: nothing decided during the load');

$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
wait_for($node, 'SELECT enabled FROM walsizer.status()', 'walsizer enabled');

my $log_before = -s $node->logfile;
run_pgbench($node, 20, 4);
my $forced_during_first_load = wal_forced_checkpoints($node, $log_before);
# walsizer projects from two seconds of samples: it grows within seconds of
# the load starting, and from then on no checkpoint is forced
my $first_load_log = slurp_file($node->logfile, $log_before);
my $grow_at = index($first_load_log, 'pg_walsizer grew max_wal_size');
cmp_ok($grow_at, '>=', 0, 'grew during the first load');
my @grow_clock = substr($first_load_log, 0, $grow_at) =~ /.*(\d\d):(\d\d):([\d.]+) UTC/s;
my @start_clock = $first_load_log =~ /(\d\d):(\d\d):([\d.]+) UTC/;
my $to_seconds = sub { $_[0] * 3600 + $_[1] * 60 + $_[2] };
my $grow_after = $to_seconds->(@grow_clock) - $to_seconds->(@start_clock);
cmp_ok($grow_after, '<', 6, sprintf('first grow %.1f s after the load started', $grow_after));
# a backend in the middle of a transaction may still request one with the
# old size before it reloads; more than that means the first size was short
my $forced_after_grow = () =
  substr($first_load_log, $grow_at) =~ /checkpoint starting: wal\b/g;
cmp_ok($forced_after_grow, '<=', 1,
	"at most one WAL-forced checkpoint after the first grow: $forced_after_grow "
	  . "(" . ($forced_during_first_load - $forced_after_grow) . " before it)");

my @grows = decision_rows($node, "action = 'grow'");
ok(@grows >= 1, 'a grow decision was recorded');
my $first = $grows[0];
is($first->{old_mb}, 32, 'grew from the configured 32 MB');
cmp_ok($first->{new_mb}, '>', 32, "grew to $first->{new_mb} MB");
is($first->{new_mb} % 16, 0, 'new size is a whole number of 16 MB segments');
like($first->{reason},
	qr/(forced by WAL|projected \d+ MB of WAL before the next timed checkpoint)/,
	'reason gives the evidence');
like($first->{reason}, qr/needs \d+ MB/, 'reason gives the size the load needs');
cmp_ok($first->{wal_bytes}, '>', 0, 'decision carries the WAL written');

# the server runs with it, and it is in postgresql.auto.conf
my $final = $grows[-1]->{new_mb};
wait_for($node, "SELECT confirmed FROM walsizer.decisions() WHERE action = 'grow' ORDER BY at DESC LIMIT 1",
	'the last grow is confirmed as applied');
is($node->safe_psql('postgres', 'SHOW max_wal_size'),
	$final >= 1024 && $final % 1024 == 0 ? ($final / 1024) . 'GB' : "${final}MB",
	'SHOW max_wal_size is the new size');
is(auto_conf_max_wal_size($node), "${final}MB", 'postgresql.auto.conf holds it');
cmp_ok($final, '<=', 4096, 'within walsizer.max');

# the same load again: the size now absorbs it
my $log_after = -s $node->logfile;
run_pgbench($node, 20, 4);
my $forced_after = wal_forced_checkpoints($node, $log_after);
is($forced_after, 0, 'no WAL-forced checkpoint under the same load after the grow');
note("forced before: $forced_during_first_load, after: $forced_after, "
	  . "size 32 MB -> $final MB");

# status() explains it
is(status_value($node, 'last_action'), 'grow', 'status shows the last action');
# forced checkpoints are only counted when the log confirms them
cmp_ok(status_value($node, 'total_wal_forced'), '<=',
	wal_forced_checkpoints($node, 0), 'status never over-counts forced checkpoints');
cmp_ok(status_value($node, 'total_requested'), '>=',
	status_value($node, 'total_wal_forced'), 'forced ones are a subset of requested ones');
cmp_ok(status_value($node, 'peak_wal_rate_bytes_per_s'), '>', 0,
	'status reports a peak WAL rate');

$node->stop;
done_testing();
