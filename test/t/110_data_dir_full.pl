# The filesystem of the data directory is full when walsizer writes
# postgresql.auto.conf: ALTER SYSTEM fails, walsizer records an "error"
# decision that says why, the previous postgresql.auto.conf stays intact,
# the worker keeps running, and once space returns the next attempt
# succeeds; the decisions made while the disk was full reach the state file
# then.
#
# The data directory lives on a small tmpfs that the test runner mounts and
# names in WALSIZER_TEST_TMPFS; pg_wal lives on the normal disk, so WAL
# never meets the full filesystem.  The WAL load is logical messages, which
# touch no data file, so nothing but walsizer needs space while it is full.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use File::Path qw(rmtree);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my $tmpfs = test_tmpfs();

my $window_s = 2;
my $waldir = PostgreSQL::Test::Utils::tempdir() . '/pg_wal';
# no replication origin checkpoint file to write at checkpoints: on a full
# data directory PostgreSQL itself would PANIC writing it.  18 gave the
# origins their own setting.
my $major = PostgreSQL::Test::Cluster->new('probe')->pg_version->major;
my $node = walsizer_node('disk_full',
	init => { extra => [ '--waldir', $waldir ] },
	conf => {
		'walsizer.interval' => "'${window_s}s'",
		autovacuum => 'off',
		max_replication_slots => 0,
		($major >= 18 ? (max_active_replication_origins => 0) : ()) });

# move the data directory onto the tmpfs, leaving a symlink in its place
my $data_dir = $node->data_dir;
my $moved = "$tmpfs/pgdata_disk_full";
my $balloon = "$tmpfs/balloon";
$node->stop;
system('mv', $data_dir, $moved) == 0 or die "mv $data_dir $moved failed";
symlink($moved, $data_dir) or die "symlink $data_dir: $!";

END
{
	# whatever happened, leave the tmpfs empty
	if (defined $node && defined $moved && -d $moved)
	{
		$node->teardown_node;
		rmtree($moved);
	}
	unlink $balloon if defined $balloon;
}

$node->start;
# the server may answer before its worker has started
poll_until($node, 'SELECT worker_pid IS NOT NULL FROM walsizer.status', 60);
my $pid = status_value($node, 'worker_pid');
ok($pid, "worker runs with the data directory on the tmpfs (pid $pid)");
like(readlink("$moved/pg_wal") // '', qr/^\Q$waldir\E$/, 'pg_wal is on the normal disk');

# a WAL load of logical messages: about 10 MB/s
my $script = PostgreSQL::Test::Utils::tempdir() . '/message.sql';
open(my $fh, '>', $script) or die "$script: $!";
print $fh "SELECT pg_logical_emit_message(false, 'walsizer', repeat('x', 262144));\n";
close $fh;

my $auto_conf_file = "$data_dir/postgresql.auto.conf";
my $auto_conf_before = slurp_file($auto_conf_file);

# fill the filesystem: 1 MB at a time, then page by page, until ENOSPC
sub fill
{
	open(my $out, '>:raw', $balloon) or die "$balloon: $!";
	my $written = 0;
	for my $chunk (1024 * 1024, 4096, 512)
	{
		my $zeros = "\0" x $chunk;
		while (1)
		{
			my $n = syswrite($out, $zeros);
			last unless defined $n && $n == $chunk;
			$written += $n;
		}
	}
	close $out;
	return $written;
}
my $filled = fill();
note(sprintf('balloon of %.0f MB fills the tmpfs', $filled / 1024 / 1024));
sub room_left
{
	my $ok = 0;
	if (open(my $probe, '>:raw', "$tmpfs/probe"))
	{
		my $n = syswrite($probe, "\0" x 4096);
		$ok = defined $n && $n == 4096;
		close $probe;
	}
	unlink "$tmpfs/probe";
	return $ok;
}
ok(!room_left(), 'the tmpfs has no room left for a 4 kB file');

my $log_offset = -s $node->logfile;
my $load = start_pgbench($node, '-c', '2', '-j', '2', '-R', '40', '-T', '60',
	'-f', $script);
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'error')",
	'the failed change is recorded');
# one more window of failing
$node->safe_psql('postgres', "SELECT pg_sleep($window_s)");

