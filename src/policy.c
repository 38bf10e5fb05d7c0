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
 * over a horizon of several windows.  It grows when there is evidence the
 * current size is too small (WAL-forced checkpoints in the window that just
 * ended, or a projection that the next one is about to be forced), shrinks
 * slowly when the load has needed less than half the current size for a
 * long time, and never leaves [floor, cap] when it changes anything.
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


/* Saturation value for the window counters kept in the state. */
#define COUNTER_LIMIT 1000000

/*
 * During the cooldown a growth still goes ahead when checkpoints are being
 * forced at the new size and the load needs at least this many times the
 * current size: that is a new, heavier load (a bulk import after a light
 * OLTP start), not the noise the cooldown damps.
 */
#define COOLDOWN_OVERRIDE_FACTOR 2

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
 * (1 + checkpoint_completion_target)), at least 1.  A checkpoint is
 * requested when the insert position enters segment
 * redo_segment + CheckPointSegments - 1 (XLogCheckpointNeeded()).
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
	completion_target = sane_fraction(completion_target, 0.9);
	/* whole segments first, as XLogMBVarToSegs() does */
	segments = (double) (clamp_size(max_wal_size_mb) / seg_mb);
	checkpoint_segments = (int64_t) (segments / (1.0 + completion_target));
	return checkpoint_segments < 1 ? 1 : checkpoint_segments;
}

/*
 * The WAL distance after the redo pointer at which that happens, measured
 * from the start of the redo segment: (CheckPointSegments - 1) segments,
 * and one segment when the next segment boundary already triggers.
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
	if (checkpoint_segments < 2)
		return (uint64_t) segment_bytes;
	return (uint64_t) (checkpoint_segments - 1) * (uint64_t) segment_bytes;
}

/*
 * PostgreSQL counts the trigger in whole segments, rounded down, from the
 * start of the redo pointer's segment.  At sizes of a few segments that
 * rounding eats more than the headroom, and a size the formula calls
 * enough forces a checkpoint most cycles.  Add segments until one cycle's
 * WAL fits with the redo pointer half way through its segment, where it
 * is on average; the headroom covers the rest.  (Asking for the worst case,
 * the end of the segment, would make any trickle of WAL need three
 * checkpoint segments and lift an idle server off a small floor.)  At
 * larger sizes the headroom already covers this and nothing is added.
 */
