# walsizer-test: version-dependent
# (checkpoint counters, read from pg_stat_bgwriter or pg_stat_checkpointer by major: test/pg-matrix.sh runs it on every major)
#
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
wait_for($node, 'SELECT enabled FROM walsizer.status', 'walsizer enabled');

my $log_before = -s $node->logfile;
# The first load runs until walsizer has grown (seconds on an idle machine,
# longer on a loaded one, which writes WAL more slowly), then as long again
# as it ran after the growth on an idle machine: a fixed 20 s was a race
# between the worker and the clock.
my $first_run = start_pgbench($node, '-c', 4, '-j', 4, '-T', 300);
ok(poll_until($node, 'SELECT EXISTS (SELECT FROM walsizer.decisions WHERE '
		  . growth_sql() . ')', 120),
	'the first load made walsizer grow');
sleep 14;
$first_run->{handle}->kill_kill;
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
# a backend in the middle of a transaction may still request one with the
# old size before it reloads; more than that means the first size was short
my $forced_after_grow = () =
  substr($first_load_log, $grow_at) =~ /checkpoint starting: wal\b/g;
my $forced_before_grow = $forced_during_first_load - $forced_after_grow;
# (6 s on an idle machine; a machine twice as slow writes the WAL that makes
# a checkpoint imminent twice as slowly, so allow twice that.  A machine
# slower still forces its checkpoints more slowly too: there it is in time
# if it grew before the load forced a third.)
ok($grow_after < 12 || $forced_before_grow <= 2,
	sprintf('first grow %.1f s after the load started, after %d WAL-forced checkpoints',
		$grow_after, $forced_before_grow));
cmp_ok($forced_after_grow, '<=', 1,
	"at most one WAL-forced checkpoint after the first grow: $forced_after_grow "
	  . "(" . ($forced_during_first_load - $forced_after_grow) . " before it)");

# A growth is recorded as 'grow', or as 'capped' when the load needs more
# than walsizer.max (4096 MB): a fast machine writes enough WAL in the first
# seconds of the load for that.
my @grows = decision_rows($node, growth_sql());
ok(@grows >= 1, 'a growth was recorded (grow, or capped at walsizer.max)');
my $first = $grows[0] // { map { $_ => '' } qw(action old_mb new_mb reason wal_bytes) };
is($first->{old_mb}, 32, 'grew from the configured 32 MB');
cmp_ok($first->{new_mb}, '>', 32, "grew to $first->{new_mb} MB ($first->{action})");
is($first->{new_mb} % 16, 0, 'new size is a whole number of 16 MB segments');
like($first->{reason},
	qr/(forced by WAL|projected \d+ MB of WAL since the last checkpoint)/,
	'reason gives the evidence');
