# walsizer-test: version-dependent
# (allow_alter_system exists from 17 on: test/pg-matrix.sh runs it on every major)
#
# With allow_alter_system = off (PostgreSQL 17 and later) walsizer cannot
# change max_wal_size: it says so once, reports "blocked" in status(), keeps
# measuring and recommending, and never restarts or floods the log.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $probe = PostgreSQL::Test::Cluster->new('probe');
if ($probe->pg_version < 17)
{
	plan skip_all => 'allow_alter_system exists from PostgreSQL 17 on';
}

my $node = walsizer_node('blocked',
	conf => { 'walsizer.enable' => 'off', 'walsizer.interval' => "'2s'",
		allow_alter_system => 'off' });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
wait_for($node, 'SELECT enabled FROM walsizer.status', 'walsizer enabled');
my $pid = status_value($node, 'worker_pid');
is(status_value($node, 'blocked'), 't', 'status reports blocked');

my $log_offset = -s $node->logfile;
# until walsizer wanted a change and found it blocked, then many windows
# more: it must not say so again
ok(pgbench_until($node,
		"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'blocked')",
		60, '-c', 4, '-j', 4),
	'walsizer wanted a change under the load');
run_pgbench($node, 10, 4);
$node->safe_psql('postgres', 'SELECT walsizer.check_now()');

my @blocked = decision_rows($node, "action = 'blocked'");
is(scalar @blocked, 1, 'blocked recorded once over many windows');
cmp_ok($blocked[0]{new_mb}, '>', 32, "it recommends $blocked[0]{new_mb} MB");
like($blocked[0]{reason}, qr/allow_alter_system = off/, 'the reason names the setting');
my $log = slurp_file($node->logfile, $log_offset);
my $warnings = () = $log =~ /cannot change max_wal_size .* ALTER SYSTEM is disabled/g;
is($warnings, 1, 'one WARNING, no flood');
like($log, qr/HINT:  Set max_wal_size = '\d+MB' yourself, or set allow_alter_system = on/,
	'the hint says what to do');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '32MB', 'nothing changed');
is(status_value($node, 'worker_pid'), $pid, 'the worker kept running');
cmp_ok(status_value($node, 'total_wal_bytes'), '>', 0, 'and kept measuring');
is(scalar decision_rows($node, "action = 'error'"), 0, 'not treated as an error');

$node->stop;
done_testing();
