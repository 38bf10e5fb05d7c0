/*-------------------------------------------------------------------------
 *
 * fuzz_policy.c
 *		libFuzzer harness: the sizing policy's promises under any input.
 *
 * The input is a set of settings, an initial policy state and up to
 * MAX_STEPS measurements (samples and window ends, some cut short by
 * walsizer.check_now()).  Every field of WalsizerMeasurements comes from the
 * input; the recovery-time bound comes from a walsizer.max_recovery_time
 * and a replay rate in the input, through walsizer_recovery_cap_mb(), as
 * the worker derives it.  The harness calls walsizer_decide() for each,
 * carrying the state and applying size changes as the worker does (the DBA
 * may set max_wal_size between steps, which the worker adopts as the
 * baseline; the bound may change, for a new max_recovery_time or a slower
 * replay measured), and aborts on the first broken promise:
 *
 *	- the reason is a terminated string;
 *	- the cap is the lowest of walsizer.max, the disk's share and the
 *	  recovery-time bound, named for it (on a tie, walsizer.max, then the
 *	  disk), and the floor walsizer.min, or the DBA's value when that is not
 *	  set: in whole segments (the cap rounded down, the floor up), at least
 *	  two, and the floor never above the cap; 0 <= needed <= SIZE_LIMIT_MB;
 *	- a changed size is a whole number of segments within [0, limit];
 *	- a changed size is never above the recovery-time bound (in whole
 *	  segments, at least two), unless it is at most the DBA's own value;
 *	  and a size above the bound and above the DBA's value, with the bound
 *	  as the cap, comes down at once, at any decision;
 *	- GROW moves up to a size in [floor, cap]; CAPPED moves up to the cap or
 *	  stays; PROTECT moves down, only when the disk's share is below the old
 *	  size, to the cap, or when the cap is the recovery-time bound to no
 *	  lower than the DBA's value if the disk's share and walsizer.max allow;
 *	- the DBA's value is kept: a SHRINK never goes below the DBA's own
 *	  max_wal_size (the baseline, rounded up to a segment), even one above
 *	  walsizer.max, unless walsizer.min is set, and then never below the
 *	  floor.  Only PROTECT, for the disk, may go lower;
 *	- SHRINK moves down, never below the floor, and then either
 *	  . walsizer.max was lowered below a size above the DBA's own: exactly
 *		to the cap, or to the DBA's size when that is above the cap;
 *	  . or, after the cooldown and at a window end, for a quiet load: after
 *		walsizer.shrink_after quiet windows (the load needing under half the
 *		size; a window check_now() cut short does not count), by at most
 *		half and never below what the load needs;
 *	  . or, after the cooldown and at a window end, to settle a provisional
 *		size once two whole timed cycles were measured at it, none forced,
 *		and the peak covers a cycle: to at least what those cycles need,
 *		from more than 20 % above it.
 *	  Only a server running the DBA's own size above walsizer.max may
 *	  shrink to a size above the cap;
 *	- GROW and CAPPED need evidence: a window end with at least
 *	  max(threshold, 1) WAL-forced checkpoints making at least ratio of all
 *	  its checkpoints (counters not reset), or, with a valid recent rate, the
 *	  WAL after the redo pointer expected to reach, within the lookahead,
 *	  the earliest point the trigger can force a checkpoint (imminent).  A
 *	  growth for an imminent checkpoint at least doubles the size until
 *	  whole timed cycles were measured, and then reaches at least what they
 *	  need.  A growth that changes the size is provisional.
 *	  During the cooldown a size grows only for an imminent checkpoint at
 *	  walsizer's own size or with checkpoints forced since the last change;
 *	- the end of a window whose checkpoint counters were reset grows only
 *	  for an imminent checkpoint (it still settles and shrinks);
 *	- a window check_now() cut short adds to neither the cooldown count nor
 *	  the quiet-window count;
 *	- the cooldown state stays >= -1 and the shrink count >= 0.
 *
 * The recovery-time helpers keep their ranges: a bound in [0, limit], 0
 * only without a positive time and rate; an estimate >= 0 and at most the
 * size over the rate; the conservative rate one of the valid rates given.
 *
 * The what-if table (what_if.c), built at the end from the settings, the
 * last measurement as a load and sizes the input asks for, keeps its
 * promises too: at most WALSIZER_WHAT_IF_MAX_ROWS rows, by size, each once,
 * every figure a finite number >= 0; checkpoints forced exactly when the
 * model's checkpoint_timeout of WAL passes the size's trigger, and then
 * every one of them; a larger size never more WAL, checkpoints or forced
 * checkpoints per hour, never a shorter recovery, and never a recovery
 * longer than its size at the rate; a size above the cap not allowed, and
 * a row not allowed exactly when it says why.  The working set a cycle's
 * images show (walsizer_working_set_from_images()) is none or at least
 * what the cycle logged, and feeds the table half the time.
 *
 * Sanitizers (address, undefined) catch what the checks cannot.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>

#include "policy.h"
#include "size_units.h"
#include "what_if.h"
#include "fuzz_input.h"

#define MAX_STEPS 64

/*
 * Documented numbers the promises use (docs/sizing.md, "Settle"): whole timed
 * cycles measured at a grown size before it settles, and the margin (one
 * fifth, 20 %) above what they need that a settle comes down from.
 */
