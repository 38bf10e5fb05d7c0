/*-------------------------------------------------------------------------
 *
 * policy_standby.c
 *		A standby's sizing: for the WAL it replays, not for its
 *		restartpoints.
 *
 * Part of the policy (policy.c runs its pipeline); pure like all of it: no
 * PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "policy_internal.h"

#include <stdio.h>
#include <string.h>

/*
 * A standby is sized for the WAL it replays: on a streaming standby that
 * is the primary's WAL, so the size a primary would need for it is the
 * size the standby needs once promoted, and the one that keeps its
 * restartpoints from being requested by WAL volume more often than the
 * primary's checkpoints allow.  Restartpoints can only start at replayed
 * checkpoint records, so the standby's cycles are never shorter than the
 * primary's, whatever its size: growing for its requested restartpoints
 * would grow without bound.  Hence no evidence of forced checkpoints here,
 * and no imminent one: at a window end, grow to what the replayed WAL over
 * whole checkpoint_timeouts needs (after the cooldown); a growth is
 * provisional, and settles down to that need once it is more than
 * SETTLE_MARGIN_DIVISOR's margin below the size (a peak that has left the
 * horizon, such as the primary's own catching up).  A lighter load shrinks
 * as on a primary (policy_step_shrink_slowly()).  The growth and the
 * settle are a primary's own (policy_grow.c, policy_shrink.c): the same
 * cooldown wait, the same growth to the target or the cap, the same
 * margin; only the evidence and the reasons are the standby's.
 */
bool
policy_step_follow_replayed_wal(DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	WalsizerDecision *d = c->d;
	double		timeout_s = policy_sane_fraction(c->s->checkpoint_timeout_s,
												 FALLBACK_CHECKPOINT_TIMEOUT_S);
	int64_t		target;
	GrowPlan	g;

	if (!m->window_end || c->needed_mb <= 0)
		return false;
	target = policy_round_up_to_segment(c->needed_mb, c->seg_mb);
	if (target < c->floor_mb)
		target = c->floor_mb;

	if (target > c->current_mb)
	{
		memset(&g, 0, sizeof(g));
		g.replayed_wal = true;
		g.target_mb = target;
		snprintf(g.evidence, sizeof(g.evidence),
				 "standby: it replays up to %lld MB of WAL per checkpoint_timeout",
				 (long long) policy_mb_for_reason(c->sizing_rate * timeout_s));
		if (policy_in_cooldown(c))
			return policy_wait_for_cooldown_to_grow(c, g.evidence, target);
		/* decides: the target is above the current size */
		return policy_grow_as_planned(c, &g);
	}
	if (c->needed_mb <= c->cap_mb)
		d->state.cap_reported = 0;

	if (!d->state.provisional)
		return false;
	if (target < policy_shrink_floor_mb(c))
		target = policy_shrink_floor_mb(c);
	if (!policy_settle_to(c, target))
		return false;
	policy_set_reason(d,
					  "settling on a standby: the WAL it replays needs %lld MB, at most %lld MB per checkpoint_timeout over the horizon",
					  (long long) c->needed_mb,
					  (long long) policy_mb_for_reason(c->sizing_rate * timeout_s));
	return true;
}
