/*-------------------------------------------------------------------------
 *
 * policy.c
 *		Decide the max_wal_size a WAL load needs.
 *
 * PostgreSQL forces a checkpoint once the WAL written since the last redo
 * pointer reaches about max_wal_size / (1 + checkpoint_completion_target).
 * To avoid that at a sustained WAL rate R a server needs
 *
 *		max_wal_size >= (1 + checkpoint_completion_target) * R * checkpoint_timeout
 *
 * The policy applies that formula, with headroom, to the worst WAL rate seen
 * over whole checkpoint_timeouts in a horizon of several windows.  It grows
 * when there is evidence the current size is too small: WAL-forced
 * checkpoints in the window that just ended, or the WAL since the last
 * checkpoint about to reach the trigger at the rate of the last seconds.
 * It never extrapolates a few seconds over a whole cycle: the seconds after
 * any checkpoint are full of full-page images, and a bulk statement is a
 * burst, not a rate.  Every growth is provisional and settles, in one step,
 * to what whole timed checkpoint cycles at the new size need.  It shrinks
 * slowly when the load has needed less than half the current size for a
 * long time, and never leaves [floor, cap] when it changes anything.
 *
 * The cap is the lowest of walsizer.max, the disk's share of the WAL volume
 * and the largest size whose crash recovery fits walsizer.max_recovery_time
 * (walsizer_recovery_cap_mb()).  A cap below a size walsizer set brings it
 * down at once, but never below the DBA's own value: that is a choice the
 * DBA made, recovery time included.  Only a disk's share below the size
 * goes lower (to the cap, walsizer.max when that is lower still), since a
 * full pg_wal is a PANIC.
 *
 * walsizer_decide() is a pipeline of named steps over one DecideContext.
 * It first derives what every rule works with (the limits, what the load
 * needs, the projection to the next timed checkpoint), then tries the rules
 * in order of precedence; the first that decides ends the decision, and
 * when none does the last step says why nothing was done.
 *
 * This file holds the pipeline, its first and last steps and the policy's
 * small public helpers; each other step lives in the file of its concern:
 *
 *   start_decision()                   here: the inputs, normalised
 *   policy_compute_limits()            policy_limits.c: the cap, the floor
 *   policy_estimate_load()             policy_formula.c: what the load needs
 *   policy_project_next_checkpoint()   policy_formula.c: the projection
 *   count_window_end()                 here: the cooldown's count
 *   policy_step_protect_wal_volume()   policy_limits.c: at every sample,
 *   policy_step_follow_lowered_max()   policy_limits.c: whatever the role
 *   on a primary:
 *     policy_step_grow()               policy_grow.c: on evidence only
 *     policy_step_settle_provisional() policy_shrink.c: a growth, settled
 *     policy_step_shrink_slowly()      policy_shrink.c: after quiet windows
 *   on a standby:
 *     policy_step_follow_replayed_wal()  policy_standby.c: grows and
 *                                      settles with the helpers of
 *                                      policy_grow.c and policy_shrink.c
 *     policy_step_shrink_slowly()      policy_shrink.c
 *   explain_no_change()                here: why nothing was done
 *
 * policy_utils.c holds the helpers every step uses (whole segments, reason
 * texts, policy_note_change(), policy_in_cooldown()), policy_internal.h
 * the DecideContext and what the files share, and recovery_bound.c the
 * crash-recovery arithmetic behind the recovery-time bound.
 *
 * All of them are pure: no PostgreSQL headers, no globals, no I/O.  Sizes
 * are in MB, like the max_wal_size GUC; WAL volumes in bytes.
 *
 *-------------------------------------------------------------------------
 */
#include "policy_internal.h"
#include "size_units.h"

#include <string.h>

static const char *const action_names[] = {
	[WALSIZER_ACTION_NONE] = "none",
	[WALSIZER_ACTION_GROW] = "grow",
	[WALSIZER_ACTION_CAPPED] = "capped",
	[WALSIZER_ACTION_SHRINK] = "shrink",
	[WALSIZER_ACTION_PROTECT] = "protect",
	[WALSIZER_ACTION_ADVISE] = "advise",
	[WALSIZER_ACTION_ADOPT] = "adopt",
	[WALSIZER_ACTION_ERROR] = "error",
	[WALSIZER_ACTION_BLOCKED] = "blocked",
	[WALSIZER_ACTION_UNCONFIRMED] = "unconfirmed",
};

const char *
walsizer_action_name(WalsizerAction action)
{
	if ((int) action < 0 || action > WALSIZER_ACTION_LAST)
		return "unknown";
	return action_names[action];
}

bool
walsizer_changes_size(WalsizerAction action)
{
	return action == WALSIZER_ACTION_GROW ||
		action == WALSIZER_ACTION_CAPPED ||
		action == WALSIZER_ACTION_SHRINK ||
		action == WALSIZER_ACTION_PROTECT;
}

