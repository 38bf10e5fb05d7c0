/*-------------------------------------------------------------------------
 *
 * policy_shrink.c
 *		Coming down: settling a provisional growth to what whole checkpoint
 *		cycles at it need, and the slow shrink after quiet windows.  A
 *		standby's settle (policy_standby.c) goes through the same
 *		policy_settle_to().
 *
 * Part of the policy (policy.c runs its pipeline); pure like all of it: no
 * PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "policy_internal.h"

/*
 * A window is quiet, and counts towards a shrink, when the current size is
 * more than this many times what the load needs.  The reason texts and
 * windows_below_half say "half".
 */
#define QUIET_SIZE_FACTOR 2

/*
 * A shrink divides the current size by at most this much (rounded up to a
 * segment): it at most halves, so that a misjudged quiet spell costs one
 * step, not the whole size.  (A settle goes in one step: it follows whole
 * cycles measured at the size, not a quiet spell.)
 */
#define STEP_DOWN_DIVISOR 2

/*
 * A provisional size is settled only when it is more than
 * 1 / SETTLE_MARGIN_DIVISOR (20 %) above what whole checkpoint cycles need;
 * closer than that the difference is within the estimate's noise.
 */
#define SETTLE_MARGIN_DIVISOR 5

/*
 * Whole timed checkpoint cycles measured at a grown size before it
 * settles: one could be the lull of a load that is still rising.
 */
#define SETTLE_MIN_TIMED_CYCLES 2

/*
 * A settled size keeps the furthest the WAL was projected to reach at the
 * grown size this much (10 %) below its trigger.
 */
#define SETTLE_REACH_MARGIN 0.1

/* The smallest size a settle or a shrink may step down to from now. */
static int64_t
smallest_step_down_mb(const DecideContext *c)
{
	return policy_round_up_to_segment((c->current_mb + STEP_DOWN_DIVISOR - 1) /
									  STEP_DOWN_DIVISOR, c->seg_mb);
}

/*
 * The lowest size a settle or a shrink may reach: the floor, which was
 * clamped to the cap, and yet never below the DBA's own value, even one
 * above walsizer.max.
 */
int64_t
policy_shrink_floor_mb(const DecideContext *c)
{
	if (c->s->min_mb <= 0 && c->s->baseline_mb > c->floor_mb)
		return policy_round_up_to_segment(c->s->baseline_mb, c->seg_mb);
	return c->floor_mb;
}

/*
 * Settle a provisional size to target_mb (whole segments, at least the
 * shrink floor), if it is more than SETTLE_MARGIN_DIVISOR's margin above
 * it and the cooldown is over: returns true, and the caller says why.  A
 * size within the margin stops being provisional; one above it that waits
 * for the cooldown stays provisional.  A primary's settle
 * (policy_step_settle_provisional()) and a standby's
 * (policy_step_follow_replayed_wal()) settle alike.
 */
bool
policy_settle_to(DecideContext *c, int64_t target_mb)
{
	int64_t		settled_limit_mb;

	settled_limit_mb = target_mb + target_mb / SETTLE_MARGIN_DIVISOR;
	if (c->current_mb > settled_limit_mb && !policy_in_cooldown(c))
	{
		policy_note_change(c, WALSIZER_ACTION_SHRINK, target_mb);
		return true;
	}
	if (c->current_mb <= settled_limit_mb)
		c->d->state.provisional = 0;
	return false;
}

/*
 * A growth sized from a few seconds (policy_grow.c limits it to what they
 * justify) can fall short of what whole cycles at it then need, headroom
 * included, without a checkpoint being forced.  Settle it up to target_mb
 * (that need, or more to keep the cycles' reach clear of the trigger),
 * within the cap, after the cooldown: returns true then, also while it
 * waits.  A size the cycles themselves fit is left to policy_settle_to().
 */
static bool
settle_up_to(DecideContext *c, int64_t target_mb, int64_t cycles_need_mb)
{
	int64_t		new_mb = target_mb < c->cap_mb ? target_mb : c->cap_mb;

	if (cycles_need_mb <= c->current_mb || new_mb <= c->current_mb)
		return false;
	if (policy_in_cooldown(c))
	{
		policy_set_reason(c->d,
						  "whole checkpoint cycles at %lld MB need %lld MB; waiting for the cooldown before settling up to %lld MB",
						  (long long) c->current_mb, (long long) cycles_need_mb,
						  (long long) new_mb);
		return true;
	}
	policy_note_change(c, WALSIZER_ACTION_GROW, new_mb);
	c->d->state.provisional = 0;
	policy_set_reason(c->d,
					  "settling: whole checkpoint cycles at %lld MB need %lld MB; the growth was sized from a few seconds of WAL, which justify only so much",
					  (long long) c->current_mb, (long long) cycles_need_mb);
	return true;
}

