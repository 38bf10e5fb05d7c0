# A query cancel of the worker (pg_cancel_backend(), as a routine "cancel
# every long-running backend" sends it) is not a crash: the worker keeps
# running, and a change it was making when the cancel came is carried
# out, recorded in the history and counted.  The worker is held at its
# write (hold_worker 'write') so that the cancel arrives exactly there.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# 100 GB is far above 1 % of any test machine's free disk: once enabled,
# walsizer lowers it at its first sample ("protect"), with no load needed.
my $node = walsizer_node('cancel',
	conf => {
		'walsizer.enable' => 'off',
		max_wal_size => "'100GB'",
		'walsizer.disk_fraction' => '0.01' });
my $pid = status_value($node, 'worker_pid');
my $log_offset = -s $node->logfile;

# --- cancelled in the middle of a change ------------------------------------

hold_worker($node, 'write');
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
$node->reload;
wait_until_held($node, 'write', 'the worker is about to write its protect', 60);
is($node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)"), 't',
	'the worker was sent a query cancel in the middle of its change');
release_worker($node);
wait_for($node, "EXISTS (SELECT FROM walsizer.decisions WHERE action = 'protect')",
	'the change is in the history');
is($node->safe_psql('postgres',
		"SELECT total FROM walsizer.decision_counts WHERE action = 'protect'"), 1,
	'and counted');
isnt(auto_conf_max_wal_size($node), undef, 'postgresql.auto.conf holds it');

# --- cancelled while it waits for the next sample ---------------------------

my $checked = status_value($node, "coalesce(last_check_at, '-infinity')");
is($node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)"), 't',
	'a second cancel, between samples');
$node->safe_psql('postgres', 'SELECT walsizer.check_now()');
wait_for($node, "(SELECT last_check_at > '$checked' FROM walsizer.status)",
	'the worker goes on after it (it answers check_now())');

is(status_value($node, 'worker_pid'), $pid, 'the same worker runs: it never exited');
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/canceling statement due to user request/, 'no cancel error in the log');
unlike($log, qr/background worker "pg_walsizer" .*exited with exit code/,
	'no worker exit in the log');

$node->stop;
done_testing();
