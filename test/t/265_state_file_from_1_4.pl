# An upgrade from the oldest release that reads its own history: the state
# file a 1.4 library wrote (format 4) is read by this one, which keeps its
# decisions and counts, goes on from them and writes the current format.
#
# test/fixtures/pg_walsizer-1.4.state was written by the released 1.4
# library (commit 3a3c017, SQL API 1.4) on PostgreSQL 15, at max_wal_size
# 32MB with checkpoint_timeout 30s: pgbench -i -s 5 and 40 s of pgbench -c 2
# made it grow 32 -> 1520 MB, then ALTER SYSTEM SET max_wal_size = '2GB'
# and a reload made it adopt the DBA's 2048 MB; a clean stop wrote the file.
# Here a new data directory gets that file and the DBA's
# postgresql.auto.conf line, as an upgrade in place would leave them.
use strict;
use warnings;
use File::Copy;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $fixture = "$FindBin::RealBin/../fixtures/pg_walsizer-1.4.state";
open(my $fh, '<:raw', $fixture) or die "$fixture: $!";
read($fh, my $head, 8) == 8 or die "$fixture: too short";
close $fh;
is(unpack('V', substr($head, 4, 4)), 4, 'the fixture is a format-4 state file');

my $node = PostgreSQL::Test::Cluster->new('from_1_4');
$node->init;
$node->append_conf('postgresql.conf', <<'EOF_CONF');
shared_preload_libraries = 'pg_walsizer'
max_wal_size = '32MB'
min_wal_size = '32MB'
checkpoint_timeout = '30s'
walsizer.interval = '3s'
EOF_CONF
$node->append_conf('postgresql.auto.conf', "max_wal_size = '2GB'\n");
my $state = $node->data_dir . '/pg_walsizer.state';
copy($fixture, $state) or die "copy: $!";
chmod 0600, $state;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pg_walsizer');
# its first sample published: the worker sets its pid before it reads the
# state file, and the floor comes from that file
wait_for($node, 'SELECT worker_pid IS NOT NULL AND floor_mb IS NOT NULL FROM walsizer.status',
	'the worker runs and has read the state file');

unlike(slurp_file($node->logfile), qr/could not read|invalid|another data directory/,
	'the 1.4 state file is read as this server\'s own, without a complaint');
is($node->safe_psql('postgres',
		"SELECT string_agg(action || ' ' || old_mb || '->' || new_mb, ', ' ORDER BY at) FROM walsizer.decisions"),
	'grow 32->1520, adopt 1520->2048', "1.4's two decisions are kept, in order");
is($node->safe_psql('postgres',
		"SELECT string_agg(action || '=' || total, ',' ORDER BY action) FROM walsizer.decision_counts WHERE total > 0"),
	'adopt=1,grow=1', "and its counts of decisions ever made");
is(setting_mb($node, 'max_wal_size'), 2048, "the DBA's 2GB runs");
is($node->safe_psql('postgres', 'SELECT floor_mb FROM walsizer.status'), '2048',
	"the DBA's adopted 2048 MB is still the floor");

# a clean stop writes the current format, which the next start reads
$node->stop;
open($fh, '<:raw', $state) or die "$state: $!";
read($fh, $head, 8) == 8 or die "$state: too short";
close $fh;
cmp_ok(unpack('V', substr($head, 4, 4)), '>', 4, 'the file is rewritten in the current format');
$node->start;
wait_for($node, 'SELECT worker_pid IS NOT NULL AND floor_mb IS NOT NULL FROM walsizer.status',
	'the worker runs again and has read the state file');
is($node->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions'), 2,
	'and the history is still there');
$node->stop;
done_testing();
