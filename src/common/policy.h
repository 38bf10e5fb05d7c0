/*-------------------------------------------------------------------------
 *
 * policy.h
 *		The sizing policy of pg_walsizer: measurements and settings in,
 *		one decision with its reason out.
 *
 * This header and the policy's files (policy.c and the policy_*.c it
 * names, recovery_bound.c for the recovery-time bound) deliberately
 * include nothing from PostgreSQL.  The policy must be compilable on its
 * own so that the unit tests, the trace simulator and the fuzzer exercise
 * exactly the code the worker runs, with no server behind it.  Everything
 * the policy needs is passed in explicitly.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_POLICY_H
#define WALSIZER_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the crash-recovery time bound (walsizer.max_recovery_time) */
#include "recovery_bound.h"

#define WALSIZER_REASON_LEN 256

/*
 * What a decision does.  The policy itself only returns NONE, GROW, CAPPED,
 * SHRINK and PROTECT; the worker turns decisions into ADVISE (dry run),
 * ERROR or BLOCKED when applying them, and records ADOPT when the DBA
 * changed max_wal_size.  The numeric values are stored in the state file,
 * so only ever append.
 */
typedef enum WalsizerAction
{
	WALSIZER_ACTION_NONE = 0,
	WALSIZER_ACTION_GROW,
	WALSIZER_ACTION_CAPPED,
	WALSIZER_ACTION_SHRINK,
	WALSIZER_ACTION_PROTECT,
	WALSIZER_ACTION_ADVISE,
	WALSIZER_ACTION_ADOPT,
	WALSIZER_ACTION_ERROR,
	WALSIZER_ACTION_BLOCKED,
	WALSIZER_ACTION_UNCONFIRMED
} WalsizerAction;

#define WALSIZER_ACTION_LAST WALSIZER_ACTION_UNCONFIRMED

/*
 * Which limit produced the effective cap: the lowest of them, and on a tie
 * the one listed first.  Only ever append.
 */
typedef enum WalsizerCapSource
{
	WALSIZER_CAP_SETTING = 0,	/* walsizer.max */
	WALSIZER_CAP_DISK,			/* walsizer.disk_fraction of the WAL volume */
	WALSIZER_CAP_RECOVERY_TIME	/* walsizer.max_recovery_time at the replay
								 * rate in use */
} WalsizerCapSource;

/* Settings, as the worker read them from the server and its GUCs. */
typedef struct WalsizerSettings
{
	int64_t		current_mb;		/* max_wal_size the server runs with */
	int64_t		segment_bytes;	/* wal_segment_size */
	double		checkpoint_timeout_s;
	double		completion_target;	/* checkpoint_completion_target */
	int			threshold;		/* walsizer.threshold */
	double		ratio;			/* walsizer.ratio */
	double		headroom;		/* walsizer.headroom */
	int64_t		max_mb;			/* walsizer.max */
	int64_t		min_mb;			/* walsizer.min, 0 = use baseline */
	int64_t		baseline_mb;	/* the DBA's own max_wal_size */
	int64_t		disk_cap_mb;	/* disk_fraction of WAL space, as
								 * walsizer_disk_cap_mb() holds it; <= 0
								 * unknown */
	int64_t		recovery_cap_mb;	/* largest max_wal_size whose worst-case
									 * crash recovery fits
									 * walsizer.max_recovery_time at the
									 * replay rate in use
									 * (walsizer_recovery_cap_mb()); <= 0: no
									 * bound */
	int			shrink_after;	/* windows below half before shrinking, 0 off */
	int			cooldown;		/* windows between two changes */
	double		sample_interval_s;	/* walsizer.sample_interval: how soon
									 * the next sample can react */
} WalsizerSettings;

/*
 * Measurements of the WAL load: the policy's input, and every field is one
 * the policy reads.  Figures only status() shows are measure.h's
 * WalsizerStatusFigures.
 */