#define SETTLE_TIMED_CYCLES 2
#define SETTLE_MARGIN_DIVISOR 5

/* checkpoint_timeout as the policy reads it: PostgreSQL's default if bogus */
#define DEFAULT_CHECKPOINT_TIMEOUT_S 300.0

static void
violated(const char *promise, const WalsizerSettings *s,
		 const WalsizerMeasurements *m, const WalsizerDecision *d)
{
	fprintf(stderr,
			"broken promise: %s\n"
			"  action %s, old %lld, new %lld, cap %lld (%s), floor %lld, needed %lld\n"
			"  current %lld, max %lld, min %lld, baseline %lld, disk %lld, recovery %lld, segment %lld B\n"
			"  window_end %d, reset %d, forced %lld of %lld+%lld, recent %d %g, peak %g\n"
			"  trigger %llu, projected %llu, reach %llu, since redo %llu\n"
			"  ours %d, timed cycles %lld (peak %llu), forced at size %lld, since change %lld\n"
			"  provisional %d, windows since change %d\n  reason: %s\n",
			promise, walsizer_action_name(d->action),
			(long long) d->old_mb, (long long) d->new_mb,
			(long long) d->cap_mb,
			d->cap_source == WALSIZER_CAP_DISK ? "disk" :
			d->cap_source == WALSIZER_CAP_RECOVERY_TIME ? "recovery_time" :
			d->cap_source == WALSIZER_CAP_SETTING ? "setting" : "unknown",
			(long long) d->floor_mb, (long long) d->needed_mb,
			(long long) s->current_mb, (long long) s->max_mb,
			(long long) s->min_mb, (long long) s->baseline_mb,
			(long long) s->disk_cap_mb, (long long) s->recovery_cap_mb,
			(long long) s->segment_bytes,
			m->window_end, m->counters_reset, (long long) m->wal_forced,
			(long long) m->timed, (long long) m->requested,
			m->recent_rate_valid, m->recent_rate, m->peak_rate,
			(unsigned long long) d->trigger_bytes,
			(unsigned long long) d->projected_bytes,
			(unsigned long long) m->reach_bytes,
			(unsigned long long) m->wal_since_redo_bytes,
			m->size_is_walsizers, (long long) m->timed_cycles_at_size,
			(unsigned long long) m->timed_cycle_peak_bytes,
			(long long) m->wal_forced_at_size,
			(long long) m->wal_forced_since_change,
			d->state.provisional, d->state.windows_since_change, d->reason);
	abort();
}

