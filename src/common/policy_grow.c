/*-------------------------------------------------------------------------
 *
 * policy_grow.c
 *		Growth: the evidence that the size is too small (checkpoints
 *		forced by WAL, or one about to be), the size it asks for, the
 *		cooldown and its exceptions, and growing to the target or the cap.
 *		A standby's growth (policy_standby.c) goes through the same cooldown
 *		wait and the same growth.
 *
 * Part of the policy (policy.c runs its pipeline); pure like all of it: no
 * PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "policy_internal.h"
#include "size_units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * During the cooldown a growth still goes ahead when checkpoints are being
 * forced at the new size and the load needs at least this many times the
 * current size: that is a new, heavier load (a bulk import after a light
 * OLTP start), not the noise the cooldown damps.
 */
#define COOLDOWN_OVERRIDE_FACTOR 2

/*
 * A growth for an imminent checkpoint makes room for this many lookaheads
 * more at the recent rate.  Until whole timed cycles say what the load
 * needs, it also at least adds 1 / IMMINENT_MIN_GROWTH_DIVISOR of the size,
 * so that a load that keeps up its rate is caught up with in a few steps,
 * not one every few samples.
 */
#define IMMINENT_ROOM_LOOKAHEADS 1
#define IMMINENT_MIN_GROWTH_DIVISOR 2

/*
 * A few seconds of WAL justify only so much.  A rate measured over less
 * than a checkpoint_timeout (the last seconds' rate projected to the end of
 * the cycle, or a short window's rate taken for a whole cycle) says how
 * fast WAL comes, not for how long: two seconds of pgbench -i would ask
 * for the cap, for a load that then needs a quarter of it.  So a growth
 * sized from such a rate goes at most to SHORT_EVIDENCE_GROWTH_FACTOR
 * times the current size, or to what holds the WAL already seen coming
 * within the lookahead, if more (else the checkpoint in sight is forced).
 * A load that keeps it up grows again, as often as it needs (an imminent
 * checkpoint at walsizer's own size does not wait for the cooldown, a
 * load needing this factor more cuts it short): the size climbs as fast
 * as doubling catches up, and overshoots what the load needs by at most
 * this factor.  Whole cycles, once measured, size without the limit, and
 * settle a growth that fell short of them up to what they need
 * (policy_step_settle_provisional()).
 */
#define SHORT_EVIDENCE_GROWTH_FACTOR 2

#define MB_OF(bytes) ((long long) ((bytes) / (uint64_t) BYTES_PER_MB))

/*
 * Is a WAL-forced checkpoint imminent?  The WAL after the redo pointer is
 * expected to reach the earliest point the trigger can force one
 * (policy_earliest_forcing_bytes()) within the lookahead (measure.c projects
 * records at their recent rate and full-page images as they fade).
 *
 * WAL already past that point forces a checkpoint, if at all, when it
 * finishes a segment (XLogWrite() checks at segment ends); one is sure to
 * be finished, and the checkpoint imminent, only if a segment's worth of
 * WAL is expected within the lookahead.  An idle server whose last
 * checkpoint started before the end of a load stays past a smaller size's
 * trigger for as long as it is idle (PostgreSQL skips timed checkpoints
 * when nothing was written since the last one): that is no reason to grow.
 */
static bool
checkpoint_is_imminent(const DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	uint64_t	earliest = policy_earliest_forcing_bytes(c->d->trigger_bytes,
														 c->seg_mb);

	if (!m->recent_rate_valid || m->reach_bytes < earliest)
		return false;
	if (m->wal_since_redo_bytes < earliest)
		return true;
	return m->reach_bytes - m->wal_since_redo_bytes >=
		(uint64_t) c->seg_mb * (uint64_t) BYTES_PER_MB;
}

/*
 * Is there evidence that the current size is too small?  Reactive: at a
 * window end, at least walsizer.threshold (and at least one) checkpoints
 * were forced by WAL, making at least walsizer.ratio of all checkpoints.
 * A window whose checkpoint counters were reset does not know how many
 * checkpoints were requested, so it has no reactive evidence: a redo
 * pointer move far enough to be WAL-forced may have been a CHECKPOINT
 * command.  Imminent: the next checkpoint is about to be forced
 * (checkpoint_is_imminent), which the WAL position and the redo pointer
 * show whatever was reset.  When there is evidence, g->evidence starts the
 * reason with it.
 */
