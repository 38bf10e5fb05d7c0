# walsizer-test: long
# walsizer-test: minutes 2
# Which of the DBA's sources of max_wal_size wins, on a real server: a
# newer ALTER SYSTEM wins over an older postgresql.conf edit that waited
# while walsizer was off; an edit to the running value makes it the floor;
# a change that failed consumes none of the policy's counters; and a
# max_wal_size on the command line is reported once, not fought.  Each
# section names the defect it would catch.  250-252 cover
# the changes that wait for a reload.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;
use DbaValue;

my $node = dba_value_node('sources');

# --- 1. a newer ALTER SYSTEM wins over an older postgresql.conf edit ---------------

my $grown = grow_settled($node, 'so that its value is in postgresql.auto.conf');
ok(defined auto_conf_max_wal_size($node),
	'postgresql.auto.conf holds walsizer\'s value, which shadows postgresql.conf');
$node->append_conf('postgresql.conf', "walsizer.enable = off\n");
$node->reload;
wait_for($node, 'SELECT NOT enabled FROM walsizer.status', 'walsizer disabled');
$node->append_conf('postgresql.conf', "max_wal_size = '2GB'\n");
$node->reload;
wait_for($node, 'SELECT shadowed_max_wal_size_mb = 2048 FROM walsizer.status',
	'the postgresql.conf edit is shadowed by postgresql.auto.conf');
$node->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '4GB'");
$node->reload;
wait_for($node, "SELECT max_wal_size_mb = 4096 FROM walsizer.status", 'the DBA\'s 4 GB runs');
$node->append_conf('postgresql.conf', "walsizer.enable = on\n");
$node->reload;
wait_for($node, 'SELECT enabled FROM walsizer.status', 'walsizer enabled again');
# a few windows for the old edit to be (wrongly) adopted
windows_end($node, 5, 'five windows ended since walsizer was enabled');
is(setting_mb($node, 'max_wal_size'), 4096, 'the newer ALTER SYSTEM value still runs');
is(scalar decision_rows($node, "action = 'adopt' AND new_mb = 2048"), 0,
	'the older postgresql.conf value was never adopted');
is(status_value($node, 'floor_mb'), 4096, 'and the floor is the DBA\'s newest value');

# --- 2. an edit to the running value makes it the floor ----------------------------

$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
$node->append_conf('postgresql.conf', "max_wal_size = '32MB'\n");
$node->reload;
wait_for($node, 'SELECT max_wal_size_mb = 32 FROM walsizer.status', 'back at 32 MB');
$grown = grow_settled($node, 'before the DBA writes that value in postgresql.conf');
# the size stays the one the DBA writes in: a last growth is held too
hold_worker($node, 'shrink', 'grow', 'capped');
$grown = setting_mb($node, 'max_wal_size');
$node->append_conf('postgresql.conf', "max_wal_size = '${grown}MB'\n");
$node->reload;
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = $grown "
	  . "AND reason LIKE '%is the value the server runs; adopted as the new baseline')",
	'the edit to the running value is adopted as the baseline');
wait_for($node, "SELECT floor_mb = $grown FROM walsizer.status", "the floor is the DBA's $grown MB");
# Shrinks were held from the start (dba_value_node()): let them go, then
# the cooldown (1) and shrink_after (2) idle windows that would shrink
# anything above the floor, and three more
release_worker($node);
windows_end($node, 6, 'six idle windows ended with shrinks allowed');
cmp_ok(setting_mb($node, 'max_wal_size'), '>=', $grown, 'never shrunk below it');
is(scalar decision_rows($node,
		"new_mb < $grown AND at > (SELECT max(at) FROM walsizer.decisions WHERE action = 'adopt')"),
	0, 'no decision since went below it');

$node->stop;

# --- 3. a failed change consumes none of the policy's counters ---------------------
#
# shrink_after = 20 windows of 1 s; a failed change is retried 10 s later.
# While the data directory stays read-only the shrink, decided again at
# every window, is attempted on that backoff; had the failure used up the
# 20 quiet windows, the second attempt would come 20 windows later at
# the earliest.  The server is idle (autovacuum off, a long
# checkpoint_timeout), and the size to shrink is the DBA's 2 GB above
# walsizer.min, so that nothing but the quiet windows decides when.

