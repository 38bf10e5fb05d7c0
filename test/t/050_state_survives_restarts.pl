# What walsizer recorded survives a clean restart and a crash of its worker
# (which makes the postmaster reinitialize shared memory).  A damaged state
# file is ignored with a LOG line: never a crash, never a size change.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $node = walsizer_node('state',
	conf => { 'walsizer.interval' => "'1s'", restart_after_crash => 'on' });
my $state_file = $node->data_dir . '/pg_walsizer.state';

# The worker publishes its pid before it loads the state file: only once
# it has ended a window has it loaded the state and decided at start.
sub wait_for_worker
{
	my ($what, $also) = @_;
	wait_for($node, 'SELECT worker_pid IS NOT NULL AND last_check_at IS NOT NULL'
		  . ($also ? " AND $also" : '') . ' FROM walsizer.status', $what);
}

# two decisions to remember: adopting the DBA's changes is the quickest
for my $size (256, 384)
{
	$node->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '${size}MB'");
	$node->reload;
	wait_for($node,
		"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE new_mb = $size)",
		"adopted $size MB");
}
my $history = $node->safe_psql('postgres',
	'SELECT action, old_mb, new_mb, reason FROM walsizer.decisions');
ok(-f $state_file, 'state file written in the data directory');
ok(!-e "$state_file.tmp", 'no temporary file left behind');

# clean restart
$node->restart;
wait_for_worker('worker back after restart, with its state');
is($node->safe_psql('postgres',
		'SELECT action, old_mb, new_mb, reason FROM walsizer.decisions'),
	$history, 'decisions identical after a clean restart');

# the worker is killed: the postmaster treats it as a crash
my $pid = status_value($node, 'worker_pid');
my $log_offset = -s $node->logfile;
kill 'KILL', $pid;
ok($node->wait_for_log(qr/all server processes terminated; reinitializing/,
		$log_offset), 'SIGKILL of the worker reinitializes the server');
# shared memory is new: last_check_at too
wait_for_worker('a new worker runs after the crash, with its state', "worker_pid <> $pid");
is($node->safe_psql('postgres',
		'SELECT action, old_mb, new_mb, reason FROM walsizer.decisions'),
	$history, 'decisions identical after the crash');

# damaged files: each is ignored with a LOG line, the server runs on
my $valid = slurp_file($state_file);
my %damage = (
	'random bytes' => join('', map { chr(int(rand(256))) } 1 .. 3000),
	'truncated' => substr($valid, 0, length($valid) - 100),
	'wrong magic' => 'XXXX' . substr($valid, 4),
	'wrong version' => substr($valid, 0, 4) . pack('V', 99) . substr($valid, 8),
	'flipped byte' => substr($valid, 0, 60) . chr(ord(substr($valid, 60, 1)) ^ 1)
	  . substr($valid, 61),
	'empty' => '');
for my $kind (sort keys %damage)
{
	$node->stop;
	open(my $fh, '>:raw', $state_file) or die "cannot write $state_file: $!";
	print $fh $damage{$kind};
	close $fh;
	$log_offset = -s $node->logfile;
	$node->start;
	ok($node->wait_for_log(qr/pg_walsizer is ignoring state file "pg_walsizer.state": /,
			$log_offset), "$kind: ignored with a LOG line");
	# a window ended: whatever it does at start is done
	wait_for_worker("$kind: worker runs");
	is($node->safe_psql('postgres', 'SHOW max_wal_size'), '384MB',
		"$kind: max_wal_size untouched");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions'),
		0, "$kind: history starts empty");
}

# no file at all: a fresh start, said once
$node->stop;
unlink $state_file;
$log_offset = -s $node->logfile;
$node->start;
ok($node->wait_for_log(qr/pg_walsizer found no state file/, $log_offset),
	'missing file: fresh start logged');
wait_for_worker('missing file: worker runs');

$node->stop;
done_testing();
