# With pg_wal on a small filesystem, the cap follows its free space: growth
# beyond walsizer.disk_fraction of it is recorded as "capped", and when the
# space shrinks under the current size walsizer lowers max_wal_size to
# protect pg_wal.  The server never runs out of WAL space.
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

my $wal_dir = "$fs/wal_cap_pg_wal";
my $balloon = "$fs/wal_cap_balloon";

sub free_bytes
{
	my $out = `df --output=avail -B1 $fs`;
	my ($avail) = $out =~ /(\d+)\s*$/;
	return $avail;
}

my $node = walsizer_node('wal_cap',
	init => { extra => [ '--waldir', $wal_dir ] },
	# a quarter of the 600 MB volume, so that the load below needs more than
	# the cap even on a machine that writes WAL slowly
	conf => { 'walsizer.enable' => 'off', 'walsizer.interval' => "'2s'",
		'walsizer.disk_fraction' => '0.25' });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->safe_psql('postgres', 'CHECKPOINT');

my $fs_bytes = free_bytes();
wait_for($node, "SELECT cap_source = 'disk' FROM walsizer.status",
	'the small WAL volume sets the cap');
my $cap = status_value($node, 'cap_mb');
cmp_ok($cap, '<', 4096, "cap $cap MB is below walsizer.max");
cmp_ok($cap, '<=', int(0.25 * 600) + 16, 'cap is about a quarter of the volume');
is($cap % 16, 0, 'cap is a whole number of segments');

# a load that needs more than the volume allows
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
my $log_offset = -s $node->logfile;
# until walsizer reaches the cap (seconds on an idle machine), at most a minute
pgbench_until($node, "SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'capped')",
	60, '-c', 4, '-j', 4);
my @capped = decision_rows($node, "action = 'capped'");
ok(@capped >= 1, 'a growth beyond the cap is recorded as capped');
like($capped[0]{reason}, qr/but the cap \(disk\) is \d+ MB/,
	'the reason gives the cap and what set it');
my $size = status_value($node, 'max_wal_size_mb');
cmp_ok($size, '<=', $cap, "max_wal_size $size MB stays within the cap");
my $log = slurp_file($node->logfile, $log_offset);
like($log, qr/HINT:  Add space to the WAL volume or raise walsizer.max/,
	'the WARNING says what to do');

# the volume fills up: walsizer lowers max_wal_size below the new cap
my $keep_free = 60 * 1024 * 1024;
my $balloon_bytes = free_bytes() - $keep_free;
system('fallocate', '-l', $balloon_bytes, $balloon) == 0
  or die "fallocate failed";
$log_offset = -s $node->logfile;
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'protect')",
	'walsizer protects pg_wal when the space shrinks');
my ($protect) = decision_rows($node, "action = 'protect'");
cmp_ok($protect->{new_mb}, '<', $protect->{old_mb},
	"lowered from $protect->{old_mb} MB to $protect->{new_mb} MB");
like($protect->{reason}, qr/free space on the WAL volume allows at most \d+ MB/,
	'the reason explains the protection');
wait_for($node, "SELECT confirmed FROM walsizer.decisions WHERE action = 'protect' LIMIT 1",
	'the server runs with the lowered size');

# a light load on the nearly full volume: no PANIC, the server keeps going
run_pgbench($node, 5, 1, '-R', '50');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up');
unlike(slurp_file($node->logfile, $log_offset), qr/PANIC/, 'no PANIC');

# space comes back, and so does the cap
unlink $balloon;
wait_for($node, "SELECT cap_mb > $protect->{new_mb} FROM walsizer.status",
	'the cap rises again with the free space');

$node->stop;
File::Path::rmtree($wal_dir);
done_testing();
