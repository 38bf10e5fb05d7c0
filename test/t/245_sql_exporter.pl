# Not marked version-dependent: only the matrix's host, 15, has
# prometheus-sql-exporter and Prometheus (test/pg-matrix.sh installs
# them); the chroots of the other majors have neither, and would skip it.
#
# The real prometheus-sql-exporter (justwatchcom/sql_exporter), given
# monitoring/sql_exporter.yml, serves every metric the alerting rules use,
# as sql_<name> (its prefix, which no setting removes), with the value
# walsizer.status shows, connected as a pg_monitor member.  A real
# Prometheus scraping it with monitoring/sql_exporter.scrape.yml's
# relabelling stores them under the rules' own names and labels, loads
# monitoring/pg_walsizer.rules.yml, and the rules' comparisons match.
# Without the extension, or without pg_monitor, the exporter serves no
# walsizer metric and sql_exporter_last_scrape_failed is 1; a failure
# after a query worked leaves the last values served (that exporter
# caches them), which docs/monitoring.md says.
#
# The exporter is /usr/bin/prometheus-sql-exporter (Debian's
# prometheus-sql-exporter) or $WALSIZER_SQL_EXPORTER.  Without it the
# test skips, unless WALSIZER_REQUIRE_SQL_EXPORTER=1 (test/run-suites.sh
# sets it where the exporter is installed).  Without /usr/bin/prometheus
# (or $WALSIZER_PROMETHEUS) only the Prometheus part skips.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use HTTP::Tiny;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my $exporter = $ENV{WALSIZER_SQL_EXPORTER} || '/usr/bin/prometheus-sql-exporter';
if (!-x $exporter)
{
	my $why = 'prometheus-sql-exporter is not installed';
	plan skip_all => $why unless $ENV{WALSIZER_REQUIRE_SQL_EXPORTER};
	plan tests => 1;
	fail("$why ($exporter; Debian: apt-get install prometheus-sql-exporter), "
		  . 'and WALSIZER_REQUIRE_SQL_EXPORTER is set');
	exit;
}
my $prometheus = $ENV{WALSIZER_PROMETHEUS} || '/usr/bin/prometheus';
my $monitoring = "$FindBin::RealBin/../../monitoring";
my $rules_file = "$monitoring/pg_walsizer.rules.yml";

# The shipped config, with only its interval shortened (15 s would make
# each comparison below wait 15 s): the test's copy.
my $config = slurp_file("$monitoring/sql_exporter.yml");
ok($config =~ s/^(\s*interval:) '15s'$/$1 '1s'/m,
	'the shipped config runs its queries every 15 s (the test runs them every second)');
my $test_config = "$PostgreSQL::Test::Utils::tmp_check/sql_exporter.yml";
open(my $fh, '>', $test_config) or die "$test_config: $!";
print $fh $config;
close $fh;

# The walsizer metrics the rules use, read from the rules (as
# test/monitoring-check.sh reads them): each must be served.
my %rule_metrics;
my $rules_text = slurp_file($rules_file);
$rule_metrics{$1} = 1 while $rules_text =~ /\b(walsizer_\w+)\b/g;
my @rule_metrics = sort keys %rule_metrics;
cmp_ok(scalar @rule_metrics, '>=', 14, "the rules use @{[ scalar @rule_metrics ]} walsizer metrics");

# What each one-series metric must equal, computed from status() on its
# own, not copied from the exporter's configuration (WalsizerTest.pm).
my %from_status = metric_sql_from_status();
my @status_metrics = sort keys %from_status;
my @actions = decision_actions();
# the config's queries: one per metric
my $n_queries = @status_metrics + 1;
for my $name (@rule_metrics)
{
	next if $name eq 'walsizer_decisions_total';
	BAIL_OUT("the rules use $name, which this test does not know: add it to \%from_status")
	  unless $from_status{$name};
}

my $node = walsizer_node('sqlexp', conf => { 'walsizer.interval' => "'2s'" });
# The scrape under load checks the growth as the last action and a size
# above 32 MB; the load stops once it grew, and a settling or a shrink in
# the seconds after (a slow machine's scrapes take that long) would replace
# both.  Held, a shrink is decided but never made (the test ends with it
# held).
hold_worker($node, 'shrink');
my $host = $node->host;
my $port = $node->port;
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '2', '-h', $host, '-p', $port, 'postgres' ],
	'pgbench tables created');
