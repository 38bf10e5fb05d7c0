/*-------------------------------------------------------------------------
 *
 * recovery_bound.c
 *		The crash-recovery time bound as pure arithmetic: the cap it puts
 *		on max_wal_size, the worst recovery at a size, and the replay rate
 *		to plan with.
 *
 * recovery_bound_server.c measures the replay rates on the server and turns
 * walsizer.max_recovery_time into a cap with these; the policy takes that
 * cap as one of its limits (policy_limits.c), and the advisor, the
 * simulator and the tests call them directly.  Pure like the policy: no
 * PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "recovery_bound.h"
#include "policy_internal.h"
#include "size_units.h"

#include <math.h>
#include <stddef.h>

/*
 * The largest max_wal_size whose crash recovery fits max_recovery_s at
 * replay_bytes_per_s, in MB, rounded down but at least 1; 0 (no bound)
 * when either is not a positive finite number; at most SIZE_LIMIT_MB.
 *
 * Crash recovery replays the WAL from the redo pointer of the last
 * completed checkpoint to the end of WAL.  That distance is largest just
 * before a checkpoint completes: the cycle that started it plus the WAL
 * written while it ran, (1 + checkpoint_completion_target) cycles.  That is
 * what max_wal_size holds at most, since PostgreSQL forces a checkpoint
 * before the WAL since the redo pointer exceeds max_wal_size /
 * (1 + checkpoint_completion_target): a size S never has more than S of
 * WAL to replay.  The size fits the bound when S / rate <= max_recovery_s.
 */
int64_t
walsizer_recovery_cap_mb(double max_recovery_s, double replay_bytes_per_s)
{
	double		cap_mb;

	if (!isfinite(max_recovery_s) || max_recovery_s <= 0 ||
		!isfinite(replay_bytes_per_s) || replay_bytes_per_s <= 0)
		return 0;
	cap_mb = floor(max_recovery_s * replay_bytes_per_s / (double) BYTES_PER_MB);
	if (!(cap_mb < (double) SIZE_LIMIT_MB))
		return SIZE_LIMIT_MB;
	/* a bound below 1 MB is still a bound, not "none" */
	return cap_mb < 1 ? 1 : (int64_t) cap_mb;
}

/*
 * The most WAL a crash recovery replays at a size of size_mb, in bytes:
 * the WAL from the redo pointer of the last completed checkpoint to the end
 * of WAL, just before the next checkpoint completes.  That is size_mb (see
 * walsizer_recovery_cap_mb()), or less when the load fills less:
 * (1 + completion_target) times cycle_bytes, the most WAL one checkpoint
 * cycle writes at the current load (0 when unknown).  But never less than
 * seen_bytes, the most WAL a crash would have replayed at any moment of the
 * last few cycles (0 when unknown): the WAL written while a checkpoint
 * runs holds more full-page images than the cycle's average, so the model
 * alone falls short of what was really pending.  It is also the most of
 * pg_wal that the checkpoints keep at that size and load (what_if.c).
 */
double
walsizer_worst_pending_bytes(int64_t size_mb, double completion_target,
							 uint64_t cycle_bytes, uint64_t seen_bytes)
{
	double		distance = (double) policy_clamp_size(size_mb) * (double) BYTES_PER_MB;

	if (cycle_bytes > 0)
	{
		double		at_load = (1.0 + policy_sane_fraction(completion_target,
														  FALLBACK_COMPLETION_TARGET)) *
			(double) cycle_bytes;

		if (at_load < distance)
			distance = at_load;
	}
	if ((double) seen_bytes > distance)
		distance = (double) seen_bytes;
	return distance;
}

/*
 * How long a crash recovery takes at its worst, in seconds, at a size of
 * size_mb: the WAL to replay (walsizer_worst_pending_bytes()) over the
 * replay rate; 0 when the rate is not a positive finite number.
 */
double
walsizer_estimated_recovery_s(int64_t size_mb, double completion_target,
							  uint64_t cycle_bytes, uint64_t seen_bytes,
							  double replay_bytes_per_s)
{
	if (!isfinite(replay_bytes_per_s) || replay_bytes_per_s <= 0)
		return 0;
	return walsizer_worst_pending_bytes(size_mb, completion_target,
										cycle_bytes, seen_bytes) /
		replay_bytes_per_s;
}

/*
 * The replay rate to plan with, of the last few measured: the slowest, less
 * REPLAY_RATE_PLANNING_SHARE, in bytes/s; 0 when none is a positive finite
 * number.  Replay speed depends on what the page cache holds and on the mix
 * of WAL records, and varies from one crash to the next; a DBA plans for
 * the slowest recovery seen, not for the average one, and for one a little
 * slower still: under the same steady pgbench load on one machine, five
 * recoveries ran at 0.8 to 1.0 of the fastest and ten more at 0.78 to 1.0
 * (bench/experiments/recovery-bound), so the next one may well be 20 %
 * slower than the slowest of a few.
 */
double
walsizer_conservative_replay_rate(const double *rates, int count)
{
	double		slowest = 0;

	if (rates == NULL)
		return 0;
	for (int i = 0; i < count; i++)
		if (isfinite(rates[i]) && rates[i] > 0 &&
			(slowest == 0 || rates[i] < slowest))
			slowest = rates[i];
	return slowest * REPLAY_RATE_PLANNING_SHARE;
}
