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
 * This file is pure: no PostgreSQL headers, no globals, no I/O.  Sizes are
 * in MB, like the max_wal_size GUC; WAL volumes in bytes.
 *
 *-------------------------------------------------------------------------
 */
#include "policy.h"
#include "size_units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* the share of the slowest measured replay rate planned with */
#define REPLAY_RATE_PLANNING_SHARE 0.8


/* Saturation value for the window counters kept in the state. */
#define COUNTER_LIMIT 1000000

/* max_wal_size's own minimum, in segments: no cap or floor goes below it. */
#define MIN_SIZE_SEGMENTS 2

/*
 * Fallbacks for settings that are NaN, infinite or negative, which only a
 * caller's bug produces: PostgreSQL's defaults for
 * checkpoint_completion_target (a fraction) and checkpoint_timeout (in
 * seconds), and walsizer.headroom's default (a fraction of the need).
 */
#define FALLBACK_COMPLETION_TARGET 0.9
#define FALLBACK_HEADROOM 0.25
#define FALLBACK_CHECKPOINT_TIMEOUT_S 300.0

/*
 * Most segments fit_whole_segments() adds to a size.  A few are ever
 * needed; the bound only guards against odd input.
 */
#define FIT_MAX_ADDED_SEGMENTS 64

/*
 * Largest WAL projection, in bytes (about 888 PB): far beyond any real WAL
 * volume, yet below UINT64_MAX, so the conversion to uint64_t is defined.
 */
#define PROJECTED_BYTES_LIMIT 1e18

/*
 * During the cooldown a growth still goes ahead when checkpoints are being
 * forced at the new size and the load needs at least this many times the
 * current size: that is a new, heavier load (a bulk import after a light
 * OLTP start), not the noise the cooldown damps.
 */
#define COOLDOWN_OVERRIDE_FACTOR 2

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
 * A checkpoint is imminent when the WAL since the redo pointer, growing at
 * the recent rate, reaches the trigger within the lookahead: the larger of
 * IMMINENT_MIN_LOOKAHEAD_S and IMMINENT_LOOKAHEAD_SAMPLES samples, which
 * leaves the worker a sample or two to see it and the server time to
 * reload.  Looking further would take a burst for a rate.
 */
#define IMMINENT_MIN_LOOKAHEAD_S 3.0
#define IMMINENT_LOOKAHEAD_SAMPLES 3

/*
 * A growth for an imminent checkpoint makes room for this many lookaheads
 * more at the recent rate.  Until whole timed cycles say what the load
 * needs, it also at least multiplies the size by IMMINENT_MIN_GROWTH_FACTOR,
 * so that a load that keeps up its rate is caught up with in a few steps,
 * not one per sample, and a rate inflated by full-page images oversizes by
 * at most that factor.
 */
#define IMMINENT_ROOM_LOOKAHEADS 1
#define IMMINENT_MIN_GROWTH_FACTOR 2

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

static int64_t
segment_mb(const WalsizerSettings *s)
{
	int64_t		mb = s->segment_bytes / BYTES_PER_MB;

	/* wal_segment_size is a power of two between 1 MB and 1 GB */
	return mb < 1 ? 1 : mb;
}

static int64_t
clamp_size(int64_t mb)
{
	if (mb < 0)
		return 0;
	if (mb > SIZE_LIMIT_MB)
		return SIZE_LIMIT_MB;
	return mb;
}

/* Round up to a whole number of segments, never past SIZE_LIMIT_MB. */
static int64_t
round_up_to_segment(int64_t mb, int64_t seg_mb)
{
	int64_t		rounded;

	mb = clamp_size(mb);
	rounded = ((mb + seg_mb - 1) / seg_mb) * seg_mb;
	if (rounded > SIZE_LIMIT_MB)
		rounded = (SIZE_LIMIT_MB / seg_mb) * seg_mb;
	return rounded;
}

static int64_t
round_down_to_segment(int64_t mb, int64_t seg_mb)
{
	return (clamp_size(mb) / seg_mb) * seg_mb;
}

static double
sane_fraction(double value, double fallback)
{
	/* NaN and infinities can only come from a caller's bug; fall back */
	if (!isfinite(value) || value < 0)
		return fallback;
	return value;
}

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
	int64_t		seg_mb = segment_bytes / BYTES_PER_MB;
	double		segments;
	int64_t		checkpoint_segments;

	if (seg_mb < 1)
		seg_mb = 1;
	completion_target = sane_fraction(completion_target,
									  FALLBACK_COMPLETION_TARGET);
	/* whole segments first, as XLogMBVarToSegs() does */
	segments = (double) (clamp_size(max_wal_size_mb) / seg_mb);
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
static uint64_t
earliest_forcing_bytes(uint64_t trigger_bytes, int64_t seg_mb)
{
	uint64_t	seg_bytes = (uint64_t) seg_mb * (uint64_t) BYTES_PER_MB;

	return trigger_bytes > seg_bytes ? trigger_bytes - seg_bytes : 0;
}

