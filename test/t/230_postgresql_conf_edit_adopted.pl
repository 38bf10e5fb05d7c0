# walsizer-test: version-dependent
# (each major's configuration file parser: test/pg-matrix.sh runs it on every major)
#
# A DBA who edits max_wal_size in postgresql.conf (or a file it includes)
# after walsizer wrote one into postgresql.auto.conf would otherwise see
# nothing change: postgresql.auto.conf is read last and wins.  walsizer
# adopts such an edit at the reload: it writes the DBA's value for them,
# records "adopt" naming the file and line, makes it the floor, and says
# where the running value comes from in status().  An edit to the value
# already running writes nothing but makes it the floor, a dry run only
# advises, and an edit made
# while the server was down is reported once at start, not adopted.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# One growth and then no change (cooldown), capped low enough that the
# DBA's 2GB is above it; shrink_after = 1 would shrink anything above the
# floor one quiet window after the cooldown.
my $node = walsizer_node('conf_edit',
	conf => {
		'walsizer.interval' => "'1s'",
		'walsizer.max' => "'512MB'",
		'walsizer.cooldown' => 1000,
		'walsizer.shrink_after' => 1 });
my $conf = $node->data_dir . '/postgresql.conf';

# Appends lines to postgresql.conf; returns the number of its last line.
sub append_postgresql_conf
{
	my @lines = @_;
	$node->append_conf('postgresql.conf', join('', map { "$_\n" } @lines));
	# append_conf() ends what it appends with an empty line
	my @all = split /\n/, slurp_file($conf), -1;
	pop @all while @all && $all[-1] eq '';
	return scalar @all;
}

sub adopt_count { return scalar decision_rows($node, "action = 'adopt'") }

# --- walsizer grows the size under pgbench --------------------------------

$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
	'-p', $node->port, 'postgres' ], 'pgbench tables created');
# until it has grown, not for a fixed time: a slow machine writes less WAL
ok(pgbench_until($node, "EXISTS (SELECT FROM walsizer.decisions WHERE " . growth_sql() . ")",
		90, '-c', 2, '-j', 2),
	'walsizer grew max_wal_size');
wait_for($node, 'SELECT pending_mb IS NULL FROM walsizer.status',
	'the growth runs');
my $grown_mb = setting_mb($node, 'max_wal_size');
note("walsizer grew max_wal_size to $grown_mb MB");
cmp_ok($grown_mb, '>', 32, 'grown past the 32 MB of postgresql.conf');
is(status_value($node, 'max_wal_size_source'), 'pg_walsizer',
	'status() says walsizer chose the running size');
is(status_value($node, 'shadowed_max_wal_size_mb'), 32,
	'status() shows the 32 MB of postgresql.conf it shadows');

# --- an edit to the value already running: the DBA's, nothing written -------

append_postgresql_conf("max_wal_size = '${grown_mb}MB'");
$node->reload;
wait_for($node, 'SELECT shadowed_max_wal_size_mb IS NULL FROM walsizer.status',
	'the worker read the edit: postgresql.conf now agrees with what runs');
windows_end($node, 2, 'two windows ended since: time for a second adoption to show');
wait_for($node, 'SELECT floor_mb = ' . $grown_mb . ' FROM walsizer.status',
	'an edit to the running value makes it the floor');
is(adopt_count(), 1, 'recorded as one adoption');
my ($running_adopt) = decision_rows($node, "action = 'adopt'");
is("$running_adopt->{old_mb} $running_adopt->{new_mb}", "$grown_mb $grown_mb",
	'of the value that runs');
like($running_adopt->{reason}, qr/is the value the server runs; adopted as the new baseline$/,
	'saying it is the value the server runs');
is(setting_mb($node, 'max_wal_size'), $grown_mb, 'and nothing changes');

# --- the DBA raises it in postgresql.conf: adopted -------------------------

my $log_before = -s $node->logfile;
my $line = append_postgresql_conf("walsizer.max = '4GB'", 'walsizer.cooldown = 1',
	"max_wal_size = '2GB'");
$node->reload;
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 2048)",
	'the postgresql.conf edit is adopted');
