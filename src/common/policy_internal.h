/*-------------------------------------------------------------------------
 *
 * policy_internal.h
 *		What the files of the sizing policy share and nothing else sees:
 *		the context of one decision, a growth being planned, and the
 *		helpers and constants more than one of them needs.
 *
 * policy.c runs the pipeline (walsizer_decide()); its steps live in
 * policy_limits.c, policy_formula.c, policy_grow.c, policy_shrink.c and
 * policy_standby.c, their small shared helpers in policy_utils.c.  A helper
 * used by one file only stays static there.  The shared ones carry a
 * policy_ prefix, so that the server module exports no generic names.
 *
 * Like policy.h, this header includes nothing from PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_POLICY_INTERNAL_H
#define WALSIZER_POLICY_INTERNAL_H

#include "policy.h"
#include "settings_limits.h"

/*
 * Saturation value for the window counters kept in the state: the largest
 * count a setting (cooldown, shrink_after) may name, so that a saturated
 * counter still reaches every setting's value.
 */
#define COUNTER_LIMIT WALSIZER_COUNT_LIMIT

/*
 * Fallbacks for settings that are NaN, infinite or negative, which only a
 * caller's bug produces: PostgreSQL's defaults for
 * checkpoint_completion_target (a fraction) and checkpoint_timeout (in
 * seconds).  (walsizer.headroom's is policy_formula.c's own.)
 */
#define FALLBACK_COMPLETION_TARGET 0.9
#define FALLBACK_CHECKPOINT_TIMEOUT_S 300.0

/*
 * Everything one decision works with: the caller's inputs, the decision
 * being built (which carries the state to keep), and what the derivation
 * steps compute once, before any rule runs.  The derived limits and sizes
 * are also copied into the decision, which reports them.
 */
typedef struct DecideContext
{
	const WalsizerSettings *s;
	const WalsizerMeasurements *m;
	WalsizerDecision *d;

	int64_t		seg_mb;			/* one WAL segment, at least 1 MB */
	int64_t		current_mb;		/* max_wal_size now, within [0, limit] */
	int			cooldown;		/* window ends between changes, >= 1 */
	int64_t		cap_mb;			/* effective cap, whole segments */
	int64_t		cap_without_recovery_mb;	/* walsizer.max and the disk's
											 * share alone, whole segments:
											 * as far as PROTECT may go
											 * below the DBA's value */
	int64_t		floor_mb;		/* effective floor, whole segments, <= cap */
	double		sizing_rate;	/* bytes/s: worst rate of horizon and window */
	int64_t		needed_mb;		/* what sizing_rate needs, 0 when unknown */
	bool		need_from_whole_cycles; /* sizing_rate was measured over
										 * whole checkpoint cycles or
										 * checkpoint_timeouts, not over
										 * a shorter stretch */
} DecideContext;

/* A growth that the evidence asks for, while it is being decided. */
typedef struct GrowPlan
{
	bool		reactive;		/* WAL forced checkpoints in this window */
	bool		imminent;		/* the next one is about to be forced */
	bool		replayed_wal;	/* neither: a standby's growth for the WAL
								 * it replays, whose reason reads
								 * differently (policy_standby.c) */
	int64_t		target_mb;		/* whole segments, >= floor, maybe > cap */
	char		evidence[WALSIZER_REASON_LEN];	/* how a reason starts */
} GrowPlan;

/* policy_utils.c: the small helpers every step uses */
extern int64_t policy_segment_mb(const WalsizerSettings *s);
extern int64_t policy_clamp_size(int64_t mb);
extern int64_t policy_round_up_to_segment(int64_t mb, int64_t seg_mb);
extern double policy_sane_fraction(double value, double fallback);
extern long long policy_mb_for_reason(double bytes);

/* Reasons may be cut at WALSIZER_REASON_LEN; they are for people. */
extern void policy_set_reason(WalsizerDecision *d, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));
extern void policy_note_change(DecideContext *c, WalsizerAction action,
							   int64_t new_mb);
extern bool policy_in_cooldown(const DecideContext *c);

/* policy_formula.c: what the load needs, and the projection */
extern uint64_t policy_earliest_forcing_bytes(uint64_t trigger_bytes,
											  int64_t seg_mb);
extern int64_t policy_fit_whole_segments(int64_t size_mb, double cycle_bytes,
										 const WalsizerSettings *s);
extern double policy_sustained_rate(const WalsizerMeasurements *m);
extern void policy_estimate_load(DecideContext *c);
extern void policy_project_next_checkpoint(DecideContext *c);

/* policy_limits.c: the cap and the floor, and the steps enforcing them */
extern void policy_compute_limits(DecideContext *c);
extern bool policy_step_protect_wal_volume(DecideContext *c);
extern bool policy_step_follow_lowered_max(DecideContext *c);

/* policy_grow.c: growth, on a primary's evidence or a standby's need */
extern int64_t policy_size_holding_bytes(const DecideContext *c,
										 double wal_bytes);
extern bool policy_wait_for_cooldown_to_grow(const DecideContext *c,
											 const char *evidence,
											 int64_t target_mb);
extern bool policy_grow_as_planned(DecideContext *c, const GrowPlan *g);
extern bool policy_step_grow(DecideContext *c);

/* policy_shrink.c: settling a growth, and the slow shrink */
extern int64_t policy_shrink_floor_mb(const DecideContext *c);
extern bool policy_settle_to(DecideContext *c, int64_t target_mb);
extern bool policy_step_settle_provisional(DecideContext *c);
extern bool policy_step_shrink_slowly(DecideContext *c);

/* policy_standby.c: a standby, sized for the WAL it replays */
extern bool policy_step_follow_replayed_wal(DecideContext *c);

#endif							/* WALSIZER_POLICY_INTERNAL_H */
