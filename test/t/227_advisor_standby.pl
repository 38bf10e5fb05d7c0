# walsizer-test: version-dependent
# (the advisor reads restartpoint counters by major: test/pg-matrix.sh runs it on every major)
#
# The advisor sizes a standby by the standby's rules: its restartpoints,
# requested by WAL volume or not, only follow the primary's checkpoints and
# never make it recommend a growth; it is sized by the WAL it replays over
# whole checkpoint_timeouts, and says so.  Its trace keeps the role, so
# that a replay gives the same answer.
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";

use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

my $primary = walsizer_node('advisor_primary',
	init => { allows_streaming => 1 },
	conf => { 'walsizer.enable' => 'off' });
$primary->safe_psql('postgres',
	'CREATE ROLE monitor LOGIN IN ROLE pg_monitor; CREATE TABLE w (i int, pad text)');
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('advisor_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'the standby is in recovery');

# WAL for the standby to replay while it is measured, at 32 MB: checkpoints
# on the primary, and restartpoints on the standby, requested by WAL volume
my $writer = IPC::Run::start([ 'bash', '-c', join(' ; ', map {
	sprintf(q{psql -X -q -h %s -p %d -d postgres -c "INSERT INTO w SELECT i, repeat('x', 100) FROM generate_series(1, 150000) i"},
		$primary->host, $primary->port) } 1 .. 5) ]);
my $trace = "${PostgreSQL::Test::Utils::tmp_check}/advisor_standby.trace";
my ($rc, $out, $err) = run_advisor('--duration=10s', '--sample-interval=250ms', '--json',
	"--record=$trace", '-h', $standby->host, '-p', $standby->port, '-U', 'monitor',
	'-d', 'postgres');
$writer->finish;
is($rc, 0, 'the advisor measured the standby') or diag($err);
my $advice = decode_json($out)->{servers}[0];
note(sprintf('standby: %s to %d MB; %d requested, %d forced by WAL; %s; %s',
		@$advice{qw(verdict recommended_mb checkpoints_requested checkpoints_forced_by_wal reason basis)}));
is($advice->{role}, 'standby', 'it reports a standby');
like($advice->{basis}, qr/^standby: no whole \d+ s checkpoint_timeout of replayed WAL was measured/,
	'it sizes the standby by the WAL it replays, not by its restartpoints');
isnt($advice->{verdict}, 'grow', 'its restartpoints do not make it recommend a growth');
isnt($advice->{verdict}, 'capped', 'nor a capped one');
unlike($advice->{reason}, qr/forced by WAL/, 'nor are they the reason');
ok(!$advice->{cycle_predicted}, 'and no primary cycle is predicted for it');

like(slurp_file($trace), qr/^server major=\d+ standby=1 /m, 'the trace says standby');
like(slurp_file($trace), qr/^sample( \d+){12} 1$/m, 'and so do its samples');
my ($rrc, $rout, $rerr) = run_advisor('--replay', $trace, '--json');
is($rrc, 0, 'the trace replays') or diag($rerr);
my $replayed = decode_json($rout)->{servers}[0];
is($replayed->{role}, 'standby', 'the replay is of a standby');
is($replayed->{verdict}, $advice->{verdict}, 'with the same verdict');
is($replayed->{recommended_mb}, $advice->{recommended_mb}, 'and the same size');

$standby->stop;
$primary->stop;
done_testing();
