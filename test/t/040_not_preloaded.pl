# Without shared_preload_libraries there is no worker and no shared memory:
# the extension can be created, but its views and functions say clearly
# what to do.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('not_preloaded');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pg_walsizer');

for my $call ('SELECT * FROM walsizer.status',
	'SELECT * FROM walsizer.decisions',
	'SELECT * FROM walsizer.decision_counts',
	'SELECT * FROM walsizer.recommendation',
	'SELECT * FROM walsizer.status()',
	'SELECT walsizer.check_now()')
{
	my ($ret, $out, $err) = $node->psql('postgres', $call);
	isnt($ret, 0, "$call fails");
	like($err, qr/ERROR:  pg_walsizer is not loaded/, "$call: clear error");
	like($err, qr/HINT:  Add pg_walsizer to "shared_preload_libraries"/,
		"$call: hint says how to fix it");
}

# the settings still exist, so postgresql.conf lines are not typos
is($node->safe_psql('postgres', "LOAD 'pg_walsizer'; SHOW walsizer.max"),
	'4GB', 'settings are defined when the library is loaded later');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_walsizer'"),
	0, 'no worker runs');

$node->stop;
done_testing();