wait_for($node, "current_setting('max_wal_size') = '2GB'",
	'the server runs the DBA\'s 2GB');
my ($adopt) = decision_rows($node, "action = 'adopt' AND new_mb = 2048");
is($adopt->{old_mb}, $grown_mb, "adopted over walsizer's $grown_mb MB");
like($adopt->{reason},
	qr/^max_wal_size = 2048 MB set in postgresql\.conf line $line, shadowed by postgresql\.auto\.conf; adopted as the new baseline$/,
	'the reason names the file and the line');
is(auto_conf_max_wal_size($node), '2048MB',
	'written into postgresql.auto.conf, where it applies');
wait_for($node,
	"SELECT max_wal_size_source = 'adopted from postgresql.conf:$line' "
	  . 'AND shadowed_max_wal_size_mb IS NULL FROM walsizer.status',
	'status() says the running value is the one adopted from postgresql.conf');
is(status_value($node, 'floor_mb'), 2048, 'the DBA\'s value is the floor');

# --- more load and quiet windows: never below it, adopted once -------------

run_pgbench($node, 8, 2);
# the cooldown (1) and shrink_after (1) quiet windows that would shrink a
# size of walsizer's own, and two more
windows_end($node, 4, 'four windows ended after the load');
note_decisions($node, 'after the load');
cmp_ok(setting_mb($node, 'max_wal_size'), '>=', 2048,
	'never lowered below the DBA\'s value');
is(scalar decision_rows($node,
		"new_mb < 2048 AND at > (SELECT max(at) FROM walsizer.decisions WHERE action = 'adopt')"),
	0, 'no decision since went below it');
is(adopt_count(), 2, 'adopted exactly once');
is(log_count($node, qr/pg_walsizer adopted max_wal_size 2048 MB from the configuration files/,
		$log_before), 1, 'logged once');
is(log_count($node, qr/WARNING: .*(shadowed|pg_walsizer)/, $log_before), 0,
	'no warning over all those windows');
is(status_value($node, 'max_wal_size_source'), "adopted from postgresql.conf:$line",
	'the source still says so');

# A size walsizer set itself comes down at once when walsizer.max is
# lowered below it; the DBA's value stays (with a warning).
append_postgresql_conf("walsizer.max = '1GB'");
$node->reload;
wait_for($node, 'SELECT cap_mb = 1024 FROM walsizer.status', 'walsizer.max lowered');
# the worker decides on the new cap at the sample that published it (a
# decision is recorded before the reload that would apply it), and at
# the window ends after it
windows_end($node, 2);
is(setting_mb($node, 'max_wal_size'), 2048,
	'a lowered walsizer.max leaves the adopted value alone: it is the DBA\'s');
is(scalar decision_rows($node,
		"new_mb < 2048 AND at > (SELECT max(at) FROM walsizer.decisions WHERE action = 'adopt')"),
	0, 'and no decision went below it');

# --- through an included file, lowering it ---------------------------------

my $current_mb = setting_mb($node, 'max_wal_size');
$log_before = -s $node->logfile;
# parameter names are case-insensitive, to the server and to walsizer
$node->append_conf('walsizer_test.conf',
	"# written by the configuration manager\nMAX_WAL_SIZE = '96MB'\n");
append_postgresql_conf("include 'walsizer_test.conf'");
$node->reload;
# (old_mb <> 96: the growth above may have been to 96 MB, and its
# adoption as the running value 96 -> 96 is not this one)
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'adopt' AND new_mb = 96 AND old_mb <> 96)",
	'the included file\'s value is adopted');
wait_for($node, "current_setting('max_wal_size') = '96MB'",
	'the server runs the included file\'s 96MB');
my ($included) = decision_rows($node, "action = 'adopt' AND new_mb = 96 AND old_mb <> 96");
is($included->{old_mb}, $current_mb, "adopted over $current_mb MB");
like($included->{reason},
	qr/^max_wal_size = 96 MB set in walsizer_test\.conf line 2, shadowed by postgresql\.auto\.conf; adopted as the new baseline$/,
	'the reason names the included file and its line');
