# walsizer-test: version-dependent
# (ALTER SYSTEM and postgresql.auto.conf as each major writes them: test/pg-matrix.sh runs it on every major)
#
# A DBA's ALTER SYSTEM SET max_wal_size that comes while walsizer is
# changing the size is never lost: walsizer checks postgresql.auto.conf for
# a value awaiting a reload and writes its own under one lock, which every
# ALTER SYSTEM of max_wal_size also takes.  walsizer.debug_apply_delay (a
# hidden setting for tests) holds walsizer between its check and its write
# long enough for the DBA's statement to arrive exactly there.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use WalsizerTest;

# 100 GB of max_wal_size is far above 1 % of any test machine's free disk:
# once enabled, walsizer lowers it at its first sample ("protect").
my $node = walsizer_node('dba_during_change',
	conf => {
		'walsizer.enable' => 'off',
		max_wal_size => "'100GB'",
		'walsizer.disk_fraction' => '0.01',
		'walsizer.interval' => "'1s'",
		'walsizer.debug_apply_delay' => "'4s'",
	});
cmp_ok(status_value($node, 'cap_mb'), '>', 64, 'the disk cap is above the DBA\'s 64 MB');

my $log_offset = -s $node->logfile;
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok($node->wait_for_log(
		qr/LOG:  pg_walsizer pauses 4000 ms before writing postgresql\.auto\.conf/,
		$log_offset),
	'walsizer checked postgresql.auto.conf and is about to write it');

# the DBA's change arrives between walsizer's check and its write
my $started = time;
$node->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '64MB'");
my $waited = time - $started;
cmp_ok($waited, '>', 1, sprintf('the DBA\'s ALTER SYSTEM waited %.1f s for walsizer\'s write', $waited));
is(auto_conf_max_wal_size($node), '64MB',
	'postgresql.auto.conf holds the DBA\'s value, written after walsizer\'s');
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'protect')",
	'walsizer recorded its own change');

# the DBA reloads: the value is adopted and stays
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 64)",
	'the DBA\'s 64 MB is adopted');
$node->safe_psql('postgres', 'SELECT pg_sleep(3)');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '64MB', 'the server runs the DBA\'s value');
is(auto_conf_max_wal_size($node), '64MB', 'and postgresql.auto.conf still holds it');
is(scalar decision_rows($node, "action <> 'protect' AND NOT (action = 'adopt' AND new_mb = 64) AND action <> 'none'"),
	0, 'nothing else was decided');

$node->stop;
done_testing();
