# walsizer-test: version-dependent
# (a standby's restartpoints and replayed WAL: the counters it reads moved
# to pg_stat_checkpointer in 17, which counts restartpoints apart from 17
# on; test/pg-matrix.sh runs it on every major)
#
# A standby measures its load over whole checkpoint_timeouts of replayed
# WAL.  Until its worker has seen one, a window that replayed little says
# nothing about the load: it is no quiet window, and the standby does not
# shrink, however short walsizer.interval x walsizer.shrink_after is.  Once
# a whole checkpoint_timeout was measured, the same idle replay does shrink.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# 1 GB from the configuration, walsizer.min 32 MB: a size pg_walsizer may
# shrink.  The primary itself never shrinks here.
my $primary = walsizer_node('primary',
	init => { allows_streaming => 1 },
	conf => {
		max_wal_size => "'1GB'",
		'walsizer.min' => "'32MB'",
		'walsizer.interval' => "'1s'",
		'walsizer.shrink_after' => 100000,
	});
$primary->backup('base');

# 2 quiet windows of 1 s would shrink at once; checkpoint_timeout is 30 s
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "walsizer.shrink_after = 2\n");
$standby->start;
wait_for($standby, "SELECT role = 'standby' AND last_check_at IS NOT NULL FROM walsizer.status",
	'the standby\'s worker measures');
my ($rc, $out, $err) = $standby->psql('postgres', 'SELECT * FROM walsizer.what_if()');
like($err, qr/ERROR:  what_if\(\) has no table on a standby\nDETAIL:  A standby's restartpoints follow its primary's checkpoints/,
	'what_if() on a standby: no table, and why');
my $timeout_s = $standby->safe_psql('postgres',
	"SELECT setting FROM pg_settings WHERE name = 'checkpoint_timeout'");

# the standby's own shrinks: the history copied from the primary has none
my $shrinks = "FROM walsizer.decisions d, "
  . "(SELECT backend_start FROM pg_stat_activity WHERE backend_type = 'pg_walsizer') w "
  . "WHERE d.action = 'shrink' AND d.role = 'standby' AND d.at >= w.backend_start";
ok(poll_until($standby, "SELECT EXISTS (SELECT $shrinks)", 6 * $timeout_s),
	'the idle standby shrinks in the end');
my ($after_s, $reason) = split /\|/, $standby->safe_psql('postgres',
	"SELECT extract(epoch FROM d.at - w.backend_start), d.reason $shrinks ORDER BY d.at LIMIT 1");
note("first shrink $after_s s after the worker started: $reason");
# the history must cover checkpoint_timeout before a window counts as quiet
cmp_ok($after_s, '>=', $timeout_s,
	"no shrink before a whole checkpoint_timeout ($timeout_s s) of replay was measured");
is(status_value($standby, 'role'), 'standby', 'still a standby');

$standby->stop;
$primary->stop;
done_testing();
