# walsizer-test: long
# walsizer-test: minutes 4
# An edit of postgresql.conf not yet loaded (of any setting) holds
# walsizer's changes, on a real server: walsizer does not reload the
# DBA's edit for them, and goes on once the DBA reloads.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;
use DbaValue;

my $node = dba_value_node('conf_edit');

# --- an unreloaded postgresql.conf edit is not reloaded by walsizer ------------

my $grown = grow_settled($node, 'for the postgresql.conf edit');
my $offset = -s $node->logfile;
my $work_mem = $node->safe_psql('postgres', 'SHOW work_mem');
$node->append_conf('postgresql.conf', "work_mem = '7MB'\n");
allow_shrink_after_dba_change($node);
ok(postponed_since($node, $offset,
		'"postgresql.conf" was modified after the server last loaded its configuration'),
	'a change is postponed while postgresql.conf has an edit not yet loaded');
is($node->safe_psql('postgres', 'SHOW work_mem'), $work_mem,
	'the DBA\'s unreloaded work_mem was not applied for them');
is(setting_mb($node, 'max_wal_size'), $grown, 'nor was max_wal_size changed');
$node->reload;
wait_for($node, "EXISTS (SELECT FROM walsizer.decisions WHERE action = 'shrink' AND confirmed "
	  . "AND at > now() - interval '60 s')",
	'after the DBA\'s reload walsizer goes on (it shrinks)');

done_testing();
