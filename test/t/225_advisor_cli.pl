# walsizer-test: long
# walsizer-test: minutes 2
# The advisor's edges, against real servers: bad input of every kind gets
# one clear line and exit status 1 (a trace's value out of range named
# with its line; a servers file that names no server, or a directory);
# a server it cannot measure gets exit status 2 (named by its label, never
# by its connection string, libpq's lines kept); two servers at once give
# two rows; a fleet with one server down goes on, its row says why, exit
# status 3; a connection lost mid-run is retried, then the partial result
# is reported (exit 3); without pg_control_checkpoint() it infers cycles
# from the counters and says so; --version is the control file's version.
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

# Waits until the advisor has been connected to the node for $seconds
# (and so sampling it), rather than sleeping for a time its start-up on a
# loaded machine may not fit in.
sub advisor_sampling
{
	my ($node, $seconds, $what) = @_;
	ok(poll_until($node,
			"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'pg_walsizer_advisor' "
			  . "AND backend_start <= now() - interval '$seconds s')", 60),
		$what);
}

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

my $empty_file = "${PostgreSQL::Test::Utils::tmp_check}/no_servers.txt";
open $sf, '>', $empty_file or die;
print $sf "# db1, retired\n\n";
close $sf;

# name, arguments, message, exit status (1 bad input, 2 no server measured)
my @bad = (
	[ 'an unknown option', [ '--bogus' ], qr/unknown option "--bogus"/, 1 ],
	[ 'an option without its value', [ '--duration' ], qr/option --duration needs a value/, 1 ],
	[ 'a duration that is not a time', [ '--duration=soon', conninfo($a) ],
	  qr/invalid value for --duration: "soon"/, 1 ],
	[ 'a bad --max', [ '--max=-1', conninfo($a) ], qr/invalid value for --max/, 1 ],
	[ 'an --interval beyond 7 days', [ '--interval=1e13', conninfo($a) ],
	  qr/invalid value for --interval: "1e13" \(a time from 1s to 7 days\)/, 1 ],
	[ 'a servers file with a line too long to be read whole', [ "--servers-file=$long_file" ],
	  qr/servers file ".*servers.txt": a line is longer than 1022 characters/, 1 ],
	[ 'a servers file of comments only', [ "--servers-file=$empty_file" ],
	  qr/error: servers file ".*no_servers.txt" names no server/, 1 ],
	[ 'a directory as the servers file', [ "--servers-file=${PostgreSQL::Test::Utils::tmp_check}" ],
	  qr/error: could not read servers file ".*": Is a directory/, 1 ],
	[ 'a bad connection string', [ '--duration=1s', 'port=notaport' ],
	  qr/could not connect to server "[^"]*:notaport\/[^"]*": invalid integer value "notaport"/, 2 ],
	[ 'a role without pg_monitor', [ conninfo($a, 'nobody') ],
	  qr/role "nobody" may not measure this server: it needs the privileges of pg_monitor/, 2 ],
	[ '--record with two servers',
	  [ '--record=/dev/null', '--server', conninfo($a), '--server', conninfo($b) ],
	  qr/--record writes the trace of one server; 2 were given/, 1 ],
	[ 'a trace with a bad sample', [ "--replay=$broken" ],
	  qr/trace ".*broken.trace": line 3: "sample" has a field that is not a valid number/, 1 ],
	# test/fuzz/corpus/fuzz_trace/: what once overflowed the arithmetic
	[ 'a trace with a time out of range', [ "--replay=$corpus/time_out_of_range" ],
	  qr/trace ".*time_out_of_range": line 3: "sample": time out of range: "9223372036854775000" \(microseconds since 1970, before the year 10000\)/, 1 ],
	[ 'a trace with a WAL position out of range', [ "--replay=$corpus/lsn_out_of_range" ],
	  qr/trace ".*lsn_out_of_range": line 4: "sample": WAL position out of range: "18446744073709551615" \(at most 9223372036854775807\)/, 1 ],
	[ 'a trace that does not exist', [ '--replay=/nonexistent.trace' ],
	  qr/could not open trace "\/nonexistent.trace": No such file/, 1 ],
);
for my $case (@bad)
{
	my ($name, $args, $message, $status) = @$case;
	my ($rc, $out, $err) = run_advisor(@$args);
	is($rc, $status, "$name: exit status $status");
	like($err, qr/^pg_walsizer_advisor: error: /, "$name: an error, as PostgreSQL's programs say it");
	like($err, $message, "$name: says so");
	my $lines = () = $err =~ /\n/g;
	is($lines, 1, "$name: in one line") or diag($err);
	is($out, '', "$name: prints nothing else");
}

# a server that is down: libpq's lines kept as it writes them, exit 2
my ($rc, $out, $err) = run_advisor(conninfo($down));
is($rc, 2, 'a server that is down: exit status 2');
like($err, qr/^pg_walsizer_advisor: error: could not connect to server "local:@{[ $down->port ]}\/postgres": connection to server .* failed: .*\n\tIs the server running locally/,
	'a server that is down: says so, with libpq\'s hint on a line of its own, as psql prints it');
