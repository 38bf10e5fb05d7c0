# ServerTrigger: where the server itself starts a checkpoint because of WAL
# volume, measured, so that a test can hold walsizer's trigger_bytes against
# what PostgreSQL does rather than against a formula of its own.
#
# PostgreSQL only ever requests such a checkpoint when it finishes writing a
# segment, so after each segment boundary the WAL writes pause until the
# checkpointer has had time to start one: the new redo pointer then lies
# at most a message or two past the boundary that triggered it, far less
# than a segment, unless the checkpointer stalls for seconds.
package ServerTrigger;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);

our @EXPORT = qw(server_trigger_distance);

# WAL per step: a logical message touches no data page, so the checkpoint it
# forces writes almost nothing and completes at once.
my $STEP_BYTES = 1024 * 1024;
# How long the checkpointer gets to start a checkpoint after a segment end.
my $BOUNDARY_WAIT_S = 0.5;

sub _lsn_bytes
{
	my ($node, $lsn_sql) = @_;
	return $node->safe_psql('postgres', "SELECT ($lsn_sql) - '0/0'::pg_lsn");
}

# Starts from a fresh checkpoint and writes WAL until the server logs
# "checkpoint starting: wal" (log_checkpoints must be on).  Returns a hash:
#   distance_bytes  the new checkpoint's redo pointer, counted from the start
#                   of the previous redo pointer's segment: where the server
#                   acted, at most one step past its trigger
#   segment_bytes   wal_segment_size
# or undef, with a diagnostic, when no such checkpoint came within
# $limit_bytes of WAL or another checkpoint got in the way.
sub server_trigger_distance
{
	my ($node, $limit_bytes) = @_;
	my $segment = $node->safe_psql('postgres',
		"SELECT pg_size_bytes(current_setting('wal_segment_size'))");

	$node->safe_psql('postgres', 'CHECKPOINT');
	my $redo = _lsn_bytes($node, 'SELECT redo_lsn FROM pg_control_checkpoint()');
	my $redo_segment_start = $redo - $redo % $segment;
	my $log_offset = -s $node->logfile;
	my $started = sub {
		my $log = slurp_file($node->logfile, $log_offset);
		return ($log =~ /checkpoint starting: (.*)/) ? $1 : undef;
	};

	my $insert = _lsn_bytes($node, 'pg_current_wal_insert_lsn()');
	my $flags;
	while (!defined($flags = $started->()))
	{
		if ($insert - $redo_segment_start > $limit_bytes)
		{
			diag("no checkpoint within $limit_bytes bytes of WAL");
			return undef;
		}
		my $before = $insert;
		# transactional, so that its commit writes it out at once
		$insert = $node->safe_psql('postgres',
			"SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn FROM "
			  . "(SELECT pg_logical_emit_message(true, 'walsizer', repeat('x', $STEP_BYTES))) m");
		next if int($insert / $segment) == int($before / $segment);
		my $deadline = time() + $BOUNDARY_WAIT_S;
		sleep 0.02 until defined($started->()) || time() > $deadline;
	}
	if ($flags !~ /^wal\b/)
	{
		diag("a checkpoint for another reason came first: $flags");
		return undef;
	}

	# the control file has the new redo pointer once the checkpoint completes
	my $new_redo;
	my $deadline = time() + 60;
	while (time() < $deadline)
	{
		$new_redo = _lsn_bytes($node, 'SELECT redo_lsn FROM pg_control_checkpoint()');
		last if $new_redo != $redo;
		sleep 0.1;
	}
	if ($new_redo == $redo)
	{
		diag('the WAL-forced checkpoint did not complete within 60 s');
		return undef;
	}
	return {
		distance_bytes => $new_redo - $redo_segment_start,
		segment_bytes => $segment };
}

1;