static bool
grow_find_evidence(const DecideContext *c, GrowPlan *g)
{
	const WalsizerSettings *s = c->s;
	const WalsizerMeasurements *m = c->m;
	int64_t		checkpoints = m->timed + m->requested;

	g->reactive = m->window_end && m->wal_forced > 0 &&
		!m->counters_reset &&
		m->wal_forced >= (s->threshold < 1 ? 1 : s->threshold) &&
		checkpoints > 0 &&
		(double) m->wal_forced / (double) checkpoints >= s->ratio;
	g->imminent = checkpoint_is_imminent(c);

	if (g->reactive)
		snprintf(g->evidence, sizeof(g->evidence),
				 "%lld of %lld checkpoints in the last %.0f s were forced by WAL",
				 (long long) m->wal_forced, (long long) checkpoints,
				 m->window_s);
	else if (g->imminent)
		snprintf(g->evidence, sizeof(g->evidence),
				 "projected %lld MB of WAL since the last checkpoint within %.0f s at the recent %lld MB/s; a checkpoint is forced at %lld to %lld MB",
				 MB_OF(m->reach_bytes), m->reach_within_s,
				 policy_mb_for_reason(m->recent_rate),
				 MB_OF(policy_earliest_forcing_bytes(c->d->trigger_bytes,
													 c->seg_mb)),
				 MB_OF(c->d->trigger_bytes));
	return g->reactive || g->imminent;
}

/*
 * The size whose trigger holds wal_bytes of WAL after the redo pointer, in
 * whole segments, with no headroom: (1 + checkpoint_completion_target)
 * times it, fitted to PostgreSQL's whole-segment trigger.
 */
int64_t
policy_size_holding_bytes(const DecideContext *c, double wal_bytes)
{
	double		completion_target = policy_sane_fraction(c->s->completion_target,
														 FALLBACK_COMPLETION_TARGET);
	double		size_mb = ceil((1.0 + completion_target) * wal_bytes /
							   (double) BYTES_PER_MB);

	if (!(size_mb < (double) SIZE_LIMIT_MB))
		size_mb = (double) SIZE_LIMIT_MB;
	return policy_fit_whole_segments(policy_round_up_to_segment((int64_t) size_mb,
																c->seg_mb),
									 wal_bytes, c->s);
}

/*
 * The most a growth sized from less than a checkpoint_timeout of WAL may
 * ask for: SHORT_EVIDENCE_GROWTH_FACTOR times the current size, or
 * seen_mb, if more.
 */
static int64_t
short_evidence_limit_mb(const DecideContext *c, int64_t seen_mb)
{
	int64_t		limit = c->current_mb <= SIZE_LIMIT_MB / SHORT_EVIDENCE_GROWTH_FACTOR ?
		c->current_mb * SHORT_EVIDENCE_GROWTH_FACTOR : SIZE_LIMIT_MB;

	return seen_mb > limit ? seen_mb : limit;
}

/*
 * The size an imminent checkpoint asks for: room for the projected reach
 * and IMMINENT_ROOM_LOOKAHEADS lookaheads more, or for the rest of the
 * cycle at the rate the load sustains, whichever is more, as far as the
 * seconds that measured the rate justify (short_evidence_limit_mb(): the
 * reach itself always).  At least what whole timed cycles need, once some
 * were measured (a cycle only slightly larger than the last ones needs
 * only slightly more), else at least 1 / IMMINENT_MIN_GROWTH_DIVISOR more;
 * and at least a segment more.  Full-page images fade
 * within a cycle, so the rest of it is not sized at the recent rate; if
 * the load keeps it up, the next imminent checkpoint grows again.
 */
