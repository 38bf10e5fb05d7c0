# walsizer-test: version-dependent
# (replication slots read from shared memory, invalidated slots by major: src/server/compat.h; test/pg-matrix.sh runs it on every major)
#
# WAL that other things hold counts against the disk cap.  An inactive
# replication slot, and an archive_command that fails, keep WAL in pg_wal
# whatever max_wal_size says: the disk cap (walsizer.disk_fraction of the
# WAL volume) leaves it out, so the cap falls as that WAL accumulates, and
# max_wal_size is lowered to stay within walsizer.disk_fraction of what
# is left.  walsizer.status says how much is held and by what; a LOG says
# once (not at every cycle) that held WAL binds the cap, and what to look
# at.  Released, the WAL goes and the cap comes back.
#
# 1 MB segments (initdb --wal-segsize=1) keep the volume small; the WAL is
# written by logical messages of 1 MB, which cost no table space, under a
# light pgbench at a fixed rate.  The disk share is measured every 10 s
# (DISK_REFRESH_MS), which bounds every wait below.
#
# Needs a tmpfs mounted by the test runner, named in WALSIZER_TEST_TMPFS
# (600 MB in test/run-suites.sh); skips without one, unless
# WALSIZER_REQUIRE_TMPFS=1.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use File::Path;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $fs = test_tmpfs();
my $wal_dir = "$fs/held_wal_pg_wal";
my $MB = 1024 * 1024;
my $fraction = 0.5;

sub free_bytes
{
	my $out = `df --output=avail -B1 $fs`;
	my ($avail) = $out =~ /(\d+)\s*$/;
	return $avail;
}

sub wal_dir_bytes
{
	my $bytes = 0;
	opendir(my $dh, $wal_dir) or die "cannot read $wal_dir: $!";
	for my $f (readdir $dh)
	{
		my $path = "$wal_dir/$f";
		$bytes += -s $path if -f $path && !-l $path;
	}
	closedir $dh;
	return $bytes;
}

# $mb MB of WAL (1 MB logical messages), then a checkpoint: the redo
# pointer moves past it, so what a holder keeps is behind it.
sub write_wal
{
	my ($node, $mb) = @_;
	$node->safe_psql('postgres',
		"SELECT count(pg_logical_emit_message(false, 'walsizer-test', repeat('x', 1024 * 1024 - 256)))"
		  . " FROM generate_series(1, $mb)");
	$node->safe_psql('postgres', 'CHECKPOINT');
}

# The held WAL as the test computes it, from what the server shows:
# the last checkpoint's redo pointer less the oldest position $oldest_sql
# gives, in bytes from 0/0 (none: nothing held).
sub held_by_test
{
	my ($node, $oldest_sql) = @_;
	return $node->safe_psql('postgres',
		"SELECT coalesce(greatest(0, pg_wal_lsn_diff((SELECT redo_lsn FROM pg_control_checkpoint()), '0/0')"
		  . " - ($oldest_sql)), 0)::bigint");
}

# walsizer.disk_fraction of what the volume leaves max_wal_size, in MB,
# as the test measures it.
sub share_left_mb
{
	my ($held) = @_;
	return $fraction * (free_bytes() + wal_dir_bytes() - $held) / $MB;
}

