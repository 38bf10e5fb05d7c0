/*-------------------------------------------------------------------------
 *
 * measure_rates.c
 *		The WAL position rings and the rates measure.c takes from them.
 *
 * Every sample adds the WAL insert position to two rings: "recent", one
 * point per sample for the last seconds, and "history", thinned so that
 * it spans the horizon (several windows, at least two checkpoint cycles).
 * From them come the two rates the policy sizes with: the recent rate,
 * which sees a new load within seconds, and the peak rate over whole
 * checkpoint_timeouts, which is what a checkpoint cycle has to absorb.
 *
 * This file holds the rings, the horizon and those two rates, and the
 * small time helpers both measure files use (seconds between two times,
 * checkpoint_timeout with its fallback): a WalRing and the settings in, a
 * number out, and no other state of WalsizerMeasure.  measure.c decides
 * when a point is added and when the history starts over.
 * The rate over whole checkpoint_timeouts a standby sizes with
 * (whole_timeouts_rate()) stays in measure.c, beside the timed cycles it
 * stands in for, so that one TIMED_CYCLE_MIN_SHARE judges both.
 * Helpers measure.c calls carry a measure_ prefix (measure_internal.h).
 *
 * Pure C: no PostgreSQL headers, no globals, no I/O, no allocation.
 *
 *-------------------------------------------------------------------------
 */
#include "measure_internal.h"

/*
 * The horizon over which the peak rate is taken: several windows, and at
 * least two checkpoint cycles so that it always holds whole cycles.
 */
#define HORIZON_WINDOWS 4
#define HORIZON_MIN_CYCLES 2
/*
 * The recent rate is the higher of the rates over the last
 * RECENT_MIN_SPAN and the last RECENT_SPAN: long enough to smooth one busy
 * second, short enough to see a new load before its first forced
 * checkpoint.  It needs RECENT_MIN_POINTS samples.
 */
#define RECENT_SPAN_US (5 * USECS_PER_SECOND)
#define RECENT_MIN_SPAN_US (2 * USECS_PER_SECOND)
#define RECENT_MIN_POINTS 3

double
measure_seconds_between(int64_t start_us, int64_t stop_us)
{
	return (double) (stop_us - start_us) / (double) USECS_PER_SECOND;
}

int64_t
measure_seconds_to_us(double seconds)
{
	return (int64_t) (seconds * (double) USECS_PER_SECOND);
}

double
measure_timeout_s(const WalsizerMeasureSettings *set)
{
	return set->checkpoint_timeout_s > 0 ? set->checkpoint_timeout_s : 300.0;
}

/* --- WAL position rings ------------------------------------------------ */

void
measure_ring_clear(WalRing *ring, int capacity)
{
	ring->capacity = capacity;
	ring->count = 0;
	ring->next = 0;
}

const WalPoint *
measure_ring_at(const WalRing *ring, int i)
{
	int			oldest = (ring->next - ring->count + ring->capacity) %
		ring->capacity;

	return &ring->points[(oldest + i) % ring->capacity];
}

static const WalPoint *
ring_newest(const WalRing *ring)
{
	return measure_ring_at(ring, ring->count - 1);
}

void
measure_ring_push(WalRing *ring, int64_t at_us, uint64_t lsn,
				  uint64_t fpi_bytes, uint64_t stat_bytes)
{
	ring->points[ring->next].at_us = at_us;
	ring->points[ring->next].lsn = lsn;
	ring->points[ring->next].fpi_bytes = fpi_bytes;
	ring->points[ring->next].stat_bytes = stat_bytes;
	ring->next = (ring->next + 1) % ring->capacity;
	if (ring->count < ring->capacity)
		ring->count++;
}

/* Forget points older than oldest_kept_us, always keeping two. */
void
measure_ring_trim(WalRing *ring, int64_t oldest_kept_us)
{
	while (ring->count > 2 && measure_ring_at(ring, 0)->at_us < oldest_kept_us)
		ring->count--;
}

int64_t
measure_ring_span_us(const WalRing *ring)
{
	if (ring->count < 2)
		return 0;
	return ring_newest(ring)->at_us - measure_ring_at(ring, 0)->at_us;
}

double
measure_rate_between(const WalPoint *from, const WalPoint *to)
{
	double		span_s = measure_seconds_between(from->at_us, to->at_us);

	if (span_s <= 0 || to->lsn < from->lsn)
		return 0;
	return (double) (to->lsn - from->lsn) / span_s;
}

/* --- Rates ---------------------------------------------------------------- */