typedef struct WalsizerMeasurements
{
	bool		window_end;		/* false: a sample, only urgent checks */
	bool		window_ended_early; /* walsizer.check_now() ended it before
									 * its length: decide, but it counts
									 * towards neither the cooldown nor the
									 * quiet windows */
	bool		counters_reset; /* the checkpoint counters were reset in
								 * this window: timed, requested and
								 * wal_forced are unknown (0); what comes
								 * from the WAL position and the redo
								 * pointer is not */
	double		window_s;		/* length of the window that just ended */
	int64_t		timed;			/* timed checkpoints in the window */
	int64_t		requested;		/* requested checkpoints in the window */
	int64_t		wal_forced;		/* of those, started by WAL volume */
	uint64_t	wal_bytes;		/* WAL written in the window */

	uint64_t	wal_since_redo_bytes;	/* insert LSN - current redo pointer */
	bool		recent_rate_valid;	/* enough samples for recent_rate */
	double		recent_rate;	/* bytes/s over the last few samples */
	double		peak_rate;		/* bytes/s, worst checkpoint_timeout over the
								 * horizon; 0 when nothing is known */
	double		seconds_to_timed_checkpoint;
	bool		peak_covers_cycle;	/* peak_rate is over whole
									 * checkpoint_timeouts measured at the
									 * current size */
	bool		size_is_walsizers;	/* the size in effect is walsizer's own
									 * latest choice */
	int64_t		wal_forced_since_change;	/* checkpoints forced by WAL
											 * since walsizer's own last size
											 * change, at any sample; 0 when
											 * the size in effect is not
											 * walsizer's latest choice */

	/*
	 * What a size the policy grew to is judged by: whole checkpoint cycles
	 * measured at it.  A cycle runs from one redo pointer move to the next;
	 * a timed one lasted about checkpoint_timeout and was not forced.
	 */
	int64_t		timed_cycles_at_size;	/* whole timed cycles that started
										 * after the last size change */
	uint64_t	timed_cycle_peak_bytes_at_size; /* the most WAL one of them
												 * wrote */
	int64_t		wal_forced_at_size; /* checkpoints forced by WAL since the
									 * last size change, whoever made it */
	uint64_t	timed_cycle_peak_bytes; /* the most WAL a whole timed cycle
										 * wrote within the horizon, 0 when
										 * none ended there */
	uint64_t	peak_reach_bytes_at_size;	/* the furthest reach_bytes of
											 * the last two cycles at this
											 * size */
	uint64_t	reach_bytes;	/* WAL after the redo pointer expected
								 * within reach_within_s (valid with
								 * recent_rate_valid) */
	double		reach_within_s; /* the imminence lookahead, or less when
								 * the timed checkpoint comes first */
	double		recent_record_rate; /* recent_rate without full-page
									 * images: what the load goes on
									 * writing once they fade */

	/*
	 * The server is a standby: the WAL position is the replay position (on
	 * a streaming standby the primary's WAL rate), the redo pointer moves
	 * at restartpoints and the counters count restartpoints.  Sized for the
	 * WAL rate only (policy_step_follow_replayed_wal()).
	 */
	bool		standby;
	double		whole_timeouts_rate;	/* bytes/s: the highest of the
										 * whole checkpoint_timeouts laid
										 * back to back over the horizon;
										 * 0 until one is covered */
} WalsizerMeasurements;

/* What the policy remembers between calls; the worker persists it. */
typedef struct WalsizerPolicyState
{
	int32_t		windows_below_half; /* consecutive windows needing < half */
	int32_t		windows_since_change;	/* window ends since the last change;
										 * -1 until the end of a window in
										 * which it changed */
	int32_t		cap_reported;	/* a blocked growth was already reported */
	int32_t		provisional;	/* the size came from a growth, sized from
								 * WAL measured at a smaller size or over a
								 * few seconds; settle it once whole timed
								 * checkpoint cycles have been measured */
} WalsizerPolicyState;

typedef struct WalsizerDecision
{
	WalsizerAction action;
	int64_t		old_mb;
	int64_t		new_mb;			/* == old_mb unless the size changes */
	int64_t		needed_mb;		/* what the load needs, 0 when unknown */
	int64_t		cap_mb;			/* effective cap */
	WalsizerCapSource cap_source;
	int64_t		floor_mb;		/* effective floor */
	uint64_t	trigger_bytes;	/* WAL distance that forces a checkpoint */
	uint64_t	projected_bytes;	/* WAL expected by the next timed one */
	bool		warn;			/* worth a WARNING rather than a LOG */
	bool		floor_clamped;	/* floor was above the cap this time */
	WalsizerPolicyState state;	/* state to keep for the next call */
	char		reason[WALSIZER_REASON_LEN];
} WalsizerDecision;

extern void walsizer_policy_init_state(WalsizerPolicyState *state);
extern void walsizer_decide(const WalsizerSettings *settings,
							const WalsizerMeasurements *m,
							const WalsizerPolicyState *state,
							WalsizerDecision *decision);

/* Helpers the worker and the tests share with the policy. */
extern const char *walsizer_action_name(WalsizerAction action);
extern const char *walsizer_cap_source_name(WalsizerCapSource source);
extern int64_t walsizer_checkpoint_segments(int64_t max_wal_size_mb,
											int64_t segment_bytes,
											double completion_target);
extern uint64_t walsizer_trigger_bytes(int64_t max_wal_size_mb,
									   int64_t segment_bytes,
									   double completion_target);
extern int64_t walsizer_needed_mb(double bytes_per_s,
								  const WalsizerSettings *settings);
/*
 * The actions that change max_wal_size (grow, capped, shrink, protect);
 * the view walsizer.last_change (pg_walsizer--1.4--1.5.sql) lists the
 * same ones.
 */
extern bool walsizer_changes_size(WalsizerAction action);
extern int64_t walsizer_disk_cap_mb(int64_t held_mb, int64_t measured_mb,
									int64_t segment_bytes);
extern double walsizer_imminent_lookahead_s(double sample_interval_s);
extern bool walsizer_decision_keeps_state(const WalsizerMeasurements *m,
										  const WalsizerDecision *d);

#endif							/* WALSIZER_POLICY_H */