static int64_t
imminent_target_mb(const DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	double		since_redo = (double) m->wal_since_redo_bytes;
	double		ahead = m->reach_bytes > m->wal_since_redo_bytes ?
		(double) (m->reach_bytes - m->wal_since_redo_bytes) : 0;
	double		room = ahead * (1 + IMMINENT_ROOM_LOOKAHEADS);
	double		rest = 0;
	int64_t		target;
	int64_t		limit;

	if (isfinite(m->seconds_to_timed_checkpoint) &&
		m->seconds_to_timed_checkpoint > 0)
		rest = policy_sustained_rate(m) * m->seconds_to_timed_checkpoint;
	target = policy_size_holding_bytes(c, since_redo +
									   (room > rest ? room : rest));
	limit = short_evidence_limit_mb(c, policy_size_holding_bytes(c, since_redo +
																  ahead));
	if (target > limit)
		target = limit;
	if (m->timed_cycle_peak_bytes > 0)
	{
		if (target < c->needed_mb)
			target = c->needed_mb;
	}
	else if (target < c->current_mb + c->current_mb / IMMINENT_MIN_GROWTH_DIVISOR)
		target = c->current_mb + c->current_mb / IMMINENT_MIN_GROWTH_DIVISOR;
	if (target < c->current_mb + c->seg_mb)
		target = c->current_mb + c->seg_mb;
	return target;
}

/*
 * The size to grow to: for forced checkpoints, what the load needs (as far
 * as short_evidence_limit_mb() lets a need measured over less than a
 * checkpoint_timeout go) and at least one segment more (they prove the
 * current size too small even when the rate says otherwise); for an
 * imminent one, imminent_target_mb();
 * with both, the larger.  Whole segments, never below the floor; the cap
 * is applied later, so that the reason can still say what the load needs.
 */
static void
grow_choose_target(const DecideContext *c, GrowPlan *g)
{
	int64_t		target = 0;

	if (g->reactive)
	{
		target = c->needed_mb;
		if (!c->need_from_whole_cycles &&
			target > short_evidence_limit_mb(c, 0))
			target = short_evidence_limit_mb(c, 0);
		if (target < c->current_mb + c->seg_mb)
			target = c->current_mb + c->seg_mb;
	}
	if (g->imminent)
	{
		int64_t		imminent = imminent_target_mb(c);

		if (imminent > target)
			target = imminent;
	}
	target = policy_round_up_to_segment(target, c->seg_mb);
	if (target < c->floor_mb)
		target = c->floor_mb;
	g->target_mb = target;
}

/*
 * A growth to target_mb waits for the cooldown: the reason says what it
 * will grow to, within the cap.  Returns true, as a step that decided.  A
 * primary's growth (grow_waits_for_cooldown()) and a standby's
 * (policy_step_follow_replayed_wal()) wait alike.
 */
bool
policy_wait_for_cooldown_to_grow(const DecideContext *c, const char *evidence,
								 int64_t target_mb)
{
	policy_set_reason(c->d,
					  "%s; waiting for the cooldown before growing to %lld MB",
					  evidence,
					  (long long) (target_mb < c->cap_mb ?
								   target_mb : c->cap_mb));
	return true;
}

/*
 * During the cooldown a growth waits, and the reason says so; returns true
 * then.  An imminent checkpoint at walsizer's own size does not wait, nor
 * does a much heavier load: checkpoints were forced since
 * the last change and the target is at least COOLDOWN_OVERRIDE_FACTOR times
 * the current size.  The evidence then says why the cooldown was cut short.
 */
static bool
grow_waits_for_cooldown(const DecideContext *c, GrowPlan *g)
{
	bool		heavier_load;
	size_t		used;

	if (!policy_in_cooldown(c))
		return false;
	/*
	 * An imminent checkpoint does not wait for the cooldown after walsizer's
	 * own growth: it grows again, in as many steps as the load needs.  After
	 * a dry-run advice, a failed change or the DBA's change it waits, or it
	 * would decide again at every sample.
	 */
	if (g->imminent && c->m->size_is_walsizers)
		return false;

	heavier_load = c->m->wal_forced_since_change > 0 &&
		g->target_mb / COOLDOWN_OVERRIDE_FACTOR >= c->current_mb;
	if (!heavier_load)
		return policy_wait_for_cooldown_to_grow(c, g->evidence, g->target_mb);

	used = strlen(g->evidence);
	snprintf(g->evidence + used, sizeof(g->evidence) - used,
			 "; %lld forced by WAL since the last change and the load needs over %dx the size, so the cooldown is cut short",
			 (long long) c->m->wal_forced_since_change,
			 COOLDOWN_OVERRIDE_FACTOR);
	return false;
}