#define PROMISE(cond) \
	do { if (!(cond)) violated(#cond, s, m, d); } while (0)

static int64_t
segment_mb_of(const WalsizerSettings *s)
{
	int64_t		mb = s->segment_bytes / BYTES_PER_MB;

	return mb < 1 ? 1 : mb;
}

static int64_t
round_up(int64_t mb, int64_t seg)
{
	int64_t		rounded;

	if (mb < 0)
		mb = 0;
	if (mb > SIZE_LIMIT_MB)
		mb = SIZE_LIMIT_MB;
	rounded = (mb + seg - 1) / seg * seg;
	return rounded > SIZE_LIMIT_MB ? SIZE_LIMIT_MB / seg * seg : rounded;
}

static int64_t
round_down(int64_t mb, int64_t seg)
{
	if (mb < 0)
		mb = 0;
	if (mb > SIZE_LIMIT_MB)
		mb = SIZE_LIMIT_MB;
	return mb / seg * seg;
}

/* A limit as a cap: rounded down to a segment, at least two of them. */
static int64_t
as_cap(int64_t limit_mb, int64_t seg)
{
	int64_t		cap = round_down(limit_mb, seg);

	return cap < 2 * seg ? 2 * seg : cap;
}

/*
 * The cap: the lowest of walsizer.max, the disk's share when known and the
 * recovery-time bound when set, and where it comes from (on a tie the
 * first of them); as_cap() of it.  *without_recovery: the same without the
 * recovery-time bound.
 */
static int64_t
expected_cap(const WalsizerSettings *s, int64_t seg,
			 WalsizerCapSource *source, int64_t *without_recovery)
{
	int64_t		cap = s->max_mb;

	*source = WALSIZER_CAP_SETTING;
	if (s->disk_cap_mb > 0 && s->disk_cap_mb < cap)
	{
		cap = s->disk_cap_mb;
		*source = WALSIZER_CAP_DISK;
	}
	*without_recovery = as_cap(cap, seg);
	if (s->recovery_cap_mb > 0 && s->recovery_cap_mb < cap)
	{
		cap = s->recovery_cap_mb;
		*source = WALSIZER_CAP_RECOVERY_TIME;
	}
	return as_cap(cap, seg);
}

/*
 * Where PROTECT goes: the cap; when that is the recovery-time bound, no
 * lower than the DBA's value (rounded up to a segment) for it, while the
 * disk's share and walsizer.max allow.
 */
static int64_t
protect_target(const WalsizerSettings *s, const WalsizerDecision *d,
			   int64_t without_recovery, int64_t seg)
{
	int64_t		dba_mb = round_up(s->baseline_mb, seg);

	if (d->cap_source != WALSIZER_CAP_RECOVERY_TIME || dba_mb <= d->cap_mb)
		return d->cap_mb;
	return dba_mb < without_recovery ? dba_mb : without_recovery;
}

/*
 * The floor: walsizer.min, or when that is not set the DBA's value,
 * rounded up to a segment, at least two, and never above the cap.
 */
static int64_t
expected_floor(const WalsizerSettings *s, int64_t cap_mb, int64_t seg)
{
	int64_t		floor_mb = round_up(s->min_mb > 0 ? s->min_mb : s->baseline_mb,
									seg);

	if (floor_mb < 2 * seg)
		floor_mb = 2 * seg;
	return floor_mb > cap_mb ? cap_mb : floor_mb;
}

/*
 * The lowest size a SHRINK may reach: the floor, and when walsizer.min is
 * not set, never below the DBA's own value (rounded up to a segment), even
 * one above the cap.
 */
static int64_t
shrink_floor(const WalsizerSettings *s, const WalsizerDecision *d, int64_t seg)
{
	int64_t		dba_mb = round_up(s->baseline_mb, seg);

	if (s->min_mb <= 0 && dba_mb > d->floor_mb)
		return dba_mb;
	return d->floor_mb;
}

/*
 * walsizer.max was lowered below a size above the DBA's own: the size a
 * SHRINK then comes down to (the cap, or the DBA's value when that is above
 * the cap), or -1 when that rule does not apply.
 */
static int64_t
lowered_max_target(const WalsizerSettings *s, const WalsizerDecision *d,
				   int64_t seg)
{
	int64_t		target;

	if (d->old_mb <= d->cap_mb || d->old_mb <= s->baseline_mb)
		return -1;
	target = s->baseline_mb > d->cap_mb ? round_up(s->baseline_mb, seg) :
		d->cap_mb;
	return target < d->old_mb ? target : -1;
}

/*
 * May this SHRINK be a slow shrink for a quiet load?  The window just
 * ended is quiet (the load needs under half the size) and completes
 * walsizer.shrink_after quiet windows (one check_now() cut short does not
 * add to them); the size at most halves and stays above the need.
 */
static bool
quiet_shrink_allowed(const WalsizerSettings *s, const WalsizerMeasurements *m,
					 const WalsizerPolicyState *before,
					 const WalsizerDecision *d, int64_t seg)
{
	int64_t		quiet_windows = (int64_t) before->windows_below_half +
		(m->window_ended_early ? 0 : 1);

	return s->shrink_after > 0 && quiet_windows >= s->shrink_after &&
		d->needed_mb * 2 < d->old_mb &&
		d->new_mb >= round_up((d->old_mb + 1) / 2, seg) &&
		d->new_mb >= d->needed_mb;
}

/*
 * May this SHRINK settle a provisional size?  Whole timed cycles measured
 * at the size, none forced there, and a peak over whole cycles; it lands
 * at or above what those cycles need, from more than the margin above.
 */
static bool
settle_allowed(const WalsizerSettings *s, const WalsizerMeasurements *m,
			   const WalsizerPolicyState *before, const WalsizerDecision *d)
{
	double		timeout_s = s->checkpoint_timeout_s;
	double		cycle_rate;
	int64_t		cycles_need_mb;

	if (!before->provisional || m->timed_cycles_at_size < SETTLE_TIMED_CYCLES ||
		m->timed_cycle_peak_bytes_at_size == 0 || m->wal_forced_at_size > 0 ||
		!m->peak_covers_cycle)
		return false;
	if (!isfinite(timeout_s) || timeout_s < 0)
		timeout_s = DEFAULT_CHECKPOINT_TIMEOUT_S;
	cycle_rate = (double) m->timed_cycle_peak_bytes_at_size / timeout_s;
	cycles_need_mb = walsizer_needed_mb(cycle_rate, s);
	return cycles_need_mb > 0 && d->new_mb >= cycles_need_mb &&
		d->old_mb > d->new_mb + d->new_mb / SETTLE_MARGIN_DIVISOR;
}

/*
 * May a provisional size settle up?  Only at a window end, after the
 * cooldown, once enough whole timed cycles were measured at it with none
 * forced, to what those cycles need (or the cap, if lower) and no more.
 */
static bool
settle_up_allowed(const WalsizerSettings *s, const WalsizerMeasurements *m,
				  const WalsizerPolicyState *before, const WalsizerDecision *d)
{
	double		timeout_s = s->checkpoint_timeout_s;
	int64_t		cycles_need_mb;

	if (!m->window_end || !before->provisional ||
		m->timed_cycles_at_size < SETTLE_TIMED_CYCLES ||
		m->timed_cycle_peak_bytes_at_size == 0 || m->wal_forced_at_size > 0 ||
		!m->peak_covers_cycle)
		return false;
	if (!isfinite(timeout_s) || timeout_s < 0)
		timeout_s = DEFAULT_CHECKPOINT_TIMEOUT_S;
	cycles_need_mb = walsizer_needed_mb((double) m->timed_cycle_peak_bytes_at_size /
										timeout_s, s);
	return cycles_need_mb > d->old_mb && d->new_mb <= d->cap_mb &&
		d->new_mb > d->old_mb && d->new_mb >= (cycles_need_mb < d->cap_mb ?
											   cycles_need_mb : d->cap_mb);
}

/*
 * Is the next checkpoint imminent, judged from the inputs alone?  The WAL
 * after the redo pointer is expected to reach, within the lookahead, the
 * earliest point the trigger can force one: the trigger less a segment
 * (the redo pointer may be at the end of its segment).  WAL already past
 * that point forces one only at the end of a segment, so then a segment's
 * worth must be expected within the lookahead.
 */
static bool
imminent_evidence(const WalsizerSettings *s, const WalsizerMeasurements *m,
				  int64_t current_mb)
{
	uint64_t	trigger = walsizer_trigger_bytes(current_mb, s->segment_bytes,
												 s->completion_target);
	uint64_t	segment = (uint64_t) segment_mb_of(s) * BYTES_PER_MB;
	uint64_t	earliest = trigger > segment ? trigger - segment : 0;

	if (!m->recent_rate_valid || m->reach_bytes < earliest)
		return false;
	return m->wal_since_redo_bytes < earliest ||
		m->reach_bytes - m->wal_since_redo_bytes >= segment;
}

/* Was there evidence for growth, judged from the inputs alone? */
static bool
growth_evidence(const WalsizerSettings *s, const WalsizerMeasurements *m,
				int64_t current_mb)
{
	int64_t		threshold = s->threshold < 1 ? 1 : s->threshold;
	int64_t		checkpoints = m->timed + m->requested;
	bool		reactive;

	reactive = m->window_end && !m->counters_reset &&
		m->wal_forced >= threshold && checkpoints > 0 &&
		(double) m->wal_forced / (double) checkpoints >= s->ratio;
	return reactive || imminent_evidence(s, m, current_mb);
}

/*
 * Is this decision within the cooldown of the last change?  The policy
 * counts the window end first, up to the limit a fresh state starts at;
 * a window check_now() cut short does not count.
 */
static bool
in_cooldown(const WalsizerSettings *s, const WalsizerMeasurements *m,
			const WalsizerPolicyState *before)
{
	WalsizerPolicyState fresh;
	int64_t		since = before->windows_since_change;
	int64_t		cooldown = s->cooldown < 1 ? 1 : s->cooldown;

	walsizer_policy_init_state(&fresh);
	if (m->window_end && !m->window_ended_early &&
		since < fresh.windows_since_change)
		since++;
	return since < cooldown;
}

static void
check_decision(const WalsizerSettings *s, const WalsizerMeasurements *m,
			   const WalsizerPolicyState *before, const WalsizerDecision *d)
{
	int64_t		seg = segment_mb_of(s);
	bool		changed = d->new_mb != d->old_mb;
	int64_t		lowered = lowered_max_target(s, d, seg);
	int64_t		dba_mb = round_up(s->baseline_mb, seg);
	WalsizerCapSource source;
	int64_t		without_recovery;
	int64_t		cap = expected_cap(s, seg, &source, &without_recovery);

	PROMISE(memchr(d->reason, '\0', sizeof(d->reason)) != NULL);
	PROMISE(d->old_mb >= 0 && d->old_mb <= SIZE_LIMIT_MB);
	PROMISE(d->cap_mb <= SIZE_LIMIT_MB && d->cap_mb % seg == 0);
	PROMISE(d->floor_mb >= 2 * seg && d->floor_mb <= d->cap_mb);
	PROMISE(d->floor_mb % seg == 0);
	PROMISE(d->cap_mb == cap);
	PROMISE(d->cap_source == source);
	PROMISE(d->floor_mb == expected_floor(s, d->cap_mb, seg));
	PROMISE(d->needed_mb >= 0 && d->needed_mb <= SIZE_LIMIT_MB);
	PROMISE(d->state.windows_since_change >= -1);
	PROMISE(d->state.windows_below_half >= 0);
	PROMISE(d->state.cap_reported == 0 || d->state.cap_reported == 1);

	if (changed)
	{
		PROMISE(walsizer_changes_size(d->action));
		PROMISE(d->new_mb >= 0 && d->new_mb <= SIZE_LIMIT_MB);
		PROMISE(d->new_mb % seg == 0);
		/* the recovery-time bound, up to the DBA's own value */
		PROMISE(s->recovery_cap_mb <= 0 ||
				d->new_mb <= as_cap(s->recovery_cap_mb, seg) ||
				d->new_mb <= dba_mb);
	}

	/* a size walsizer set above the recovery-time bound comes down at once */
	if (d->cap_source == WALSIZER_CAP_RECOVERY_TIME &&
		d->old_mb > d->cap_mb && d->old_mb > s->baseline_mb &&
		d->old_mb > dba_mb)
	{
		PROMISE(d->action == WALSIZER_ACTION_SHRINK ||
				d->action == WALSIZER_ACTION_PROTECT);
		PROMISE(d->new_mb < d->old_mb);
		PROMISE(d->new_mb == d->cap_mb || d->new_mb <= dba_mb);
	}

	/*
	 * a window whose checkpoint counters were reset cannot count forced
	 * checkpoints: it grows only for an imminent one, or settles up to
	 * whole timed cycles (redo pointer moves, which no reset touches)
	 */
	if (m->window_end && m->counters_reset && d->new_mb > d->old_mb)
		PROMISE(imminent_evidence(s, m, d->old_mb) ||
				settle_up_allowed(s, m, before, d));

	/* a window check_now() cut short is not a window's worth of time */
	if (m->window_ended_early)
	{
		PROMISE(d->state.windows_below_half <= before->windows_below_half);
		PROMISE(d->state.windows_since_change <= before->windows_since_change ||
				(changed && d->state.windows_since_change == 0));
	}

	switch (d->action)
	{
		case WALSIZER_ACTION_NONE:
			PROMISE(!changed);
			break;
		case WALSIZER_ACTION_PROTECT:
			/* the disk is too small for the current size: down to the cap */
			PROMISE(s->disk_cap_mb > 0);
			PROMISE(d->old_mb > round_down(s->disk_cap_mb, seg));
			PROMISE(d->new_mb == protect_target(s, d, without_recovery, seg));
			PROMISE(d->new_mb < d->old_mb);
			break;
		case WALSIZER_ACTION_SHRINK:
			PROMISE(d->new_mb < d->old_mb);
			PROMISE(d->new_mb >= d->floor_mb);
			/* never below the DBA's value, unless walsizer.min allows it */
			PROMISE(d->new_mb >= shrink_floor(s, d, seg));
			if (lowered >= 0)
			{
				/* walsizer.max lowered: exactly to the cap or the DBA's size */
				PROMISE(d->new_mb == lowered);
				break;
			}
			/* a quiet-load shrink or a settle: after the cooldown */
			PROMISE(m->window_end);
			PROMISE(!in_cooldown(s, m, before));
			PROMISE(quiet_shrink_allowed(s, m, before, d, seg) ||
					settle_allowed(s, m, before, d));
			/* above the cap only from the DBA's own size above walsizer.max */
			PROMISE(d->new_mb <= d->cap_mb || d->old_mb > d->cap_mb);
			break;
		case WALSIZER_ACTION_GROW:
			PROMISE(d->new_mb > d->old_mb);
			PROMISE(d->new_mb >= d->floor_mb && d->new_mb <= d->cap_mb);
			if (d->state.provisional == 0)
			{
				/* a settle up to what whole cycles at the size need */
				PROMISE(settle_up_allowed(s, m, before, d));
				PROMISE(!in_cooldown(s, m, before));
				break;
			}
			PROMISE(growth_evidence(s, m, d->old_mb));
			PROMISE(!imminent_evidence(s, m, d->old_mb) ||
					m->timed_cycle_peak_bytes > 0 ||
					d->new_mb >= d->old_mb + d->old_mb / 2);
			PROMISE(!imminent_evidence(s, m, d->old_mb) ||
					m->timed_cycle_peak_bytes == 0 ||
					d->new_mb >= d->needed_mb);
			PROMISE(!in_cooldown(s, m, before) ||
					(imminent_evidence(s, m, d->old_mb) && m->size_is_walsizers) ||
					m->wal_forced_since_change > 0);
			break;
		case WALSIZER_ACTION_CAPPED:
			PROMISE(d->new_mb == d->old_mb || d->new_mb == d->cap_mb);
			PROMISE(d->new_mb >= d->old_mb);
			/* a growth to the cap may leave the warning for later */
			PROMISE(d->state.cap_reported == 1 || (changed && !d->warn));
			PROMISE(!d->warn || d->state.cap_reported == 1);
			PROMISE(growth_evidence(s, m, d->old_mb));
			PROMISE(!changed || d->state.provisional == 1);
			PROMISE(!changed || !in_cooldown(s, m, before) ||
					(imminent_evidence(s, m, d->old_mb) && m->size_is_walsizers) ||
					m->wal_forced_since_change > 0);
			break;
		default:
			PROMISE(!"the policy returned an action only the worker may use");
	}
}

/*
 * The recovery-time bound as the worker derives it: walsizer.max_recovery_time
 * in seconds and the replay rate in use (fuzz_double()'s rate mode gives
 * MB/s), checking the helpers on the way.
 */
static int64_t
read_recovery_cap(FuzzInput *in)
{
	double		max_recovery_s = fuzz_double(in);
	double		replay_rate = fuzz_double(in);
	double		rates[3];
	int64_t		cap_mb;
	double		estimate_s;
	uint64_t	seen_bytes;
	double		conservative;

	cap_mb = walsizer_recovery_cap_mb(max_recovery_s, replay_rate);
	if (cap_mb < 0 || cap_mb > SIZE_LIMIT_MB)
		abort();
	if ((cap_mb == 0) !=
		!(isfinite(max_recovery_s) && max_recovery_s > 0 &&
		  isfinite(replay_rate) && replay_rate > 0))
		abort();

	/*
	 * An estimate is never negative, never more than the size or the WAL
	 * seen pending (whichever is more) over the rate, and never less than
	 * the WAL seen pending over the rate.
	 */
	seen_bytes = (uint64_t) cap_mb << (cap_mb % 2 ? 21 : 19);
	estimate_s = walsizer_estimated_recovery_s(cap_mb, max_recovery_s,
											   (uint64_t) cap_mb << 10,
											   seen_bytes, replay_rate);
	if (!(estimate_s >= 0))
		abort();
	if (isfinite(replay_rate) && replay_rate > 0)
	{
		double		most = (double) cap_mb * BYTES_PER_MB;

		if ((double) seen_bytes > most)
			most = (double) seen_bytes;
		if (estimate_s > most / replay_rate * (1 + 1e-12) ||
			estimate_s < (double) seen_bytes / replay_rate * (1 - 1e-12))
			abort();
	}

	/* the conservative rate is a share of the slowest valid one */
	rates[0] = replay_rate;
	rates[1] = max_recovery_s;
	rates[2] = (double) cap_mb;
	conservative = walsizer_conservative_replay_rate(rates, 3);
	for (int i = 0; i < 3; i++)
		if (isfinite(rates[i]) && rates[i] > 0 &&
			conservative > 0.8 * rates[i] * (1 + 1e-12))
			abort();
	if (conservative != 0 && conservative != 0.8 * rates[0] &&
		conservative != 0.8 * rates[1] && conservative != 0.8 * rates[2])
		abort();
	return cap_mb;
}

static void
read_settings(FuzzInput *in, WalsizerSettings *s)
{
	static const int64_t segment_bytes[] = {
		1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20,
		128 << 20, 256 << 20, 512 << 20, 1 << 30, 0, 8192, -1
	};

	memset(s, 0, sizeof(*s));
	s->segment_bytes = segment_bytes[fuzz_byte(in) %
									 (sizeof(segment_bytes) / sizeof(segment_bytes[0]))];
	s->current_mb = fuzz_int(in);
	s->checkpoint_timeout_s = fuzz_double(in);
	s->completion_target = fuzz_double(in);
	s->threshold = fuzz_int32(in);
	s->ratio = fuzz_double(in);
	s->headroom = fuzz_double(in);
	s->max_mb = fuzz_int(in);
	s->min_mb = fuzz_int(in);
	s->baseline_mb = fuzz_int(in);
	s->disk_cap_mb = fuzz_int(in);
	s->shrink_after = fuzz_int32(in);
	s->cooldown = fuzz_int32(in);
	s->sample_interval_s = fuzz_double(in);
	s->recovery_cap_mb = read_recovery_cap(in);
}

static void
read_measurements(FuzzInput *in, WalsizerMeasurements *m)
{
	uint8_t		flags = fuzz_byte(in);

	memset(m, 0, sizeof(*m));
	m->window_end = flags & 1;
	m->counters_reset = (flags & 2) != 0;
	m->recent_rate_valid = (flags & 4) != 0;
	m->size_is_walsizers = (flags & 8) != 0;
	m->peak_covers_cycle = (flags & 16) != 0;
	/* the worker ends a window early only for check_now(), at a window end */
	m->window_ended_early = m->window_end && (flags & 32) != 0;
	/* flags 64 and 128 are no longer read (see the end) */
	m->window_s = fuzz_double(in);
	/* the worker's counts are differences of int64 counters: int32 here */
	m->timed = fuzz_int32(in);
	m->requested = fuzz_int32(in);
	m->wal_forced = fuzz_int32(in);
	m->wal_bytes = (uint64_t) fuzz_int(in);
	m->wal_since_redo_bytes = (uint64_t) fuzz_int(in);
	m->recent_rate = fuzz_double(in);
	m->peak_rate = fuzz_double(in);
	m->seconds_to_timed_checkpoint = fuzz_double(in);
	m->wal_forced_since_change = fuzz_int32(in);
	m->reach_bytes = (uint64_t) fuzz_int(in);
	m->reach_within_s = fuzz_double(in);
	m->recent_record_rate = fuzz_double(in);
	m->timed_cycles_at_size = fuzz_int32(in);
	m->timed_cycle_peak_bytes_at_size = (uint64_t) fuzz_int(in);
	m->wal_forced_at_size = fuzz_int32(in);
	m->peak_reach_bytes_at_size = (uint64_t) fuzz_int(in);
	m->timed_cycle_peak_bytes = (uint64_t) fuzz_int(in);

	/*
	 * The last cycle's seconds, bytes and image bytes (and flags 64 and
	 * 128) were fields of the measurements that only status() showed; they
	 * are no longer the policy's input.  Still consumed, so that every
	 * input of the seed corpus keeps its meaning.
	 */
	(void) fuzz_double(in);
	(void) fuzz_int(in);
	(void) fuzz_int(in);
}

/* relative slack for comparing figures computed through pow() and bisection */
#define WHAT_IF_SLACK 1e-9

static void
what_if_violated(const char *promise, const WalsizerWhatIfInput *in,
				 const WalsizerWhatIf *w, int row)
{
	fprintf(stderr,
			"broken what-if promise: %s (row %d of %d)\n"
			"  load %g B/s, %g B per %g s cycle, working set %g B\n"
			"  segment %lld B, timeout %g s, target %g, rate %g, cap %lld, room %lld, current %lld, recommended %lld\n",
			promise, row, w->count, in->load.record_bytes_s,
			in->load.fpi_bytes_per_cycle, in->load.cycle_s,
			in->load.working_set_bytes, (long long) in->segment_bytes,
			in->checkpoint_timeout_s, in->completion_target,
			in->replay_bytes_per_s, (long long) in->cap_mb,
			(long long) in->wal_room_mb, (long long) in->current_mb,
			(long long) in->recommended_mb);
	for (int i = 0; i < w->count; i++)
		fprintf(stderr, "  %lld MB: cycle %g s, %g/h (%g forced), %g MB/h, %g s, peak %lld MB, %s%s\n",
				(long long) w->rows[i].size_mb, w->rows[i].cycle_s,
				w->rows[i].checkpoints_per_hour, w->rows[i].forced_per_hour,
				w->rows[i].wal_mb_per_hour, w->rows[i].recovery_s,
				(long long) w->rows[i].peak_pg_wal_mb,
				w->rows[i].allowed ? "allowed" : "not allowed: ",
				w->rows[i].why_not);
	abort();
}

#define WHAT_IF_PROMISE(cond, row) \
	do { if (!(cond)) what_if_violated(#cond, &in, &w, row); } while (0)

static bool
not_more(double later, double earlier)
{
	return later <= earlier * (1 + WHAT_IF_SLACK) + WHAT_IF_SLACK;
}

/*
 * The what-if table for the settings and the last measurement taken as a
 * load (its record rate, its WAL as one cycle's images over its window,
 * the WAL after the redo pointer as the working set), with sizes the rest
 * of the input asks for.
 */
static void
check_what_if(FuzzInput *input, const WalsizerSettings *s,
			  const WalsizerMeasurements *m)
{
	WalsizerWhatIfInput in;
	WalsizerWhatIf w;
	int64_t		asked[WALSIZER_WHAT_IF_MAX_ASKED + 2];
	double		timeout_s;

	memset(&in, 0, sizeof(in));
	in.load.record_bytes_s = m->recent_record_rate;
	in.load.fpi_bytes_per_cycle = (double) m->wal_bytes;
	in.load.cycle_s = m->window_s;
	in.load.working_set_bytes = (double) m->wal_since_redo_bytes;
	memset(&w, 0, sizeof(w));
	if (fuzz_flag(input))
	{
		/* the working set as the server has it: from a cycle's images */
		double		cycle_fpi = (double) m->wal_bytes;
		double		mid_s = m->window_s * fuzz_byte(input) / 255.0;
		double		mid_fpi = cycle_fpi * fuzz_byte(input) / 255.0;
		double		set = walsizer_working_set_from_images(mid_s, mid_fpi,
														   m->window_s, cycle_fpi);

		WHAT_IF_PROMISE(set == 0 || (isfinite(set) &&
									 set >= cycle_fpi * (1 - WHAT_IF_SLACK)), -1);
		in.load.working_set_bytes = set;
	}
	in.segment_bytes = s->segment_bytes;
	in.checkpoint_timeout_s = s->checkpoint_timeout_s;
	in.completion_target = s->completion_target;
	in.replay_bytes_per_s = m->recent_rate;
	in.replay_rate_source = fuzz_flag(input) ? "measured" : NULL;
	in.cap_mb = s->max_mb;
	in.cap_source = (WalsizerCapSource) (fuzz_byte(input) % 4);
	in.wal_room_mb = s->disk_cap_mb;
	in.current_mb = s->current_mb;
	in.recommended_mb = s->baseline_mb;
	in.asked_count = fuzz_byte(input) % (WALSIZER_WHAT_IF_MAX_ASKED + 3);
	for (int i = 0; i < in.asked_count; i++)
		asked[i] = fuzz_int(input);
	in.asked_mb = asked;
	walsizer_what_if(&in, &w);

	/* as the table reads it: PostgreSQL's default below a second */
	timeout_s = isfinite(s->checkpoint_timeout_s) && s->checkpoint_timeout_s >= 1 ?
		s->checkpoint_timeout_s : DEFAULT_CHECKPOINT_TIMEOUT_S;
	WHAT_IF_PROMISE(w.count >= 0 && w.count <= WALSIZER_WHAT_IF_MAX_ROWS, -1);
	WHAT_IF_PROMISE(strlen(w.basis) < sizeof(w.basis), -1);
	WHAT_IF_PROMISE(isfinite(w.timed_cycle_bytes) && w.timed_cycle_bytes >= 0, -1);
	for (int i = 0; i < w.count; i++)
	{
		const WalsizerWhatIfRow *r = &w.rows[i];
		double		trigger = (double) walsizer_trigger_bytes(r->size_mb,
															  s->segment_bytes,
															  s->completion_target);

		WHAT_IF_PROMISE(r->size_mb > 0 && r->size_mb <= SIZE_LIMIT_MB, i);
		WHAT_IF_PROMISE(r->kinds != 0 && (r->kinds & ~0x0fu) == 0, i);
		WHAT_IF_PROMISE(i == 0 || w.rows[i - 1].size_mb < r->size_mb, i);
		WHAT_IF_PROMISE(isfinite(r->cycle_s) && r->cycle_s > 0 &&
						r->cycle_s <= timeout_s, i);
		WHAT_IF_PROMISE(isfinite(r->checkpoints_per_hour) &&
						r->checkpoints_per_hour > 0, i);
		WHAT_IF_PROMISE(r->forced_per_hour == 0 ||
						r->forced_per_hour == r->checkpoints_per_hour, i);
		WHAT_IF_PROMISE((r->forced_per_hour > 0) ==
						(w.timed_cycle_bytes > trigger), i);
		WHAT_IF_PROMISE(isfinite(r->wal_mb_per_hour) && r->wal_mb_per_hour >= 0, i);
		WHAT_IF_PROMISE(isfinite(r->recovery_s) && r->recovery_s >= 0, i);
		WHAT_IF_PROMISE(r->recovery_known ==
						(isfinite(in.replay_bytes_per_s) && in.replay_bytes_per_s >= 1), i);
		WHAT_IF_PROMISE(r->recovery_known || r->recovery_s == 0, i);
		WHAT_IF_PROMISE(!r->recovery_known ||
						r->recovery_s <= (double) r->size_mb * BYTES_PER_MB /
						in.replay_bytes_per_s * (1 + 1e-12), i);
		WHAT_IF_PROMISE(r->peak_pg_wal_mb > 0 && r->peak_pg_wal_mb <= SIZE_LIMIT_MB, i);
		WHAT_IF_PROMISE(r->allowed == (r->why_not[0] == '\0'), i);
		WHAT_IF_PROMISE(!(in.cap_mb > 0 && r->size_mb > in.cap_mb) ||
						(!r->allowed && strstr(r->why_not, "above the cap") != NULL), i);
		if (i > 0)
		{
			const WalsizerWhatIfRow *p = &w.rows[i - 1];

			WHAT_IF_PROMISE(not_more(r->wal_mb_per_hour, p->wal_mb_per_hour), i);
			WHAT_IF_PROMISE(not_more(r->checkpoints_per_hour, p->checkpoints_per_hour), i);
			WHAT_IF_PROMISE(not_more(r->forced_per_hour, p->forced_per_hour), i);
			WHAT_IF_PROMISE(not_more(p->recovery_s, r->recovery_s), i);
		}
	}
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzInput	input = {data, size, 0};
	WalsizerSettings settings;
	WalsizerPolicyState state;
	int			steps;
	WalsizerMeasurements last;

	read_settings(&input, &settings);
	memset(&last, 0, sizeof(last));

	/* a fresh state, or any state the state file can hold */
	walsizer_policy_init_state(&state);
	if (fuzz_flag(&input))
	{
		int32_t		since = fuzz_int32(&input);
		int32_t		below = fuzz_int32(&input);

		state.windows_since_change = since < -1 ? -1 : since;
		state.windows_below_half = below < 0 ? 0 : below;
		state.cap_reported = fuzz_flag(&input);
		state.provisional = fuzz_flag(&input);
	}

	steps = 1 + fuzz_byte(&input) % MAX_STEPS;
	for (int i = 0; i < steps; i++)
	{
		WalsizerMeasurements m;
		WalsizerDecision d;
		WalsizerDecision again;
		uint8_t		change = fuzz_byte(&input);

		/* now and then the DBA or the disk moves a limit */
		if (change & 1)
			settings.max_mb = fuzz_int(&input);
		if (change & 2)
			settings.disk_cap_mb = fuzz_int(&input);
		if (change & 4)
			settings.min_mb = fuzz_int(&input);
		/*
		 * or the DBA sets max_wal_size, which the worker adopts as the
		 * baseline; the policy state carries on (a provisional size too)
		 */
		if (change & 8)
			settings.baseline_mb = settings.current_mb = fuzz_int(&input);
		/* a new walsizer.max_recovery_time, or a slower replay measured */
		if (change & 16)
			settings.recovery_cap_mb = read_recovery_cap(&input);

		read_measurements(&input, &m);
		walsizer_decide(&settings, &m, &state, &d);
		check_decision(&settings, &m, &state, &d);

		/* the policy is a function: the same call gives the same answer */
		walsizer_decide(&settings, &m, &state, &again);
		if (again.action != d.action || again.new_mb != d.new_mb ||
			strcmp(again.reason, d.reason) != 0)
			abort();

		state = d.state;
		settings.current_mb = d.new_mb;
		last = m;
		if (input.pos >= input.len && i > 0)
			break;
	}
	/* after the steps, so that the seeds' steps keep their meaning */
	check_what_if(&input, &settings, &last);
	return 0;
}
