# Two clusters whose pg_wal share one volume.  Each sees the other's WAL as
# used space, not as WAL of its own: when one cluster's slot holds WAL, the
# other's cap falls (by walsizer.disk_fraction of it) as its own does,
# while only the first shows it in wal_held_bytes.  And each claims walsizer.disk_fraction
# of the same free space, so at 0.5 each the two caps together claim about
# all of it: with N clusters on one volume, disk_fraction should be about
# 1/N (docs/sizing.md, Cap).
#
# Needs a tmpfs mounted by the test runner, named in WALSIZER_TEST_TMPFS;
# skips without one, unless WALSIZER_REQUIRE_TMPFS=1.
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

sub free_bytes
{
	my $out = `df --output=avail -B1 $fs`;
	my ($avail) = $out =~ /(\d+)\s*$/;
	return $avail;
}

my %node;
for my $name (qw(a b))
{
	$node{$name} = walsizer_node("shared_$name",
		init => { extra => [ '--waldir', "$fs/shared_${name}_pg_wal", '--wal-segsize=1' ] },
		conf => {
			max_wal_size => "'64MB'",
			min_wal_size => "'8MB'",
			wal_level => 'replica',
			checkpoint_timeout => "'1h'",
			'walsizer.disk_fraction' => '0.5' });
}
my ($a, $b) = @node{qw(a b)};
for my $n ($a, $b)
{
	wait_for($n, "SELECT cap_source = 'disk' AND wal_held_bytes IS NOT NULL FROM walsizer.status",
		$n->name . ': the volume\'s share is the cap');
}
my $cap_a = status_value($a, 'cap_mb');
my $cap_b = status_value($b, 'cap_mb');
my $free_mb = free_bytes() / $MB;
note(sprintf('before: cap a %d MB, cap b %d MB, free %.0f MB', $cap_a, $cap_b, $free_mb));
# each claims half of the same free space (and of its own small pg_wal)
cmp_ok($cap_a + $cap_b, '>=', 0.95 * $free_mb,
	"at 0.5 each, the two caps ($cap_a + $cap_b MB) claim about all of the free $free_mb MB");

# a's slot holds 200 MB of WAL on the shared volume
$a->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('x', true)");
$a->safe_psql('postgres',
	"SELECT count(pg_logical_emit_message(false, 'walsizer-test', repeat('x', 1024 * 1024 - 256)))"
	  . ' FROM generate_series(1, 200)');
$a->safe_psql('postgres', 'CHECKPOINT');

ok(poll_until($b, "SELECT cap_mb <= $cap_b - 80 FROM walsizer.status", 40),
	'b: its cap falls with the WAL a holds on the shared volume');
ok(poll_until($a, "SELECT cap_mb <= $cap_a - 80 FROM walsizer.status", 40),
	'a: its cap falls as much: its held WAL is left out of its own pg_wal');
# At 64 MB the 200 MB force checkpoints while they are written, so a
# sample (every 10 s) may have seen part of them held: the figures checked
# below are those of a sample that saw all of it, the redo pointer of the
# test's CHECKPOINT less the slot's position.  A held WAL measured wrong
# never gets there, and the check below fails.
my $held_a = $a->safe_psql('postgres',
	"SELECT pg_wal_lsn_diff((SELECT redo_lsn FROM pg_control_checkpoint()), restart_lsn)::bigint "
	  . "FROM pg_replication_slots WHERE slot_name = 'x'");
poll_until($a, "SELECT abs(wal_held_bytes - $held_a) <= 4 * $MB FROM walsizer.status", 40);
note(sprintf('with a holding: cap a %d MB (held %.0f MB by %s), cap b %d MB (held %.0f MB)',
	status_value($a, 'cap_mb'), status_value($a, 'wal_held_bytes') / $MB,
	status_value($a, 'wal_held_by'), status_value($b, 'cap_mb'),
	status_value($b, 'wal_held_bytes') / $MB));
cmp_ok(status_value($a, 'wal_held_bytes'), '>=', 190 * $MB, 'a: shows the WAL its slot holds');
cmp_ok(status_value($b, 'wal_held_bytes'), '<', 4 * $MB,
	'b: holds none of it: the other cluster\'s WAL is used space, not its own');

for my $n ($a, $b)
{
	unlike(slurp_file($n->logfile), qr/PANIC/, $n->name . ': no PANIC');
	$n->stop;
}
File::Path::rmtree("$fs/shared_${_}_pg_wal") for qw(a b);
done_testing();
