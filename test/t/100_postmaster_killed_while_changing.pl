# walsizer-test: long
# The whole server (postmaster and every child at the same instant) is
# SIGKILLed while walsizer keeps changing max_wal_size under load, six
# times over.  After each kill: postgresql.auto.conf still parses and the
# server starts; the max_wal_size it starts with is the old value or one
# walsizer wrote (never anything else), and walsizer recognises it as its
# own rather than adopting it as the DBA's; pg_walsizer.state loads; and
# at most the decision being saved at the kill is missing.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my $iterations = 6;
my $window_s = 1;
my $high_mb = 1024;
my $low_mb = 64;

# the killed postmaster must be reaped before it can start again
ok(reap_orphans_here(), 'this test reaps the processes it kills');
my $node = walsizer_node('pm_killed',
	conf => {
		'walsizer.enable' => 'off',
		'walsizer.interval' => "'${window_s}s'",
		'walsizer.max' => "'${high_mb}MB'",
		autovacuum => 'off',
		# files are renamed durably, so a change takes long enough to be
		# caught in the middle; commits need not wait for the disk
		fsync => 'on',
		synchronous_commit => 'off' });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->safe_psql('postgres', 'CHECKPOINT');
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
wait_for($node, 'SELECT enabled FROM walsizer.status', 'walsizer enabled');

# walsizer.max alternates: lowering it below the size walsizer set makes it
# shrink at the next sample, raising it again lets the load make it grow
sub set_cap
{
	my ($mb) = @_;
	$node->append_conf('postgresql.conf', "walsizer.max = '${mb}MB'\n");
	$node->reload;
}

sub postmaster_pid
{
	open(my $fh, '<', $node->data_dir . '/postmaster.pid') or die "postmaster.pid: $!";
	my $pid = <$fh>;
	close $fh;
	chomp $pid;
	return $pid;
}

sub decisions
{
	my $out = $node->safe_psql('postgres',
		"SELECT extract(epoch FROM at), action, old_mb, new_mb "
		  . "FROM walsizer.decisions");
	return map { [ split /\|/ ] } split /\n/, $out;
}