like($first->{reason}, qr/needs \d+ MB/, 'reason gives the size the load needs');
if ($first->{action} eq 'capped')
{
	# walsizer.max, or less if the disk holding pg_wal is small
	my ($needs, $cap) =
	  $first->{reason} =~ /the load needs (\d+) MB but the cap \((?:walsizer\.max|disk)\) is (\d+) MB/;
	ok(defined $cap && $needs > $cap && $cap <= 4096,
		'capped: the reason gives a need beyond the cap of at most walsizer.max');
	is($first->{new_mb}, $cap // '', 'capped: grew to the cap');
}
cmp_ok($first->{wal_bytes}, '>', 0, 'decision carries the WAL written');

# The server runs with the size walsizer set last, and it is in
# postgresql.auto.conf.  That is the growth, a later growth, or a settle: a
# size grown on a few seconds' projection comes down to what whole
# checkpoint cycles at it need once they are measured, which on a fast
# machine can happen right after the first load.  A change may land while
# this looks, so look until the three agree.
my $change = "action IN ('grow', 'capped', 'shrink', 'protect') AND new_mb <> old_mb";
my ($last, $setting_mb, $show, $auto);
my $deadline = time() + 60;
while (1)
{
	$last = (decision_rows($node, $change))[-1];
	($setting_mb, $show) = split /\|/, $node->safe_psql('postgres',
		"SELECT setting, current_setting('max_wal_size') FROM pg_settings "
		  . "WHERE name = 'max_wal_size'");
	$auto = auto_conf_max_wal_size($node) // '';
	last if $last && $last->{confirmed} eq 'true'
	  && $setting_mb == $last->{new_mb} && $auto eq "$last->{new_mb}MB";
	last if time() >= $deadline;
	select(undef, undef, undef, 0.2);
}
$last //= { map { $_ => '' } qw(action old_mb new_mb confirmed reason) };
my $final = $last->{new_mb};
ok(scalar($last->{action} =~ /^(grow|capped)$/
		  || ($last->{action} eq 'shrink' && $last->{reason} =~ /^settling/)),
	"the last change is a growth or its settling: $last->{action} "
	  . "$last->{old_mb} -> $final MB");
is($last->{confirmed}, 'true', 'the last change is confirmed as applied');
is($show,
	$final >= 1024 && $final % 1024 == 0 ? ($final / 1024) . 'GB' : "${final}MB",
	'SHOW max_wal_size is the new size');
is($auto, "${final}MB", 'postgresql.auto.conf holds it');
cmp_ok($final, '>', 32, 'the server runs with more than the configured 32 MB');
cmp_ok($final, '<=', 4096, 'within walsizer.max');

# the same load again: the size now absorbs it
my $log_after = -s $node->logfile;
run_pgbench($node, 20, 4);
my $forced_after = wal_forced_checkpoints($node, $log_after);
is($forced_after, 0, 'no WAL-forced checkpoint under the same load after the grow');
note("forced before: $forced_during_first_load, after: $forced_after, "
	  . "size 32 MB -> $first->{new_mb} MB, then $final MB");

note_decisions($node, 'decisions after both loads');

# status() explains it: its last action is the last decision, a growth or
# the settling of one (reading both may straddle a decision: read again).
# The last decision by position: no column list, which a new column of
# decisions() would shift onto the ordinality.
my $status_vs_last = q{
SELECT s.last_action, s.last_reason, d.action, d.reason
FROM walsizer.status s LEFT JOIN
     (SELECT action, reason FROM walsizer.decisions() WITH ORDINALITY AS x
      ORDER BY x.ordinality DESC LIMIT 1) d ON true};
my ($st_action, $st_reason, $last_action, $last_reason);
for my $try (1 .. 5)
{
	($st_action, $st_reason, $last_action, $last_reason) = split /\|/,
	  $node->safe_psql('postgres', $status_vs_last), 4;
	last if $st_action eq $last_action && $st_reason eq $last_reason;
}
is($st_action, $last_action, 'status shows the last action');
is($st_reason, $last_reason, 'status shows the last reason');
ok(scalar($st_action =~ /^(grow|capped)$/
		  || ($st_action eq 'shrink' && $st_reason =~ /^settling/)),
	"the last action is a growth or its settling: $st_action");
# last_change is the newest decision that changed the size: here the
# growth, or the settling of it, that status shows
my $last_change_vs_decisions = q{
SELECT c.action, c.old_mb, c.new_mb, c.reason, d.action, d.old_mb, d.new_mb, d.reason,
       c.ago >= interval '0'
FROM walsizer.last_change c,
     (SELECT * FROM walsizer.decisions
       WHERE action IN ('grow', 'capped', 'shrink', 'protect') AND new_mb <> old_mb
       ORDER BY at DESC LIMIT 1) d};
my @change;
for my $try (1 .. 5)
{
	@change = split /\|/, $node->safe_psql('postgres', $last_change_vs_decisions);
	last if "@change[0..3]" eq "@change[4..7]";
}
is("@change[0..3]", "@change[4..7]", 'last_change is the newest change of the size');
like($change[0], qr/^(grow|capped|shrink)$/, "last_change's action is a change: $change[0]");
isnt($change[1], $change[2], 'last_change says from what to what');
is($change[8], 't', 'last_change says how long ago');

# forced checkpoints are only counted when the log confirms them
cmp_ok(status_value($node, 'total_wal_forced'), '<=',
	wal_forced_checkpoints($node, 0), 'status never over-counts forced checkpoints');
cmp_ok(status_value($node, 'total_requested'), '>=',
	status_value($node, 'total_wal_forced'), 'forced ones are a subset of requested ones');
cmp_ok(status_value($node, 'peak_wal_rate_bytes_per_s'), '>', 0,
	'status reports a peak WAL rate');

$node->stop;
done_testing();