wait_for($node,
	"SELECT max_wal_size_source = 'adopted from walsizer_test.conf:2' AND floor_mb = 96 "
	  . 'FROM walsizer.status',
	'status() names the included file; its value is the floor');
windows_end($node, 2, 'two windows ended since: time for a second adoption to show');
is(adopt_count(), 3, 'adopted once');
is(setting_mb($node, 'max_wal_size'), 96, 'and kept');

# --- dry run: advise only --------------------------------------------------

append_postgresql_conf('walsizer.dry_run = on');
$node->reload;
wait_for($node, 'SELECT dry_run FROM walsizer.status', 'dry run on');
# The last line wins even when the server cannot use it (below the 2 MB
# minimum): no earlier line takes its place, so there is nothing to adopt.
open(my $fh, '>', $node->data_dir . '/walsizer_test.conf') or die $!;
print $fh "# written by the configuration manager\nmax_wal_size = '160MB'\nmax_wal_size = '1MB'\n";
close $fh;
# A marker in the same reload: once status() shows it, the worker has
# reloaded and looked at the files (the look comes before it publishes),
# so "nothing advised" below is about this edit, however late the
# worker's reload.
append_postgresql_conf("walsizer.sample_interval = '201ms'");
$node->reload;
wait_for($node, 'SELECT sample_interval_ms = 201 FROM walsizer.status',
	'the worker reloaded the edit');
windows_end($node, 2);
is(scalar decision_rows($node, "action = 'advise' AND new_mb = 160"), 0,
	'a line the server would reject hides no earlier line: nothing advised');
is(status_value($node, 'shadowed_max_wal_size_mb'), '',
	'and status() shows no shadowed value');

open($fh, '>', $node->data_dir . '/walsizer_test.conf') or die $!;
print $fh "# written by the configuration manager\nmax_wal_size = '160MB'\n";
close $fh;
$node->reload;
wait_for($node,
	"EXISTS (SELECT FROM walsizer.decisions WHERE action = 'advise' AND new_mb = 160)",
	'a dry run advises the edit');
my ($advice) = decision_rows($node, "action = 'advise' AND new_mb = 160");
like($advice->{reason},
	qr/^dry run \(adopt\): max_wal_size = 160 MB set in walsizer_test\.conf line 2, shadowed by postgresql\.auto\.conf; would adopt it/,
	'the advice says what it would adopt, and from where');
wait_for($node, 'SELECT shadowed_max_wal_size_mb = 160 FROM walsizer.status',
	'status() shows the shadowed 160 MB');
windows_end($node, 2, 'two windows ended since: time for a second advice to show');
is(setting_mb($node, 'max_wal_size'), 96, 'a dry run changes nothing');
is(adopt_count(), 3, 'and adopts nothing');
is(scalar decision_rows($node, "action = 'advise' AND new_mb = 160"), 1,
	'advised once');

# --- edited while the server was down: reported once at start --------------

$node->stop;
open($fh, '>', $node->data_dir . '/walsizer_test.conf') or die $!;
print $fh "# written by the configuration manager\nmax_wal_size = '256MB'\n";
close $fh;
$log_before = -s $node->logfile;
$node->start;
# status() names the source once the worker has looked at the files, the
# look at which it warns (its pid alone is set before that)
wait_for($node, 'SELECT worker_pid IS NOT NULL AND max_wal_size_source IS NOT NULL FROM walsizer.status',
	'worker back after the restart, and it looked at the files');
windows_end($node, 2, 'two windows ended since: time for a second warning to show');
is(log_count($node,
		qr/WARNING: +max_wal_size = 256 MB set in "walsizer_test\.conf" line 2 is shadowed by postgresql\.auto\.conf/,
		$log_before), 1, 'an edit made while the server was down is reported once');
like(slurp_file($node->logfile, $log_before),
	qr/HINT: +To run 256 MB, use ALTER SYSTEM SET max_wal_size.*walsizer\.min.*walsizer\.enable = off/,
	'with the three ways out');
is(setting_mb($node, 'max_wal_size'), 96, 'not adopted at start');
is(adopt_count(), 3, 'nothing recorded');

$node->stop;
done_testing();
