/*-------------------------------------------------------------------------
 *
 * policy_limits.c
 *		The limits of the sizing policy: the cap (walsizer.max, the disk's
 *		share of the WAL volume, the recovery-time bound) and the floor,
 *		and the two steps that enforce them at every sample, before any
 *		other rule.
 *
 * Part of the policy (policy.c runs its pipeline); pure like all of it: no
 * PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "policy_internal.h"
#include "size_units.h"

/* Round down to a whole number of segments (only a cap rounds down). */
static int64_t
round_down_to_segment(int64_t mb, int64_t seg_mb)
{
	return (policy_clamp_size(mb) / seg_mb) * seg_mb;
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
	int64_t		seg_mb = walsizer_segment_mb(segment_bytes);

	held_mb = policy_clamp_size(held_mb);
	measured_mb = policy_clamp_size(measured_mb);
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

	floor_mb = policy_round_up_to_segment(floor_mb, c->seg_mb);
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
void
policy_compute_limits(DecideContext *c)
{
	compute_cap(c);
	compute_floor(c);
}

/*
 * Protect the WAL volume.  Running out of space in pg_wal is a PANIC, far
 * worse than checkpoints, so a disk cap below the current size wins over
 * everything, cooldown, floor and counter resets included: lower the size
 * to the cap, with a warning.  When the recovery-time bound is the cap,
 * the size goes no lower for it than the DBA's own value, as in
 * policy_step_follow_lowered_max(); the disk's share and walsizer.max
 * still do.
 */
bool
policy_step_protect_wal_volume(DecideContext *c)
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
		int64_t		dba_mb = policy_round_up_to_segment(c->s->baseline_mb, c->seg_mb);

		if (target < dba_mb)
			target = dba_mb < c->cap_without_recovery_mb ?
				dba_mb : c->cap_without_recovery_mb;
		if (target >= c->current_mb)
			return false;
	}

	policy_note_change(c, WALSIZER_ACTION_PROTECT, target);
	c->d->warn = true;
	policy_set_reason(c->d,
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
 * policy_step_protect_wal_volume()'s.)
 */
bool
policy_step_follow_lowered_max(DecideContext *c)
{
	int64_t		baseline_mb = c->s->baseline_mb;
	int64_t		target;

	if (c->current_mb <= c->cap_mb || c->current_mb <= baseline_mb)
		return false;
	target = baseline_mb > c->cap_mb ?
		policy_round_up_to_segment(baseline_mb, c->seg_mb) : c->cap_mb;
	if (target >= c->current_mb)
		return false;

	policy_note_change(c, WALSIZER_ACTION_SHRINK, target);
	if (c->d->cap_source == WALSIZER_CAP_RECOVERY_TIME)
		policy_set_reason(c->d,
						  "the recovery-time bound allows at most %lld MB, below the %lld MB walsizer had set",
						  (long long) c->cap_mb, (long long) c->current_mb);
	else
		policy_set_reason(c->d,
						  "walsizer.max is %lld MB, below the %lld MB walsizer had set",
						  (long long) c->cap_mb, (long long) c->current_mb);
	return true;
}
