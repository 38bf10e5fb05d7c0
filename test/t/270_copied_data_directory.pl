# walsizer-test: version-dependent
# (base backups, streaming standbys and the state file across them:
# test/pg-matrix.sh runs it on every major)
#
# A copy of the data directory is not the server it was copied from.  A
# base backup (so every new standby, and a Patroni replica) and a restore
# from one copy pg_walsizer.state and postgresql.auto.conf: the copy
# starts a history of its own (none of the other server's decisions,
# counters or replay rates), and the size pg_walsizer had written, copied
# with postgresql.auto.conf, stays pg_walsizer's: it is not adopted as the
# DBA's.  The server the copy was taken from keeps its history.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $primary = walsizer_node('copied_primary',
	init => { allows_streaming => 1 },
	conf => { 'walsizer.interval' => "'1s'" });
$primary->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $primary->host,
		'-p', $primary->port, 'postgres' ], 'pgbench tables');
ok(pgbench_until($primary,
		"EXISTS (SELECT FROM walsizer.decisions WHERE action IN ('grow', 'capped') AND confirmed)",
		120, '-c', 2, '-j', 2),
	'the primary grew max_wal_size');
# no change while the copies are made and read
$primary->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = off');
$primary->reload;
wait_for($primary, 'SELECT NOT enabled FROM walsizer.status', 'changes paused on the primary');
my $grown = setting_mb($primary, 'max_wal_size');
my $primary_decisions = $primary->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions');
cmp_ok($primary_decisions, '>', 0, "the primary has $primary_decisions decisions");
is(auto_conf_max_wal_size($primary), "${grown}MB",
	"postgresql.auto.conf holds pg_walsizer's $grown MB");
$primary->backup('base');

# The copy's own decisions, and whether its log says it is a copy.
sub check_copy
{
	my ($node, $what, $role) = @_;
	wait_for($node,
		'SELECT worker_pid IS NOT NULL AND next_action IS NOT NULL AND max_wal_size_source IS NOT NULL FROM walsizer.status',
		"$what: the worker runs and has read the configuration files");
	like(slurp_file($node->logfile),
		qr/pg_walsizer's state file "pg_walsizer\.state" was written in another data directory: this server starts a history of its own/,
		"$what: the log says the state file came with a copy");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions'), 0,
		"$what: none of the other server's decisions");
	is($node->safe_psql('postgres', 'SELECT sum(total) FROM walsizer.decision_counts'), 0,
		"$what: none of its counts");
	is($node->safe_psql('postgres', 'SELECT decisions_total FROM walsizer.status'), 0,
		"$what: decisions_total starts at 0");
	is(setting_mb($node, 'max_wal_size'), $grown, "$what: runs the copied $grown MB");
	is($node->safe_psql('postgres', 'SELECT max_wal_size_source FROM walsizer.status'),
		'pg_walsizer', "$what: the copied size is pg_walsizer's, not the DBA's");
	is($node->safe_psql('postgres', 'SELECT role FROM walsizer.status'), $role,
		"$what: role $role");
}

# a new streaming standby
my $standby = PostgreSQL::Test::Cluster->new('copied_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
check_copy($standby, 'standby', 'standby');

# a restore of the same backup, run as a server of its own
my $restored = PostgreSQL::Test::Cluster->new('copied_restore');
$restored->init_from_backup($primary, 'base');
$restored->start;
check_copy($restored, 'restore', 'primary');
# an adopt decision would say the copied size was taken for the DBA's
$restored->safe_psql('postgres', 'ALTER SYSTEM RESET walsizer.enable');
$restored->reload;
wait_for($restored, 'SELECT enabled FROM walsizer.status', 'restore: enabled');
my $enabled_at = $restored->safe_psql('postgres', 'SELECT now()');
$restored->safe_psql('postgres', 'SELECT walsizer.check_now()');
wait_for($restored, "SELECT last_check_at > '$enabled_at' FROM walsizer.status",
	'restore: a window ended while enabled');
is($restored->safe_psql('postgres',
		"SELECT count(*) FROM walsizer.decisions WHERE action = 'adopt'"),
	0, 'restore: the copied size is not adopted as the DBA\'s');

# the same data directory, restarted: not a copy, the history kept
$restored->restart;
# its first sample published: the worker sets its pid before it reads the
# state file, the step whose log line and history are checked
wait_for($restored, 'SELECT worker_pid IS NOT NULL AND floor_mb IS NOT NULL FROM walsizer.status',
	'restore, restarted: the worker runs and has read its state file');
is(scalar(() = slurp_file($restored->logfile) =~
		/was written in another data directory/g), 1,
	'restore, restarted: its own state file is not taken for a copy');
$primary->restart;
wait_for($primary, 'SELECT worker_pid IS NOT NULL AND floor_mb IS NOT NULL FROM walsizer.status',
	'primary, restarted: the worker runs and has read its state file');
cmp_ok($primary->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions'),
	'>=', $primary_decisions, 'primary, restarted: it keeps its history');
unlike(slurp_file($primary->logfile), qr/was written in another data directory/,
	'primary: never taken for a copy');

$restored->stop;
$standby->stop;
$primary->stop;
done_testing();