my @errors = decision_rows($node, "action = 'error'");
note("$errors[0]{old_mb} MB -> $errors[0]{new_mb} MB failed: $errors[0]{reason}");
# either the state file (written first, to record the intent) or
# postgresql.auto.conf is the first write to hit the full disk
like($errors[0]{reason},
	qr/^(ALTER SYSTEM failed: could not (write to|create|open) file "postgresql\.auto\.conf\.tmp": No space left on device|could not save the state file before changing max_wal_size to \d+ MB; not changed)/,
	'the reason says which write found no space');
cmp_ok($errors[0]{new_mb}, '>', $errors[0]{old_mb}, 'it was trying to grow');
is(scalar decision_rows($node, "action IN ('grow', 'capped', 'shrink', 'protect')"),
	0, 'no change recorded as made');
is(slurp_file($auto_conf_file), $auto_conf_before,
	'postgresql.auto.conf is intact, byte for byte');
ok(!-e "$data_dir/postgresql.auto.conf.tmp", 'no temporary file left behind');
is(setting_mb($node, 'max_wal_size'), 32, 'the server still runs with 32 MB');
is(status_value($node, 'last_action'), 'error', 'status shows the error');
is(status_value($node, 'worker_pid'), $pid, 'the worker kept running: same pid');
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/background worker "pg_walsizer".*exited|PANIC/,
	'neither the worker nor the server went down');
like($log, qr/WARNING:  pg_walsizer could not change max_wal_size from 32 MB to \d+ MB/,
	'a WARNING names the change');
like($log, qr/WARNING:  pg_walsizer could not (create|write|close) state file/,
	'the state file could not be saved either, and it says so');
my $errors_while_full = scalar decision_rows($node, "action = 'error'");

# space comes back: the next attempt goes through
unlink $balloon or die "unlink $balloon: $!";
my $freed_at = time;
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'grow' AND confirmed)",
	'a grow succeeds and is confirmed once space returns');
# when the worker made it, not when this test saw it (a test that falls
# behind sees it later)
my $took = $node->safe_psql('postgres',
	"SELECT extract(epoch FROM min(at)) FROM walsizer.decisions WHERE action = 'grow'")
  - $freed_at;
# No change after the one checked below: the load's last samples may grow
# once more after it stops.  Changes are held from the first window that
# starts after the hold (one in progress may still be carried out).
hold_worker($node, 'grow', 'capped', 'shrink', 'protect');
my $held_at = $node->safe_psql('postgres', 'SELECT now()');
$load->{handle}->kill_kill;
wait_for($node, "SELECT last_check_at > '$held_at' FROM walsizer.status",
	'a window began after the hold: no change comes now');
# A failed change is tried again 10 s later (act.c's RETRY_FIRST_DELAY_S,
# which is also the longest delay when the window is shorter): the space
# may come back just after an attempt, so up to 10 s + 2 windows, and 2 s
# for a busy machine.
cmp_ok($took, '<=', 10 + 2 * $window_s + 2,
	sprintf('it came %.1f s after the space did, at the next retry', $took));
wait_for($node,
	"SELECT confirmed FROM walsizer.decisions WHERE action IN ('grow', 'capped', 'shrink', 'protect') "
	  . "ORDER BY at DESC LIMIT 1",
	'the last change is confirmed');
my $grow = (decision_rows($node, "action IN ('grow', 'capped', 'shrink', 'protect')"))[-1];
like($grow->{action}, qr/^(grow|capped)$/, "the last change is a growth, to $grow->{new_mb} MB");
is(setting_mb($node, 'max_wal_size'), $grow->{new_mb},
	"the server runs with $grow->{new_mb} MB");
is(auto_conf_max_wal_size($node), "$grow->{new_mb}MB", 'postgresql.auto.conf holds it');
is(status_value($node, 'worker_pid'), $pid, 'still the same worker');

# what was decided while the disk was full reached the state file
my $history = $node->safe_psql('postgres',
	'SELECT action, old_mb, new_mb, reason FROM walsizer.decisions');
my $stopped_at = $node->safe_psql('postgres', 'SELECT now()');
$node->restart;
# the worker publishes its pid before it loads the state file: once it has
# ended a window it has; what it decided since then is not the history
wait_for($node, 'SELECT worker_pid IS NOT NULL AND last_check_at IS NOT NULL FROM walsizer.status',
	'worker back after a restart, with its state');
is($node->safe_psql('postgres',
		"SELECT action, old_mb, new_mb, reason FROM walsizer.decisions WHERE at < '$stopped_at'"),
	$history, "the $errors_while_full error decisions and the grow survived a restart");

$node->stop;
rmtree($moved);
ok(!-e $moved, 'the tmpfs is clean again');
done_testing();