double
measure_horizon_s(const WalsizerMeasureSettings *set)
{
	double		by_windows = HORIZON_WINDOWS * set->window_s;
	double		by_cycles = HORIZON_MIN_CYCLES * measure_timeout_s(set);

	return by_windows > by_cycles ? by_windows : by_cycles;
}

/*
 * The worst WAL rate over one checkpoint_timeout in the horizon: what a
 * checkpoint cycle has to absorb.  Only whole checkpoint_timeout stretches
 * count, because the WAL right after a checkpoint is inflated by full-page
 * images and a short stretch would overstate the cycle.  Until the history
 * covers one checkpoint_timeout, the average over all of it stands in.
 */
double
measure_peak_rate(const WalRing *ring, const WalsizerMeasureSettings *set)
{
	int64_t		cycle_us = measure_seconds_to_us(measure_timeout_s(set));
	double		peak = 0;
	int			from = 0;

	if (ring->count < 2)
		return 0;
	if (measure_ring_span_us(ring) < cycle_us)
		return measure_rate_between(measure_ring_at(ring, 0), ring_newest(ring));

	for (int to = 1; to < ring->count; to++)
	{
		const WalPoint *end = measure_ring_at(ring, to);

		/* the latest start at least one checkpoint_timeout before the end */
		while (from + 1 < to &&
			   end->at_us - measure_ring_at(ring, from + 1)->at_us >= cycle_us)
			from++;
		if (end->at_us - measure_ring_at(ring, from)->at_us >= cycle_us)
		{
			double		rate = measure_rate_between(measure_ring_at(ring, from), end);

			if (rate > peak)
				peak = rate;
		}
	}
	return peak;
}

/*
 * The share of full-page images in the WAL between two points.  Both come
 * from pg_stat_wal, which backends flush about once a second, together;
 * the WAL position does not wait.  So the share is taken from the
 * statistics and applied to the position's rate: images counted late do
 * not pass for records.  When nothing was flushed between the points, the
 * whole recent ring stands in; when nothing was flushed at all, the share
 * is unknown and 0 (every byte counts as records: never less).
 */
static double
fpi_share(const WalRing *ring, const WalPoint *from, const WalPoint *to)
{
	const WalPoint *oldest = measure_ring_at(ring, 0);
	uint64_t	stat_bytes = to->stat_bytes - from->stat_bytes;
	uint64_t	fpi_bytes = to->fpi_bytes - from->fpi_bytes;
	double		share;

	if (stat_bytes == 0)
	{
		stat_bytes = to->stat_bytes - oldest->stat_bytes;
		fpi_bytes = to->fpi_bytes - oldest->fpi_bytes;
	}
	if (stat_bytes == 0)
		return 0;
	share = (double) fpi_bytes / (double) stat_bytes;
	return share < 1.0 ? share : 1.0;
}

/*
 * The recent rate: the higher of the last RECENT_MIN_SPAN and the last
 * RECENT_SPAN.  When a load starts, the longer span still holds idle
 * seconds and would undersize the first change; when it stops, the longer
 * span remembers it a little longer.  False until the samples span
 * RECENT_MIN_SPAN: a fraction of a second says nothing about the next
 * minutes.
 *
 * *record_rate is the longer span's rate without full-page images:
 * right after a checkpoint they are most of the WAL, and they fade as the
 * working set has been written once.
 */
bool
measure_recent_rate(const WalRing *ring, double *rate, double *record_rate)
{
	const WalPoint *newest;
	const WalPoint *from;
	int			longest = 0;
	int			shortest;
	double		long_rate;
	double		short_rate;

	if (ring->count < RECENT_MIN_POINTS)
		return false;
	newest = ring_newest(ring);
	while (longest < ring->count - RECENT_MIN_POINTS &&
		   newest->at_us - measure_ring_at(ring, longest)->at_us > RECENT_SPAN_US)
		longest++;
	if (newest->at_us - measure_ring_at(ring, longest)->at_us < RECENT_MIN_SPAN_US)
		return false;

	/* the latest point at least RECENT_MIN_SPAN before the newest */
	shortest = longest;
	while (shortest + 1 < ring->count &&
		   newest->at_us - measure_ring_at(ring, shortest + 1)->at_us >= RECENT_MIN_SPAN_US)
		shortest++;

	from = measure_ring_at(ring, longest);
	long_rate = measure_rate_between(from, newest);
	short_rate = measure_rate_between(measure_ring_at(ring, shortest), newest);
	*rate = long_rate > short_rate ? long_rate : short_rate;

	*record_rate = long_rate * (1.0 - fpi_share(ring, from, newest));
	return true;
}
