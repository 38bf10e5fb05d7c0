# walsizer-test: long
# walsizer-test: minutes 4
# A pending ALTER SYSTEM RESET is not undone, on a real server: walsizer
# never writes (and so never reloads) while the DBA's RESET waits for a
# reload, and adopts the reset value once the DBA reloads.  251 and 252
# do the same for ALTER SYSTEM SET "MAX_WAL_SIZE" and a postgresql.conf
# edit (one file each: each waits minutes for a shrink), 255 covers which
# of the DBA's sources wins.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;
use DbaValue;

my $node = dba_value_node('reset');

# --- a pending ALTER SYSTEM RESET is not undone ----------------------------

my $grown = grow_settled($node, 'for the RESET');
ok(defined auto_conf_max_wal_size($node), 'walsizer wrote postgresql.auto.conf');
my $offset = -s $node->logfile;
$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_wal_size');
# the shrink due now must wait for the DBA's reload
allow_shrink_after_dba_change($node);
ok(postponed_since($node, $offset,
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

done_testing();
