# walsizer-test: version-dependent
# (each major's statistics, and the exporter each Debian release ships: test/pg-matrix.sh runs it on every major)
#
# The real prometheus-postgres-exporter, given monitoring/
# postgres_exporter_queries.yaml, serves walsizer.status and
# walsizer.decision_counts as Prometheus metrics: each with its help
# text and its type, gauges with status()'s values in bytes and seconds,
# counters that never go down (the decisions by action also across a
# restart), connected as a pg_monitor member.  Without the extension in
# its database, or without pg_monitor, the exporter says so: its scrape
# error metric is 1 and no walsizer metric is served.
#
# The exporter is /usr/bin/prometheus-postgres-exporter (Debian's
# prometheus-postgres-exporter) or $WALSIZER_EXPORTER.  Without it the test
# skips, unless WALSIZER_REQUIRE_EXPORTER=1 (test/run-suites.sh sets it
# where the exporter is installed): there a skip would hide that the test
# never ran.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use HTTP::Tiny;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my $exporter = $ENV{WALSIZER_EXPORTER} || '/usr/bin/prometheus-postgres-exporter';
if (!-x $exporter)
{
	my $why = "$exporter is not installed (Debian: apt-get install prometheus-postgres-exporter)";
	plan skip_all => $why unless $ENV{WALSIZER_REQUIRE_EXPORTER};
	plan tests => 1;
	fail("$why, and WALSIZER_REQUIRE_EXPORTER is set");
	exit;
}
my $queries = "$FindBin::RealBin/../../monitoring/postgres_exporter_queries.yaml";

# Every metric the queries file defines, with its type.
my %expected_type = (
	walsizer_worker_up => 'gauge',
	walsizer_enabled => 'gauge',
	walsizer_dry_run => 'gauge',
	walsizer_max_wal_size_bytes => 'gauge',
	walsizer_cap_bytes => 'gauge',
	walsizer_floor_bytes => 'gauge',
	walsizer_needed_bytes => 'gauge',
	walsizer_pending_bytes => 'gauge',
	walsizer_shadowed_max_wal_size_bytes => 'gauge',
	walsizer_window_seconds => 'gauge',
	walsizer_last_check_timestamp_seconds => 'gauge',
	walsizer_checkpoints_timed_total => 'counter',
	walsizer_checkpoints_requested_total => 'counter',
	walsizer_checkpoints_wal_forced_total => 'counter',
	walsizer_wal_bytes_total => 'counter',
	walsizer_wal_rate_bytes_per_second => 'gauge',
	walsizer_peak_wal_rate_bytes_per_second => 'gauge',
	walsizer_record_rate_bytes_per_second => 'gauge',
	walsizer_wal_since_redo_bytes => 'gauge',
	walsizer_trigger_bytes => 'gauge',
	walsizer_projected_bytes => 'gauge',
	walsizer_projected_fill_ratio => 'gauge',
	walsizer_alter_system_blocked => 'gauge',
	walsizer_estimated_recovery_seconds => 'gauge',
	walsizer_replay_rate_bytes_per_second => 'gauge',
	walsizer_max_recovery_time_seconds => 'gauge',
	walsizer_change_failing_since_timestamp_seconds => 'gauge',
	walsizer_wal_held_bytes => 'gauge',
	walsizer_status_info => 'gauge',
	walsizer_decisions_total => 'counter');

# What each one-series metric must equal, computed from status() on its
# own, not copied from the exporter's configuration (WalsizerTest.pm).
my %from_status = metric_sql_from_status();
my @status_metrics = sort keys %from_status;
my @actions = decision_actions();

# A pgbench load forces checkpoints at 32 MB: walsizer grows the size
# within seconds (010_grow_on_forced_checkpoints.pl).  A cooldown of 1000
# windows (over half an hour) keeps that size until the failing change
# below, which must lower it: no settling nor shrink comes first, however
# long the test takes.  A growth on forced checkpoints does not wait for
# the cooldown, nor does the lowering to a lowered walsizer.max.
my $node = walsizer_node('prom',
	conf => { 'walsizer.interval' => "'2s'", 'walsizer.cooldown' => 1000 });
my $host = $node->host;
my $port = $node->port;
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $host, '-p', $port, 'postgres' ],
	'pgbench tables created');
