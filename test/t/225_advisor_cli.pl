# The advisor's edges, against real servers: bad input of every kind gets
# one clear line and exit status 2 (a server named by its label, never by
# its connection string; a trace's value out of range named with its
# line); two servers at once give two rows; a connection lost mid-run is
# retried, then the partial result is reported (exit 1); without
# pg_control_checkpoint() it infers cycles from the counters and says so.
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

my $a = walsizer_node('advisor_a');
my $b = walsizer_node('advisor_b');
$_->safe_psql('postgres', 'CREATE ROLE monitor LOGIN IN ROLE pg_monitor')
  for ($a, $b);
$a->safe_psql('postgres', 'CREATE ROLE nobody LOGIN');
my $down = PostgreSQL::Test::Cluster->new('advisor_down');    # never started

sub conninfo
{
	my ($node, $user) = @_;
	return sprintf('host=%s port=%d dbname=postgres user=%s',
		$node->host, $node->port, $user // 'monitor');
}

# --- bad input: one line on stderr, nothing on stdout, exit 2 -------------

my $broken = "${PostgreSQL::Test::Utils::tmp_check}/broken.trace";
open my $fh, '>', $broken or die;
print $fh "server major=15 standby=0 redo_known=1 segment_bytes=16777216 block_bytes=8192 checkpoint_timeout_s=30 completion_target=0.9\n";
print $fh "sample 1000000 100 50 0 0 0 0 0 0 0 0 64\n";
print $fh "sample 2000000 200 lots 0 0 0 0 0 0 0 0 64\n";
close $fh;

my $corpus = "$FindBin::RealBin/../fuzz/corpus/fuzz_trace";

my $long_file = "${PostgreSQL::Test::Utils::tmp_check}/servers.txt";
open my $sf, '>', $long_file or die;
print $sf 'host=/tmp dbname=postgres application_name=' . ('x' x 1100) . "\n";
close $sf;

my @bad = (
	[ 'an unknown option', [ '--bogus' ], qr/unknown option "--bogus"/ ],
	[ 'an option without its value', [ '--duration' ], qr/option --duration needs a value/ ],
	[ 'a duration that is not a time', [ '--duration=soon', conninfo($a) ],
	  qr/invalid value for --duration: "soon"/ ],
	[ 'a bad --max', [ '--max=-1', conninfo($a) ], qr/invalid value for --max/ ],
	[ 'an --interval beyond 7 days', [ '--interval=1e13', conninfo($a) ],
	  qr/invalid value for --interval: "1e13" \(a time from 1s to 7 days\)/ ],
	[ 'a servers file with a line too long to be read whole', [ "--servers-file=$long_file" ],
	  qr/servers file ".*servers.txt": a line is longer than 1022 characters/ ],
	[ 'a bad connection string', [ '--duration=1s', conninfo($a), 'port=notaport' ],
	  qr/could not connect to server "[^"]*:notaport\/[^"]*": invalid integer value "notaport"/ ],
	[ 'a server that is down', [ conninfo($down) ],
	  qr/could not connect to server "local:@{[ $down->port ]}\/postgres": connection to server .* failed/ ],
	[ 'a role without pg_monitor', [ conninfo($a, 'nobody') ],
	  qr/role "nobody" may not measure this server: it needs the privileges of pg_monitor/ ],
	[ '--record with two servers',
	  [ '--record=/dev/null', '--server', conninfo($a), '--server', conninfo($b) ],
	  qr/--record writes the trace of one server; 2 were given/ ],
	[ 'a trace with a bad sample', [ "--replay=$broken" ],
	  qr/trace ".*broken.trace": line 3: "sample" has a field that is not a valid number/ ],
	# test/fuzz/corpus/fuzz_trace/: what once overflowed the arithmetic
	[ 'a trace with a time out of range', [ "--replay=$corpus/time_out_of_range" ],
	  qr/trace ".*time_out_of_range": line 3: "sample": time out of range: "9223372036854775000" \(microseconds since 1970, before the year 10000\)/ ],
	[ 'a trace with a WAL position out of range', [ "--replay=$corpus/lsn_out_of_range" ],
	  qr/trace ".*lsn_out_of_range": line 4: "sample": WAL position out of range: "18446744073709551615" \(at most 9223372036854775807\)/ ],
	[ 'a trace that does not exist', [ '--replay=/nonexistent.trace' ],
	  qr/could not open trace "\/nonexistent.trace": No such file/ ],
);
for my $case (@bad)
{
	my ($name, $args, $message) = @$case;
	my ($rc, $out, $err) = run_advisor(@$args);
	is($rc, 2, "$name: exit status 2");
	like($err, $message, "$name: says so");
	my $lines = () = $err =~ /\n/g;
	is($lines, 1, "$name: in one line") or diag($err);
	is($out, '', "$name: prints nothing else");
}

my ($rc, $out, $err) = run_advisor('--help');
is($rc, 0, '--help exits 0');
like($out, qr/--duration=TIME.*--record=FILE.*--replay=FILE.*--json/s, '--help lists the options');

# --- two servers at once --------------------------------------------------

# some WAL and checkpoints on both while they are measured
my $writer = IPC::Run::start(
	[ 'bash', '-c', join(' ; ', map {
		my $n = $_;
		(map { sprintf(q{psql -X -q -h %s -p %d -d postgres -c "CREATE TABLE IF NOT EXISTS w (i int); INSERT INTO w SELECT generate_series(1, 20000); CHECKPOINT"},
				$n->host, $n->port) } 1 .. 2) } ($a, $b)) ]);
($rc, $out, $err) = run_advisor('--duration=8s', '--sample-interval=250ms', '--json',
	'--server', conninfo($a), '--server', conninfo($b));
$writer->finish;
is($rc, 0, 'two servers: measured') or diag($err);
my $fleet = decode_json($out)->{servers};
is(scalar @$fleet, 2, 'two servers: two rows');
isnt($fleet->[0]{server}, $fleet->[1]{server}, 'two servers: one row each');
like($fleet->[0]{server}, qr/:@{[ $a->port ]}\/postgres$/, 'the first row is the first server');
like($fleet->[1]{server}, qr/:@{[ $b->port ]}\/postgres$/, 'the second row is the second server');
cmp_ok($_->{seconds}, '>=', 6, "$_->{server} was sampled for the whole run") for @$fleet;
cmp_ok($fleet->[0]{checkpoints_requested} + $fleet->[1]{checkpoints_requested}, '>=', 2,
	'the CHECKPOINTs were counted');

($rc, $out, $err) = run_advisor('--duration=3s', '--sample-interval=250ms',
	'--server', conninfo($a), '--server', conninfo($b));
is($rc, 0, 'two servers, as text: measured') or diag($err);
like($out, qr/^server\s+role\s+secs\s+WAL MB\/s\s+forced\/h\s+now\s+recommended\s+verdict$/m,
	'the fleet table has its header');
my @rows = $out =~ /^\S+:\d+\/postgres\s+primary\s+\d+\s/mg;
is(scalar @rows, 2, 'and one row per server') or diag($out);

# --- a connection lost mid-run -----------------------------------------------

# a restart within the reconnect window is survived
my ($rout, $rerr) = ('', '');
my $run = IPC::Run::start([ advisor_path(), '--duration=12s', '--sample-interval=200ms',
		'--json', conninfo($b) ], '>', \$rout, '2>', \$rerr);
sleep 3;
$b->restart;
$run->finish;
is($? >> 8, 0, 'a restarted server: exit status 0');
like($rerr, qr/the connection was lost; reconnecting.*reconnected after [\d.]+ s/s,
	'it says it reconnected');
my $restarted = decode_json($rout)->{servers}[0];
ok(!$restarted->{partial}, 'the report is not partial');
cmp_ok($restarted->{seconds}, '>=', 10, 'it went on sampling after the restart');

# a server that stays down: retried, then the partial result
my ($lout, $lerr) = ('', '');
$run = IPC::Run::start([ advisor_path(), '--duration=90s', '--sample-interval=200ms',
		'--json', conninfo($b) ], '>', \$lout, '2>', \$lerr);
sleep 3;
$b->stop('immediate');
my $started = time;
$run->finish;
my $lrc = $? >> 8;
my $after = time - $started;
note("the advisor ended $after s after the server stopped");
is($lrc, 1, 'a lost connection: exit status 1 (partial)');
like($lerr, qr/the connection was lost and could not be restored in 15 s/,
	'it says it retried');
my $partial = decode_json($lout)->{servers}[0];
ok($partial->{partial}, 'the report is marked partial');
cmp_ok($partial->{seconds}, '>=', 2, 'with what was measured before the loss');
cmp_ok($after, '>=', 14, 'it retried for the reconnect window');
cmp_ok($after, '<', 60, 'and did not wait out the whole duration');

# --- without pg_control_checkpoint() ------------------------------------------

$a->safe_psql('postgres', 'REVOKE EXECUTE ON FUNCTION pg_control_checkpoint() FROM PUBLIC');
$writer = IPC::Run::start(
	[ 'bash', '-c', join(' ; ', map {
		sprintf(q{sleep 1; psql -X -q -h %s -p %d -d postgres -c "INSERT INTO w SELECT generate_series(1, 20000); CHECKPOINT"},
			$a->host, $a->port) } 1 .. 3) ]);
($rc, $out, $err) = run_advisor('--duration=8s', '--sample-interval=250ms', conninfo($a));
$writer->finish;
is($rc, 0, 'without pg_control_checkpoint(): measured') or diag($err);
like($out, qr/note: pg_control_checkpoint\(\) is not allowed for this role; checkpoint cycles were inferred from the counters/,
	'it says the cycles were inferred');
like($out, qr/checkpoints: \d+ timed, [3-9]\d* requested/, 'and still counts the checkpoints');
($rc, $out, $err) = run_advisor('--duration=2s', '--json', conninfo($a));
is(decode_json($out)->{servers}[0]{redo_source}, 'counters', 'JSON names the redo source');

$a->stop;
done_testing();
