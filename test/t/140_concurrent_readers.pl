# walsizer-test: long
# walsizer-test: minutes 2
# 64 sessions read walsizer.status and walsizer.decisions in a loop for
# 40 s while the worker decides under a write load and walsizer.check_now()
# ends windows early now and then.  Every row read is self-consistent (the
# readers check it server-side and fail their transaction if not), no
# reader fails, and the worker keeps its cadence: at no moment was its last
# window older than the window length plus one second.  The trigger distance
# the rows paired with each max_wal_size is the one the server itself starts
# a WAL-forced checkpoint at, measured afterwards for the small sizes.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use ServerTrigger;
use WalsizerTest;

my $window_s = 2;
my $seconds = 40;
my $node = walsizer_node('readers',
	conf => {
		'walsizer.enable' => 'off',
		'walsizer.interval' => "'${window_s}s'",
		'walsizer.shrink_after' => 2,
		max_connections => 100,
		autovacuum => 'off' });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->safe_psql('postgres', 'CHECKPOINT');

# A failed check raises an error naming it, which aborts the pgbench client.
$node->safe_psql('postgres', q{
CREATE FUNCTION check_that(ok boolean, what text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
	IF ok IS NOT TRUE THEN
		RAISE EXCEPTION 'inconsistent walsizer row: %', what;
	END IF;
	RETURN true;
END $$;
CREATE UNLOGGED TABLE cadence (seen_at timestamptz, last_check_at timestamptz,
	worker_wait text, max_wal_size_mb bigint, trigger_bytes bigint,
	decisions_total bigint, total_timed bigint, total_requested bigint,
	total_wal_bytes bigint);
});

my $dir = PostgreSQL::Test::Utils::tempdir();
my $reader = "$dir/reader.sql";
open(my $fh, '>', $reader) or die "$reader: $!";
print $fh <<'EOF';
SELECT check_that(enabled AND worker_pid IS NOT NULL, 'no worker')
   AND check_that(cap_mb >= floor_mb, format('cap %s below floor %s', cap_mb, floor_mb))
   AND check_that(cap_mb % 16 = 0 AND floor_mb % 16 = 0 AND needed_mb % 16 = 0
                  AND max_wal_size_mb % 16 = 0,
                  format('sizes not in segments: %s %s %s %s', cap_mb, floor_mb, needed_mb, max_wal_size_mb))
   AND check_that(max_wal_size_mb BETWEEN 32 AND 4096, format('max_wal_size %s', max_wal_size_mb))
   AND check_that(next_check_at >= last_check_at OR last_check_at IS NULL,
                  format('next check %s before last %s', next_check_at, last_check_at))
   AND check_that(total_requested >= total_wal_forced,
                  format('total forced %s > requested %s', total_wal_forced, total_requested))
   AND check_that(last_requested >= last_wal_forced,
                  format('last forced %s > requested %s', last_wal_forced, last_requested))
   AND check_that(coalesce(last_requested_ratio BETWEEN 0 AND 1, true)
                  AND coalesce(total_requested_ratio BETWEEN 0 AND 1, true), 'ratio out of range')
   AND check_that(total_timed >= last_timed AND total_requested >= last_requested
                  AND total_wal_forced >= last_wal_forced AND total_wal_bytes >= last_wal_bytes,
                  'a total below the last window''s figure')
   AND check_that(trigger_bytes % (16 * 1048576) = 0
                  AND trigger_bytes BETWEEN 16 * 1048576 AND max_wal_size_mb * 1048576,
                  format('trigger %s not whole segments within max_wal_size %s MB',
                         trigger_bytes, max_wal_size_mb))
   AND check_that(window_s = 2 AND sample_interval_ms = 200, 'wrong window or sample interval')
   AND check_that(pending_mb IS NULL OR pending_mb % 16 = 0, format('pending %s', pending_mb))
   AND check_that(projected_bytes >= wal_since_redo_bytes,
                  format('projected %s below the WAL already written since the redo pointer, %s',
                         projected_bytes, wal_since_redo_bytes))
   AND check_that((decisions_total = 0) = (last_action IS NULL), 'last action without decisions')
   AND check_that(next_action IS NOT NULL AND next_reason <> '', 'no plan')
FROM walsizer.status;
-- Each check counts the rows that break it (a NULL breaks it too), so that
-- it also holds before the first decision, when there are no rows: a
-- bool_and() over no rows is NULL, not true.
SELECT check_that(count(*) <= 64, format('%s decisions', count(*)))
   AND check_that(count(*) FILTER (WHERE (action IN ('grow', 'capped', 'shrink', 'protect', 'adopt',
                                      'error', 'blocked', 'unconfirmed', 'advise')) IS NOT TRUE) = 0,
                  'unknown action')
   AND check_that(count(*) FILTER (WHERE (action NOT IN ('grow', 'capped', 'shrink', 'protect')
                           OR (new_mb % 16 = 0 AND new_mb BETWEEN 32 AND 4096
                               AND old_mb BETWEEN 32 AND 4096 AND confirmed IS NOT NULL)) IS NOT TRUE) = 0,
                  'size change out of range')
   AND check_that(count(*) FILTER (WHERE (action <> 'grow' OR new_mb > old_mb) IS NOT TRUE) = 0,
                  'grow that does not grow')
   AND check_that(count(*) FILTER (WHERE (action <> 'shrink' OR new_mb < old_mb) IS NOT TRUE) = 0,
                  'shrink that does not shrink')
   AND check_that(count(*) FILTER (WHERE (wal_forced <= requested AND wal_bytes >= 0
                                          AND window_s >= 0) IS NOT TRUE) = 0,
                  'decision figures inconsistent')
   AND check_that(count(*) FILTER (WHERE (reason <> '') IS NOT TRUE) = 0, 'decision without reason')
   AND check_that(count(*) FILTER (WHERE (at >= previous_at OR previous_at IS NULL) IS NOT TRUE) = 0,
                  'decisions out of order')
FROM (SELECT d.*, lag(at) OVER (ORDER BY d.ordinality) AS previous_at
      FROM walsizer.decisions() WITH ORDINALITY AS d) ds;
EOF
close $fh;

# The writers: bulk inserts, several MB of WAL a second, so that a
# checkpoint is soon about to be forced at 32 MB and walsizer grows within
# the first burst, then shrinks in the quiet between bursts.
$node->safe_psql('postgres', 'CREATE TABLE ballast (id int, pad text)');
my $writes = "$dir/writer.sql";
open($fh, '>', $writes) or die "$writes: $!";
print $fh "INSERT INTO ballast SELECT g, repeat(md5(g::text), 10) FROM generate_series(1, 1000) g;\n";
close $fh;

my $sampler = "$dir/cadence.sql";
open($fh, '>', $sampler) or die "$sampler: $!";
print $fh "INSERT INTO cadence SELECT clock_timestamp(), last_check_at, "
  . "(SELECT wait_event_type || ':' || wait_event FROM pg_stat_activity "
  . "WHERE backend_type = 'pg_walsizer'), max_wal_size_mb, trigger_bytes, "
  . "decisions_total, total_timed, total_requested, total_wal_bytes "
  . "FROM walsizer.status;\n";
print $fh "\\sleep 100 ms\n";
close $fh;

# switching walsizer on restarts its window: the cadence counts from the
# first window that ends after that
my $enabled_at = $node->safe_psql('postgres', 'SELECT now()');
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
wait_for($node, "SELECT last_check_at > '$enabled_at' FROM walsizer.status",
	'walsizer enabled and measuring');
my $pid = status_value($node, 'worker_pid');
my $decisions_before = status_value($node, 'decisions_total');

my $started = time;
my $readers = start_pgbench($node, '-c', '64', '-j', '4', '-T', $seconds, '-f', $reader);
my $cadence = start_pgbench($node, '-c', '1', '-T', $seconds, '-f', $sampler);
# the write load comes and goes, so walsizer both grows and shrinks
my $checks = 0;
my ($writer_rc, $writer_err) = (0, '');
for my $burst (1 .. 3)
{
	my $writer = start_pgbench($node, '-c', '3', '-j', '3', '-T', 8, '-f', $writes);
	for (1 .. 3)
	{
		sleep 2.5;
		$checks++ if $node->safe_psql('postgres', 'SELECT walsizer.check_now()') eq 't';
	}
	my ($rc, undef, $err) = finish_pgbench($writer);
	($writer_rc, $writer_err) = ($rc, $err) if $rc != 0;
	sleep 4 if $burst < 3;
}
my ($readers_rc, $readers_out, $readers_err) = finish_pgbench($readers);
# how long the readers had decisions to check: from the first one on
my $read_decisions_s = $node->safe_psql('postgres',
	'SELECT coalesce(extract(epoch FROM now() - min(at)), 0) FROM walsizer.decisions');
my ($cadence_rc, undef, $cadence_err) = finish_pgbench($cadence);
my $elapsed = time - $started;

is($writer_rc, 0, 'the write load ran') or diag($writer_err);
is($checks, 9, 'check_now() reached the worker each time');
is($readers_rc, 0, 'the readers ran without error') or diag($readers_err);
unlike($readers_err, qr/inconsistent walsizer row|aborted/,
	'no reader saw an inconsistent row');
my ($failed) = $readers_out =~ /number of failed transactions: (\d+)/;
is($failed // 0, 0, 'pgbench reports no failed transactions');
my ($done) = $readers_out =~ /number of transactions actually processed: (\d+)/;
cmp_ok($done // 0, '>', 1000, ($done // 0) . ' reads of status() and decisions() by 64 sessions');
is($cadence_rc, 0, 'the cadence sampler ran') or diag($cadence_err);

# the worker's cadence, as the sampler saw it
my ($samples, $max_age, $windows, $max_gap) = split /\|/, $node->safe_psql('postgres', q{
SELECT count(*),
       max(extract(epoch FROM seen_at - last_check_at)),
       (SELECT count(DISTINCT last_check_at) FROM cadence),
       (SELECT max(extract(epoch FROM gap)) FROM
          (SELECT last_check_at - lag(last_check_at) OVER (ORDER BY last_check_at) AS gap
           FROM (SELECT DISTINCT last_check_at FROM cadence) w) g)
FROM cadence});
note(sprintf('cadence: %d samples, %d windows seen, last window at most %.2f s old, '
		  . 'largest gap between windows seen %.2f s; %d decisions during the run',
		$samples, $windows, $max_age, $max_gap,
		status_value($node, 'decisions_total') - $decisions_before));
my $waits = $node->safe_psql('postgres',
	"SELECT w || ' ' || count(*) FROM (SELECT coalesce(worker_wait, 'running') AS w FROM cadence) c "
	  . "GROUP BY w ORDER BY w");
note('what the worker was doing when sampled: ' . join(', ', split /\n/, $waits));
my $late = $node->safe_psql('postgres', qq{
SELECT to_char(last_check_at, 'HH24:MI:SS.MS') || ' +' || round(extract(epoch FROM gap)::numeric, 2)
FROM (SELECT last_check_at, lead(last_check_at) OVER (ORDER BY last_check_at) - last_check_at AS gap
      FROM (SELECT DISTINCT last_check_at FROM cadence) w) g
WHERE gap > interval '${window_s}.5 s'});
note('late windows: ' . join(', ', split /\n/, $late)) if $late ne '';
cmp_ok($samples, '>=', 100, "the sampler sampled ($samples times)");
cmp_ok($windows, '>=', $seconds / $window_s - 2, "$windows windows ended in $seconds s");
# A stall of the whole machine (other work on the host) delays the worker
# and the sampler alike: the sampler's own longest pause is allowed for.
my $stall = $node->safe_psql('postgres', q{
SELECT greatest(0, max(extract(epoch FROM gap)) - 0.1) FROM
  (SELECT seen_at - lag(seen_at) OVER (ORDER BY seen_at) AS gap FROM cadence) g});
my $allowed = $window_s + 1 + $stall;
cmp_ok($max_age, '<=', $allowed,
	sprintf('the last window was never older than %d s plus the machine\'s longest stall '
		  . 'of %.2f s (at most %.2f s)', $window_s + 1, $stall, $max_age));
cmp_ok(status_value($node, 'decisions_total'), '>', $decisions_before,
	'the worker made decisions meanwhile');
# the counters since the worker started only grow, read after read (a read
# of a half-published iteration, or a counter reset, would go back)
my $backwards = $node->safe_psql('postgres', q{
SELECT string_agg(to_char(seen_at, 'HH24:MI:SS.MS') || ': ' || what, ', ')
FROM (SELECT seen_at, concat_ws(' ',
             CASE WHEN decisions_total < lag(decisions_total) OVER w THEN 'decisions_total' END,
             CASE WHEN total_timed < lag(total_timed) OVER w THEN 'total_timed' END,
             CASE WHEN total_requested < lag(total_requested) OVER w THEN 'total_requested' END,
             CASE WHEN total_wal_bytes < lag(total_wal_bytes) OVER w THEN 'total_wal_bytes' END) AS what
      FROM cadence WINDOW w AS (ORDER BY seen_at)) c
WHERE what <> ''});
is($backwards, '', 'no counter since the worker started ever went back between two reads');
my ($grew_wal, $grew_decisions) = split /\|/, $node->safe_psql('postgres',
	'SELECT max(total_wal_bytes) > min(total_wal_bytes), '
	  . 'max(decisions_total) > min(decisions_total) FROM cadence');
is("$grew_wal $grew_decisions", 't t', 'and the reads saw them grow');
# the readers started before the first decision, so the checks of
# decisions() held over no rows at first; the first load makes it decide
# within seconds, and the readers must have checked rows for a good part of
# the run
cmp_ok($read_decisions_s, '>=', $seconds / 4,
	sprintf('the readers read decisions for the last %.1f s of the %d s run',
		$read_decisions_s, $seconds));
note_decisions($node);
is(status_value($node, 'worker_pid'), $pid, 'the same worker throughout');

# --- the trigger distances the rows showed ---------------------------------
# each max_wal_size came with one trigger distance, a larger size never with
# a smaller one
my $pairs = $node->safe_psql('postgres', q{
SELECT max_wal_size_mb || ':' || min(trigger_bytes) || ':' || max(trigger_bytes)
FROM cadence GROUP BY max_wal_size_mb ORDER BY max_wal_size_mb});
my %seen_trigger;
my $previous = 0;
my @mixed;
for my $pair (split /\n/, $pairs)
{
	my ($mb, $low, $high) = split /:/, $pair;
	push @mixed, "$mb MB: $low to $high" if $low != $high || $low < $previous;
	$seen_trigger{$mb} = $low;
	$previous = $high;
}
note('max_wal_size MB: trigger MB seen: '
	  . join(', ', map { "$_: " . ($seen_trigger{$_} / 1048576) } sort { $a <=> $b } keys %seen_trigger));
is(join('; ', @mixed), '', 'one trigger distance per max_wal_size, growing with it');

# Where the server starts a WAL-forced checkpoint, at the small sizes the
# rows showed and at 64 MB (where the trigger is two segments: one segment
# off is half of it).  walsizer is switched off, so that it leaves each size
# alone while WAL is written to find the server's trigger.
$node->append_conf('postgresql.conf', "walsizer.enable = off\n");
$node->reload;
wait_for($node, 'SELECT NOT enabled FROM walsizer.status', 'walsizer switched off');
my %sizes = map { $_ => 1 } 64, grep { $_ <= 128 } keys %seen_trigger;
for my $mb (sort { $a <=> $b } keys %sizes)
{
	$node->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '${mb}MB'");
	$node->reload;
	wait_for($node, "SELECT max_wal_size_mb = $mb FROM walsizer.status",
		"max_wal_size $mb MB");
	ok($node->poll_query_until('postgres', "SELECT current_setting('max_wal_size') = '${mb}MB'"),
		"new sessions run with $mb MB");
	my $server = server_trigger_distance($node, 4 * $mb * 1048576);
	ok($server, "$mb MB: the server started a checkpoint for WAL") or next;
	my ($distance, $segment) = @$server{qw(distance_bytes segment_bytes)};
	my $trigger = status_value($node, 'trigger_bytes');
	ok($trigger <= $distance && $distance < $trigger + $segment,
		sprintf('%d MB: walsizer\'s trigger of %.1f MB is where the server started its '
			  . 'checkpoint, %.1f MB from the start of the redo segment',
			$mb, $trigger / 1048576, $distance / 1048576));
	is($seen_trigger{$mb}, $trigger, "$mb MB: the readers saw that trigger too")
	  if exists $seen_trigger{$mb};
}

$node->stop;
done_testing();