/*
 * The load needs more than the cap: go up to the cap if not there yet, and
 * warn, once, when the load shows it keeps needing more: evidence at the
 * cap itself, or whole cycles that need more.  A growth to the cap from a
 * few seconds of a burst (which may be over by the next sample) warns no
 * one.  While it stays capped, say so again without a warning or a new
 * action, until the load fits under the cap (see policy_step_grow()).
 */
static void
grow_to_cap(DecideContext *c, const GrowPlan *g)
{
	WalsizerDecision *d = c->d;

	if (c->current_mb >= c->cap_mb && d->state.cap_reported)
	{
		policy_set_reason(d, "%s; the load needs %lld MB, still capped at %lld MB",
						  g->evidence, (long long) g->target_mb,
						  (long long) c->cap_mb);
		return;
	}

	if (c->current_mb >= c->cap_mb)
		d->action = WALSIZER_ACTION_CAPPED;
	else
	{
		policy_note_change(c, WALSIZER_ACTION_CAPPED, c->cap_mb);
		/* the cap is not what the load needs: settle it like any growth */
		d->state.provisional = 1;
	}
	if (c->current_mb < c->cap_mb && !c->need_from_whole_cycles)
	{
		policy_set_reason(d, "%s; the load needs %lld MB but the cap (%s) is %lld MB",
						  g->evidence, (long long) g->target_mb,
						  walsizer_cap_source_name(d->cap_source),
						  (long long) c->cap_mb);
		return;
	}
	d->warn = true;
	d->state.cap_reported = 1;
	policy_set_reason(d, "%s; the load needs %lld MB but the cap (%s) is %lld MB",
					  g->evidence, (long long) g->target_mb,
					  walsizer_cap_source_name(d->cap_source),
					  (long long) c->cap_mb);
}

/*
 * Grow to the target.  Every growth is provisional: it was sized from WAL
 * measured at a smaller size (with its extra checkpoints and full-page
 * images) or over a few seconds, and is settled once whole timed cycles
 * have been measured at it.  (A standby's settles to what the replayed WAL
 * needs, in policy_step_follow_replayed_wal().)
 */
static void
grow_to_target(DecideContext *c, const GrowPlan *g)
{
	double		timeout_s = policy_sane_fraction(c->s->checkpoint_timeout_s,
												 FALLBACK_CHECKPOINT_TIMEOUT_S);

	policy_note_change(c, WALSIZER_ACTION_GROW, g->target_mb);
	c->d->state.provisional = 1;
	if (g->replayed_wal)
		policy_set_reason(c->d, "%s, which needs %lld MB",
						  g->evidence, (long long) g->target_mb);
	else if (g->reactive)
		policy_set_reason(c->d, "%s; %lld MB of WAL per checkpoint_timeout needs %lld MB",
						  g->evidence,
						  (long long) policy_mb_for_reason(c->sizing_rate *
														   timeout_s),
						  (long long) g->target_mb);
	else
		policy_set_reason(c->d, "%s; room for it and the rest of the cycle needs %lld MB",
						  g->evidence, (long long) g->target_mb);
}

/*
 * Carry out a growth past its cooldown: to the cap when the target is
 * above it (grow_to_cap() reports a growth still capped), else to the
 * target when that is above the current size.  A target no larger than
 * the current size decides nothing: returns false.  A primary's growth
 * and a standby's go the same way.
 */
bool
policy_grow_as_planned(DecideContext *c, const GrowPlan *g)
{
	if (g->target_mb > c->cap_mb)
	{
		grow_to_cap(c, g);
		return true;
	}
	if (g->target_mb > c->current_mb)
	{
		grow_to_target(c, g);
		return true;
	}
	return false;
}

/*
 * Grow, on evidence only, within the cooldown (or its override) and the
 * cap.  Evidence for a size no larger than the current one decides
 * nothing.  When nothing grew and the load fits under the cap, a later
 * capped growth is worth a warning again.
 */
bool
policy_step_grow(DecideContext *c)
{
	GrowPlan	g;

	memset(&g, 0, sizeof(g));
	if (grow_find_evidence(c, &g))
	{
		grow_choose_target(c, &g);
		if (grow_waits_for_cooldown(c, &g) || policy_grow_as_planned(c, &g))
			return true;
	}
	if (c->needed_mb <= c->cap_mb)
		c->d->state.cap_reported = 0;
	return false;
}