$node->safe_psql('postgres',
	'CREATE ROLE walsizer_exporter LOGIN IN ROLE pg_monitor;'
	  . 'CREATE ROLE walsizer_outsider LOGIN;'
	  . 'CREATE DATABASE without_walsizer');

# --- the exporter ---------------------------------------------------------

# Starts the exporter on 127.0.0.1 and a free port with the test's config;
# libpq's variables say the server, the role and (the config's database
# being postgres) nothing else.  $config_file replaces the config.
sub start_exporter
{
	my ($user, $config_file) = @_;
	my $listen = PostgreSQL::Test::Cluster::get_free_port();
	my $run = { port => $listen, out => '', err => '' };
	local $ENV{PGHOST} = $host;
	local $ENV{PGPORT} = $port;
	local $ENV{PGUSER} = $user;
	local $ENV{PGAPPNAME} = 'prometheus-sql-exporter';
	local $ENV{LOGLEVEL} = 'warn';
	$run->{handle} = IPC::Run::start(
		[ $exporter, '-config.file', $config_file // $test_config,
		  '-web.listen-address', "127.0.0.1:$listen" ],
		'<', \undef, '>', \$run->{out}, '2>', \$run->{err});
	return $run;
}

sub stop_exporter
{
	my ($run) = @_;
	$run->{handle}->signal('TERM');
	$run->{handle}->finish;
	return $run->{out} . $run->{err};
}