my $fail = walsizer_node('seams_fail',
	conf => {
		'checkpoint_timeout' => "'10min'",
		autovacuum => 'off',
		'walsizer.min' => "'32MB'",
		'walsizer.interval' => "'1s'",
		'walsizer.cooldown' => 1,
		'walsizer.shrink_after' => 20 });
# the shrink must first be tried with the directory read-only: held until
# then, however long the steps before take (a held shrink consumes no
# quiet window either: it is decided again once released)
hold_worker($fail, 'shrink');
$fail->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '2GB'");
$fail->reload;
wait_for($fail,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 2048)",
	'the DBA\'s 2 GB is adopted (second server)');
my $data_dir = $fail->data_dir;
my $offset = -s $fail->logfile;
chmod 0500, $data_dir or die "chmod $data_dir: $!";
release_worker($fail);
my $attempt = qr/^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) .*(?:could not change|still cannot change) max_wal_size from (\d+) MB to (\d+) MB/m;
my @attempts;
my $deadline = time + 150;
while (time < $deadline)
{
	my $log = slurp_file($fail->logfile, $offset);
	@attempts = ();
	while ($log =~ /$attempt/g)
	{
		push @attempts, $1 if $3 < $2;
	}
	last if @attempts >= 2;
	sleep 1;
}
chmod 0700, $data_dir or die "chmod $data_dir: $!";
is(scalar(@attempts) >= 2 ? 2 : scalar(@attempts), 2,
	'two attempts to shrink failed while the data directory was read-only');
my $gap = @attempts >= 2 ? $fail->safe_psql('postgres',
	"SELECT extract(epoch FROM '$attempts[1]'::timestamptz - '$attempts[0]'::timestamptz)") : 999;
note("the second attempt came $gap s after the first");
cmp_ok($gap, '<', 17,
	'the failed shrink was retried on the backoff, not after another shrink_after (20) quiet windows');
cmp_ok($gap, '>=', 9, 'and not before the backoff');
ok(poll_until($fail,
		"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'shrink' AND confirmed)", 60),
	'the shrink went through once writes work again');
$fail->stop;

# --- 4. a max_wal_size on the command line is reported once, not fought -------------

my $cmdline = walsizer_node('seams_cmdline');
$cmdline->stop;
my $pg_ctl_log = $cmdline->logfile;
command_ok([ 'pg_ctl', '-D', $cmdline->data_dir, '-l', $pg_ctl_log, '-w',
	'-o', '-c max_wal_size=32MB', 'start' ], 'started with -c max_wal_size=32MB');
$cmdline->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $cmdline->host,
	'-p', $cmdline->port, 'postgres' ], 'pgbench tables created (third server)');
ok(pgbench_until($cmdline,
		"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'blocked')",
		90, '-c', 4, '-j', 4),
	'a growth is reported as blocked');
run_pgbench($cmdline, 3, 4);
my @blocked = decision_rows($cmdline, "action = 'blocked'");
is(scalar @blocked, 1, 'once');
like($blocked[0]{reason}, qr/^max_wal_size is set on the server's command line, which outranks postgresql\.auto\.conf; recommends \d+ MB/,
	'naming the command line');
is(status_value($cmdline, 'max_wal_size_source'), 'command line',
	'status() says where the running value comes from');
is(auto_conf_max_wal_size($cmdline), undef, 'postgresql.auto.conf was never written');
is(log_count($cmdline, qr/WARNING: +pg_walsizer cannot change max_wal_size from 32 MB to \d+ MB: it is set on the server's command line/),
	1, 'one WARNING');
is(log_count($cmdline, qr/the server did not apply max_wal_size/), 0,
	'and no write was tried and found not applied');
command_ok([ 'pg_ctl', '-D', $cmdline->data_dir, '-m', 'fast', '-w', 'stop' ],
	'stopped');

done_testing();
