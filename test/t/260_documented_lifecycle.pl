# walsizer-test: version-dependent
# (ALTER SYSTEM of shared_preload_libraries, the update scripts and the
# state file across restarts: test/pg-matrix.sh runs it on every major)
#
# The README's install, upgrade and uninstall commands, run as written on a
# cluster that already preloads pg_stat_statements (by its path, which the
# server shows in double quotes once ALTER SYSTEM wrote it): the blocks marked
# "tested by test/t/260_documented_lifecycle.pl: NAME" are read from the
# README, so this test fails when the documented commands do.  Only the
# machine is adapted: "sudo" and "sudo -u postgres" are dropped (the test
# runs as the cluster's owner, psql finds the node through PGHOST and
# PGPORT), and "systemctl restart postgresql@15-main" restarts the node.
#
# - preload: pg_walsizer is added and the other libraries stay; twice adds
#   nothing.
# - upgrade: after a restart and ALTER EXTENSION UPDATE from 1.4 the size,
#   the decisions and a DBA's view on 1.4's status() are kept.
# - quickstart: the three queries of the quick start run, newest decision
#   first.
# - uninstall: the library is gone from the list (the others stay), the
#   server runs postgresql.conf's max_wal_size again, nothing of pg_walsizer
#   is left: no worker, no extension, no state file, no max_wal_size line
#   in postgresql.auto.conf.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use WalsizerTest;

# The README's block after the marker "tested by ...: $name", as lines.
sub readme_block
{
	my ($name) = @_;
	my $readme = slurp_file("$FindBin::RealBin/../../README.md");
	my ($block) = $readme =~
	  /<!-- tested by test\/t\/260_documented_lifecycle\.pl: \Q$name\E -->\n```sh\n(.*?)```/s;
	BAIL_OUT("README.md has no block \"$name\" for this test") unless defined $block;
	return split /\n/, $block;
}

# Runs a README block against $node: shell lines through bash (stopping at
# the first failure), the service restart as a restart of the node.
# Returns what the commands printed.
sub run_documented
{
	my ($node, $name) = @_;
	my @chunk;
	my $printed = '';
	my $flush = sub {
		return unless @chunk;
		my $script = join("\n", @chunk) . "\n";
		@chunk = ();
		my ($out, $err) = ('', '');
		local $ENV{PGHOST} = $node->host;
		local $ENV{PGPORT} = $node->port;
		local $ENV{PGDATABASE} = 'postgres';
		my $ok = IPC::Run::run([ 'bash', '-e', '-o', 'pipefail', '-c', $script ],
			'>', \$out, '2>', \$err);
		ok($ok, "$name: the documented commands ran") or diag("$script\n$err");
		$printed .= $out;
	};
	for my $line (readme_block($name))
	{
		if ($line =~ /^sudo systemctl restart postgresql\@15-main$/)
		{
			$flush->();
			$node->restart;
			next;
		}
		$line =~ s/^sudo -u postgres //;
		$line =~ s/\$\(sudo -u postgres /\$(/g;
		$line =~ s/^sudo //;
		push @chunk, $line;
	}
	$flush->();
	return $printed;
}

my $node = PostgreSQL::Test::Cluster->new('lifecycle');
$node->init;
$node->append_conf('postgresql.conf', <<'EOF');
shared_preload_libraries = '$libdir/pg_stat_statements'
max_wal_size = '32MB'
min_wal_size = '32MB'
checkpoint_timeout = '30s'
log_checkpoints = on
walsizer.interval = '1s'
walsizer.sample_interval = '200ms'
EOF
$node->start;

sub libraries { $_[0]->safe_psql('postgres', 'SHOW shared_preload_libraries') }
sub walsizer_workers
{
	$_[0]->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_walsizer'");
}

# --- preload -------------------------------------------------------------
run_documented($node, 'preload');
# ALTER SYSTEM writes the path in double quotes, which the second run reads
is(libraries($node), '"$libdir/pg_stat_statements", pg_walsizer',
	'preload: pg_walsizer added, pg_stat_statements kept');
$node->safe_psql('postgres', 'CREATE EXTENSION pg_stat_statements');
is($node->safe_psql('postgres', 'SELECT count(*) > 0 FROM pg_stat_statements'),
	't', 'preload: pg_stat_statements still works');
wait_for($node, "SELECT worker_pid IS NOT NULL FROM walsizer.status",
	'preload: the worker runs');
is($node->safe_psql('postgres',
		"SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer'"),
	'1.7', 'preload: the extension is created at the newest version');

# run twice, the first command adds nothing (the extension exists: only
# the ALTER SYSTEM part is run again)
my @preload = readme_block('preload');
my ($alter_end) = grep { $preload[$_] eq 'SQL' } 0 .. $#preload;
{
	local $ENV{PGHOST} = $node->host;
	local $ENV{PGPORT} = $node->port;
	local $ENV{PGDATABASE} = 'postgres';
	my $script = join("\n", @preload[ 0 .. $alter_end ]) . "\n";
	$script =~ s/^sudo -u postgres //mg;
	my ($out, $err) = ('', '');
	ok(IPC::Run::run([ 'bash', '-e', '-c', $script ], '>', \$out, '2>', \$err),
		'preload: the first command runs a second time') or diag($err);
}
$node->restart;
is(libraries($node), '"$libdir/pg_stat_statements", pg_walsizer',
	'preload: run twice, pg_walsizer is listed once, the quoted path kept');

# --- upgrade -------------------------------------------------------------
# From 1.4, the released version, with a DBA's view on its status() and a
# size and decisions of pg_walsizer's own.
$node->safe_psql('postgres', 'DROP EXTENSION pg_walsizer');
$node->safe_psql('postgres', "CREATE EXTENSION pg_walsizer VERSION '1.4'");
$node->safe_psql('postgres',
	'CREATE VIEW dba_size AS SELECT max_wal_size_mb FROM walsizer.status()');
$node->command_ok([ 'pgbench', '-i', '-q', '-s', '5', '-h', $node->host,
		'-p', $node->port, 'postgres' ], 'pgbench tables');
# The size checked below is the grown one: a shrink once the load stops
# (12 quiet windows of 1 s) could bring it back to 32 MB before the test
# has paused changes.  Held until then; the upgrade's restart drops the
# hold, with changes paused.
hold_worker($node, 'shrink');
ok(pgbench_until($node, "EXISTS (SELECT FROM walsizer.decisions() WHERE action IN ('grow', 'capped'))",
		180, '-c', '2', '-j', '2'),
	'upgrade: pg_walsizer grew max_wal_size under load');
# the settling of a provisional growth is a change too: wait for a quiet one
$node->safe_psql('postgres', "ALTER SYSTEM SET walsizer.enable = off");
$node->reload;
wait_for($node, 'SELECT NOT enabled FROM walsizer.status()', 'upgrade: changes paused');
my $size_before = $node->safe_psql('postgres', 'SHOW max_wal_size');
my $decisions_before = $node->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions()');
my $last_before = $node->safe_psql('postgres',
	'SELECT at FROM walsizer.decisions() ORDER BY at DESC LIMIT 1');
isnt($size_before, '32MB', "upgrade: the size is pg_walsizer's ($size_before)");

run_documented($node, 'upgrade');
is($node->safe_psql('postgres',
		"SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer'"),
	'1.7', 'upgrade: the SQL objects are at the newest version');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), $size_before,
	'upgrade: the running max_wal_size is kept');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions'),
	'>=', $decisions_before, 'upgrade: the decisions are kept');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM walsizer.decisions WHERE at = '$last_before'"),
	1, 'upgrade: the last decision before it is still listed');
