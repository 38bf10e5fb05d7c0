# walsizer-test: version-dependent
# (ALTER SYSTEM and postgresql.auto.conf as each major writes them: test/pg-matrix.sh runs it on every major)
#
# A DBA's ALTER SYSTEM SET max_wal_size that comes while walsizer is
# changing the size is never lost: walsizer checks postgresql.auto.conf for
# a value awaiting a reload and writes its own under one lock, which every
# ALTER SYSTEM of max_wal_size also takes.  The test holds walsizer between
# its check and its write (hold_worker($node, 'write')) until the DBA's
# statement has arrived exactly there and waits on that lock: by
# construction, not by a pause the statement must come within.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
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
	});
# (the worker publishes the cap at its first sample)
ok(poll_until($node, 'SELECT cap_mb > 64 FROM walsizer.status', 60),
	'the disk cap is above the DBA\'s 64 MB');

hold_worker($node, 'write');
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok(poll_until($node, "walsizer_test_held('write') > 0", 60),
	'walsizer checked postgresql.auto.conf and is held before writing it');

# the DBA's change arrives between walsizer's check and its write: it must
# wait on walsizer's lock for as long as walsizer is held there
my ($alter_out, $alter_err) = ('', '');
my $alter = IPC::Run::start(
	[ 'psql', '-X', '-h', $node->host, '-p', $node->port, '-d', 'postgres',
	  '-c', "ALTER SYSTEM SET max_wal_size = '64MB'" ],
	'>', \$alter_out, '2>', \$alter_err);
my $waiting = 0;
my $deadline = time + 60;
while (time < $deadline)
{
	last unless $alter->pumpable;    # it ended: it did not wait
	$alter->pump_nb;
	$waiting = $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'ALTER SYSTEM SET max_wal_size%' "
		  . "AND wait_event_type = 'LWLock' AND wait_event = 'pg_walsizer'");
	last if $waiting;
	select(undef, undef, undef, 0.1);
}
$waiting = behind($waiting);
$alter->pump_nb if $alter->pumpable;
ok($waiting && $alter->pumpable,
	'the DBA\'s ALTER SYSTEM waits on walsizer\'s lock while walsizer is held before its write');
release_worker($node);
$alter->finish;
is($alter->result(0), 0, 'the DBA\'s ALTER SYSTEM went through once walsizer wrote')
  or diag($alter_err);
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
# three windows for walsizer to undo it, were it to
my $adopted_at = $node->safe_psql('postgres', 'SELECT now()');
wait_for($node, "SELECT last_check_at > '$adopted_at'::timestamptz + interval '2 s' FROM walsizer.status",
	'three more windows ended');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '64MB', 'the server runs the DBA\'s value');
is(auto_conf_max_wal_size($node), '64MB', 'and postgresql.auto.conf still holds it');
is(scalar decision_rows($node, "action <> 'protect' AND NOT (action = 'adopt' AND new_mb = 64) AND action <> 'none'"),
	0, 'nothing else was decided');

$node->stop;
done_testing();
