# WalsizerTest: helpers shared by pg_walsizer's TAP tests.
#
# Each test starts its own throwaway cluster with the library preloaded,
# short windows and checkpoint logging, drives WAL with pgbench or bulk SQL,
# and reads what walsizer did through its SQL functions and the server log.
package WalsizerTest;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(
  walsizer_node status_value decision_rows wait_for wal_forced_checkpoints
  run_pgbench auto_conf_max_wal_size reset_checkpointer_sql server_major
);

# A started node with pg_walsizer preloaded and the extension created.
# Options override the settings below; extra => [lines] adds more.
sub walsizer_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%{ $opt{init} // {} });
	my %conf = (
		shared_preload_libraries => "'pg_walsizer'",
		max_wal_size => "'32MB'",
		min_wal_size => "'32MB'",
		checkpoint_timeout => "'30s'",
		log_checkpoints => 'on',
		'walsizer.interval' => "'3s'",
		'walsizer.sample_interval' => "'200ms'",
		%{ $opt{conf} // {} });
	$node->append_conf('postgresql.conf',
		join("\n", map { "$_ = $conf{$_}" } sort keys %conf) . "\n"
		  . join("\n", @{ $opt{extra} // [] }) . "\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_walsizer');
	return $node;
}

sub server_major
{
	my ($node) = @_;
	return int($node->safe_psql('postgres', 'SHOW server_version_num') / 10000);
}

# One column (or expression) of walsizer.status().
sub status_value
{
	my ($node, $expr) = @_;
	return $node->safe_psql('postgres', "SELECT $expr FROM walsizer.status()");
}

# Rows of walsizer.decisions() as hashes, oldest first; optional filter.
sub decision_rows
{
	my ($node, $where) = @_;
	$where = $where ? "WHERE $where" : '';
	my $out = $node->safe_psql('postgres',
		"SELECT action, old_mb, new_mb, requested, timed, wal_forced, "
		  . "wal_bytes, window_s, coalesce(confirmed::text, ''), reason "
		  . "FROM walsizer.decisions() $where");
	my @rows;
	for my $line (split /\n/, $out)
	{
		my @f = split /\|/, $line, 10;
		push @rows, {
			action => $f[0], old_mb => $f[1], new_mb => $f[2],
			requested => $f[3], timed => $f[4], wal_forced => $f[5],
			wal_bytes => $f[6], window_s => $f[7], confirmed => $f[8],
			reason => $f[9] };
	}
	return @rows;
}

# Polls a boolean SQL expression until true; fails the test on timeout.
sub wait_for
{
	my ($node, $condition, $what) = @_;
	ok($node->poll_query_until('postgres', "SELECT ($condition)"),
		$what // "waited for: $condition");
}

# Checkpoints the server itself started because of WAL volume, counted in
# the log from byte offset $from (log_checkpoints is on).
sub wal_forced_checkpoints
{
	my ($node, $from) = @_;
	my $log = slurp_file($node->logfile, $from // 0);
	my @hits = ($log =~ /checkpoint starting: wal\b/g);
	return scalar @hits;
}

# pgbench for $seconds with $clients against database postgres.
sub run_pgbench
{
	my ($node, $seconds, $clients, @extra) = @_;
	my ($out, $err) = ('', '');
	my @cmd = ('pgbench', '-n', '-c', $clients, '-j', $clients,
		'-T', $seconds, @extra,
		'-h', $node->host, '-p', $node->port, 'postgres');
	my $ok = IPC::Run::run(\@cmd, '>', \$out, '2>', \$err);
	ok($ok, "pgbench ran for $seconds s with $clients clients")
	  or diag($err);
	my ($tps) = $out =~ /tps = ([\d.]+)/;
	return $tps // 0;
}

# max_wal_size as written in postgresql.auto.conf, or undef.
sub auto_conf_max_wal_size
{
	my ($node) = @_;
	my $conf = slurp_file($node->data_dir . '/postgresql.auto.conf');
	my ($value) = $conf =~ /^max_wal_size = '([^']*)'/m;
	return $value;
}

# The reset of the checkpoint counters, named as each major names it.
sub reset_checkpointer_sql
{
	my ($node) = @_;
	return server_major($node) >= 17
	  ? "SELECT pg_stat_reset_shared('checkpointer')"
	  : "SELECT pg_stat_reset_shared('bgwriter')";
}

1;
