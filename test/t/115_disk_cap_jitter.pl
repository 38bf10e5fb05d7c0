# walsizer-test: long
# walsizer-test: minutes 2
# Free space on the WAL volume that moves down and up by one segment, under
# a load that needs more than the disk cap and with walsizer.min above the
# cap, is jitter, not a change of the disk: max_wal_size stays put, with no
# ALTER SYSTEM, no reload and no WARNING for each move (docs/sizing.md, Cap:
# the disk's band).  Without the band each move down was a "protect", each
# move up a capped regrowth, and the clamped floor's WARNING came again each
# time.
#
# Needs a tmpfs mounted by the test runner (tests run unprivileged), named in
# WALSIZER_TEST_TMPFS; skips without one, unless WALSIZER_REQUIRE_TMPFS=1.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use File::Path;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $fs = test_tmpfs();

my $MB = 1024 * 1024;
my $wal_dir = "$fs/jitter_pg_wal";
my $ballast = "$fs/jitter_ballast";
my $filler = "$fs/jitter_filler";
my $node;

END
{
	# whatever happened, leave the tmpfs empty
	$node->teardown_node if defined $node;
	unlink $ballast, $filler;
	File::Path::rmtree($wal_dir);
}

# What the worker measures (disk_space.c): half (walsizer.disk_fraction) of
# the free space plus the WAL files, in MB, and the cap that makes, in
# whole 16 MB segments.
sub volume_bytes
{
	my ($avail) = `df --output=avail -B1 $fs` =~ /(\d+)\s*$/;
	my $wal = 0;
	opendir(my $dh, $wal_dir) or die "$wal_dir: $!";
	for (readdir $dh)
	{
		my $path = "$wal_dir/$_";
		$wal += -s $path if -f $path && !-l $path;
	}
	closedir $dh;
	return $avail + $wal;
}
sub raw_cap_mb { return 16 * int(int(0.5 * volume_bytes() / $MB) / 16) }

$node = walsizer_node('jitter',
	init => { extra => [ '--waldir', $wal_dir ] },
	conf => {
		'walsizer.enable' => 'off',
		'walsizer.interval' => "'2s'",
		'walsizer.min' => "'1GB'" });

# Leave 296 MB: a share of 148 MB, a cap of 144 MB; 16 MB less free space
# makes 140 MB, a cap of 128 MB.  Each move of the filler file moves the cap
# by one segment.
my $ballast_bytes = volume_bytes() - 296 * $MB;
system('fallocate', '-l', $ballast_bytes, $ballast) == 0
  or die "fallocate $ballast_bytes failed";
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->restart;
# the worker measures the disk at its first sample, which may come after
# the server answers
wait_for($node, "SELECT cap_source = 'disk' FROM walsizer.status",
	'the worker measured the disk');
my $cap = status_value($node, 'cap_mb');
is($cap, 144, 'the disk sets a cap of 144 MB');
is(status_value($node, 'cap_source'), 'disk', 'the cap is the disk\'s');

# about 5 MB/s of WAL: needs about 350 MB, more than the cap
my $script = PostgreSQL::Test::Utils::tempdir() . '/message.sql';
open(my $fh, '>', $script) or die "$script: $!";
print $fh "SELECT pg_logical_emit_message(false, 'walsizer', repeat('x', 262144));\n";
close $fh;
# (killed at the end: it must outlast the moves however long the worker
# takes to reach the cap)
my $load = start_pgbench($node, '-c', '2', '-j', '2', '-R', '20', '-T', '600',
	'-f', $script);
wait_for($node, "SELECT max_wal_size_mb = $cap FROM walsizer.status",
	'the load takes max_wal_size to the cap');

# The disk is measured every 10 s: a move held for 13 s is seen by at
# least one measurement, whatever the phase.
my $since = $node->safe_psql('postgres', 'SELECT now()');
my $log_offset = -s $node->logfile;
my @raw;
for my $move (1 .. 4)
{
	if ($move % 2)
	{
		system('fallocate', '-l', 16 * $MB, $filler) == 0
		  or die "fallocate $filler failed";
	}
	else
	{
		unlink $filler or die "unlink $filler: $!";
	}
	push @raw, raw_cap_mb();
	$node->safe_psql('postgres', 'SELECT pg_sleep(13)');
}
note("the raw cap after each move: @raw MB");
is("@raw", '128 144 128 144', 'each move of the filler moved the raw cap by a segment');
cmp_ok(status_value($node, 'needed_mb'), '>', $cap,
	'the load still needs more than the cap');

my $changes = $node->safe_psql('postgres',
	"SELECT count(*) FROM walsizer.decisions WHERE at >= '$since' AND new_mb <> old_mb");
my $reloads = log_count($node, qr/received SIGHUP, reloading configuration files/,
	$log_offset);
my $warnings = log_count($node, qr/WARNING:/, $log_offset);
my $floor_warnings = log_count($node, qr/WARNING:  pg_walsizer floor is above its cap/,
	$log_offset);
diag("over 4 moves: $changes ALTER SYSTEM writes, $reloads reloads, "
	  . "$warnings WARNINGs ($floor_warnings about the floor)");
note_decisions($node, 'decisions');
cmp_ok($changes, '<=', 1, "at most one change of max_wal_size ($changes)");
cmp_ok($reloads, '<=', 1, "at most one reload ($reloads)");
cmp_ok($warnings, '<=', 1, "at most one WARNING ($warnings)");
cmp_ok($floor_warnings, '<=', 1, "at most one WARNING about the floor ($floor_warnings)");

$load->{handle}->kill_kill;
$node->stop;
done_testing();