void
walsizer_policy_init_state(WalsizerPolicyState *state)
{
	memset(state, 0, sizeof(*state));
	/* nothing was changed yet, so the first change needs no cooldown */
	state->windows_since_change = COUNTER_LIMIT;
}

/*
 * Start from "nothing to do": the decision keeps the current size and the
 * state handed in, and the context holds the normalised basic settings.
 */
static void
start_decision(DecideContext *c, const WalsizerSettings *s,
			   const WalsizerMeasurements *m,
			   const WalsizerPolicyState *state, WalsizerDecision *d)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->m = m;
	c->d = d;
	c->seg_mb = policy_segment_mb(s);
	c->current_mb = policy_clamp_size(s->current_mb);
	c->cooldown = s->cooldown < 1 ? 1 : s->cooldown;

	memset(d, 0, sizeof(*d));
	d->state = *state;
	d->old_mb = c->current_mb;
	d->new_mb = c->current_mb;
	d->action = WALSIZER_ACTION_NONE;
}

/*
 * The cooldown counts window ends, not samples, up to COUNTER_LIMIT.  This
 * happens before any rule, so that a change at this window end restarts
 * the count from here.  A window walsizer.check_now() cut short is not a
 * window's worth of time: a dozen calls must not stand for a dozen windows.
 */
static void
count_window_end(DecideContext *c)
{
	if (c->m->window_end && !c->m->window_ended_early &&
		c->d->state.windows_since_change < COUNTER_LIMIT)
		c->d->state.windows_since_change++;
}

/* Nothing to do; say why, so that every decision has a reason. */
static void
explain_no_change(DecideContext *c)
{
	const WalsizerDecision *d = c->d;

	if (c->m->standby && c->needed_mb == 0)
		policy_set_reason(c->d,
						  "standby: waiting for a whole checkpoint_timeout of replayed WAL; max_wal_size %lld MB is kept",
						  (long long) c->current_mb);
	else if (c->m->standby && d->state.windows_below_half == 0)
		policy_set_reason(c->d,
						  "standby: the WAL it replays needs %lld MB; max_wal_size %lld MB is enough",
						  (long long) c->needed_mb, (long long) c->current_mb);
	else if (c->needed_mb == 0 && d->state.windows_below_half > 0)
		policy_set_reason(c->d,
						  "no WAL load measured; %d of %d quiet windows before shrinking",
						  d->state.windows_below_half, c->s->shrink_after);
	else if (c->needed_mb == 0)
		policy_set_reason(c->d,
						  "no WAL load measured yet; max_wal_size %lld MB is kept",
						  (long long) c->current_mb);
	else if (c->needed_mb > c->current_mb)
		policy_set_reason(c->d,
						  "the peak rate would need %lld MB, but no checkpoint was forced and none is imminent",
						  (long long) c->needed_mb);
	else if (d->state.windows_below_half > 0)
		policy_set_reason(c->d,
						  "the load needs %lld MB; %d of %d quiet windows before shrinking",
						  (long long) c->needed_mb, d->state.windows_below_half,
						  c->s->shrink_after);
	else
		policy_set_reason(c->d,
						  "the load needs %lld MB; max_wal_size %lld MB is enough",
						  (long long) c->needed_mb, (long long) c->current_mb);
}

/*
 * Derive what the load needs within which limits, then apply the rules in
 * order of precedence; the first that decides ends the decision.
 */
void
walsizer_decide(const WalsizerSettings *s, const WalsizerMeasurements *m,
				const WalsizerPolicyState *state, WalsizerDecision *d)
{
	DecideContext c;

	start_decision(&c, s, m, state, d);
	policy_compute_limits(&c);
	policy_estimate_load(&c);
	policy_project_next_checkpoint(&c);
	count_window_end(&c);

	if (policy_step_protect_wal_volume(&c) ||
		policy_step_follow_lowered_max(&c))
		return;
	if (m->standby ?
		(policy_step_follow_replayed_wal(&c) || policy_step_shrink_slowly(&c)) :
		(policy_step_grow(&c) || policy_step_settle_provisional(&c) ||
		 policy_step_shrink_slowly(&c)))
		return;
	explain_no_change(&c);
}

/*
 * Whether the caller keeps the state a decision hands back (and acts on
 * the decision): at a window end, or when it changes the size or reports
 * the cap.  A sample between window ends that decided nothing leaves the
 * kept state as it was.
 */
bool
walsizer_decision_keeps_state(const WalsizerMeasurements *m,
							  const WalsizerDecision *d)
{
	return m->window_end || walsizer_changes_size(d->action) ||
		d->action == WALSIZER_ACTION_CAPPED;
}
