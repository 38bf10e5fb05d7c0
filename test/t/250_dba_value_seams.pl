# The DBA's value where its sources meet, on a real server: walsizer never
# writes (and so never reloads) while a DBA change waits for a reload, be
# it ALTER SYSTEM RESET, ALTER SYSTEM SET "MAX_WAL_SIZE" or an edit of
# postgresql.conf; a newer ALTER SYSTEM wins over an older postgresql.conf
# edit that waited while walsizer was off; an edit to the running value
# makes it the floor; a change that failed consumes none of the policy's
# counters; and a max_wal_size on the command line is reported once, not
# fought.  Each section names the defect it would catch.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# Quiet windows of 1 s: after a growth, a shrink is due shrink_after
# windows after the load stops (the floor is postgresql.conf's 32 MB).
my $node = walsizer_node('seams',
	conf => {
		'walsizer.interval' => "'1s'",
		'walsizer.cooldown' => 1,
		'walsizer.shrink_after' => 2 });
my $conf = $node->data_dir . '/postgresql.conf';
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');

# Grows under load until walsizer's own value runs; returns it.
sub grow
{
	my ($what) = @_;
	my $before = decision_rows($node, growth_sql() . ' AND confirmed');
	ok(pgbench_until($node,
			"(SELECT count(*) FROM walsizer.decisions WHERE "
			  . growth_sql() . " AND confirmed) > $before",
			90, '-c', 4, '-j', 4),
		"walsizer grew $what");
	return setting_mb($node, 'max_wal_size');
}

# Waits (bounded) for walsizer to postpone a change for a pending reload.
# The change is the shrink due once the load has left the peak rate's
# horizon (two checkpoint cycles of 30 s) and whole cycles were measured
# without it, then shrink_after quiet windows: about two minutes at most on
# a quiet machine; twice that on one twice as slow.
sub postponed_since
{
	my ($offset, $why) = @_;
	my $deadline = time + 2 * (2 * 30 + 60 + 2 * 1);
	while (time < $deadline)
	{
		return 1
		  if slurp_file($node->logfile, $offset) =~
		  /pg_walsizer postponed changing max_wal_size to \d+ MB until the configuration is reloaded\n.*DETAIL:  \Q$why\E/;
		sleep 1;
	}
	return 0;
}

# --- 1. a pending ALTER SYSTEM RESET is not undone ----------------------------

my $grown = grow('for the RESET');
ok(defined auto_conf_max_wal_size($node), 'walsizer wrote postgresql.auto.conf');
my $offset = -s $node->logfile;
$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
# idle now: a shrink is due within a few windows, and must wait
ok(postponed_since($offset,
		'postgresql.auto.conf no longer sets max_wal_size (ALTER SYSTEM RESET), which the server has not loaded yet'),
	'the shrink is postponed for the pending RESET, and the log says why');
like(status_value($node, 'next_reason'),
	qr/^postponed until the configuration is reloaded \(postgresql\.auto\.conf no longer sets max_wal_size/,
	'status() says it waits for a reload');
is(auto_conf_max_wal_size($node), undef, 'postgresql.auto.conf still sets no max_wal_size');
is(setting_mb($node, 'max_wal_size'), $grown, 'nothing was reloaded on the DBA\'s behalf');
$node->reload;
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 32 "
	  . "AND reason LIKE '%with ALTER SYSTEM%')",
	'after the reload the reset value (postgresql.conf\'s 32 MB) is adopted');
is(status_value($node, 'max_wal_size_source') =~ /^postgresql\.conf:\d+$/ ? 1 : 0, 1,
	'status() says it comes from postgresql.conf');

# --- 2. ALTER SYSTEM SET "MAX_WAL_SIZE" is a pending change too -----------------

$grown = grow('for the upper-case ALTER SYSTEM');
$offset = -s $node->logfile;
$node->safe_psql('postgres', q{ALTER SYSTEM SET "MAX_WAL_SIZE" = '320MB'});
ok(postponed_since($offset,
		'postgresql.auto.conf sets max_wal_size = 320 MB, which the server has not loaded yet'),
	'the upper-case name is recognised as a pending change');