is($out, '', 'a server that is down: prints nothing else');

($rc, $out, $err) = run_advisor('--help');
is($rc, 0, '--help exits 0');
like($out, qr/--duration=TIME.*--record=FILE.*--replay=FILE.*--json/s, '--help lists the options');
like($out, qr/^  -V, --version .*^  -\?, --help /ms, '--help lists -V and -?');
($rc, my $short_help) = run_advisor('-?');
is($rc, 0, '-? exits 0');
is($short_help, $out, '-? is --help');

# the package's version, from the control file, in --version, -V and the manual
my ($control_version) = slurp_file("$FindBin::RealBin/../../pg_walsizer.control")
  =~ /^default_version = '([^']+)'/m;
for my $option ('--version', '-V')
{
	($rc, $out, $err) = run_advisor($option);
	is($rc, 0, "$option exits 0");
	is($out, "pg_walsizer_advisor (pg_walsizer) $control_version\n",
		"$option prints the control file's version, $control_version");
}
like(slurp_file("$FindBin::RealBin/../../debian/pg_walsizer_advisor.1"),
	qr/^\.TH PG_WALSIZER_ADVISOR 1 "[^"]*" "pg_walsizer \Q$control_version\E"/m,
	'the manual page has the same version');

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

# --- a fleet with one server down ----------------------------------------------

my $fleet_file = "${PostgreSQL::Test::Utils::tmp_check}/fleet.txt";
open $sf, '>', $fleet_file or die;
print $sf "# the fleet\n", conninfo($a), "\n", conninfo($down), "\n";
close $sf;
($rc, $out, $err) = run_advisor('--duration=3s', '--sample-interval=250ms', '--json',
	"--servers-file=$fleet_file");
is($rc, 3, 'a fleet with one server down: exit status 3 (partial)') or diag($err);
like($err, qr/could not connect to server "local:@{[ $down->port ]}\/postgres"/,
	'a fleet with one server down: it says which');
my $doc = decode_json($out);
is($doc->{version}, $control_version, 'the JSON carries the version');
like($doc->{at}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'and the time');
$fleet = $doc->{servers};
is(scalar @$fleet, 2, 'a fleet with one server down: two rows');
cmp_ok($fleet->[0]{seconds}, '>=', 2, 'the live server was measured');
ok(!defined $fleet->[0]{error}, 'and has no error');
like($fleet->[0]{action} // '', qr/^(none|grow|capped|shrink)$/,
	'its action is named as in walsizer.recommendation');
like($fleet->[1]{server}, qr/:@{[ $down->port ]}\/postgres$/, 'the second row is the server that is down');
like($fleet->[1]{error}, qr/connection to server .* failed/, 'its row says why');
unlike($fleet->[1]{error}, qr/\n/, 'in one line');
ok(!defined $fleet->[1]{$_}, "its $_ is null, not 0")
  for qw(seconds recommended_mb max_wal_size_mb action major);

# every server down: exit status 2, and still a row for each saying why
($rc, $out, $err) = run_advisor('--duration=2s', '--sample-interval=250ms', '--json',
	'--server=' . conninfo($down), '--server=' . conninfo($down) . ' application_name=second');
is($rc, 2, 'a fleet with every server down: exit status 2');
my $all_down = eval { decode_json($out)->{servers} } // [];
is(scalar @$all_down, 2, 'a fleet with every server down: still a JSON row per server') or diag($out);
like($all_down->[0]{error} // '', qr/connection to server .* failed/,
	'a fleet with every server down: each row says why');

($rc, $out, $err) = run_advisor('--duration=2s', '--sample-interval=250ms',
	"--servers-file=$fleet_file");
is($rc, 3, 'a fleet with one server down, as text: exit status 3');
like($out, qr/^local:@{[ $down->port ]}\/postgres: not measured: connection to server/m,
	'its report says why');
like($out, qr/^local:@{[ $down->port ]}\/postgres\s+-\s.*not measured$/m, 'and so does its row of the table');

# --- a connection lost mid-run -----------------------------------------------

# a restart within the reconnect window is survived
my ($rout, $rerr) = ('', '');
my $run = IPC::Run::start([ advisor_path(), '--duration=12s', '--sample-interval=200ms',
		'--json', conninfo($b) ], '>', \$rout, '2>', \$rerr);
advisor_sampling($b, 1, 'the advisor samples the server to be restarted');
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
advisor_sampling($b, 3, 'the advisor has sampled the server to be stopped for 3 s');
# from before the stop: the advisor may see the connection lost before the
# stop returns
my $started = time;
$b->stop('immediate');
$run->finish;
my $lrc = $? >> 8;
my $after = time - $started;
note("the advisor ended $after s after the server stopped");
is($lrc, 3, 'a lost connection: exit status 3 (partial)');
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
