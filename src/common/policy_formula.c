/*-------------------------------------------------------------------------
 *
 * policy_formula.c
 *		What a WAL load needs: PostgreSQL's checkpoint trigger, the formula
 *		(see policy.c) with headroom and fitted to whole segments, the load
 *		a decision sizes for, and the projection to the next timed
 *		checkpoint.
 *
 * Part of the policy (policy.c runs its pipeline); pure like all of it: no
 * PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "policy_internal.h"
#include "settings_limits.h"
#include "size_units.h"

#include <math.h>

/*
 * walsizer.headroom's default (a fraction of the need), for a headroom that
 * is NaN, infinite or negative, which only a caller's bug produces (as the
 * other fallbacks in policy_internal.h).
 */
#define FALLBACK_HEADROOM WALSIZER_HEADROOM_DEFAULT

/*
 * Most segments policy_fit_whole_segments() adds to a size.  A few are ever
 * needed; the bound only guards against odd input.
 */
#define FIT_MAX_ADDED_SEGMENTS 64

/*
 * Largest WAL projection, in bytes (about 888 PB): far beyond any real WAL
 * volume, yet below UINT64_MAX, so the conversion to uint64_t is defined.
 */
#define PROJECTED_BYTES_LIMIT 1e18

/*
 * A checkpoint is imminent when the WAL since the redo pointer, growing at
 * the recent rate, reaches the trigger within the lookahead: the larger of
 * IMMINENT_MIN_LOOKAHEAD_S and IMMINENT_LOOKAHEAD_SAMPLES samples, which
 * leaves the worker a sample or two to see it and the server time to
 * reload.  Looking further would take a burst for a rate.
 */
#define IMMINENT_MIN_LOOKAHEAD_S 3.0
#define IMMINENT_LOOKAHEAD_SAMPLES 3

/*
 * PostgreSQL's CheckPointSegments: floor(max_wal_size in segments /
 * (1 + checkpoint_completion_target)), at least 1.  XLogWrite() asks
 * XLogCheckpointNeeded() each time it finishes a segment, and a checkpoint
 * is requested once the finished one is segment
 * redo_segment + CheckPointSegments - 1: when the insert position reaches
 * the start of segment redo_segment + CheckPointSegments.
 */
int64_t
walsizer_checkpoint_segments(int64_t max_wal_size_mb, int64_t segment_bytes,
							 double completion_target)
{
	int64_t		seg_mb = walsizer_segment_mb(segment_bytes);
	double		segments;
	int64_t		checkpoint_segments;

	completion_target = policy_sane_fraction(completion_target,
											 FALLBACK_COMPLETION_TARGET);
	/* whole segments first, as XLogMBVarToSegs() does */
	segments = (double) (policy_clamp_size(max_wal_size_mb) / seg_mb);
	checkpoint_segments = (int64_t) (segments / (1.0 + completion_target));
	return checkpoint_segments < 1 ? 1 : checkpoint_segments;
}

/*
 * The WAL distance at which that happens, measured from the start of the
 * redo pointer's segment: CheckPointSegments whole segments (one, the end
 * of the redo segment itself, when CheckPointSegments is 1).  After the
 * redo pointer it is that less the redo pointer's offset in its segment,
 * somewhere in the last of those segments; the WAL after the redo pointer
 * never reaches it without forcing a checkpoint.
 */
uint64_t
walsizer_trigger_bytes(int64_t max_wal_size_mb, int64_t segment_bytes,
					   double completion_target)
{
	int64_t		checkpoint_segments;

	if (segment_bytes < BYTES_PER_MB)
		segment_bytes = BYTES_PER_MB;
	checkpoint_segments = walsizer_checkpoint_segments(max_wal_size_mb,
													   segment_bytes,
													   completion_target);
	return (uint64_t) checkpoint_segments * (uint64_t) segment_bytes;
}

/*
 * The least WAL after the redo pointer that can force a checkpoint: the
 * trigger less one segment, which is where a redo pointer at the end of
 * its segment puts it (0 when CheckPointSegments is 1: the redo segment's
 * end is then the trigger).  The measurements give the WAL after the redo
 * pointer but not where in its segment the redo pointer is, so the policy
 * plans against this, the worst case: looking ahead, a checkpoint the
 * trigger forces is never seen too late.
 */
