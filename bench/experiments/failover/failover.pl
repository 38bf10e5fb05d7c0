# A failover under load, with and without pg_walsizer's worker on the
# standby (issue 15).  Primary and streaming standby start at 64 MB; the
# primary's worker grows and settles under pgbench (scale 10, the clients
# of FAILOVER_CLIENTS).  With FAILOVER_STANDBY_WORKER "on" the standby's
# worker sizes it for the WAL it replays; with "off" it is disabled until
# the promotion and enabled right after it, as a worker that starts only
# on a primary (pg_walsizer before issue 15) would be: it starts from the
# standby's 64 MB and no history.  Then the primary stops, the standby is
# promoted and the same load runs on it for FAILOVER_AFTER_S seconds
# (default 120): the checkpoints forced by WAL there are what the
# standby's size was worth.  Each level and mode runs on fresh clusters.
#
# Not part of the CI matrix (about 4 minutes per level and mode): run it
# with the extension installed, as the server's user, from the source tree:
#
#   make installcheck REGRESS= PROVE_TESTS=bench/experiments/failover/failover.pl
#
# It prints one line per run (# lines) and writes them as CSV to
# FAILOVER_OUT (default tmp_check/failover.csv).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../../../test/perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use WalsizerTest;

my @levels = split ' ', ($ENV{FAILOVER_CLIENTS} // '4 8');
my @modes = split ' ', ($ENV{FAILOVER_STANDBY_WORKER} // 'on off');
my $after_s = $ENV{FAILOVER_AFTER_S} // 120;
my $out = $ENV{FAILOVER_OUT} // 'tmp_check/failover.csv';

open(my $csv, '>', $out) or die "cannot write $out: $!";
print $csv "clients,standby_worker,primary_settled_mb,standby_mb,after_promotion_s,"
  . "checkpoints,forced_by_wal,first_forced_at,size_after_mb\n";

for my $clients (@levels)
{
	for my $mode (@modes)
	{
		my @row = failover($clients, $mode);
		print $csv join(',', @row), "\n";
		note(sprintf('%d clients, standby worker %s: primary settled %d MB, standby %d MB; '
			  . 'after promotion %d checkpoints in %d s, %d forced by WAL (first at %s); then %d MB',
			$row[0], $row[1], $row[2], $row[3], $row[5], $row[4], $row[6], $row[7], $row[8]));
	}
}
close $csv;
done_testing();

sub failover
{
	my ($clients, $mode) = @_;
	my $tag = "c${clients}_$mode";
	my %conf = (
		max_wal_size => "'64MB'",
		min_wal_size => "'32MB'",
		shared_buffers => "'128MB'",
		checkpoint_completion_target => '0.9',
		autovacuum => 'off',
		max_connections => 30,
		'walsizer.interval' => "'10s'",
		'walsizer.sample_interval' => "'500ms'");
	# off while pgbench -i runs and the standby is cloned: both start at 64 MB
	my $primary = walsizer_node("primary_$tag",
		init => { allows_streaming => 1 }, conf => { %conf, 'walsizer.enable' => 'off' });
	$primary->command_ok([ 'pgbench', '-i', '-q', '-s', '10', '-h', $primary->host,
		'-p', $primary->port, 'postgres' ], "$tag: pgbench tables");
	$primary->safe_psql('postgres', 'CHECKPOINT');
	$primary->backup("base_$tag");
	my $standby = PostgreSQL::Test::Cluster->new("standby_$tag");
	$standby->init_from_backup($primary, "base_$tag", has_streaming => 1);
	$standby->append_conf('postgresql.conf',
		'walsizer.enable = ' . ($mode eq 'on' ? 'on' : 'off') . "\n");
	$standby->start;
	$primary->append_conf('postgresql.conf', "walsizer.enable = on\n");
	$primary->reload;

	my $load = start_pgbench($primary, '-c', $clients, '-j', 2, '-T', 900);
	my $primary_mb = hold($primary, 300, 90);
	# the standby's worker decides at window ends over whole checkpoint_timeouts
	my $standby_mb = $mode eq 'on' ? hold($standby, 180, 40) : setting_mb($standby, 'max_wal_size');

	$load->{handle}->kill_kill;
	$primary->stop('immediate');
	my $offset = -s $standby->logfile;
	$standby->promote;
	$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
	if ($mode ne 'on')
	{
		$standby->safe_psql('postgres', 'ALTER SYSTEM SET walsizer.enable = on');
		$standby->reload;
	}
	run_pgbench($standby, $after_s, $clients, '-j', 2);
	my $log = slurp_file($standby->logfile, $offset);
	my $checkpoints = () = $log =~ /checkpoint starting:/g;
	my $forced = wal_forced_checkpoints($standby, $offset);
	my $first = '';
	if ($log =~ /^(\S+ \S+) .*checkpoint starting: wal/m)
	{
		$first = $1;
	}
	my $size_after = setting_mb($standby, 'max_wal_size');
	$standby->stop;
	return ($clients, $mode, $primary_mb, $standby_mb, $after_s, $checkpoints, $forced,
		$first eq '' ? 'none' : $first, $size_after);
}

# The size once it has not changed for $quiet_s seconds (at most $seconds).
sub hold
{
	my ($node, $seconds, $quiet_s) = @_;
	my $deadline = time() + $seconds;
	my ($since, $last) = (time(), 0);
	while (time() < $deadline)
	{
		my $size = setting_mb($node, 'max_wal_size');
		($since, $last) = (time(), $size) if $size != $last;
		return $size if $size > 64 && time() - $since >= $quiet_s;
		sleep 2;
	}
	return setting_mb($node, 'max_wal_size');
}
