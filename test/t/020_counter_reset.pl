# walsizer-test: version-dependent
# (each major resets its checkpoint counters its own way: test/pg-matrix.sh runs it on every major)
#
# A reset of the checkpoint statistics (pg_stat_reset_shared) makes the
# counters go backwards or restart.  walsizer notices: the window the reset
# happened in does not know its checkpoint counts, so the checkpoints WAL
# forced in it are no evidence, although there were some (it may still
# grow for a checkpoint it sees imminent in the WAL position, which no
# reset touches).  It counts again from the reset: the next window, with
# the same load, counts its forced checkpoints.
#
# The worker samples once an hour here, so in practice only when the test
# ends a window with walsizer.check_now(): all it sees of a window is its
# end, which is where the counts apply.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

# max_wal_size 32MB: every 16 MB segment finished after the redo pointer's
# forces a checkpoint.  A completion target of 0.1 makes a checkpoint that
# nothing hurries take at most 3 s of the 30 s checkpoint_timeout.
my $node = walsizer_node('reset',
	conf => {
		wal_level => 'replica',
		autovacuum => 'off',
		checkpoint_completion_target => '0.1',
		# the reset window may grow for a checkpoint it sees imminent;
		# at most to 48 MB, where the next window's load still forces
		# checkpoints
		'walsizer.max' => "'48MB'",
		'walsizer.interval' => "'1h'",
		'walsizer.sample_interval' => "'1h'" });
$node->safe_psql('postgres', 'CREATE TABLE ballast (id int, pad text)');

# Ends the window with check_now() and waits until the worker has done so.
sub end_window
{
	my ($what) = @_;
	my $last = status_value($node, 'last_check_at');
	my $ended = $last eq '' ? 'last_check_at IS NOT NULL' : "last_check_at > '$last'";
	is($node->safe_psql('postgres', 'SELECT walsizer.check_now()'), 't',
		"check_now() reaches the worker: $what");
	wait_for($node, "SELECT $ended FROM walsizer.status", "the worker ended $what");
}

# Bulk inserts until the server has started at least $forced checkpoints
# because of WAL since log offset $from, then waits until every checkpoint
# started has completed, so that the checkpoint counters hold them all.
# Returns how many the server started for WAL.
sub force_checkpoints
{
	my ($forced, $from) = @_;
	for (my $batch = 0;
		$batch < 40 && wal_forced_checkpoints($node, $from) < $forced;
		$batch++)
	{
		$node->safe_psql('postgres',
			'INSERT INTO ballast SELECT g, repeat(md5(g::text), 8) '
			  . 'FROM generate_series(1, 50000) g');
	}
	my $complete = sub {
		my $log = slurp_file($node->logfile, $from);
		my $started = () = $log =~ /checkpoint starting:/g;
		my $done = () = $log =~ /checkpoint complete:/g;
		return $started == $done;
	};
	my $deadline = time() + 60;
	sleep 0.2 until $complete->() || time() > $deadline;
	ok($complete->(), 'every checkpoint started has completed');
	return wal_forced_checkpoints($node, $from);
}

# The recent WAL rate needs samples at least 2 s apart: keep each window
# longer than that.
sub at_least_seconds_since_last_window
{
	my ($seconds) = @_;
	my $age = $node->safe_psql('postgres',
		'SELECT extract(epoch FROM now() - last_check_at) FROM walsizer.status');
	sleep($seconds - $age) if $age < $seconds;
}

# give the counters something to lose: three CHECKPOINT commands, which
# request checkpoints without WAL forcing them
$node->safe_psql('postgres', 'CHECKPOINT') for 1 .. 3;
my $server_requested = server_major($node) >= 17
  ? 'SELECT num_requested FROM pg_stat_checkpointer'
  : 'SELECT checkpoints_req FROM pg_stat_bgwriter';
ok($node->poll_query_until('postgres', "SELECT ($server_requested) >= 3"),
	'the server counted the CHECKPOINT commands');
end_window('a first window, with the CHECKPOINT commands');
my %before = map { $_ => status_value($node, $_) }
  qw(total_timed total_requested total_wal_forced decisions_total);
cmp_ok($before{total_requested}, '>=', 3, 'walsizer counted them');
is($before{total_wal_forced}, 0, 'as not forced by WAL');
is($before{decisions_total}, 0, 'and decided nothing');

# --- the reset window: WAL-forced checkpoints, then the reset --------------
my $log_offset = -s $node->logfile;
my $forced = force_checkpoints(3, $log_offset);
cmp_ok($forced, '>=', 3, "the window's load forced $forced checkpoints");
$node->safe_psql('postgres', reset_checkpointer_sql($node));
at_least_seconds_since_last_window(3);
end_window('the window with the reset');

ok($node->wait_for_log(qr/pg_walsizer noticed a reset of the checkpoint statistics/,
		$log_offset), 'the reset is noticed and logged');
my $forced_growth = growth_sql() . " AND reason LIKE '%were forced by WAL%'";
is(scalar(decision_rows($node, $forced_growth)), 0,
	'no growth on the forced checkpoints the reset window cannot count')
  or note_decisions($node);
is(status_value($node, 'last_timed || \' \' || last_requested || \' \' || last_wal_forced'),
	'0 0 0', 'the reset window reports no checkpoints of any kind');
for my $total (qw(total_timed total_requested total_wal_forced))
{
	is(status_value($node, $total), $before{$total},
		"$total keeps what was counted before the reset window");
}

# --- the next window: the same load, counted again ---------------------------
$log_offset = -s $node->logfile;
$forced = force_checkpoints(3, $log_offset);
at_least_seconds_since_last_window(3);
end_window('the next window');
# a request whose checkpoint the server then skipped (nothing written since
# the previous one) is counted too
my $requested = status_value($node, 'last_requested');
cmp_ok($requested, '>=', $forced,
	"the next window counts the $forced checkpoints the server started for WAL");
cmp_ok(status_value($node, 'last_wal_forced'), '>=', 1,
	'and knows them forced by WAL');
is(status_value($node, 'total_requested'), $before{total_requested} + $requested,
	'counting resumed from the reset');
note_decisions($node);

$node->stop;
done_testing();
