# A reset of the checkpoint statistics (pg_stat_reset_shared) makes the
# counters go backwards or restart: walsizer notices, uses no decision from
# that window, and starts counting again from the reset.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# a threshold no window reaches, so CHECKPOINT commands alone decide nothing
my $node = walsizer_node('reset', conf => { 'walsizer.interval' => "'2s'" });

# give the counters something to lose
$node->safe_psql('postgres', 'CHECKPOINT') for 1 .. 3;
$node->safe_psql('postgres', 'SELECT walsizer.check_now()');
wait_for($node, 'SELECT total_requested >= 3 FROM walsizer.status()',
	'the CHECKPOINT commands were counted');
my $decisions_before = scalar decision_rows($node);

my $log_offset = -s $node->logfile;
$node->safe_psql('postgres', reset_checkpointer_sql($node));
$node->safe_psql('postgres', 'SELECT walsizer.check_now()');
ok($node->wait_for_log(qr/pg_walsizer noticed a reset of the checkpoint statistics/,
		$log_offset), 'the reset is noticed and logged');

is(scalar decision_rows($node), $decisions_before,
	'no decision comes from the reset window');
my ($timed, $requested) = split /\|/,
  status_value($node, 'last_timed, last_requested');
is($requested, 0, 'the reset window reports no requested checkpoints');
cmp_ok($timed, '>=', 0, 'nor negative timed ones');
cmp_ok(status_value($node, 'total_requested'), '>=', 3,
	'the totals keep what was counted before the reset');

# counting resumes from the reset
$node->safe_psql('postgres', 'CHECKPOINT');
$node->safe_psql('postgres', 'SELECT walsizer.check_now()');
wait_for($node, 'SELECT total_requested >= 4 FROM walsizer.status()',
	'counting resumes after the reset');

$node->stop;
done_testing();