# One scrape of /metrics, parsed: name => { help, type, samples =>
# { 'label="value",...' => value } } (labels sorted; the exporter's own
# labels driver, host, database, user, sql_job and col are kept apart in
# {extra}).  Waits up to 20 s for the exporter to listen.
my @extra_labels = qw(col database driver host sql_job user);
sub scrape
{
	my ($run) = @_;
	my $http = HTTP::Tiny->new(timeout => 10);
	my $deadline = time() + 20;
	my $response;
	while (1)
	{
		$run->{handle}->pump_nb;
		$response = $http->get("http://127.0.0.1:$run->{port}/metrics");
		last if $response->{success} || time() > $deadline;
		$run->{handle}->pump_nb;
		sleep(0.1);
	}
	BAIL_OUT("exporter not answering on port $run->{port}: $response->{status} "
		  . "$response->{content}\n$run->{out}$run->{err}")
	  unless $response->{success};
	my %metrics;
	my $extra = join('|', @extra_labels);
	for my $line (split /\n/, $response->{content})
	{
		if ($line =~ /^# (HELP|TYPE) (\S+) ?(.*)$/)
		{
			$metrics{$2}{ lc $1 } = $3;
		}
		elsif ($line =~ /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/)
		{
			my ($name, $labels, $value) = ($1, $2 // '', $3);
			my @labels = sort $labels =~ /(\w+="[^"]*")/g;
			my $key = join(',', grep { !/^(?:$extra)=/ } @labels);
			$metrics{$name}{samples}{$key} = $value;
			$metrics{$name}{extra}{$key} = join(',', grep { /^(?:$extra)=/ } @labels);
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

sub between
{
	my ($x, $lo, $hi) = @_;
	return 0 unless defined $x && defined $lo && defined $hi && $lo ne '' && $hi ne '';
	($lo, $hi) = ($hi, $lo) if $lo > $hi;
	my $slack = 1e-12 * (abs($lo) + abs($hi));
	return $x >= $lo - $slack && $x <= $hi + $slack;
}

# This exporter runs its queries every interval (1 s here) and serves the
# last run's values: read status(), wait 1.5 s (so a run starts and ends
# after the read), scrape, read again; until every value lies between the
# two reads, at most 8 tries (under 20 s).
sub scrape_between_reads
{
	my ($run) = @_;
	my ($before, $metrics, $after, @missed);
	for my $try (1 .. 8)
	{
		$before = expected_now();
		sleep(1.5);
		$metrics = scrape($run);
		$after = expected_now();
		@missed = ();
		for my $name (@status_metrics)
		{
			push @missed, $name
			  unless between(value($metrics, "sql_$name"), $before->{$name}, $after->{$name});
		}
		for my $action (@actions)
		{
			my $key = "walsizer_decisions_total/$action";
			push @missed, $key
			  unless between($metrics->{sql_walsizer_decisions_total}{samples}{"action=\"$action\""},
				$before->{$key}, $after->{$key});
		}
		last unless @missed;
		note("try $try: not yet between the reads: @missed");
	}
	return ($metrics, $before, $after, @missed);
}

# --- under load: every metric the rules use, and its value ----------------

my $exporter_run = start_exporter('walsizer_exporter');
ok(pgbench_until($node,
		"(SELECT sum(total) FROM walsizer.decision_counts WHERE action IN ('grow', 'capped')) > 0"
		  . ' AND (SELECT last_check_at IS NOT NULL AND total_wal_bytes > 0 FROM walsizer.status)',
		25, '-c', '4', '-j', '4'),
	'walsizer grew max_wal_size under a pgbench load, and measured it');

my ($loaded, $before, $after, @missed) = scrape_between_reads($exporter_run);
# the scrape as served, kept with the test's logs (docs/monitoring.md quotes one)
open($fh, '>', "$PostgreSQL::Test::Utils::log_path/245_sql_exporter_scrape.txt") or die $!;
print $fh $loaded->{_text};
close $fh;
for my $name (@rule_metrics)
{
	ok(exists $loaded->{"sql_$name"}{samples}, "$name, which the rules use, is served (as sql_$name)");
}
my @served = sort grep { /^sql_walsizer_/ } keys %$loaded;
is_deeply(\@served,
	[ sort map { "sql_$_" } @status_metrics, 'walsizer_decisions_total' ],
	'the walsizer metrics served are those postgres_exporter serves, each as sql_<name>');
for my $name (@served)
{
	is($loaded->{$name}{type}, 'gauge', "$name is a gauge (this exporter's only type)");
	like($loaded->{$name}{help} // '', qr/\w+ \w+ \w+/, "$name has its help text");
}
for my $name (@status_metrics)
{
	ok(!grep({ $_ eq $name } @missed),
		sprintf('sql_%s = %s lies between status() read before (%s) and after (%s)',
			$name, value($loaded, "sql_$name") // 'none', $before->{$name}, $after->{$name}));
}
is_deeply([ sort keys %{ $loaded->{sql_walsizer_decisions_total}{samples} } ],
	[ sort map { "action=\"$_\"" } @actions ],
	'sql_walsizer_decisions_total has a series for every action, labelled action');
for my $action (@actions)
{
	my $key = "walsizer_decisions_total/$action";
	ok(!grep({ $_ eq $key } @missed),
		"sql_walsizer_decisions_total{action=\"$action\"} = "
		  . ($loaded->{sql_walsizer_decisions_total}{samples}{"action=\"$action\""} // 'none')
		  . " is decision_counts()'s ($before->{$key} before, $after->{$key} after)");
}
my $info_labels = (keys %{ $loaded->{sql_walsizer_status_info}{samples} // {} })[0] // '';
like($info_labels,
	qr/^cap_source="walsizer\.max",last_action="(?:grow|capped)",next_action="\w+",replay_rate_source="\w+",role="primary",wal_held_by="\w*"$/,
	"sql_walsizer_status_info has status()'s labels: $info_labels");
# not 0, so that a metric fed from the wrong column cannot pass above
my $grown = ($loaded->{sql_walsizer_decisions_total}{samples}{'action="grow"'} // 0)
  + ($loaded->{sql_walsizer_decisions_total}{samples}{'action="capped"'} // 0);
cmp_ok($grown, '>', 0, "the growth under the load is counted ($grown grow or capped)");
cmp_ok(value($loaded, 'sql_walsizer_wal_bytes_total') // 0, '>', 0, 'WAL written is counted');
cmp_ok(value($loaded, 'sql_walsizer_max_wal_size_bytes') // 0, '>', 32 * 1024 * 1024,
	'max_wal_size in bytes, above the configured 32 MB');
cmp_ok(value($loaded, 'sql_walsizer_floor_bytes') // 0, '==', 32 * 1024 * 1024,
	'the floor: 32 MB, in bytes');
cmp_ok(value($loaded, 'sql_walsizer_window_seconds') // 0, '==', 2, 'the window: 2 s');
cmp_ok(value($loaded, 'sql_walsizer_max_recovery_time_seconds') // 0, '==', 300,
	'the recovery bound: 300 s by default');
# the labels the exporter adds: the same on every series of the job, but
# col, which is the column's name
is($loaded->{sql_walsizer_worker_up}{extra}{''},
	'col="worker_up",database="postgres",driver="postgres",host="",sql_job="walsizer",user=""',
	'the labels this exporter adds (docs/monitoring.md lists them)');
is(scalar keys %{ $loaded->{sql_exporter_last_scrape_failed}{samples} // {} }, $n_queries,
	"sql_exporter_last_scrape_failed has a series per query ($n_queries)");
is(join(' ', grep { $_ != 0 } values %{ $loaded->{sql_exporter_last_scrape_failed}{samples} }), '',
	'and each is 0: every query worked');

# --- Prometheus with the shipped relabelling and the rules -------------------

SKIP:
{
	skip "$prometheus is not installed", 5 unless -x $prometheus;
	my $prom_port = PostgreSQL::Test::Cluster::get_free_port();
	my $scrape_config = slurp_file("$monitoring/sql_exporter.scrape.yml");
	$scrape_config =~ s/'127\.0\.0\.1:9237'/'127.0.0.1:$exporter_run->{port}'/
	  or BAIL_OUT('monitoring/sql_exporter.scrape.yml has no target 127.0.0.1:9237');
	my $dir = "$PostgreSQL::Test::Utils::tmp_check/prometheus";
	mkdir $dir;
	open(my $pfh, '>', "$dir/prometheus.yml") or die "$dir/prometheus.yml: $!";
	print $pfh "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
	  . "rule_files: ['$rules_file']\n$scrape_config";
	close $pfh;
	my ($pout, $perr) = ('', '');
	my $prom = IPC::Run::start(
		[ $prometheus, "--config.file=$dir/prometheus.yml", "--storage.tsdb.path=$dir/data",
		  "--web.listen-address=127.0.0.1:$prom_port" ],
		'<', \undef, '>', \$pout, '2>', \$perr);
	my $http = HTTP::Tiny->new(timeout => 5);
	my $query = sub {
		my ($promql) = @_;
		my $r = $http->get("http://127.0.0.1:$prom_port/api/v1/query?"
			  . $http->www_form_urlencode({ query => $promql }));
		return $r->{success} ? decode_json($r->{content})->{data}{result} : undef;
	};
	# every rule metric stored, under its own name (at most 20 s)
	my $deadline = time() + 20;
	my %stored;
	while (time() < $deadline)
	{
		%stored = ();
		for my $name (@rule_metrics)
		{
			my $result = $query->($name) // [];
			$stored{$name} = $result if @$result;
		}
		last if keys %stored == @rule_metrics;
		$prom->pump_nb;
		sleep(0.5);
	}
	is(join(' ', grep { !$stored{$_} } @rule_metrics), '',
		'Prometheus stores every metric the rules use under the rules\' names')
	  or diag("prometheus log:\n$perr");
	my @label_sets = sort { $a cmp $b } map {
		my $name = $_;
		map { join(',', sort grep { $_ ne '__name__' } keys %{ $_->{metric} }) } @{ $stored{$name} // [] }
	} grep { !/^walsizer_(?:decisions_total|status_info)$/ } @rule_metrics;
	my %distinct = map { $_ => 1 } @label_sets;
	is(join(' ', sort keys %distinct), 'instance,job',
		'with the labels postgres_exporter gives them: instance and job, nothing of the exporter\'s');
	is(join(' ', sort map { $_->{metric}{action} } @{ $stored{walsizer_decisions_total} // [] }),
		join(' ', sort @actions), 'walsizer_decisions_total: one series per action');
	# what Prometheus stored, kept with the test's logs (docs/monitoring.md
	# quotes it): each series as name{labels} value
	open(my $sfh, '>', "$PostgreSQL::Test::Utils::log_path/245_prometheus_series.txt") or die $!;
	for my $name (@rule_metrics)
	{
		for my $series (sort { ($a->{metric}{action} // '') cmp ($b->{metric}{action} // '') }
			@{ $stored{$name} // [] })
		{
			my %l = %{ $series->{metric} };
			delete $l{__name__};
			print $sfh "$name\{" . join(',', map { "$_=\"$l{$_}\"" } sort keys %l) . "} $series->{value}[1]\n";
		}
	}
	close $sfh;
	# a comparison of two metrics, as WalsizerCappedForAnHour's: one series
	# (with the col label left in it would be none)
	my $compared = $query->('walsizer_max_wal_size_bytes <= bool walsizer_cap_bytes') // [];
	is(scalar @$compared, 1, 'walsizer_max_wal_size_bytes <= bool walsizer_cap_bytes matches: one series');
	# the rules loaded and evaluate without error
	my $r = $http->get("http://127.0.0.1:$prom_port/api/v1/rules");
	my @rules = $r->{success}
	  ? map { @{ $_->{rules} } } @{ decode_json($r->{content})->{data}{groups} } : ();
	my @unhealthy = map { "$_->{name}: $_->{health} $_->{lastError}" } grep { $_->{health} ne 'ok' } @rules;
	ok(@rules >= 12 && !@unhealthy,
		scalar(@rules) . ' rules of pg_walsizer.rules.yml loaded and evaluated without error')
	  or diag(join("\n", @unhealthy));
	$prom->signal('TERM');
	$prom->finish;
}

# A failure after the queries worked: the role loses pg_monitor.  The
# exporter keeps serving the values of its last run that worked, and says
# so only in sql_exporter_last_scrape_failed.
my $cached = value(scrape($exporter_run), 'sql_walsizer_worker_up');
$node->safe_psql('postgres', 'REVOKE pg_monitor FROM walsizer_exporter');
my $stale;
for (1 .. 20)
{
	sleep(0.5);
	$stale = scrape($exporter_run);
	last if ($stale->{sql_exporter_last_scrape_failed}{samples}{'query="walsizer_worker_up"'} // 0) == 1;
}
is($stale->{sql_exporter_last_scrape_failed}{samples}{'query="walsizer_worker_up"'}, 1,
	'after pg_monitor is revoked, sql_exporter_last_scrape_failed{query="walsizer_worker_up"} is 1');
is(value($stale, 'sql_walsizer_worker_up'), $cached,
	'but sql_walsizer_worker_up is still served, the last value read (no absent() alert)');
my $log = stop_exporter($exporter_run);
like($log, qr/permission denied for view status/, 'the exporter\'s log says which permission is missing');
$node->safe_psql('postgres', 'GRANT pg_monitor TO walsizer_exporter');

# --- what a DBA sees when the exporter cannot read pg_walsizer at start -------

# a role that is not a member of pg_monitor
my $run = start_exporter('walsizer_outsider');
my $broken;
for (1 .. 20)
{
	$broken = scrape($run);
	last if $n_queries == grep { $_ == 1 } values %{ $broken->{sql_exporter_last_scrape_failed}{samples} // {} };
	sleep(0.25);
}
is(join(' ', sort grep { /^sql_walsizer/ } keys %$broken), '',
	'without pg_monitor: no walsizer metric at all (so absent() alerts)');
is(join(' ', sort { $a <=> $b } values %{ $broken->{sql_exporter_last_scrape_failed}{samples} // {} }),
	join(' ', (1) x $n_queries), 'without pg_monitor: sql_exporter_last_scrape_failed is 1 for each query');
$log = stop_exporter($run);
like($log, qr/permission denied for view status/,
	'without pg_monitor: the exporter\'s log says which permission is missing');

# a database without the extension: the config's database is postgres,
# so a copy that names another one
(my $other = slurp_file($test_config)) =~ s{postgres:///postgres\?}{postgres:///without_walsizer?}
  or BAIL_OUT('the config\'s connection is not postgres:///postgres?...');
my $other_config = "$PostgreSQL::Test::Utils::tmp_check/sql_exporter_other_db.yml";
open($fh, '>', $other_config) or die "$other_config: $!";
print $fh $other;
close $fh;
$run = start_exporter('walsizer_exporter', $other_config);
for (1 .. 20)
{
	$broken = scrape($run);
	last if grep { $_ == 1 } values %{ $broken->{sql_exporter_last_scrape_failed}{samples} // {} };
	sleep(0.25);
}
is(join(' ', sort grep { /^sql_walsizer/ } keys %$broken), '',
	'without the extension: no walsizer metric at all');
ok((grep { $_ == 1 } values %{ $broken->{sql_exporter_last_scrape_failed}{samples} // {} }),
	'without the extension: sql_exporter_last_scrape_failed is 1');
$log = stop_exporter($run);
like($log, qr/relation \\?"walsizer\.status\\?" does not exist/,
	'without the extension: the exporter\'s log says the view is missing');

$node->stop;
done_testing();