/*
 * Settle a provisional size.  A growth was sized from WAL measured at the
 * old size or over a few seconds; once SETTLE_MIN_TIMED_CYCLES whole timed
 * checkpoint cycles have been measured at the new size, and none was
 * forced there, come
 * down in one step to what whole checkpoint_timeouts at it need (with the
 * headroom), if the size is more than SETTLE_MARGIN_DIVISOR's margin above
 * that, after the cooldown.  This is not a shrink: the load has not
 * changed, the estimate has.  What whole cycles need holds them, so a
 * steady load does not grow again.  A size below what they need goes up
 * to it (settle_up_to()).  A size within the margin stops being
 * provisional; one at which checkpoints were forced stays provisional
 * while the growth rules take it further.  Never below the floor.
 */
bool
policy_step_settle_provisional(DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	WalsizerDecision *d = c->d;
	double		timeout_s = policy_sane_fraction(c->s->checkpoint_timeout_s,
												 FALLBACK_CHECKPOINT_TIMEOUT_S);
	int64_t		cycles_need_mb;
	int64_t		reach_mb;
	int64_t		target;

	if (!m->window_end || !d->state.provisional ||
		m->wal_forced_at_size > 0 ||
		m->timed_cycles_at_size < SETTLE_MIN_TIMED_CYCLES ||
		!m->peak_covers_cycle)
		return false;
	/* the cycles at this size, not those of the growth's own first seconds */
	cycles_need_mb = walsizer_needed_mb((double) m->timed_cycle_peak_bytes_at_size /
										timeout_s, c->s);
	if (cycles_need_mb <= 0)
		return false;

	/*
	 * The first seconds of every cycle are full of full-page images, and at
	 * the recent rate they look like a checkpoint about to be forced.  Keep
	 * what they reached at this size clear of the trigger, or the next
	 * cycle would grow again.
	 */
	target = cycles_need_mb;
	reach_mb = policy_size_holding_bytes(c,
										 (double) m->peak_reach_bytes_at_size *
										 (1.0 + SETTLE_REACH_MARGIN));
	if (target < reach_mb)
		target = reach_mb;
	/* like a shrink, never below the DBA's own value, even above the cap */
	if (target < policy_shrink_floor_mb(c))
		target = policy_shrink_floor_mb(c);
	if (settle_up_to(c, target, cycles_need_mb))
		return true;
	if (!policy_settle_to(c, target))
		return false;
	policy_set_reason(d,
					  "settling: whole checkpoint cycles at %lld MB need %lld MB; the growth was sized from WAL measured at a smaller size or over a few seconds",
					  (long long) c->current_mb, (long long) cycles_need_mb);
	return true;
}

/*
 * Count consecutive quiet windows: the load needed less than half the
 * current size (QUIET_SIZE_FACTOR) and there is room to shrink.  Any other
 * window starts the count again.  A window cut short by
 * walsizer.check_now() can start it again, but does not add to it.
 */
static void
count_quiet_window(DecideContext *c, int64_t shrink_floor)
{
	WalsizerPolicyState *state = &c->d->state;

	if (c->needed_mb * QUIET_SIZE_FACTOR < c->current_mb &&
		c->current_mb > shrink_floor)
	{
		if (state->windows_below_half < COUNTER_LIMIT &&
			!c->m->window_ended_early)
			state->windows_below_half++;
	}
	else
		state->windows_below_half = 0;
}

/*
 * Shrink, slowly, once the load has needed less than half for
 * walsizer.shrink_after consecutive windows (0 turns shrinking off) and
 * the cooldown is over: by at most half, never below what the load needs
 * nor below the shrink floor.
 */
bool
policy_step_shrink_slowly(DecideContext *c)
{
	int64_t		shrink_floor;
	int64_t		target;

	if (!c->m->window_end || c->s->shrink_after <= 0)
		return false;
	/*
	 * A standby's need is measured over whole checkpoint_timeouts of
	 * replayed WAL (policy_estimate_load()): until its history covers one, a
	 * window that needed little says nothing about the load, and is not
	 * quiet.
	 */
	if (c->m->standby && !c->m->peak_covers_cycle)
		return false;
	shrink_floor = policy_shrink_floor_mb(c);
	count_quiet_window(c, shrink_floor);
	if (c->d->state.windows_below_half < c->s->shrink_after ||
		policy_in_cooldown(c))
		return false;
	/*
	 * A growth still being judged is settled from whole cycles at it, in
	 * one step and more precisely than halving; wait for that while WAL is
	 * written.  An idle server writes no cycles to judge by: shrink it.
	 */
	if (c->d->state.provisional && c->m->wal_forced_at_size == 0 &&
		c->m->recent_rate_valid && c->m->recent_rate > 0)
		return false;

	target = smallest_step_down_mb(c);
	if (target < c->needed_mb)
		target = c->needed_mb;
	if (target < shrink_floor)
		target = shrink_floor;
	if (target >= c->current_mb)
		return false;

	policy_note_change(c, WALSIZER_ACTION_SHRINK, target);
	policy_set_reason(c->d,
					  "for %d windows the load needed at most %lld MB, under half of %lld MB",
					  c->s->shrink_after,
					  (long long) (c->needed_mb > 0 ? c->needed_mb : 0),
					  (long long) c->current_mb);
	return true;
}
