# The test-only hold the other TAP files rely on to put the worker in a
# state by construction (src/server/test_hold.c, WalsizerTest.pm's
# hold_worker()): a held action is decided but not carried out, counted,
# and carried out once released; the place before the write holds the
# worker with its lock, so a DBA's ALTER SYSTEM waits there, and a stop
# request ends the hold; bad names and non-superusers get clear errors.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use WalsizerTest;

# 100 GB is far above 1 % of any test machine's free disk: once enabled,
# walsizer lowers it at its first sample ("protect"), with no load needed.
my $node = walsizer_node('test_hold',
	conf => {
		'walsizer.enable' => 'off',
		max_wal_size => "'100GB'",
		'walsizer.disk_fraction' => '0.01',
		'walsizer.interval' => "'1s'" });

# --- a held action is decided, counted, and not carried out -----------------

hold_worker($node, 'protect');
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
$node->reload;
wait_until_held($node, 'protect', 'the protect is due, and held', 60);
# the worker samples every 200 ms: a few more samples see it held again
poll_until($node, "walsizer_test_held('protect') >= 5", 60);
is(scalar decision_rows($node), 0, 'a held decision is not recorded');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '100GB', 'nor carried out');
is(auto_conf_max_wal_size($node), undef, 'nor written');
like(status_value($node, 'next_reason'), qr/^held by a test \(walsizer_test_hold\); then: /,
	'status() says it is held');

# --- the place before the write: the worker waits there with its lock --------

hold_worker($node, 'write');
wait_until_held($node, 'write', 'the worker waits before its write', 60);
my ($dba_out, $dba_err) = ('', '');
my $dba = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  "ALTER SYSTEM SET max_wal_size = '64MB'" ],
	'>', \$dba_out, '2>', \$dba_err);
ok(poll_until($node,
		"EXISTS (SELECT FROM pg_stat_activity WHERE query LIKE 'ALTER SYSTEM SET max_wal_size%' "
		  . "AND wait_event_type = 'LWLock')", 60),
	'the DBA\'s ALTER SYSTEM waits for the held worker\'s lock');
is(auto_conf_max_wal_size($node), undef, 'nothing was written while held');
release_worker($node);
$dba->finish;
is($dba->result(0), 0, 'released, the DBA\'s ALTER SYSTEM went through') or diag($dba_err);
is(auto_conf_max_wal_size($node), '64MB',
	'released, the worker wrote first and the DBA\'s value is the last word');
wait_for($node, "EXISTS (SELECT FROM walsizer.decisions WHERE action = 'protect')",
	'the protect was carried out and recorded once released');

# --- a stop request ends a hold at the write ---------------------------------

$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
$node->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '100GB'");
hold_worker($node, 'write');
$node->reload;
wait_until_held($node, 'write', 'held before writing the next protect', 60);
my $stopped = eval { $node->stop('fast'); 1 };
ok($stopped, 'the server stops while the worker is held before its write');
$node->start;
is($node->safe_psql('postgres', "SELECT walsizer_test_held('write')"), 0,
	'a restart drops the hold');

# --- failure paths -----------------------------------------------------------

my ($ret, $out, $err) = $node->psql('postgres', "SELECT walsizer_test_hold('shrink,grows')");
isnt($ret, 0, 'an unknown action is refused');
like($err, qr/ERROR:  "grows" is not an action of pg_walsizer/, 'and named in the error');
($ret, $out, $err) = $node->psql('postgres', "SELECT walsizer_test_hold('shrink,,grow')");
like($err, qr/ERROR:  invalid list of actions: "shrink,,grow"/, 'a malformed list is refused');
($ret, $out, $err) = $node->psql('postgres', "SELECT walsizer_test_held('none')");
like($err, qr/ERROR:  "none" is not an action of pg_walsizer/, '"none" is not an action to count');
$node->safe_psql('postgres', q{
	CREATE ROLE hold_user LOGIN;
	GRANT EXECUTE ON FUNCTION walsizer_test_hold(text) TO hold_user;});
($ret, $out, $err) = $node->psql('postgres', "SELECT walsizer_test_hold('grow')",
	extra_params => [ '-U', 'hold_user' ]);
like($err, qr/ERROR:  permission denied to hold pg_walsizer's worker/,
	'only a superuser may hold the worker, even with EXECUTE granted');

$node->stop;
done_testing();