# the exporter's own role: pg_monitor is all it needs
$node->safe_psql('postgres',
	'CREATE ROLE walsizer_exporter LOGIN IN ROLE pg_monitor;'
	  . 'CREATE ROLE walsizer_outsider LOGIN;'
	  . 'CREATE DATABASE without_walsizer');

# --- the exporter ---------------------------------------------------------

# The exporter's built-in collectors, from its --help: each version has
# its own set (0.11: database and bgwriter; 0.17 and later: twenty or so),
# and an unknown --no-collector flag stops it.
my @collectors;
sub exporter_collectors
{
	if (!@collectors)
	{
		my $help = `$exporter --help 2>&1`;
		my %seen;
		@collectors = grep { !$seen{$_}++ } $help =~ /--collector\.([a-z_]+)/g;
	}
	return @collectors;
}

# Starts the exporter on a free port against the database and role given;
# returns a handle for scrape() and stop_exporter().
sub start_exporter
{
	my ($dbname, $user) = @_;
	my $listen = PostgreSQL::Test::Cluster::get_free_port();
	my $run = { port => $listen, out => '', err => '' };
	local $ENV{DATA_SOURCE_NAME} =
	  "host=$host port=$port user=$user dbname=$dbname sslmode=disable";
	# only what the queries file defines: the default and settings
	# metrics, and every collector, are other queries
	$run->{handle} = IPC::Run::start(
		[ $exporter, "--extend.query-path=$queries",
		  '--disable-default-metrics', '--disable-settings-metrics',
		  (map { "--no-collector.$_" } exporter_collectors()),
		  "--web.listen-address=127.0.0.1:$listen" ],
		'<', \undef, '>', \$run->{out}, '2>', \$run->{err});
	return $run;
}

sub stop_exporter
{
	my ($run) = @_;
	$run->{handle}->signal('TERM');
	$run->{handle}->finish;
	return $run->{err};
}