uint64_t
policy_earliest_forcing_bytes(uint64_t trigger_bytes, int64_t seg_mb)
{
	uint64_t	seg_bytes = (uint64_t) seg_mb * (uint64_t) BYTES_PER_MB;

	return trigger_bytes > seg_bytes ? trigger_bytes - seg_bytes : 0;
}

/*
 * PostgreSQL counts the trigger in whole segments, rounded down, from the
 * start of the redo pointer's segment.  At sizes of a few segments that
 * rounding eats more than the headroom, and a size the formula calls
 * enough forces a checkpoint most cycles.  Add segments until one cycle's
 * WAL fits half a segment below policy_earliest_forcing_bytes(), the point
 * checkpoint_is_imminent() watches: a size fitted here is not called too
 * small by a cycle like the one it was fitted to.  A trickle of WAL then
 * needs two checkpoint segments (with one, the first segment end can force
 * a checkpoint).  At larger sizes the headroom already covers this and
 * nothing is added.
 */
int64_t
policy_fit_whole_segments(int64_t size_mb, double cycle_bytes,
						  const WalsizerSettings *s)
{
	int64_t		seg = policy_segment_mb(s);
	uint64_t	seg_bytes = (uint64_t) seg * (uint64_t) BYTES_PER_MB;

	for (int i = 0;
		 i < FIT_MAX_ADDED_SEGMENTS && size_mb <= SIZE_LIMIT_MB - seg;
		 i++)
	{
		uint64_t	trigger = walsizer_trigger_bytes(size_mb, s->segment_bytes,
													 s->completion_target);
		uint64_t	earliest = policy_earliest_forcing_bytes(trigger, seg);

		if (earliest >= seg_bytes / 2 &&
			(double) (earliest - seg_bytes / 2) >= cycle_bytes)
			break;
		size_mb += seg;
	}
	return size_mb;
}

/*
 * max_wal_size that keeps a WAL rate of bytes_per_s from forcing
 * checkpoints, with headroom, in whole segments; 0 when the rate is unknown.
 */
int64_t
walsizer_needed_mb(double bytes_per_s, const WalsizerSettings *s)
{
	double		completion_target = policy_sane_fraction(s->completion_target,
														 FALLBACK_COMPLETION_TARGET);
	double		headroom = policy_sane_fraction(s->headroom, FALLBACK_HEADROOM);
	double		timeout_s = policy_sane_fraction(s->checkpoint_timeout_s,
												 FALLBACK_CHECKPOINT_TIMEOUT_S);
	double		needed_bytes;
	double		needed_mb;

	if (!isfinite(bytes_per_s) || bytes_per_s <= 0)
		return 0;
	needed_bytes = (1.0 + completion_target) * bytes_per_s * timeout_s *
		(1.0 + headroom);
	needed_mb = ceil(needed_bytes / (double) BYTES_PER_MB);
	if (!(needed_mb < (double) SIZE_LIMIT_MB))
		needed_mb = (double) SIZE_LIMIT_MB;
	return policy_fit_whole_segments(policy_round_up_to_segment((int64_t) needed_mb,
																policy_segment_mb(s)),
									 bytes_per_s * timeout_s, s);
}

/*
 * What the load needs.  Best, what whole timed checkpoint cycles within the
 * horizon wrote, from one redo pointer to the next: exactly the WAL
 * max_wal_size has to hold, full-page images included.  Without such a
 * cycle, the worst rate we know of: the horizon's peak over whole
 * checkpoint_timeouts or the window that just ended (its WAL is the insert
 * position's, which no statistics reset touches).  A sliding
 * checkpoint_timeout can hold the images of two checkpoints and overstate
 * a cycle nearly twice when images are most of the WAL, which is why whole
 * cycles come first.  needed_mb is 0 when nothing is known;
 * need_from_whole_cycles says whether the rate covers at least a
 * checkpoint_timeout (a growth sized from less is limited:
 * policy_grow.c).
 */
