# walsizer-test: long
# walsizer-test: minutes 4
# ALTER SYSTEM SET "MAX_WAL_SIZE" (the name in capitals) is a pending
# change too, on a real server: walsizer does not reload it for the DBA,
# and adopts the DBA's value as the floor once the DBA reloads.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;
use DbaValue;

my $node = dba_value_node('upper_case');

# --- ALTER SYSTEM SET "MAX_WAL_SIZE" is a pending change too -----------------

my $grown = grow_settled($node, 'for the upper-case ALTER SYSTEM');
my $offset = -s $node->logfile;
$node->safe_psql('postgres', q{ALTER SYSTEM SET "MAX_WAL_SIZE" = '320MB'});
allow_shrink_after_dba_change($node);
ok(postponed_since($node, $offset,
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

done_testing();