is($node->safe_psql('postgres', 'SELECT max_wal_size_mb FROM dba_size'),
	$node->safe_psql('postgres', 'SELECT max_wal_size_mb FROM walsizer.status'),
	"upgrade: the DBA's view on 1.4's status() still reads");
$node->safe_psql('postgres', 'DROP VIEW dba_size');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET walsizer.enable');
$node->reload;

# --- quick start ---------------------------------------------------------
# The three queries run as written, and the decisions come newest first:
# a DBA's change adopted makes sure there are at least two to order.
my $decisions_now = $node->safe_psql('postgres', 'SELECT count(*) FROM walsizer.decisions');
$node->safe_psql('postgres', "ALTER SYSTEM SET max_wal_size = '200MB'");
$node->reload;
wait_for($node, "SELECT count(*) > $decisions_now FROM walsizer.decisions",
	'quick start: the DBA\'s change is recorded');
my $shown = run_documented($node, 'quickstart');
like($shown, qr/next_reason\s*\|/, 'quick start: status shows the next reason');
like($shown, qr/reason\s*\|/, 'quick start: last_change shows its reason');
my @at = split /\n/, $node->safe_psql('postgres',
	'SELECT at FROM walsizer.decisions ORDER BY at DESC LIMIT 10');
cmp_ok(scalar(@at), '>=', 2, 'quick start: at least two decisions to order');
# the decisions' table (the aligned one; status and last_change are expanded)
my $table = substr($shown, index($shown, ' | action | '));
cmp_ok(index($table, $at[-1]), '>=', 0,
	'quick start: the decisions are listed, down to the tenth newest');
cmp_ok(index($table, $at[0]), '<', index($table, $at[-1]),
	'quick start: the newest decision is listed before older ones');

# --- uninstall -----------------------------------------------------------
my $state_file = $node->data_dir . '/pg_walsizer.state';
ok(-e $state_file, 'uninstall: before it, the state file exists');
ok(defined auto_conf_max_wal_size($node),
	'uninstall: before it, postgresql.auto.conf has max_wal_size');
run_documented($node, 'uninstall');
is(libraries($node), '"$libdir/pg_stat_statements"',
	'uninstall: pg_walsizer is out of the list, pg_stat_statements kept');
is(walsizer_workers($node), 0, 'uninstall: no worker runs');
is($node->safe_psql('postgres', 'SHOW max_wal_size'), '32MB',
	"uninstall: the server runs postgresql.conf's max_wal_size again");
is(auto_conf_max_wal_size($node), undef,
	'uninstall: postgresql.auto.conf has no max_wal_size');
ok(!-e $state_file, 'uninstall: the state file is gone');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_extension WHERE extname = 'pg_walsizer'"),
	0, 'uninstall: the extension is dropped');
is($node->safe_psql('postgres', 'SELECT count(*) > 0 FROM pg_stat_statements'),
	't', 'uninstall: pg_stat_statements still works');

$node->stop;
done_testing();