static int64_t
fit_whole_segments(int64_t size_mb, double cycle_bytes, const WalsizerSettings *s)
{
	int64_t		seg = segment_mb(s);
	uint64_t	seg_bytes = (uint64_t) seg * (uint64_t) BYTES_PER_MB;

	/* a few segments at most; the bound only guards against odd input */
	for (int i = 0; i < 64 && size_mb <= SIZE_LIMIT_MB - seg; i++)
	{
		uint64_t	trigger = walsizer_trigger_bytes(size_mb, s->segment_bytes,
													 s->completion_target);

		if ((double) (trigger - seg_bytes / 2) >= cycle_bytes)
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
	double		completion_target = sane_fraction(s->completion_target, 0.9);
	double		headroom = sane_fraction(s->headroom, 0.25);
	double		timeout_s = sane_fraction(s->checkpoint_timeout_s, 300.0);
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

/*
 * A change at a window end starts the count at 0; a change between window
 * ends belongs to the window in progress, whose end must not count towards
 * the cooldown, so it starts at -1.  Either way at most one change happens
 * per window.
 */
static void
note_change(WalsizerDecision *d, const WalsizerMeasurements *m,
			WalsizerAction action, int64_t new_mb)
{
	d->action = action;
	d->new_mb = new_mb;
	d->state.windows_since_change = m->window_end ? 0 : -1;
	d->state.windows_below_half = 0;
	d->state.provisional = 0;
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

void
walsizer_decide(const WalsizerSettings *s, const WalsizerMeasurements *m,
				const WalsizerPolicyState *state, WalsizerDecision *d)
{
	int64_t		seg = segment_mb(s);
	int64_t		current = clamp_size(s->current_mb);
	int64_t		cap;
	int64_t		floor_mb;
	int64_t		needed;
	int64_t		projected_needed;
	double		projection_rate;
	double		rate;
	int64_t		checkpoints;
	bool		reactive;
	bool		proactive;
	int			cooldown = s->cooldown < 1 ? 1 : s->cooldown;

	memset(d, 0, sizeof(*d));
	d->state = *state;
	d->old_mb = current;
	d->new_mb = current;
	d->action = WALSIZER_ACTION_NONE;

	/* The effective cap: walsizer.max, or less when the disk is smaller. */
	cap = s->max_mb;
	d->cap_source = WALSIZER_CAP_SETTING;
	if (s->disk_cap_mb > 0 && s->disk_cap_mb < cap)
	{
		cap = s->disk_cap_mb;
		d->cap_source = WALSIZER_CAP_DISK;
	}
	cap = round_down_to_segment(cap, seg);
	if (cap < 2 * seg)
		cap = 2 * seg;			/* max_wal_size's own minimum */
	d->cap_mb = cap;

	/* The floor: walsizer.min, else the DBA's own value; never above cap. */
	floor_mb = s->min_mb > 0 ? s->min_mb : s->baseline_mb;
	floor_mb = round_up_to_segment(floor_mb, seg);
	if (floor_mb < 2 * seg)
		floor_mb = 2 * seg;
	if (floor_mb > cap)
	{
		floor_mb = cap;
		d->floor_clamped = true;
	}
	d->floor_mb = floor_mb;

	/* What the load needs: the worst rate we know of, window included. */
	rate = m->peak_rate;
	if (m->window_end && m->window_s > 0 && !m->counters_reset)
	{
		double		window_rate = (double) m->wal_bytes / m->window_s;

		if (window_rate > rate)
			rate = window_rate;
	}
	needed = walsizer_needed_mb(rate, s);
	d->needed_mb = needed;

	/*
	 * A projection looks ahead with the recent rate.  Early in a load that
	 * is all there is: the horizon has not yet seen a whole checkpoint
	 * cycle of it, so size for whichever is worse.
	 */
	projected_needed = needed;
	if (m->recent_rate_valid && isfinite(m->recent_rate) &&
		m->recent_rate > rate)
		projected_needed = walsizer_needed_mb(m->recent_rate, s);

	d->trigger_bytes = walsizer_trigger_bytes(current, s->segment_bytes,
											  s->completion_target);
	/*
	 * Project with the average of whole checkpoint cycles once there are
	 * some at this size: the seconds after a checkpoint are full of
	 * full-page images and would overstate the rest of the cycle.  Before
	 * that, the recent rate is all there is.  A heavier load still shows,
	 * through the WAL since the redo pointer.
	 */
	projection_rate = m->recent_rate_valid && isfinite(m->recent_rate) ?
		m->recent_rate : 0;
	if (m->peak_covers_cycle && isfinite(m->peak_rate) && m->peak_rate > 0)
		projection_rate = m->peak_rate;
	if (m->recent_rate_valid && projection_rate > 0 &&
		isfinite(m->seconds_to_timed_checkpoint) &&
		m->seconds_to_timed_checkpoint > 0)
	{
		double		projected = (double) m->wal_since_redo_bytes +
			projection_rate * m->seconds_to_timed_checkpoint;

		d->projected_bytes = projected < 1e18 ? (uint64_t) projected :
			(uint64_t) 1e18;
	}
	else
		d->projected_bytes = m->wal_since_redo_bytes;

	if (m->window_end && d->state.windows_since_change < COUNTER_LIMIT)
		d->state.windows_since_change++;

	/*
	 * 1. Protect the WAL volume.  Running out of space in pg_wal is a PANIC,
	 * far worse than checkpoints, so a disk cap below the current size wins
	 * over everything, cooldown included.
	 */
	if (s->disk_cap_mb > 0 && current > cap &&
		current > round_down_to_segment(s->disk_cap_mb, seg))
	{
		note_change(d, m, WALSIZER_ACTION_PROTECT, cap);
		d->warn = true;
		set_reason(d,
				 "free space on the WAL volume allows at most %lld MB; lowering max_wal_size from %lld MB to %lld MB to protect pg_wal",
				 (long long) round_down_to_segment(s->disk_cap_mb, seg),
				 (long long) current, (long long) cap);
		return;
	}

	/*
	 * walsizer.max was lowered below a size walsizer itself had set: come
	 * back down, but never below the DBA's own value.
	 */
	if (current > cap && current > s->baseline_mb)
	{
		int64_t		target = s->baseline_mb > cap ?
			round_up_to_segment(s->baseline_mb, seg) : cap;

		if (target < current)
		{
			note_change(d, m, WALSIZER_ACTION_SHRINK, target);
			set_reason(d,
					 "walsizer.max is %lld MB, below the %lld MB walsizer had set",
					 (long long) cap, (long long) current);
			return;
		}
	}

	if (m->window_end && m->counters_reset)
	{
		set_reason(d,
				 "checkpoint statistics were reset during this window; it is not used for a decision");
		return;
	}

	/* 2. Grow, on evidence only. */
	checkpoints = m->timed + m->requested;
	reactive = m->window_end && m->wal_forced > 0 &&
		m->wal_forced >= (s->threshold < 1 ? 1 : s->threshold) &&
		checkpoints > 0 &&
		(double) m->wal_forced / (double) checkpoints >= s->ratio;
	proactive = m->recent_rate_valid &&
		d->projected_bytes > d->trigger_bytes && projected_needed > current;

	if (reactive || proactive)
	{
		int64_t		target = proactive ? projected_needed : needed;
		char		evidence[WALSIZER_REASON_LEN];

		if (reactive)
		{
			if (target < current + seg)
				target = current + seg;
			snprintf(evidence, sizeof(evidence),
					 "%lld of %lld checkpoints in the last %.0f s were forced by WAL",
					 (long long) m->wal_forced, (long long) checkpoints,
					 m->window_s);
		}
		else
			snprintf(evidence, sizeof(evidence),
					 "projected %lld MB of WAL before the next timed checkpoint; trigger is %lld MB",
					 MB_OF(d->projected_bytes), MB_OF(d->trigger_bytes));
		target = round_up_to_segment(target, seg);
		if (target < floor_mb)
			target = floor_mb;

		if (d->state.windows_since_change < cooldown)
		{
			bool		heavier_load = m->wal_forced_since_change > 0 &&
				target / COOLDOWN_OVERRIDE_FACTOR >= current;

			if (!heavier_load)
			{
				set_reason(d,
						 "%s; waiting for the cooldown before growing to %lld MB",
						 evidence, (long long) (target < cap ? target : cap));
				return;
			}
			/* say why the cooldown did not hold, in the evidence */
			snprintf(evidence + strlen(evidence),
					 sizeof(evidence) - strlen(evidence),
					 "; %lld forced by WAL since the last change and the load needs over %dx the size, so the cooldown is cut short",
					 (long long) m->wal_forced_since_change,
					 COOLDOWN_OVERRIDE_FACTOR);
		}
		if (target > cap)
		{
			d->warn = true;
			if (current >= cap)
			{
				if (d->state.cap_reported)
				{
					set_reason(d,
							 "%s; the load needs %lld MB, still capped at %lld MB",
							 evidence, (long long) target, (long long) cap);
					d->warn = false;
					return;
				}
				d->action = WALSIZER_ACTION_CAPPED;
			}
			else
				note_change(d, m, WALSIZER_ACTION_CAPPED, cap);
			d->state.cap_reported = 1;
			set_reason(d,
					 "%s; the load needs %lld MB but the cap (%s) is %lld MB",
					 evidence, (long long) target,
					 d->cap_source == WALSIZER_CAP_DISK ?
					 "disk" : "walsizer.max",
					 (long long) cap);
			return;
		}
		if (target > current)
		{
			double		sized_rate = rate;

			if (proactive && projected_needed > needed)
				sized_rate = m->recent_rate;
			note_change(d, m, WALSIZER_ACTION_GROW, target);
			d->state.provisional = proactive && !reactive;
			set_reason(d, "%s; %lld MB of WAL per checkpoint_timeout needs %lld MB",
					 evidence,
					 (long long) mb_for_reason(sized_rate *
											   sane_fraction(s->checkpoint_timeout_s, 300.0)),
					 (long long) target);
			return;
		}
	}
	if (needed <= cap)
		d->state.cap_reported = 0;

	/*
	 * 3. Settle a provisional size.  A projection sizes for the last few
	 * seconds, which early in a load are full of full-page images; once
	 * whole checkpoint cycles have been measured at the new size, come down
	 * to what they need if that is clearly less.  This is not a shrink: the
	 * load has not changed, the estimate has.
	 */
	if (m->window_end && d->state.provisional && m->peak_covers_cycle &&
		needed > 0)
	{
		int64_t		target = needed;

		/*
		 * At most halve, as a shrink does: if the load itself stopped just
		 * after the change, the slow shrink takes it from there.
		 */
		if (target < round_up_to_segment((current + 1) / 2, seg))
			target = round_up_to_segment((current + 1) / 2, seg);
		if (target < floor_mb)
			target = floor_mb;
		if (current > target + target / 5 &&
			d->state.windows_since_change >= cooldown)
		{
			note_change(d, m, WALSIZER_ACTION_SHRINK, target);
			d->state.provisional = 0;
			set_reason(d,
					 "settling: whole checkpoint cycles at %lld MB need %lld MB; the first size came from a few seconds of WAL",
					 (long long) current, (long long) needed);
			return;
		}
		if (current <= target + target / 5)
			d->state.provisional = 0;
	}

	/* 4. Shrink, slowly, once the load has long needed less than half. */
	if (m->window_end && s->shrink_after > 0)
	{
		/*
		 * The floor was clamped to the cap above; a shrink must still never
		 * go below the DBA's own value, even one above walsizer.max.
		 */
		int64_t		shrink_floor = floor_mb;

		if (s->min_mb <= 0 && s->baseline_mb > shrink_floor)
			shrink_floor = round_up_to_segment(s->baseline_mb, seg);

		if (needed * 2 < current && current > shrink_floor)
		{
			if (d->state.windows_below_half < COUNTER_LIMIT)
				d->state.windows_below_half++;
		}
		else
			d->state.windows_below_half = 0;

		if (d->state.windows_below_half >= s->shrink_after &&
			d->state.windows_since_change >= cooldown)
		{
			int64_t		target = round_up_to_segment((current + 1) / 2, seg);

			if (target < needed)
				target = needed;
			if (target < shrink_floor)
				target = shrink_floor;
			if (target < current)
			{
				note_change(d, m, WALSIZER_ACTION_SHRINK, target);
				set_reason(d,
						 "for %d windows the load needed at most %lld MB, under half of %lld MB",
						 s->shrink_after, (long long) (needed > 0 ? needed : 0),
						 (long long) current);
				return;
			}
		}
	}

	/* 5. Nothing to do; say why. */
	if (needed == 0)
		set_reason(d,
				 "no WAL load measured yet; max_wal_size %lld MB is kept",
				 (long long) current);
	else if (needed > current)
		set_reason(d,
				 "the peak rate would need %lld MB, but no checkpoint was forced and none is projected",
				 (long long) needed);
	else if (d->state.windows_below_half > 0)
		set_reason(d,
				 "the load needs %lld MB; %d of %d quiet windows before shrinking",
				 (long long) needed, d->state.windows_below_half,
				 s->shrink_after);
	else
		set_reason(d,
				 "the load needs %lld MB; max_wal_size %lld MB is enough",
				 (long long) needed, (long long) current);
}