is(setting_mb($node, 'max_wal_size'), $grown, 'and not reloaded');
like(slurp_file($node->data_dir . '/postgresql.auto.conf'), qr/^max_wal_size = '320MB'$/mi,
	'the DBA\'s 320 MB is still in postgresql.auto.conf');
$node->reload;
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 320)",
	'after the reload the DBA\'s 320 MB is adopted');
# status() is published at the end of the iteration that recorded the adoption
wait_for($node, 'SELECT floor_mb = 320 FROM walsizer.status', 'and is the floor');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
$node->reload;
wait_for($node, 'SELECT floor_mb = 32 FROM walsizer.status', 'reset to 32 MB again');

# --- 3. an unreloaded postgresql.conf edit is not reloaded by walsizer ------------

$grown = grow('for the postgresql.conf edit');
$offset = -s $node->logfile;
my $work_mem = $node->safe_psql('postgres', 'SHOW work_mem');
$node->append_conf('postgresql.conf', "work_mem = '7MB'\n");
ok(postponed_since($offset,
		'"postgresql.conf" was modified after the server last loaded its configuration'),
	'a change is postponed while postgresql.conf has an edit not yet loaded');
is($node->safe_psql('postgres', 'SHOW work_mem'), $work_mem,
	'the DBA\'s unreloaded work_mem was not applied for them');
is(setting_mb($node, 'max_wal_size'), $grown, 'nor was max_wal_size changed');
$node->reload;
wait_for($node, "EXISTS (SELECT FROM walsizer.decisions WHERE action = 'shrink' AND confirmed "
	  . "AND at > now() - interval '60 s')",
	'after the DBA\'s reload walsizer goes on (it shrinks)');

# --- 4. a newer ALTER SYSTEM wins over an older postgresql.conf edit ---------------

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
$node->safe_psql('postgres', 'SELECT walsizer.check_now(), pg_sleep(1)') for 1 .. 5;
is(setting_mb($node, 'max_wal_size'), 4096, 'the newer ALTER SYSTEM value still runs');
is(scalar decision_rows($node, "action = 'adopt' AND new_mb = 2048"), 0,
	'the older postgresql.conf value was never adopted');
is(status_value($node, 'floor_mb'), 4096, 'and the floor is the DBA\'s newest value');

# --- 5. an edit to the running value makes it the floor ----------------------------

$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
$node->append_conf('postgresql.conf', "max_wal_size = '32MB'\n");
$node->reload;
wait_for($node, 'SELECT max_wal_size_mb = 32 FROM walsizer.status', 'back at 32 MB');
$grown = grow('before the DBA writes that value in postgresql.conf');
$node->append_conf('postgresql.conf', "max_wal_size = '${grown}MB'\n");
$node->reload;
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = $grown "
	  . "AND reason LIKE '%is the value the server runs; adopted as the new baseline')",
	'the edit to the running value is adopted as the baseline');
wait_for($node, "SELECT floor_mb = $grown FROM walsizer.status", "the floor is the DBA's $grown MB");
# idle windows that would shrink anything above the floor
$node->safe_psql('postgres', 'SELECT walsizer.check_now(), pg_sleep(1)') for 1 .. 6;
cmp_ok(setting_mb($node, 'max_wal_size'), '>=', $grown, 'never shrunk below it');

$node->stop;

# --- 6. a failed change consumes none of the policy's counters ---------------------
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
$fail->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '2GB'");
$fail->reload;
wait_for($fail,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 2048)",
	'the DBA\'s 2 GB is adopted (second server)');
my $data_dir = $fail->data_dir;
$offset = -s $fail->logfile;
chmod 0500, $data_dir or die "chmod $data_dir: $!";
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

# --- 7. a max_wal_size on the command line is reported once, not fought -------------

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