# One episode: $mb MB held by $holder, the cap falls, max_wal_size follows
# within the share, the LOG comes once; $release lets it go and the cap
# comes back.
sub held_episode
{
	my ($node, $holder, $oldest_sql, $hint_re, $release) = @_;
	my $log_offset = -s $node->logfile;

	wait_for($node, "SELECT cap_source = 'disk' FROM walsizer.status",
		"$holder: the volume's share is the cap");
	my $cap_before = status_value($node, 'cap_mb');
	my $size_before = setting_mb($node, 'max_wal_size');
	note("$holder: before, cap $cap_before MB, max_wal_size $size_before MB, "
		  . sprintf('free %.0f MB', free_bytes() / $MB));

	# 320 MB held: the share falls by half of it, about 160 MB, below the
	# size (200 MB, or what an earlier episode left)
	write_wal($node, 320);
	my $held = held_by_test($node, $oldest_sql);
	cmp_ok($held, '>=', 300 * $MB,
		sprintf('%s: the server holds %.0f MB behind the redo pointer', $holder, $held / $MB));

	# the cap falls with the held WAL (the old cap stayed: pg_wal grew by
	# what the free space lost)
	ok(poll_until($node, "SELECT cap_mb <= $cap_before - 100 FROM walsizer.status", 40),
		"$holder: the cap falls as the held WAL accumulates");
	# The cap may start falling at a sample taken while the 320 MB were
	# still being written (a busy machine writes them over several
	# samples): the cap and the size to check are those of a sample that
	# saw all of it.  A held WAL measured wrong never gets there, and the
	# check below fails.
	poll_until($node, "SELECT abs(wal_held_bytes - $held) <= 4 * $MB FROM walsizer.status", 40);
	my $cap = status_value($node, 'cap_mb');
	note("$holder: cap $cap MB with the WAL held");

	my $shown = status_value($node, 'wal_held_bytes');
	cmp_ok(abs($shown - $held), '<=', 4 * $MB,
		sprintf('%s: wal_held_bytes %.1f MB is what the server holds (%.1f MB)',
			$holder, $shown / $MB, $held / $MB));
	is(status_value($node, 'wal_held_by'), $holder, "$holder: wal_held_by names it");

	ok(poll_until($node,
			"SELECT setting::int <= $cap FROM pg_settings WHERE name = 'max_wal_size'", 30),
		"$holder: max_wal_size is lowered to the cap");
	my $size = setting_mb($node, 'max_wal_size');
	my $left = share_left_mb(held_by_test($node, $oldest_sql));
	cmp_ok($size, '<=', $left + 2,
		sprintf('%s: max_wal_size %d MB is within %.2f of what the volume leaves (%.0f MB)',
			$holder, $size, $fraction, $left));
	cmp_ok($size, '<=', $cap_before - 100,
		"$holder: far below the $cap_before MB the volume allowed without the held WAL");

	# more WAL held, measured again while it still binds: no second LOG
	write_wal($node, 12);
	ok(poll_until($node, "SELECT wal_held_bytes >= $held + 10 * 1024 * 1024 FROM walsizer.status", 40),
		"$holder: measured again while it still binds");
	my $log = slurp_file($node->logfile, $log_offset);
	my $for = $holder eq 'slot' ? 'replication slots' : 'archiving';
	my @binds = $log =~ /LOG:  pg_walsizer: WAL kept for \Q$for\E lowers the cap of max_wal_size to \d+ MB/g;
	is(scalar @binds, 1, "$holder: the LOG that held WAL binds the cap comes once");
	like($log, $hint_re, "$holder: it points to what to look at");
	note($1) if $log =~ /(LOG:  pg_walsizer: WAL kept.*\n.*\n.*\n)/;

	# released: the held WAL goes, the cap comes back
	$release->();
	ok(poll_until($node, "SELECT wal_held_bytes < 4 * 1024 * 1024 FROM walsizer.status", 40),
		"$holder: released, the held WAL goes to about 0");
	ok(poll_until($node, "SELECT cap_mb >= $cap + 100 FROM walsizer.status", 40),
		"$holder: and the cap rises again");
	note("$holder: released, cap " . status_value($node, 'cap_mb') . ' MB, held '
		  . status_value($node, "coalesce(wal_held_by, 'nothing')"));
	unlike(slurp_file($node->logfile, $log_offset), qr/PANIC/, "$holder: no PANIC");
}

my $node = walsizer_node('held_wal',
	init => { extra => [ '--waldir', $wal_dir, '--wal-segsize=1' ] },
	conf => {
		max_wal_size => "'200MB'",
		min_wal_size => "'8MB'",
		wal_level => 'replica',
		max_replication_slots => 4,
		# only the test's CHECKPOINTs move the redo pointer
		checkpoint_timeout => "'1h'",
		'walsizer.disk_fraction' => $fraction,
		'walsizer.interval' => "'2s'" });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '1', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
my $load = start_fixed_rate_pgbench($node, 20, 300);

# (a) an inactive physical slot that reserves WAL at once
$node->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('x', true)");
held_episode($node, 'slot',
	"SELECT pg_wal_lsn_diff(restart_lsn, '0/0') FROM pg_replication_slots WHERE slot_name = 'x'",
	qr/HINT:  Set max_slot_wal_keep_size/,
	sub {
		$node->safe_psql('postgres', "SELECT pg_drop_replication_slot('x')");
		$node->safe_psql('postgres', 'SELECT pg_switch_wal()');
		$node->safe_psql('postgres', 'CHECKPOINT');
	});

# (b) archiving that fails: every finished segment waits with a .ready file
stop_pgbench($load);
$node->append_conf('postgresql.conf', "archive_mode = on\narchive_command = 'false'\n");
$node->restart;
$load = start_fixed_rate_pgbench($node, 20, 300);
held_episode($node, 'archiver',
	# the start of the oldest segment with a .ready file (1 MB segments:
	# the name's log part counts 4 GB, its segment part 1 MB)
	"SELECT min(('x' || lpad(substr(name, 9, 8), 16, '0'))::bit(64)::bigint * 4294967296"
	  . " + ('x' || lpad(substr(name, 17, 8), 16, '0'))::bit(64)::bigint * 1048576)"
	  . " FROM pg_ls_archive_statusdir() WHERE name ~ '^[0-9A-F]{24}[.]ready\$'",
	qr/HINT:  WAL not yet archived stays in pg_wal: check archive_command/,
	sub {
		$node->append_conf('postgresql.conf', "archive_command = 'true'\n");
		$node->reload;
		$node->poll_query_until('postgres',
			"SELECT count(*) = 0 FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready'")
		  or diag('the archiver did not catch up');
		$node->safe_psql('postgres', 'CHECKPOINT');
	});
stop_pgbench($load);

$node->stop;
File::Path::rmtree($wal_dir);
done_testing();