/*
 * PostgreSQL counts the trigger in whole segments, rounded down, from the
 * start of the redo pointer's segment.  At sizes of a few segments that
 * rounding eats more than the headroom, and a size the formula calls
 * enough forces a checkpoint most cycles.  Add segments until one cycle's
 * WAL fits half a segment below earliest_forcing_bytes(), the point
 * checkpoint_is_imminent() watches: a size fitted here is not called too
 * small by a cycle like the one it was fitted to.  A trickle of WAL then
 * needs two checkpoint segments (with one, the first segment end can force
 * a checkpoint).  At larger sizes the headroom already covers this and
 * nothing is added.
 */
static int64_t
fit_whole_segments(int64_t size_mb, double cycle_bytes, const WalsizerSettings *s)
{
	int64_t		seg = segment_mb(s);
	uint64_t	seg_bytes = (uint64_t) seg * (uint64_t) BYTES_PER_MB;

	for (int i = 0;
		 i < FIT_MAX_ADDED_SEGMENTS && size_mb <= SIZE_LIMIT_MB - seg;
		 i++)
	{
		uint64_t	trigger = walsizer_trigger_bytes(size_mb, s->segment_bytes,
													 s->completion_target);
		uint64_t	earliest = earliest_forcing_bytes(trigger, seg);

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
	double		completion_target = sane_fraction(s->completion_target,
												  FALLBACK_COMPLETION_TARGET);
	double		headroom = sane_fraction(s->headroom, FALLBACK_HEADROOM);
	double		timeout_s = sane_fraction(s->checkpoint_timeout_s,
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
	return fit_whole_segments(round_up_to_segment((int64_t) needed_mb,
												  segment_mb(s)),
							  bytes_per_s * timeout_s, s);
}

void
walsizer_policy_init_state(WalsizerPolicyState *state)
{
	memset(state, 0, sizeof(*state));
	/* nothing was changed yet, so the first change needs no cooldown */
	state->windows_since_change = COUNTER_LIMIT;
}

/* Bytes as whole MB for a reason text, safe for any double. */
static long long
mb_for_reason(double bytes)
{
	double		mb;

	if (!isfinite(bytes) || bytes <= 0)
		return 0;
	mb = ceil(bytes / (double) BYTES_PER_MB);
	return mb < (double) SIZE_LIMIT_MB ? (long long) mb : (long long) SIZE_LIMIT_MB;
}

/* Reasons may be cut at WALSIZER_REASON_LEN; they are for people. */
static void set_reason(WalsizerDecision *d, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

static void
set_reason(WalsizerDecision *d, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, args);
	va_end(args);
}

#define MB_OF(bytes) ((long long) ((bytes) / (uint64_t) BYTES_PER_MB))

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
} DecideContext;

/* A growth that the evidence asks for, while it is being decided. */
typedef struct GrowPlan
{
	bool		reactive;		/* WAL forced checkpoints in this window */
	bool		imminent;		/* the next one is about to be forced */
	int64_t		target_mb;		/* whole segments, >= floor, maybe > cap */
	char		evidence[WALSIZER_REASON_LEN];	/* how a reason starts */
} GrowPlan;

/*
 * A change at a window end starts the count at 0; a change between window
 * ends belongs to the window in progress, whose end must not count towards
 * the cooldown, so it starts at -1.  Either way at most one change happens
 * per window.
 */
static void
note_change(DecideContext *c, WalsizerAction action, int64_t new_mb)
{
	c->d->action = action;
	c->d->new_mb = new_mb;
	c->d->state.windows_since_change = c->m->window_end ? 0 : -1;
	c->d->state.windows_below_half = 0;
	c->d->state.provisional = 0;
}

/* The smallest size a settle or a shrink may step down to from now. */
static int64_t
smallest_step_down_mb(const DecideContext *c)
{
	return round_up_to_segment((c->current_mb + STEP_DOWN_DIVISOR - 1) /
							   STEP_DOWN_DIVISOR, c->seg_mb);
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
	c->seg_mb = segment_mb(s);
	c->current_mb = clamp_size(s->current_mb);
	c->cooldown = s->cooldown < 1 ? 1 : s->cooldown;

	memset(d, 0, sizeof(*d));
	d->state = *state;
	d->old_mb = c->current_mb;
	d->new_mb = c->current_mb;
	d->action = WALSIZER_ACTION_NONE;
}

/* A limit as a cap: whole segments, rounded down, at least the minimum. */
static int64_t
cap_in_segments(int64_t limit_mb, int64_t seg_mb)
{
	int64_t		cap = round_down_to_segment(limit_mb, seg_mb);

	return cap < MIN_SIZE_SEGMENTS * seg_mb ? MIN_SIZE_SEGMENTS * seg_mb : cap;
}

/*
 * The effective cap: the lowest of walsizer.max, the disk's share of the
 * WAL volume (when known) and the recovery-time bound (when set); on a tie
 * the first of them is its source.  Rounded down to whole segments, and
 * never below max_wal_size's own minimum.
 */
static void
compute_cap(DecideContext *c)
{
	const WalsizerSettings *s = c->s;
	int64_t		cap = s->max_mb;

	c->d->cap_source = WALSIZER_CAP_SETTING;
	if (s->disk_cap_mb > 0 && s->disk_cap_mb < cap)
	{
		cap = s->disk_cap_mb;
		c->d->cap_source = WALSIZER_CAP_DISK;
	}
	c->cap_without_recovery_mb = cap_in_segments(cap, c->seg_mb);
	if (s->recovery_cap_mb > 0 && s->recovery_cap_mb < cap)
	{
		cap = s->recovery_cap_mb;
		c->d->cap_source = WALSIZER_CAP_RECOVERY_TIME;
	}
	c->cap_mb = cap_in_segments(cap, c->seg_mb);
	c->d->cap_mb = c->cap_mb;
}

/*
 * The disk's share as the policy uses it: the share last used (held_mb,
 * <= 0 none) until a measurement moves farther from it than a band.  Free
 * space moves by a segment whenever a file of another program comes and
 * goes; followed at once, each move down would be a "protect" and each
 * move back up a capped regrowth, each an ALTER SYSTEM, a reload of every
 * backend and a WARNING.
 *
 * Lowering protects pg_wal, so its band is narrow: a fall of more than
 * DISK_LOWER_BAND_SEGMENTS segments or 1/DISK_LOWER_BAND_DIVISOR (3 %) of
 * the share, whichever is more, lowers it at the measurement that sees it.  The rest of the
 * volume (1 - walsizer.disk_fraction of it) is what holds the WAL beyond
 * max_wal_size, and the band uses a sliver of it.  Raising is never
 * urgent (a late rise costs a few forced checkpoints of a capped load,
 * while a rise that falls back costs two changes), so its band is wider:
 * DISK_RAISE_BAND_SEGMENTS segments or 1/DISK_RAISE_BAND_DIVISOR (12.5 %),
 * whichever is more.  docs/sizing.md gives the rule (Cap).
 * A move down and back up within that makes at most one change.  A
 * measurement that failed (<= 0) is unknown, whatever was held.
 */
#define DISK_LOWER_BAND_SEGMENTS 2
#define DISK_LOWER_BAND_DIVISOR 32
#define DISK_RAISE_BAND_SEGMENTS 4
#define DISK_RAISE_BAND_DIVISOR 8

static int64_t
disk_band_mb(int64_t held_mb, int64_t seg_mb, int64_t segments, int64_t divisor)
{
	int64_t		band = held_mb / divisor;

	return band > segments * seg_mb ? band : segments * seg_mb;
}

int64_t
walsizer_disk_cap_mb(int64_t held_mb, int64_t measured_mb,
					 int64_t segment_bytes)
{
	int64_t		seg_mb = segment_bytes / BYTES_PER_MB;

	if (seg_mb < 1)
		seg_mb = 1;
	held_mb = clamp_size(held_mb);
	measured_mb = clamp_size(measured_mb);
	if (held_mb == 0 || measured_mb == 0)
		return measured_mb;
	if (measured_mb < held_mb - disk_band_mb(held_mb, seg_mb,
											 DISK_LOWER_BAND_SEGMENTS,
											 DISK_LOWER_BAND_DIVISOR))
		return measured_mb;
	if (measured_mb > held_mb + disk_band_mb(held_mb, seg_mb,
											 DISK_RAISE_BAND_SEGMENTS,
											 DISK_RAISE_BAND_DIVISOR))
		return measured_mb;
	return held_mb;
}

/*
 * The name of a cap's source, as reasons, status().cap_source and the
 * advisor's report give it.
 */
const char *
walsizer_cap_source_name(WalsizerCapSource source)
{
	switch (source)
	{
		case WALSIZER_CAP_DISK:
			return "disk";
		case WALSIZER_CAP_RECOVERY_TIME:
			return "recovery_time";
		case WALSIZER_CAP_SETTING:
			break;
	}
	return "walsizer.max";
}

/*
 * The floor: walsizer.min, else the DBA's own value.  Rounded up to whole
 * segments, at least max_wal_size's own minimum, and never above the cap
 * (the decision records when it had to be clamped).
 */
static void
compute_floor(DecideContext *c)
{
	int64_t		floor_mb = c->s->min_mb > 0 ? c->s->min_mb : c->s->baseline_mb;

	floor_mb = round_up_to_segment(floor_mb, c->seg_mb);
	if (floor_mb < MIN_SIZE_SEGMENTS * c->seg_mb)
		floor_mb = MIN_SIZE_SEGMENTS * c->seg_mb;
	if (floor_mb > c->cap_mb)
	{
		floor_mb = c->cap_mb;
		c->d->floor_clamped = true;
	}
	c->floor_mb = floor_mb;
	c->d->floor_mb = floor_mb;
}

/* The limits every rule keeps to: cap first, since it bounds the floor. */
static void
compute_limits(DecideContext *c)
{
	compute_cap(c);
	compute_floor(c);
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
 * cycles come first.  needed_mb is 0 when nothing is known.
 */
static void
estimate_load(DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	double		timeout_s = sane_fraction(c->s->checkpoint_timeout_s,
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
	if (m->standby)
		rate = m->whole_timeouts_rate;
	else if (m->timed_cycle_peak_bytes > 0 && timeout_s > 0)
		rate = (double) m->timed_cycle_peak_bytes / timeout_s;
	else if (m->window_end && m->window_s > 0)
	{
		double		window_rate = (double) m->wal_bytes / m->window_s;

		if (window_rate > rate)
			rate = window_rate;
	}
	c->sizing_rate = rate;
	c->needed_mb = walsizer_needed_mb(rate, c->s);
	c->d->needed_mb = c->needed_mb;
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
 * is an imminent checkpoint (step_grow).
 */
/*
 * How far ahead a checkpoint counts as imminent, for a worker that samples
 * every sample_interval_s.  measure.c tracks how far the WAL reached by
 * the same measure, so that a settled size stays clear of it.
 */
double
walsizer_imminent_lookahead_s(double sample_interval_s)
{
	double		lookahead_s = IMMINENT_LOOKAHEAD_SAMPLES *
		sane_fraction(sample_interval_s, 1.0);

	return lookahead_s > IMMINENT_MIN_LOOKAHEAD_S ?
		lookahead_s : IMMINENT_MIN_LOOKAHEAD_S;
}

static double
sustained_rate(const WalsizerMeasurements *m)
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

static void
project_next_checkpoint(DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	double		rate = sustained_rate(m);

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

/*
 * Protect the WAL volume.  Running out of space in pg_wal is a PANIC, far
 * worse than checkpoints, so a disk cap below the current size wins over
 * everything, cooldown, floor and counter resets included: lower the size
 * to the cap, with a warning.  When the recovery-time bound is the cap,
 * the size goes no lower for it than the DBA's own value, as in
 * step_follow_lowered_max(); the disk's share and walsizer.max still do.
 */
static bool
step_protect_wal_volume(DecideContext *c)
{
	int64_t		disk_mb;
	int64_t		target = c->cap_mb;

	if (c->s->disk_cap_mb <= 0 || c->current_mb <= c->cap_mb)
		return false;
	disk_mb = round_down_to_segment(c->s->disk_cap_mb, c->seg_mb);
	if (c->current_mb <= disk_mb)
		return false;
	if (c->d->cap_source == WALSIZER_CAP_RECOVERY_TIME)
	{
		int64_t		dba_mb = round_up_to_segment(c->s->baseline_mb, c->seg_mb);

		if (target < dba_mb)
			target = dba_mb < c->cap_without_recovery_mb ?
				dba_mb : c->cap_without_recovery_mb;
		if (target >= c->current_mb)
			return false;
	}

	note_change(c, WALSIZER_ACTION_PROTECT, target);
	c->d->warn = true;
	set_reason(c->d,
			   "free space on the WAL volume allows at most %lld MB; lowering max_wal_size from %lld MB to %lld MB to protect pg_wal",
			   (long long) disk_mb, (long long) c->current_mb,
			   (long long) target);
	return true;
}

/*
 * walsizer.max, or the recovery-time bound (walsizer.max_recovery_time
 * lowered, or a slower replay measured), is below a size walsizer itself
 * had set: come back down to the cap at once, at any sample and whatever
 * the cooldown, but never below the DBA's own value.  A size above the cap
 * that is the DBA's own is left alone.  (A disk cap below the size is
 * step_protect_wal_volume()'s.)
 */
static bool
step_follow_lowered_max(DecideContext *c)
{
	int64_t		baseline_mb = c->s->baseline_mb;
	int64_t		target;

	if (c->current_mb <= c->cap_mb || c->current_mb <= baseline_mb)
		return false;
	target = baseline_mb > c->cap_mb ?
		round_up_to_segment(baseline_mb, c->seg_mb) : c->cap_mb;
	if (target >= c->current_mb)
		return false;

	note_change(c, WALSIZER_ACTION_SHRINK, target);
	if (c->d->cap_source == WALSIZER_CAP_RECOVERY_TIME)
		set_reason(c->d,
				   "the recovery-time bound allows at most %lld MB, below the %lld MB walsizer had set",
				   (long long) c->cap_mb, (long long) c->current_mb);
	else
		set_reason(c->d,
				   "walsizer.max is %lld MB, below the %lld MB walsizer had set",
				   (long long) c->cap_mb, (long long) c->current_mb);
	return true;
}

/*
 * Is a WAL-forced checkpoint imminent?  The WAL after the redo pointer is
 * expected to reach the earliest point the trigger can force one
 * (earliest_forcing_bytes()) within the lookahead (measure.c projects
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
	uint64_t	earliest = earliest_forcing_bytes(c->d->trigger_bytes,
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
				 mb_for_reason(m->recent_rate),
				 MB_OF(earliest_forcing_bytes(c->d->trigger_bytes, c->seg_mb)),
				 MB_OF(c->d->trigger_bytes));
	return g->reactive || g->imminent;
}

/*
 * The size whose trigger holds wal_bytes of WAL after the redo pointer, in
 * whole segments, with no headroom: (1 + checkpoint_completion_target)
 * times it, fitted to PostgreSQL's whole-segment trigger.
 */
static int64_t
size_holding_bytes(const DecideContext *c, double wal_bytes)
{
	double		completion_target = sane_fraction(c->s->completion_target,
												  FALLBACK_COMPLETION_TARGET);
	double		size_mb = ceil((1.0 + completion_target) * wal_bytes /
							   (double) BYTES_PER_MB);

	if (!(size_mb < (double) SIZE_LIMIT_MB))
		size_mb = (double) SIZE_LIMIT_MB;
	return fit_whole_segments(round_up_to_segment((int64_t) size_mb, c->seg_mb),
							  wal_bytes, c->s);
}

/*
 * The size an imminent checkpoint asks for: room for the projected reach
 * and IMMINENT_ROOM_LOOKAHEADS lookaheads more, or for the rest of the
 * cycle at the rate the load sustains, whichever is more.  At least what
 * whole timed cycles need, once some were measured (a cycle only slightly
 * larger than the last ones needs only slightly more), else at least
 * IMMINENT_MIN_GROWTH_FACTOR times the current size; and at least a
 * segment more.  Full-page images fade within a cycle, so the rest of it
 * is not sized at the recent rate; if the load keeps it up, the next
 * imminent checkpoint grows again.
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

	if (isfinite(m->seconds_to_timed_checkpoint) &&
		m->seconds_to_timed_checkpoint > 0)
		rest = sustained_rate(m) * m->seconds_to_timed_checkpoint;
	target = size_holding_bytes(c, since_redo + (room > rest ? room : rest));
	if (m->timed_cycle_peak_bytes > 0)
	{
		if (target < c->needed_mb)
			target = c->needed_mb;
	}
	else if (c->current_mb <= SIZE_LIMIT_MB / IMMINENT_MIN_GROWTH_FACTOR &&
			 target < c->current_mb * IMMINENT_MIN_GROWTH_FACTOR)
		target = c->current_mb * IMMINENT_MIN_GROWTH_FACTOR;
	if (target < c->current_mb + c->seg_mb)
		target = c->current_mb + c->seg_mb;
	return target;
}

/*
 * The size to grow to: for forced checkpoints, what the load needs and at
 * least one segment more (they prove the current size too small even when
 * the rate says otherwise); for an imminent one, imminent_target_mb();
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
		if (target < c->current_mb + c->seg_mb)
			target = c->current_mb + c->seg_mb;
	}
	if (g->imminent)
	{
		int64_t		imminent = imminent_target_mb(c);

		if (imminent > target)
			target = imminent;
	}
	target = round_up_to_segment(target, c->seg_mb);
	if (target < c->floor_mb)
		target = c->floor_mb;
	g->target_mb = target;
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

	if (c->d->state.windows_since_change >= c->cooldown)
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
	{
		set_reason(c->d,
				   "%s; waiting for the cooldown before growing to %lld MB",
				   g->evidence,
				   (long long) (g->target_mb < c->cap_mb ?
								g->target_mb : c->cap_mb));
		return true;
	}

	used = strlen(g->evidence);
	snprintf(g->evidence + used, sizeof(g->evidence) - used,
			 "; %lld forced by WAL since the last change and the load needs over %dx the size, so the cooldown is cut short",
			 (long long) c->m->wal_forced_since_change,
			 COOLDOWN_OVERRIDE_FACTOR);
	return false;
}

/*
 * The load needs more than the cap: go up to the cap if not there yet, and
 * warn, once.  While it stays capped, say so again without a warning or a
 * new action, until the load fits under the cap (see step_grow).
 */
static void
grow_to_cap(DecideContext *c, const GrowPlan *g)
{
	WalsizerDecision *d = c->d;

	if (c->current_mb >= c->cap_mb && d->state.cap_reported)
	{
		set_reason(d, "%s; the load needs %lld MB, still capped at %lld MB",
				   g->evidence, (long long) g->target_mb,
				   (long long) c->cap_mb);
		return;
	}

	if (c->current_mb >= c->cap_mb)
		d->action = WALSIZER_ACTION_CAPPED;
	else
	{
		note_change(c, WALSIZER_ACTION_CAPPED, c->cap_mb);
		/* the cap is not what the load needs: settle it like any growth */
		d->state.provisional = 1;
	}
	d->warn = true;
	d->state.cap_reported = 1;
	set_reason(d, "%s; the load needs %lld MB but the cap (%s) is %lld MB",
			   g->evidence, (long long) g->target_mb,
			   walsizer_cap_source_name(d->cap_source), (long long) c->cap_mb);
}

/*
 * Grow to the target.  Every growth is provisional: it was sized from WAL
 * measured at a smaller size (with its extra checkpoints and full-page
 * images) or over a few seconds, and is settled once whole timed cycles
 * have been measured at it.
 */
static void
grow_to_target(DecideContext *c, const GrowPlan *g)
{
	note_change(c, WALSIZER_ACTION_GROW, g->target_mb);
	c->d->state.provisional = 1;
	if (g->reactive)
		set_reason(c->d, "%s; %lld MB of WAL per checkpoint_timeout needs %lld MB",
				   g->evidence,
				   (long long) mb_for_reason(c->sizing_rate *
											 sane_fraction(c->s->checkpoint_timeout_s,
														   FALLBACK_CHECKPOINT_TIMEOUT_S)),
				   (long long) g->target_mb);
	else
		set_reason(c->d, "%s; room for it and the rest of the cycle needs %lld MB",
				   g->evidence, (long long) g->target_mb);
}

/*
 * Grow, on evidence only, within the cooldown (or its override) and the
 * cap.  Evidence for a size no larger than the current one decides
 * nothing.  When nothing grew and the load fits under the cap, a later
 * capped growth is worth a warning again.
 */
static bool
step_grow(DecideContext *c)
{
	GrowPlan	g;

	if (grow_find_evidence(c, &g))
	{
		grow_choose_target(c, &g);
		if (grow_waits_for_cooldown(c, &g))
			return true;
		if (g.target_mb > c->cap_mb)
		{
			grow_to_cap(c, &g);
			return true;
		}
		if (g.target_mb > c->current_mb)
		{
			grow_to_target(c, &g);
			return true;
		}
	}
	if (c->needed_mb <= c->cap_mb)
		c->d->state.cap_reported = 0;
	return false;
}

/*
 * The lowest size a settle or a shrink may reach: the floor, which was
 * clamped to the cap, and yet never below the DBA's own value, even one
 * above walsizer.max.
 */
static int64_t
shrink_floor_mb(const DecideContext *c)
{
	if (c->s->min_mb <= 0 && c->s->baseline_mb > c->floor_mb)
		return round_up_to_segment(c->s->baseline_mb, c->seg_mb);
	return c->floor_mb;
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
 * steady load does not grow again.  A size within the margin stops being
 * provisional; one at which checkpoints were forced stays provisional
 * while the growth rules take it further.  Never below the floor.
 */
static bool
step_settle_provisional(DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	WalsizerDecision *d = c->d;
	int64_t		cycles_need_mb;
	int64_t		reach_mb;
	int64_t		target;
	int64_t		settled_limit_mb;

	if (!m->window_end || !d->state.provisional ||
		m->wal_forced_at_size > 0 ||
		m->timed_cycles_at_size < SETTLE_MIN_TIMED_CYCLES ||
		!m->peak_covers_cycle)
		return false;
	/* the cycles at this size, not those of the growth's own first seconds */
	cycles_need_mb = walsizer_needed_mb((double) m->timed_cycle_peak_bytes_at_size /
										sane_fraction(c->s->checkpoint_timeout_s,
													  FALLBACK_CHECKPOINT_TIMEOUT_S),
										c->s);
	if (cycles_need_mb <= 0)
		return false;

	/*
	 * The first seconds of every cycle are full of full-page images, and at
	 * the recent rate they look like a checkpoint about to be forced.  Keep
	 * what they reached at this size clear of the trigger, or the next
	 * cycle would grow again.
	 */
	target = cycles_need_mb;
	reach_mb = size_holding_bytes(c, (double) m->peak_reach_bytes_at_size *
								  (1.0 + SETTLE_REACH_MARGIN));
	if (target < reach_mb)
		target = reach_mb;
	/* like a shrink, never below the DBA's own value, even above the cap */
	if (target < shrink_floor_mb(c))
		target = shrink_floor_mb(c);
	settled_limit_mb = target + target / SETTLE_MARGIN_DIVISOR;

	if (c->current_mb > settled_limit_mb &&
		d->state.windows_since_change >= c->cooldown)
	{
		note_change(c, WALSIZER_ACTION_SHRINK, target);
		set_reason(d,
				   "settling: whole checkpoint cycles at %lld MB need %lld MB; the growth was sized from WAL measured at a smaller size or over a few seconds",
				   (long long) c->current_mb, (long long) cycles_need_mb);
		return true;
	}
	if (c->current_mb <= settled_limit_mb)
		d->state.provisional = 0;
	return false;
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
static bool
step_shrink_slowly(DecideContext *c)
{
	int64_t		shrink_floor;
	int64_t		target;

	if (!c->m->window_end || c->s->shrink_after <= 0)
		return false;
	/*
	 * A standby's need is measured over whole checkpoint_timeouts of
	 * replayed WAL (estimate_load): until its history covers one, a window
	 * that needed little says nothing about the load, and is not quiet.
	 */
	if (c->m->standby && !c->m->peak_covers_cycle)
		return false;
	shrink_floor = shrink_floor_mb(c);
	count_quiet_window(c, shrink_floor);
	if (c->d->state.windows_below_half < c->s->shrink_after ||
		c->d->state.windows_since_change < c->cooldown)
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

	note_change(c, WALSIZER_ACTION_SHRINK, target);
	set_reason(c->d,
			   "for %d windows the load needed at most %lld MB, under half of %lld MB",
			   c->s->shrink_after,
			   (long long) (c->needed_mb > 0 ? c->needed_mb : 0),
			   (long long) c->current_mb);
	return true;
}

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
 * as on a primary (step_shrink_slowly).
 */
static bool
step_follow_replayed_wal(DecideContext *c)
{
	const WalsizerMeasurements *m = c->m;
	WalsizerDecision *d = c->d;
	double		timeout_s = sane_fraction(c->s->checkpoint_timeout_s,
										  FALLBACK_CHECKPOINT_TIMEOUT_S);
	int64_t		target;
	int64_t		settled_limit_mb;
	GrowPlan	g;

	if (!m->window_end || c->needed_mb <= 0)
		return false;
	target = round_up_to_segment(c->needed_mb, c->seg_mb);
	if (target < c->floor_mb)
		target = c->floor_mb;

	if (target > c->current_mb)
	{
		memset(&g, 0, sizeof(g));
		g.target_mb = target;
		snprintf(g.evidence, sizeof(g.evidence),
				 "standby: it replays up to %lld MB of WAL per checkpoint_timeout",
				 (long long) mb_for_reason(c->sizing_rate * timeout_s));
		if (d->state.windows_since_change < c->cooldown)
		{
			set_reason(d, "%s; waiting for the cooldown before growing to %lld MB",
					   g.evidence,
					   (long long) (target < c->cap_mb ? target : c->cap_mb));
			return true;
		}
		if (target > c->cap_mb)
		{
			grow_to_cap(c, &g);
			return true;
		}
		note_change(c, WALSIZER_ACTION_GROW, target);
		d->state.provisional = 1;
		set_reason(d, "%s, which needs %lld MB", g.evidence, (long long) target);
		return true;
	}
	if (c->needed_mb <= c->cap_mb)
		d->state.cap_reported = 0;

	if (!d->state.provisional)
		return false;
	if (target < shrink_floor_mb(c))
		target = shrink_floor_mb(c);
	settled_limit_mb = target + target / SETTLE_MARGIN_DIVISOR;
	if (c->current_mb <= settled_limit_mb)
	{
		d->state.provisional = 0;
		return false;
	}
	if (d->state.windows_since_change < c->cooldown)
		return false;
	note_change(c, WALSIZER_ACTION_SHRINK, target);
	set_reason(d,
			   "settling on a standby: the WAL it replays needs %lld MB, at most %lld MB per checkpoint_timeout over the horizon",
			   (long long) c->needed_mb,
			   (long long) mb_for_reason(c->sizing_rate * timeout_s));
	return true;
}

/* Nothing to do; say why, so that every decision has a reason. */
static void
explain_no_change(DecideContext *c)
{
	const WalsizerDecision *d = c->d;

	if (c->m->standby && c->needed_mb == 0)
		set_reason(c->d,
				   "standby: waiting for a whole checkpoint_timeout of replayed WAL; max_wal_size %lld MB is kept",
				   (long long) c->current_mb);
	else if (c->m->standby && d->state.windows_below_half == 0)
		set_reason(c->d,
				   "standby: the WAL it replays needs %lld MB; max_wal_size %lld MB is enough",
				   (long long) c->needed_mb, (long long) c->current_mb);
	else if (c->needed_mb == 0 && d->state.windows_below_half > 0)
		set_reason(c->d,
				   "no WAL load measured; %d of %d quiet windows before shrinking",
				   d->state.windows_below_half, c->s->shrink_after);
	else if (c->needed_mb == 0)
		set_reason(c->d,
				   "no WAL load measured yet; max_wal_size %lld MB is kept",
				   (long long) c->current_mb);
	else if (c->needed_mb > c->current_mb)
		set_reason(c->d,
				   "the peak rate would need %lld MB, but no checkpoint was forced and none is imminent",
				   (long long) c->needed_mb);
	else if (d->state.windows_below_half > 0)
		set_reason(c->d,
				   "the load needs %lld MB; %d of %d quiet windows before shrinking",
				   (long long) c->needed_mb, d->state.windows_below_half,
				   c->s->shrink_after);
	else
		set_reason(c->d,
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
	compute_limits(&c);
	estimate_load(&c);
	project_next_checkpoint(&c);
	count_window_end(&c);

	if (step_protect_wal_volume(&c) ||
		step_follow_lowered_max(&c))
		return;
	if (m->standby ?
		(step_follow_replayed_wal(&c) || step_shrink_slowly(&c)) :
		(step_grow(&c) || step_settle_provisional(&c) || step_shrink_slowly(&c)))
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
 * How long a crash recovery takes at its worst, in seconds, at a size of
 * size_mb: the WAL to replay over the replay rate; 0 when the rate is not a
 * positive finite number.  The distance is size_mb (see
 * walsizer_recovery_cap_mb()), or less when the load fills less:
 * (1 + completion_target) times cycle_bytes, the most WAL one checkpoint
 * cycle writes at the current load (0 when unknown).  But never less than
 * seen_bytes, the most WAL a crash would have replayed at any moment of the
 * last few cycles (0 when unknown): the WAL written while a checkpoint
 * runs holds more full-page images than the cycle's average, so the model
 * alone falls short of what was really pending.
 */
double
walsizer_estimated_recovery_s(int64_t size_mb, double completion_target,
							  uint64_t cycle_bytes, uint64_t seen_bytes,
							  double replay_bytes_per_s)
{
	double		distance = (double) clamp_size(size_mb) * (double) BYTES_PER_MB;

	if (!isfinite(replay_bytes_per_s) || replay_bytes_per_s <= 0)
		return 0;
	if (cycle_bytes > 0)
	{
		double		at_load = (1.0 + sane_fraction(completion_target,
												   FALLBACK_COMPLETION_TARGET)) *
			(double) cycle_bytes;

		if (at_load < distance)
			distance = at_load;
	}
	if ((double) seen_bytes > distance)
		distance = (double) seen_bytes;
	return distance / replay_bytes_per_s;
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