void
policy_estimate_load(DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	double		timeout_s = policy_sane_fraction(c->s->checkpoint_timeout_s,
												 FALLBACK_CHECKPOINT_TIMEOUT_S);
	double		rate = m->peak_rate;

	/*
	 * A standby's cycles run from restartpoint to restartpoint, which can
	 * only start at replayed checkpoint records: they say when the primary
	 * checkpointed, not what the load needs.  Its need is the replayed WAL
	 * over whole checkpoint_timeouts laid back to back over the horizon, as
	 * a primary's over its timed cycles there, and nothing shorter: a few
	 * seconds after the primary's checkpoint are mostly full-page images.
	 */
	c->need_from_whole_cycles = true;
	if (m->standby)
		rate = m->whole_timeouts_rate;
	else if (m->timed_cycle_peak_bytes > 0 && timeout_s > 0)
		rate = (double) m->timed_cycle_peak_bytes / timeout_s;
	else
	{
		/* until the history covers a checkpoint_timeout, its average */
		c->need_from_whole_cycles = m->peak_covers_cycle;
		if (m->window_end && m->window_s > 0)
		{
			double		window_rate = (double) m->wal_bytes / m->window_s;

			if (window_rate > rate)
			{
				rate = window_rate;
				c->need_from_whole_cycles = m->window_s >= timeout_s;
			}
		}
	}
	c->sizing_rate = rate;
	c->needed_mb = walsizer_needed_mb(rate, c->s);
	c->d->needed_mb = c->needed_mb;
}

/*
 * How far ahead a checkpoint counts as imminent, for a worker that samples
 * every sample_interval_s.  measure.c tracks how far the WAL reached by
 * the same measure, so that a settled size stays clear of it.
 */
double
walsizer_imminent_lookahead_s(double sample_interval_s)
{
	double		lookahead_s = IMMINENT_LOOKAHEAD_SAMPLES *
		policy_sane_fraction(sample_interval_s, 1.0);

	return lookahead_s > IMMINENT_MIN_LOOKAHEAD_S ?
		lookahead_s : IMMINENT_MIN_LOOKAHEAD_S;
}

/* The rate the load sustains, as the projection below uses it. */
double
policy_sustained_rate(const WalsizerMeasurements *m)
{
	double		rate = 0;

	if (m->peak_covers_cycle && isfinite(m->peak_rate) && m->peak_rate > 0)
		rate = m->peak_rate;
	/* a load heavier than the cycles measured so far shows in the records */
	if (m->recent_rate_valid && isfinite(m->recent_record_rate) &&
		m->recent_record_rate > rate)
		rate = m->recent_record_rate;
	return rate;
}

/*
 * The WAL distance that forces a checkpoint at the current size, and the
 * WAL expected by the next timed checkpoint (at most PROJECTED_BYTES_LIMIT;
 * just the WAL since the redo pointer when there is nothing to project
 * with).
 *
 * The projection goes on at the rate the load sustains, not at the recent
 * rate: the worst whole checkpoint_timeout measured at this size, or the
 * recent rate without full-page images (which fade within the cycle) when
 * that is higher.
 * It is for status() and for sizing a growth; what makes the policy grow
 * is an imminent checkpoint (policy_step_grow()).
 */
void
policy_project_next_checkpoint(DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	double		rate = policy_sustained_rate(m);

	c->d->trigger_bytes = walsizer_trigger_bytes(c->current_mb,
												 c->s->segment_bytes,
												 c->s->completion_target);

	if (rate > 0 && isfinite(m->seconds_to_timed_checkpoint) &&
		m->seconds_to_timed_checkpoint > 0)
	{
		double		projected = (double) m->wal_since_redo_bytes +
			rate * m->seconds_to_timed_checkpoint;

		c->d->projected_bytes = projected < PROJECTED_BYTES_LIMIT ?
			(uint64_t) projected : (uint64_t) PROJECTED_BYTES_LIMIT;
	}
	else
		c->d->projected_bytes = m->wal_since_redo_bytes;
}
