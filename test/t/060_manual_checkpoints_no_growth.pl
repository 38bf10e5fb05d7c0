# walsizer-test: version-dependent
# (requested checkpoints, counted differently from 18 on: test/pg-matrix.sh runs it on every major)
#
# CHECKPOINT commands (a cron job, base backups) also count as requested
# checkpoints, but they are not caused by WAL volume: walsizer must not grow
# max_wal_size because of them.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = walsizer_node('manual',
	conf => { max_wal_size => "'256MB'", 'walsizer.interval' => "'2s'" });
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');

# a light, rate-limited write load with a CHECKPOINT every second
my ($out, $err) = ('', '');
my $load = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-R', '100', '-T', '20',
	  '-h', $node->host, '-p', $node->port, 'postgres' ],
	'>', \$out, '2>', \$err);
my $log_offset = -s $node->logfile;
for (1 .. 18)
{
	$node->safe_psql('postgres', 'CHECKPOINT');
	sleep 1;
}
$load->finish;
# end the window now, and wait until the worker has (a fixed pause would
# not be enough on a busy machine)
my $checked = status_value($node, 'last_check_at');
$node->safe_psql('postgres', 'SELECT walsizer.check_now()');
ok(poll_until($node, "SELECT last_check_at > '$checked' FROM walsizer.status", 30),
	'the worker ended the window');

my $requested = status_value($node, 'total_requested');
cmp_ok($requested, '>=', 10, "the CHECKPOINT commands were counted ($requested)");
is(status_value($node, 'total_wal_forced'), 0,
	'none of them was taken for a WAL-forced checkpoint');
is(wal_forced_checkpoints($node, $log_offset), 0,
	'and indeed the server forced none');
is(scalar decision_rows($node, "action IN ('grow', 'capped', 'advise')"), 0,
	'no growth decided');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '256MB',
	'max_wal_size unchanged');

$node->stop;
done_testing();
