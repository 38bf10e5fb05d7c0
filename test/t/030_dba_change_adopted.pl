# walsizer-test: version-dependent
# (ALTER SYSTEM and the configuration files the server reads: test/pg-matrix.sh runs it on every major)
#
# A max_wal_size the DBA sets is adopted as walsizer's baseline and floor:
# walsizer records it, does not undo it, does not shrink below it, and
# remembers it across a restart.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# shrink_after = 1 would shrink anything above the floor after one window
my $node = walsizer_node('adopt',
	conf => { 'walsizer.interval' => "'1s'", 'walsizer.shrink_after' => 1 });

$node->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '256MB'");
$node->reload;
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 256)",
	'the change is recorded as adopted');
my ($adopt) = decision_rows($node, "action = 'adopt'");
is($adopt->{old_mb}, 32, 'adopted from the previous 32 MB');
like($adopt->{reason}, qr/changed to 256 MB with ALTER SYSTEM; it is the new baseline/,
	'the reason says how the DBA changed it');
# the worker records the decision before it publishes the plan it makes
# after it: wait for the floor, not only for the record
wait_for($node, 'SELECT floor_mb = 256 FROM walsizer.status', 'the DBA value is the new floor');

# several idle windows later nothing was undone: shrink_after (1) and
# the cooldown (1) are over after three
windows_end($node, 5, 'idle after the adoption: five windows ended');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '256MB',
	'walsizer did not change it back');
is(scalar decision_rows($node, "action <> 'adopt'"), 0,
	'no decision fought the DBA');

# the baseline survives a restart
$node->restart;
# a window ended: the worker has loaded its state and decided at start
# (a second adoption would be recorded by then)
wait_for($node, 'SELECT worker_pid IS NOT NULL AND last_check_at IS NOT NULL FROM walsizer.status',
	'worker back after restart, and a window ended');
is(status_value($node, 'floor_mb'), 256, 'floor kept across a restart');
is(scalar decision_rows($node, "action = 'adopt'"), 1,
	'no second adoption at start: the value is known');

# a change made while the server was down is adopted at start
$node->stop;
$node->append_conf('postgresql.auto.conf', "max_wal_size = '512MB'\n");
$node->start;
wait_for($node,
	"SELECT EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 512)",
	'a change made while stopped is adopted at start');
wait_for($node, 'SELECT floor_mb = 512 FROM walsizer.status', 'and becomes the floor');

$node->stop;
done_testing();