# One scrape of /metrics, parsed: name => { help, type, samples =>
# { 'label="value",...' => value } } (labels sorted, the exporter's server
# label left out).  Waits up to 30 s for the exporter to listen.
sub scrape
{
	my ($run) = @_;
	my $http = HTTP::Tiny->new(timeout => 10);
	my $deadline = time() + 30;
	my $response;
	while (1)
	{
		$response = $http->get("http://127.0.0.1:$run->{port}/metrics");
		last if $response->{success} || time() > $deadline;
		$run->{handle}->pump_nb;
		sleep(0.1);
	}
	BAIL_OUT("exporter not answering on port $run->{port}: $response->{status} $response->{content}")
	  unless $response->{success};
	my %metrics;
	for my $line (split /\n/, $response->{content})
	{
		if ($line =~ /^# (HELP|TYPE) (\S+) ?(.*)$/)
		{
			$metrics{$2}{ lc $1 } = $3;
			$metrics{$2}{text} .= "$line\n";
		}
		elsif ($line =~ /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/)
		{
			my ($name, $labels, $value) = ($1, $2 // '', $3);
			my @labels = sort grep { !/^server=/ } $labels =~ /(\w+="[^"]*")/g;
			$metrics{$name}{samples}{ join(',', @labels) } = $value;
			$metrics{$name}{text} .= "$line\n";
		}
	}
	$metrics{_text} = $response->{content};
	return \%metrics;
}

# The single value of a one-series metric, or undef.
sub value
{
	my ($metrics, $name) = @_;
	my @values = values %{ $metrics->{$name}{samples} // {} };
	return @values == 1 ? $values[0] : undef;
}

# The values %from_status gives for each metric, and decision_counts(),
# read now in one query.
sub expected_now
{
	my $sql = 'SELECT ' . join(', ', map { "($from_status{$_})::float8" } @status_metrics)
	  . ', (SELECT string_agg(action || \'=\' || total, \',\' ORDER BY action)'
	  . '     FROM walsizer.decision_counts)'
	  . ' FROM walsizer.status';
	my @row = split /\|/, $node->safe_psql('postgres', $sql);
	my %expected;
	@expected{@status_metrics} = @row[ 0 .. $#status_metrics ];
	for (split /,/, $row[-1])
	{
		my ($action, $total) = split /=/;
		$expected{"walsizer_decisions_total/$action"} = $total;
	}
	return \%expected;
}

# Is $x within [$lo, $hi] (in either order), with float output's rounding?
sub between
{
	my ($x, $lo, $hi) = @_;
	return 0 unless defined $x && defined $lo && defined $hi && $lo ne '' && $hi ne '';
	($lo, $hi) = ($hi, $lo) if $lo > $hi;
	my $slack = 1e-12 * (abs($lo) + abs($hi));
	return $x >= $lo - $slack && $x <= $hi + $slack;
}

# Scrapes between two reads of status() until every value lies between its
# two reads (most values move only at a sample or a window end, so that
# soon holds exactly).  Returns the last try's scrape, reads and misses.
sub scrape_between_reads
{
	my ($run) = @_;
	my ($before, $metrics, $after, @missed);
	for my $try (1 .. 10)
	{
		$before = expected_now();
		$metrics = scrape($run);
		$after = expected_now();
		@missed = ();
		for my $name (@status_metrics)
		{
			push @missed, $name
			  unless between(value($metrics, $name), $before->{$name}, $after->{$name});
		}
		for my $action (@actions)
		{
			my $key = "walsizer_decisions_total/$action";
			push @missed, $key
			  unless between($metrics->{walsizer_decisions_total}{samples}{"action=\"$action\""},
				$before->{$key}, $after->{$key});
		}
		last unless @missed;
	}
	return ($metrics, $before, $after, @missed);
}

# --- under load: every metric, its help, its type, its value -------------

my $exporter_run = start_exporter('postgres', 'walsizer_exporter');
# the load runs until the scrape under it is done, and is stopped then: a
# fixed -T could end before a slow machine's scrape
my $load = start_pgbench($node, '-c', '4', '-j', '4', '-T', '600');
ok(poll_until($node,
		"(SELECT sum(total) FROM walsizer.decision_counts WHERE action IN ('grow', 'capped')) > 0",
		90),
	'walsizer grew max_wal_size under the load');
wait_for($node, 'SELECT wal_rate_bytes_per_s > 0 AND total_wal_bytes > 0 FROM walsizer.status',
	'walsizer measures the load');

my ($loaded, $before, $after, @missed) = scrape_between_reads($exporter_run);
for my $name (sort keys %expected_type)
{
	like($loaded->{$name}{help} // '', qr/\w+ \w+/, "$name has its help text");
	is($loaded->{$name}{type}, $expected_type{$name}, "$name is a $expected_type{$name}");
}
# nothing the file does not define, and no series the test does not know
my @unknown = grep { /^walsizer/ && !exists $expected_type{$_} } sort keys %$loaded;
is("@unknown", '', 'no walsizer metric beyond the documented ones');

for my $name (@status_metrics)
{
	ok(!grep({ $_ eq $name } @missed),
		sprintf('%s = %s lies between status() read before (%s) and after (%s)',
			$name, value($loaded, $name) // 'none', $before->{$name}, $after->{$name}));
}
is_deeply([ sort keys %{ $loaded->{walsizer_decisions_total}{samples} } ],
	[ sort map { "action=\"$_\"" } @actions ],
	'walsizer_decisions_total has a series for every action, never taken included');
for my $action (@actions)
{
	my $key = "walsizer_decisions_total/$action";
	ok(!grep({ $_ eq $key } @missed),
		"walsizer_decisions_total{action=\"$action\"} = "
		  . ($loaded->{walsizer_decisions_total}{samples}{"action=\"$action\""} // 'none')
		  . " is decision_counts()'s ($before->{$key} before, $after->{$key} after)");
}
# values that are not 0 now, so that a metric fed from the wrong column
# (two zeros are alike) or in the wrong unit cannot pass above
my $grown = ($loaded->{walsizer_decisions_total}{samples}{'action="grow"'} // 0)
  + ($loaded->{walsizer_decisions_total}{samples}{'action="capped"'} // 0);
cmp_ok($grown, '>', 0, "the growth under the load is counted ($grown grow or capped)");
cmp_ok(value($loaded, 'walsizer_wal_rate_bytes_per_second') // 0, '>', 0, 'a WAL rate is served');
cmp_ok(value($loaded, 'walsizer_wal_bytes_total') // 0, '>', 0, 'WAL written is counted');
cmp_ok(value($loaded, 'walsizer_max_wal_size_bytes') // 0, '>', 32 * 1024 * 1024,
	'max_wal_size in bytes, above the configured 32 MB');
# walsizer.max (4 GB), or less where the disk holding pg_wal is small
my $cap = value($loaded, 'walsizer_cap_bytes') // 0;
ok($cap > 32 * 1024 * 1024 && $cap <= 4096 * 1024 * 1024 && $cap % (1024 * 1024) == 0,
	"the cap in bytes, whole MB up to walsizer.max's 4 GB: $cap");
cmp_ok(value($loaded, 'walsizer_floor_bytes') // 0, '==', 32 * 1024 * 1024,
	'the floor: the DBA\'s 32 MB, in bytes');
cmp_ok(value($loaded, 'walsizer_window_seconds') // 0, '==', 2,
	'the window: walsizer.interval, 2 s');
cmp_ok(value($loaded, 'walsizer_max_recovery_time_seconds') // 0, '==', 300,
	'the recovery bound: walsizer.max_recovery_time, 300 s by default');
cmp_ok(value($loaded, 'walsizer_worker_up') // 0, '==', 1, 'the worker is up');
my $info = join ' ', keys %{ $loaded->{walsizer_status_info}{samples} };
like($info, qr/role="primary"/, 'the info metric says the role');
my $cap_source = $node->safe_psql('postgres', 'SELECT cap_source FROM walsizer.status');
like($info, qr/cap_source="\Q$cap_source\E"/, "the info metric says where the cap comes from: $cap_source");
like($info, qr/wal_held_by=""/, 'the info metric says nothing holds WAL here (no slot, no archiving)');
my $last_action = $node->safe_psql('postgres', 'SELECT last_action FROM walsizer.status');
note("status_info: $info; last_action now: $last_action");

# --- after the load: the counters went on, none went down ------------------

stop_pgbench($load);
unlike($load->{err}, qr/error|abort/i, 'pgbench ran without an error until stopped');
# a window ends after the load, so its WAL is in the totals
my $windows_after = status_value($node, 'last_check_at');
wait_for($node, "SELECT last_check_at > '$windows_after' FROM walsizer.status",
	'a window ended after the load');
my ($idle, $idle_before, $idle_after, @idle_missed) = scrape_between_reads($exporter_run);
is("@idle_missed", '', 'after the load too, every value is status()\'s and decision_counts()\'s');
for my $name (sort grep { $expected_type{$_} eq 'counter' } keys %expected_type)
{
	for my $series (sort keys %{ $loaded->{$name}{samples} })
	{
		my ($first, $second) = ($loaded->{$name}{samples}{$series}, $idle->{$name}{samples}{$series});
		ok(defined $second && $second >= $first,
			"$name" . ($series ? "{$series}" : '') . " did not go down: $first, then "
			  . ($second // 'none'));
	}
}
cmp_ok(value($idle, 'walsizer_wal_bytes_total'), '>', value($loaded, 'walsizer_wal_bytes_total'),
	'walsizer_wal_bytes_total went up with the rest of the load');

# The last scrapes' metrics, for the excerpt in docs/monitoring.md.
note("scraped after the load:\n" . join('', map { $idle->{$_}{text} // '' } sort keys %expected_type));

# --- a restart: the decisions by action carry on ----------------------------

# what the exporter logged while the server ran
$exporter_run->{handle}->pump_nb;
my $log_before_restart = $exporter_run->{err};
# 0.11 logs level=error, 0.16 and later (slog) level=ERROR
unlike($log_before_restart, qr/level=error/i, 'the exporter logged no error')
  or diag($log_before_restart);

my %decisions_before_restart = %{ $idle->{walsizer_decisions_total}{samples} };
$node->restart;
# its first sample published: the worker sets its pid before it reads the
# state file, which holds the counts compared below
wait_for($node, 'SELECT worker_pid IS NOT NULL AND floor_mb IS NOT NULL FROM walsizer.status',
	'the worker runs again, its state file read');
# The exporter finds its connection broken at the first scrape after the
# restart (pg_exporter_last_scrape_error 1, no walsizer metric) and opens
# a new one at the next.
my $restarted;
my $deadline = time() + 20;
do
{
	$restarted = scrape($exporter_run);
} until (value($restarted, 'pg_exporter_last_scrape_error') // 1) == 0 || time() > $deadline;
is(value($restarted, 'pg_exporter_last_scrape_error'), 0,
	'the exporter scrapes without error again after the restart');
for my $series (sort keys %decisions_before_restart)
{
	my $now = $restarted->{walsizer_decisions_total}{samples}{$series};
	ok(defined $now && $now >= $decisions_before_restart{$series},
		"walsizer_decisions_total{$series} kept across the restart: "
		  . "$decisions_before_restart{$series}, then " . ($now // 'none'));
}
my $log = stop_exporter($exporter_run);

# --- a state file an older pg_walsizer wrote --------------------------------

# FNV-1a, 64 bits, as state_format.c checksums the file; in 32-bit halves
# so that no product leaves Perl's exact integers.
sub fnv1a64
{
	my ($data) = @_;
	my ($hi, $lo) = (0xcbf29ce4, 0x84222325);
	for my $byte (unpack('C*', $data))
	{
		$lo ^= $byte;
		# times 0x100000001b3: the low half times 0x1b3 and 0x100 << 32
		my $low_product = $lo * 0x1b3;
		$hi = (($low_product >> 32) + $hi * 0x1b3 + $lo * 0x100) & 0xffffffff;
		$lo = $low_product & 0xffffffff;
	}
	return pack('VV', $lo, $hi);
}

# Version 3 of the file is version 5 without the nine action totals,
# failing_since and the data directory (96 bytes before the checksum).  Read, the totals start
# from the history: here, which never wrapped, exactly what decisions()
# lists.
$node->stop;
my $state_file = $node->data_dir . '/pg_walsizer.state';
my $v5 = slurp_file($state_file);
is(unpack('V', substr($v5, 4, 4)), 5, 'the state file is written as version 5');
my $v3 = substr($v5, 0, length($v5) - 104);
substr($v3, 4, 4) = pack('V', 3);
$v3 .= fnv1a64($v3);
{
	open(my $fh, '>:raw', $state_file) or die "cannot write $state_file: $!";
	print $fh $v3;
	close $fh;
}
# no decision before this test reads (the load is over; the size stays)
$node->append_conf('postgresql.conf', "walsizer.enable = off\n");
my $offset = -s $node->logfile;
$node->start;
ok($node->wait_for_log(qr/pg_walsizer loaded \d+ recorded decisions/, $offset),
	'the version 3 file was read');
is($node->safe_psql('postgres',
		"SELECT string_agg(c.action || '=' || c.total, ',' ORDER BY c.action)"
		  . ' FROM walsizer.decision_counts c'),
	$node->safe_psql('postgres',
		"SELECT string_agg(a || '=' || (SELECT count(*) FROM walsizer.decisions d WHERE d.action = a), ',' ORDER BY a)"
		  . ' FROM unnest(ARRAY[' . join(',', map { "'$_'" } @actions) . ']) a'),
	'from a version 3 file, the totals are the decisions its history holds');
is($node->safe_psql('postgres', 'SELECT sum(total) FROM walsizer.decision_counts'),
	$node->safe_psql('postgres', 'SELECT decisions_total FROM walsizer.status'),
	'and, as that history never wrapped, all the decisions made');

# --- the two switches off their defaults -----------------------------------

# Above, walsizer_enabled was 1 and walsizer_dry_run 0, as worker_up and
# alter_system_blocked were: a metric fed from one of those columns would
# have passed.  Here enable is off (set above) and dry run on, the worker
# still up; the alerts WalsizerDisabledForADay and WalsizerDryRunForADay
# read these two.
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.dry_run = on');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
wait_for($node, 'SELECT dry_run AND NOT enabled AND worker_pid IS NOT NULL FROM walsizer.status',
	'the worker sees dry run on and enable off');
my $switches_run = start_exporter('postgres', 'walsizer_exporter');
my $switches = scrape($switches_run);
stop_exporter($switches_run);
my ($view_enabled, $view_dry_run) = split /\|/,
  $node->safe_psql('postgres', 'SELECT enabled::int, dry_run::int FROM walsizer.status');
is(value($switches, 'walsizer_enabled'), $view_enabled,
	"walsizer_enabled is status.enabled with enable off: $view_enabled");
is(value($switches, 'walsizer_dry_run'), $view_dry_run,
	"walsizer_dry_run is status.dry_run with dry run on: $view_dry_run");
is(value($switches, 'walsizer_enabled') . ',' . value($switches, 'walsizer_dry_run')
	  . ',' . value($switches, 'walsizer_worker_up'),
	'0,1,1', 'enable off, dry run on, worker up: 0, 1 and 1');

# --- changes that keep failing -----------------------------------------------

# The data directory read-only (as on a full or broken disk): every change
# fails.  A run of failures records one error decision, so an alert on the
# decisions would end an hour after it; the failing-since time the alert
# WalsizerChangeFailing reads stays, a restart of the worker included, until
# a change goes through.
$node->safe_psql('postgres', 'ALTER SYSTEM RESET walsizer.dry_run');
$node->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
wait_for($node, 'SELECT enabled AND NOT dry_run FROM walsizer.status',
	'changes allowed again');
my $failing_run = start_exporter('postgres', 'walsizer_exporter');
is(value(scrape($failing_run), 'walsizer_change_failing_since_timestamp_seconds'), 0,
	'while changes go through, walsizer_change_failing_since_timestamp_seconds is 0');
# A lower walsizer.max, loaded once the directory is read-only, makes the
# worker lower max_wal_size at once, which fails.
my $lower_mb = int(status_value($node, 'max_wal_size_mb') / 2);
$lower_mb = 32 if $lower_mb < 32;
$node->safe_psql('postgres', "ALTER SYSTEM SET walsizer.max = '${lower_mb}MB'");
my $data_dir = $node->data_dir;
chmod 0500, $data_dir or die "chmod $data_dir: $!";
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
wait_for($node, 'SELECT failing_since IS NOT NULL FROM walsizer.status',
	"lowering max_wal_size to walsizer.max ($lower_mb MB) fails");
my $since_epoch = $node->safe_psql('postgres',
	"SELECT date_part('epoch', failing_since) FROM walsizer.status");
my $failing = scrape($failing_run);
cmp_ok(value($failing, 'walsizer_change_failing_since_timestamp_seconds'), '==', $since_epoch,
	"the metric is the first failure's time ($since_epoch): WalsizerChangeFailing's expression holds");
my $worker = status_value($node, 'worker_pid');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($worker)");
wait_for($node, "SELECT worker_pid IS NOT NULL AND worker_pid <> $worker FROM walsizer.status",
	'a new worker runs while changes fail');
$failing = scrape($failing_run);
cmp_ok(value($failing, 'walsizer_change_failing_since_timestamp_seconds'), '==', $since_epoch,
	'after a restart of the worker the metric still says since when');
chmod 0700, $data_dir or die "chmod $data_dir: $!";
wait_for($node, 'SELECT failing_since IS NULL FROM walsizer.status',
	'the change goes through once the directory is writable');
is(value(scrape($failing_run), 'walsizer_change_failing_since_timestamp_seconds'), 0,
	'then the metric is 0 again: the alert clears');
stop_exporter($failing_run);

# --- what a DBA sees when the exporter cannot read pg_walsizer ---------------

# a database without the extension
my $run = start_exporter('without_walsizer', 'walsizer_exporter');
my $broken = scrape($run);
is(value($broken, 'pg_up'), 1, 'without the extension: the exporter reaches the server');
is(value($broken, 'pg_exporter_last_scrape_error'), 1,
	'without the extension: pg_exporter_last_scrape_error is 1');
is(join(' ', grep { /^walsizer/ } sort keys %$broken), '',
	'without the extension: no walsizer metric at all (so absent() alerts)');
$log = stop_exporter($run);
like($log, qr/Error running query.*relation \\?"walsizer\.status\\?" does not exist/,
	'without the extension: the exporter\'s log says the view is missing');

# a role that is not a member of pg_monitor
$run = start_exporter('postgres', 'walsizer_outsider');
$broken = scrape($run);
is(value($broken, 'pg_exporter_last_scrape_error'), 1,
	'without pg_monitor: pg_exporter_last_scrape_error is 1');
is(join(' ', grep { /^walsizer/ } sort keys %$broken), '',
	'without pg_monitor: no walsizer metric at all');
$log = stop_exporter($run);
like($log, qr/permission denied for view status/,
	'without pg_monitor: the exporter\'s log says which permission is missing');

$node->stop;
done_testing();