my $configured_mb = 32;
my ($mid_change_kills, $total_missing) = (0, 0);
for my $i (1 .. $iterations)
{
	wait_for($node,
		'SELECT worker_pid IS NOT NULL AND last_check_at IS NOT NULL FROM walsizer.status',
		"iteration $i: worker running and measuring");
	my $began = $node->safe_psql('postgres', 'SELECT now()');

	my $load = start_pgbench($node, '-c', '3', '-j', '3', '-T', '180');
	set_cap($high_mb);
	# in turn: a grow in flight (the load makes walsizer grow at any sample)
	# or a shrink in flight (walsizer shrinks as soon as the reload reaches
	# it, a few milliseconds after the cap is lowered).  Waited for, not
	# slept: the size must be one the lowered cap shrinks, and in a grow's
	# turn the load must have made walsizer grow already (and goes on), which
	# a loaded machine's load does later.
	my $growing = $i % 2 ? 'true'
	  : "EXISTS (SELECT FROM walsizer.decisions WHERE "
	  . growth_sql() . " AND at > '$began')";
	ok(poll_until($node,
			"SELECT max_wal_size_mb > $low_mb AND $growing FROM walsizer.status", 120),
		"iteration $i: the load made the size grow above $low_mb MB");
	sleep(rand(1.5)) if $i % 2 == 0;
	my $show_mb = setting_mb($node, 'max_wal_size');
	my @seen = decisions();
	my $seen_at = time;
	if ($i % 2 == 1)
	{
		# what pg_ctl reload does, without its delay: the change starts
		# some 10 ms after the signal and takes some 20 ms
		$node->append_conf('postgresql.conf', "walsizer.max = '${low_mb}MB'\n");
		kill 'HUP', postmaster_pid();
		sleep(0.005 + rand(0.04));
	}
	my $killed = kill9_all($node);
	my $killed_at = time;
	finish_pgbench($load);
	note("iteration $i: killed $killed processes "
		  . sprintf('%.2f s', $killed_at - $seen_at)
		  . " after reading " . scalar(@seen) . " decisions; server ran with $show_mb MB");

	# what the server will start with
	my $auto_conf = slurp_file($node->data_dir . '/postgresql.auto.conf');
	my @bad_lines = grep { !/^\s*(#.*)?$/ && !/^[a-z_.]+ = '[^']*'$/ }
	  split /\n/, $auto_conf;
	is(scalar @bad_lines, 0, "iteration $i: postgresql.auto.conf is well formed")
	  or diag($auto_conf);
	my @values = $auto_conf =~ /^max_wal_size = '([^']*)'$/mg;
	cmp_ok(scalar @values, '<=', 1, "iteration $i: at most one max_wal_size line");
	my $file_mb = @values ? $values[0] : "${configured_mb}MB";
	like($file_mb, qr/^\d+MB$/, "iteration $i: max_wal_size in the file is '$file_mb'");
	($file_mb) = $file_mb =~ /^(\d+)/;

	# the state file says what walsizer wrote last or was about to write
	my $state = state_file_header($node);
	ok(defined $state, "iteration $i: state file present");
	$state //= { last_set_mb => -1, intent_mb => -1, count => 0 };
	$mid_change_kills++ if $state->{intent_mb} != 0;
	note("iteration $i: file max_wal_size $file_mb MB; state last_set "
		  . "$state->{last_set_mb} MB, intent $state->{intent_mb} MB, "
		  . "$state->{count} decisions");
	ok($file_mb == $state->{last_set_mb} || $file_mb == $state->{intent_mb}
		  || ($state->{last_set_mb} == 0 && $file_mb == $configured_mb),
		"iteration $i: $file_mb MB is what the state file says walsizer wrote or was writing");
	ok($file_mb % 16 == 0 && $file_mb >= $configured_mb && $file_mb <= $high_mb,
		"iteration $i: $file_mb MB is within [$configured_mb, $high_mb] in whole segments");

	my $log_offset = -s $node->logfile;
	ok($node->start(fail_ok => 1), "iteration $i: the server starts again");
	wait_for($node,
		'SELECT worker_pid IS NOT NULL AND last_check_at IS NOT NULL FROM walsizer.status',
		"iteration $i: worker back and measuring");
	my $log = slurp_file($node->logfile, $log_offset);
	my ($loaded) = $log =~ /pg_walsizer loaded (\d+) recorded decisions/;
	ok(defined $loaded, "iteration $i: the state file loaded");
	unlike($log, qr/pg_walsizer (is ignoring|could not open|could not read) state file/,
		"iteration $i: no complaint about the state file");

	my @after = decisions();
	my @adopted = grep { $_->[0] > $killed_at && $_->[1] eq 'adopt' } @after;
	is(scalar @adopted, 0,
		"iteration $i: walsizer took the value it finds as its own, adopted nothing");

	# history: what was read before the kill is there, except at most the
	# decisions of the window in which the server died
	my @restored = grep { $_->[0] <= $killed_at } @after;
	my %restored = map { join('|', @$_) => 1 } @restored;
	my %known = map { $_->[3] => 1 }
	  grep { $_->[1] =~ /^(grow|capped|shrink|protect)$/ } @seen, @restored;
	ok($file_mb == $show_mb || $known{$file_mb}
		  || $file_mb == $state->{intent_mb},
		"iteration $i: $file_mb MB is the old value ($show_mb MB) or one walsizer decided");
	my $oldest = @restored ? $restored[0][0] : 0;
	my @missing = grep { !$restored{ join('|', @$_) } && $_->[0] >= $oldest } @seen;
	$total_missing += @missing;
	# Each decision is saved as it is appended (record.c): only the newest,
	# the one being saved when the server died, can be lost; none before a
	# decision that was kept.  (Not "none older than the last window": a
	# save that a loaded disk makes slow keeps a decision at risk longer.)
	my $newest_restored = 0;
	$newest_restored < $_->[0] and $newest_restored = $_->[0] for @restored;
	my @before_kept = grep { $_->[0] < $newest_restored } @missing;
	is(scalar @before_kept, 0,
		"iteration $i: " . scalar(@missing) . " decisions lost, none before one that was kept");
	cmp_ok(scalar @missing, '<=', 1, "iteration $i: at most the newest decision lost");
	# A decision is timed just before it is appended to the history, by the
	# one worker in turn: one timed a moment before the read can still be
	# appended after it (a worker descheduled between the two, for however
	# long), but none is appended before one the read saw.
	my %seen = map { join('|', @$_) => 1 } @seen;
	my @unseen = grep { !$seen{ join('|', @$_) } } @restored;
	my $newest_seen = 0;
	$newest_seen < $_->[0] and $newest_seen = $_->[0] for @seen;
	my @invented = grep { $_->[0] < $newest_seen } @unseen;
	my $late = grep { $_->[0] < $seen_at } @unseen;
	note("iteration $i: $late decisions timed before the history was read were listed after it");
	is(scalar @invented, 0, "iteration $i: no restored decision is unknown")
	  or diag(join("\n", 'unknown: ', map { join('|', @$_) } @invented));
	# the ring keeps 64: decisions made since the restart push old ones out
	my $made_since = @after - @restored;
	my $expected = $loaded // 0;
	$expected = 64 - $made_since if $expected > 64 - $made_since;
	is(scalar @restored, $expected,
		"iteration $i: the " . ($loaded // 0) . " loaded decisions are the ones listed");
}

my @all = decisions();
my @changes = grep { $_->[1] =~ /^(grow|capped|shrink)$/ } @all;
cmp_ok(scalar @changes, '>=', $iterations,
	scalar(@changes) . ' size changes over the run, so kills met a changing size');
note("kills that found a change in flight (intent in the state file): "
	  . "$mid_change_kills of $iterations; decisions lost in all: $total_missing");

$node->stop;
done_testing();
