/*-------------------------------------------------------------------------
 *
 * measure.c
 *		From samples of the server to WalsizerMeasurements.
 *
 * This file holds the state machine of the measurement: each sample's
 * redo pointer move and checkpoint cycle, the reach of the WAL after the
 * redo pointer, the windows, and what a size or role change forgets.  The
 * WAL position rings it feeds every sample, and the recent and peak rates
 * taken from them, are measure_rates.c's (see its header); the rate over
 * whole checkpoint_timeouts a standby sizes with stays here, judged by
 * the same TIMED_CYCLE_MIN_SHARE as the timed cycles it stands in for.
 *
 * Only checkpoints started by WAL volume are evidence that max_wal_size is
 * too small.  A CHECKPOINT command, a base backup or CREATE DATABASE also
 * bumps the "requested" counter, so the redo pointer is watched too: a
 * checkpoint forced by WAL starts only after the insert position entered
 * segment redo_segment + CheckPointSegments - 1 (XLogCheckpointNeeded()),
 * so consecutive redo pointers at least that far apart mark it.  A
 * window's WAL-forced count is its requested count capped by such far
 * moves; a move seen in one window whose counter lands in the next is
 * carried over.
 *
 * A statistics reset (pg_stat_reset_shared()) sets the counters back; the
 * WAL position and the redo pointer are never reset.  A window that saw a
 * reset of the checkpoint counters does not know its timed, requested and
 * WAL-forced counts, and only those: its WAL, its redo pointer moves and
 * cycles, the rates and the reach are measured as in any window, and it
 * is decided on.  Likewise a reset of the WAL statistics loses only the
 * images written between the two samples around it.
 *
 * Pure C: no PostgreSQL headers, no globals, no I/O, no allocation.
 *
 *-------------------------------------------------------------------------
 */
#include "measure_internal.h"
#include "size_units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A forced checkpoint may start in one window and be counted in the next. */
#define MAX_CARRIED_MOVES 2
/*
 * The bytes of one full-page image when the server does not count them
 * (before PostgreSQL 19): a whole default 8 kB block.  Images with a hole
 * or compressed by wal_compression are smaller, so this overstates images
 * and understates the rest of the WAL, which only makes a growth sized
 * from the rest smaller and safer to take in steps.
 */
/*
 * A cycle is a whole timed one when it was not forced and lasted at least
 * this share of checkpoint_timeout (one a CHECKPOINT command cut short
 * says less about a cycle's WAL).
 */
#define TIMED_CYCLE_MIN_SHARE 0.9
/*
 * A cycle's full-page images are the first writes of the pages its load
 * touches; a steady load touches about the same pages each cycle.  Within
 * a cycle, images are projected to go on at their recent rate, but no
 * further than the last whole timed cycle's images plus this margin (20 %).
 */
#define FPI_CYCLE_MARGIN 0.2

/*
 * at_us plus seconds, no later than INT64_MAX: a sample's time comes from
 * a clock or a trace, and a signed overflow would be undefined.
 */
static int64_t
time_after_us(int64_t at_us, double seconds)
{
	int64_t		span_us = measure_seconds_to_us(seconds);

	return span_us > 0 && at_us > INT64_MAX - span_us ? INT64_MAX : at_us + span_us;
}

/* --- Checkpoint timeouts ------------------------------------------------- */

/*
 * The highest WAL rate among whole checkpoint_timeouts laid back to back
 * from the latest sample over the horizon; 0 until the history covers
 * most of one (a whole one as note_cycle() judges a timed cycle:
 * TIMED_CYCLE_MIN_SHARE of it).  This is how a standby measures what a
 * primary measures with its timed cycles in the horizon: stretches that
 * each hold one checkpoint's full-page images.  The worst of every
 * stretch in the horizon (measure_peak_rate()) is a maximum over many overlapping
 * ones and lies above it on a steady load.
 */
static double
whole_timeouts_rate(const WalRing *ring, const WalsizerMeasureSettings *set)
{
	int64_t		cycle_us = measure_seconds_to_us(measure_timeout_s(set));
	int64_t		whole_us = (int64_t) (TIMED_CYCLE_MIN_SHARE * (double) cycle_us);
	const WalPoint *end;
	double		highest = 0;
	int			i;

	if (ring->count < 2)
		return 0;
	i = ring->count - 1;
	end = measure_ring_at(ring, i);
	while (i > 0)
	{
		const WalPoint *start;
		double		rate;

		/* the latest point a checkpoint_timeout or more before the end */
		while (i > 0 && end->at_us - measure_ring_at(ring, i)->at_us < cycle_us)
			i--;
		start = measure_ring_at(ring, i);
		if (end->at_us - start->at_us < whole_us)
			break;
		rate = measure_rate_between(start, end);
		if (rate > highest)
			highest = rate;
		end = start;
	}
	return highest;
}

/* Seconds until the checkpointer's next timed checkpoint, as best we know. */
static double
seconds_to_timed_checkpoint(const WalsizerMeasure *ms,
							const WalsizerMeasureSettings *set)
{
	double		cycle_s = measure_timeout_s(set);
	double		elapsed;

	if (ms->last_redo_move_at_us == 0)
		return cycle_s;			/* unknown: assume a whole cycle */
	elapsed = measure_seconds_between(ms->last_redo_move_at_us, ms->latest.at_us);
	/* skipped (idle) timed checkpoints restart the clock without a move */
	return cycle_s - fmod(elapsed > 0 ? elapsed : 0, cycle_s);
}

/* --- Samples --------------------------------------------------------------- */

static bool
counters_were_reset(const WalsizerSample *before, const WalsizerSample *after)
{
	return after->timed < before->timed ||
		after->requested < before->requested ||
		after->counters_reset_at != before->counters_reset_at;
}

/*
 * Did the redo pointer move far enough for WAL volume to have forced the
 * checkpoint?  PostgreSQL requests one when the insert position reaches
 * walsizer_trigger_bytes() past the start of the redo pointer's segment
 * (CheckPointSegments whole segments), so the new redo pointer is at least
 * that far: a requested checkpoint that moved it less, even by a byte, was
 * a CHECKPOINT command or a base backup.  The trigger is counted at the
 * size in effect before the move, since that is the size the backends
 * compared against.
 */
static bool
redo_move_was_far(uint64_t old_redo, uint64_t new_redo, int64_t max_wal_size_mb,
				  const WalsizerMeasureSettings *set)
{
	uint64_t	segment_bytes = set->segment_bytes >= BYTES_PER_MB ?
		(uint64_t) set->segment_bytes : (uint64_t) BYTES_PER_MB;
	uint64_t	redo_segment_start = old_redo - old_redo % segment_bytes;

	return new_redo > redo_segment_start &&
		new_redo - redo_segment_start >=
		walsizer_trigger_bytes(max_wal_size_mb, (int64_t) segment_bytes,
							   set->completion_target);
}

/*
 * Full-page image bytes written between two samples: the server's count
 * where it keeps one, else the image count times FULL_PAGE_IMAGE_BYTES; 0
 * across a reset of the WAL statistics.
 */
static uint64_t
fpi_bytes_between(const WalsizerSample *before, const WalsizerSample *after)
{
	if (after->wal_reset_at != before->wal_reset_at)
		return 0;
	if (after->fpi_bytes_counted && before->fpi_bytes_counted)
		return after->wal_fpi_bytes > before->wal_fpi_bytes ?
			after->wal_fpi_bytes - before->wal_fpi_bytes : 0;
	if (after->wal_fpi > before->wal_fpi)
		return (uint64_t) (after->wal_fpi - before->wal_fpi) * FULL_PAGE_IMAGE_BYTES;
	return 0;
}

/*
 * The images of the cycle ending now up to a point near its middle: the
 * history point nearest it.  How much fewer images the second half wrote
 * than the first shows the working set the load changes
 * (walsizer_working_set_from_images()).  No point inside the cycle: none.
 */
static void
note_cycle_middle(const WalsizerMeasure *ms, WalCycle *cycle)
{
	int64_t		start_us = ms->last_redo_move_at_us;
	int64_t		middle_us = start_us + (cycle->ended_at_us - start_us) / 2;
	const WalPoint *nearest = NULL;

	cycle->mid_s = 0;
	cycle->mid_fpi_bytes = 0;
	for (int i = 0; i < ms->history.count; i++)
	{
		const WalPoint *p = measure_ring_at(&ms->history, i);

		/* (the sample ending the cycle is not in the history yet) */
		if (p->at_us <= start_us)
			continue;
		if (nearest == NULL ||
			llabs(p->at_us - middle_us) < llabs(nearest->at_us - middle_us))
			nearest = p;
	}
	if (nearest == NULL || nearest->fpi_bytes < ms->fpi_bytes_at_redo_move)
		return;
	cycle->mid_s = measure_seconds_between(start_us, nearest->at_us);
	cycle->mid_fpi_bytes = nearest->fpi_bytes - ms->fpi_bytes_at_redo_move;
}

/*
 * The redo pointer moved at this sample: a checkpoint started, and the
 * cycle since the previous move is complete.  Its WAL is what max_wal_size
 * has to hold for that cycle.  The first move the worker sees has no known
 * start and ends no cycle.
 */
static void
note_cycle(WalsizerMeasure *ms, uint64_t old_redo, const WalsizerSample *sample,
		   bool far, const WalsizerMeasureSettings *set)
{
	if (ms->last_redo_move_at_us != 0)
	{
		WalCycle   *cycle = &ms->last_cycle;
		bool		started_at_size = ms->last_redo_move_at_us >= ms->size_changed_at_us;

		cycle->ended_at_us = sample->at_us;
		cycle->seconds = measure_seconds_between(ms->last_redo_move_at_us, sample->at_us);
		cycle->bytes = sample->redo_lsn - old_redo;
		cycle->fpi_bytes = ms->fpi_bytes - ms->fpi_bytes_at_redo_move;
		if (cycle->fpi_bytes > cycle->bytes)
			cycle->fpi_bytes = cycle->bytes;
		cycle->timed = !far &&
			cycle->seconds >= TIMED_CYCLE_MIN_SHARE * measure_timeout_s(set);
		note_cycle_middle(ms, cycle);
		if (cycle->timed)
		{
			ms->timed_cycle_fpi_bytes = cycle->fpi_bytes;
			ms->timed_cycles[ms->timed_cycles_next] = *cycle;
			ms->timed_cycles_next = (ms->timed_cycles_next + 1) % MEASURE_TIMED_CYCLES;
			if (ms->timed_cycles_count < MEASURE_TIMED_CYCLES)
				ms->timed_cycles_count++;
		}
		if (cycle->timed && started_at_size)
		{
			ms->timed_cycles_since_change++;
			if (cycle->bytes > ms->timed_cycle_peak_since_change)
				ms->timed_cycle_peak_since_change = cycle->bytes;
		}
	}
	ms->last_redo_move_at_us = sample->at_us;
	ms->fpi_bytes_at_redo_move = ms->fpi_bytes;
	ms->last_cycle_reach_bytes = ms->cycle_reach_bytes;
	ms->cycle_reach_bytes = 0;
}

/*
 * How far the WAL after the redo pointer will reach within the imminence
 * lookahead (or by the next timed checkpoint, if sooner): records at their
 * recent rate, and full-page images at theirs, but only up to what the
 * last whole timed cycle wrote of them.  Right after a checkpoint images
 * are most of the WAL and fade as the working set has been written once,
 * so their recent rate alone would see a forced checkpoint coming in
 * every cycle.  Until a timed cycle was measured, and again after a forced
 * checkpoint (a load that cycle did not see), images are not bounded.
 */
static double
reach_bytes(const WalsizerMeasure *ms, const WalsizerMeasureSettings *set,
			double rate, double record_rate, double *within_s)
{
	const WalsizerSample *now = &ms->latest;
	double		since_redo = (double) (now->insert_lsn > now->redo_lsn ?
									   now->insert_lsn - now->redo_lsn : 0);
	double		fpi_ahead;
	double		to_timed = seconds_to_timed_checkpoint(ms, set);

	*within_s = walsizer_imminent_lookahead_s(set->sample_interval_ms / 1000.0);
	if (to_timed >= 0 && to_timed < *within_s)
		*within_s = to_timed;
	fpi_ahead = (rate > record_rate ? rate - record_rate : 0) * *within_s;
	if (ms->timed_cycle_fpi_bytes > 0 && ms->last_redo_move_at_us != 0)
	{
		double		fpi_so_far = (double) (ms->fpi_bytes - ms->fpi_bytes_at_redo_move);
		double		left = (double) ms->timed_cycle_fpi_bytes *
			(1.0 + FPI_CYCLE_MARGIN) - fpi_so_far;

		if (fpi_ahead > left)
			fpi_ahead = left > 0 ? left : 0;
	}
	return since_redo + record_rate * *within_s + fpi_ahead;
}

/*
 * Keep the furthest reach of the cycle in progress.  The policy settles a
 * size clear of the furthest of the last two cycles': earlier ones may have
 * been projected before the images of a whole cycle were known.
 */
static void
note_reach(WalsizerMeasure *ms, const WalsizerMeasureSettings *set)
{
	double		rate;
	double		record_rate;
	double		within_s;
	double		reach;

	if (!measure_recent_rate(&ms->recent, &rate, &record_rate))
		return;
	reach = reach_bytes(ms, set, rate, record_rate, &within_s);
	if (reach > (double) ms->cycle_reach_bytes && reach < 1e18)
		ms->cycle_reach_bytes = (uint64_t) reach;
}

static void
start_window(WalsizerMeasure *ms, int64_t carried_moves,
			 const WalsizerMeasureSettings *set)
{
	ms->window.at_us = ms->latest.at_us;
	ms->window.insert_lsn = ms->latest.insert_lsn;
	ms->window.sample = ms->latest;
	ms->window.far_redo_moves = carried_moves < MAX_CARRIED_MOVES ?
		carried_moves : MAX_CARRIED_MOVES;
	ms->window.reset_seen = false;
	ms->window.far_redo_moves_since_reset = 0;
	ms->next_window_at_us = time_after_us(ms->window.at_us, set->window_s);
}

/*
 * How far the insert position jumped over the rest of a segment between
 * two samples, or 0.  A segment switch (pg_switch_wal(), archive_timeout, a
 * base backup's start and stop) ends the segment at once: the next record
 * goes at the start of the next one.  Those positions count towards a
 * forced checkpoint like any WAL, and the redo distance and whole cycles
 * keep them, but they are a step, not a rate: the recent rate would
 * extrapolate the 16 MB that one pg_basebackup skips on an idle server into
 * a load writing megabytes a second.  A sample that lands within the first
 * SWITCH_LANDING_BYTES of a later segment than the previous sample's is
 * taken for a switch (or several), and everything from the previous
 * position to that segment's start is left out of the recent rate.  The
 * landing allows for the few records and page images that follow a switch
 * within a sample interval (the checkpoint a base backup requests, the
 * first changes after it).  A load that crossed the boundary by itself and
 * happens to land there loses at most one sample interval's WAL from the
 * rate.  A standby's replay position lands exactly on the next segment's
 * start once it has replayed a switch (the switch record ends there); a
 * primary's insert position is never there, always past the page header,
 * so on a primary a position there is no switch's landing.
 */
#define SWITCH_LANDING_BYTES (64 * 1024)

static uint64_t
segment_switch_skipped(uint64_t previous_lsn, uint64_t lsn, int64_t segment_bytes,
					   bool standby)
{
	uint64_t	segment;

	if (segment_bytes <= 0 || lsn <= previous_lsn)
		return 0;
	segment = (uint64_t) segment_bytes;
	if (lsn / segment == previous_lsn / segment ||
		(lsn % segment == 0 && !standby) ||
		lsn % segment >= SWITCH_LANDING_BYTES)
		return 0;
	return lsn - lsn % segment - previous_lsn;
}

/* Begin measuring at the first sample: empty history, a new window. */
void
walsizer_measure_start(WalsizerMeasure *ms, const WalsizerSample *first,
					   const WalsizerMeasureSettings *set)
{
	memset(ms, 0, sizeof(*ms));
	measure_ring_clear(&ms->history, MEASURE_HISTORY_POINTS);
	measure_ring_clear(&ms->recent, MEASURE_RECENT_POINTS);
	ms->latest = *first;
	walsizer_measure_add(ms, first, set);
	start_window(ms, 0, set);
}

/*
 * Take one sample: note a redo pointer move (and whether WAL forced it),
 * add the insert position to the rings, and notice a counter reset.
 */
void
walsizer_measure_add(WalsizerMeasure *ms, const WalsizerSample *sample,
					 const WalsizerMeasureSettings *set)
{
	const WalsizerSample *previous = &ms->latest;
	int64_t		horizon_us = measure_seconds_to_us(measure_horizon_s(set));
	int64_t		history_step_us;

	/*
	 * Noticed before the redo pointer: a checkpoint that started between
	 * the same two samples as the reset may bump the counters after it.
	 */
	if (counters_were_reset(previous, sample))
	{
		ms->window.reset_seen = true;
		ms->window.far_redo_moves_since_reset = 0;
	}
	ms->fpi_bytes += fpi_bytes_between(previous, sample);
	if (sample->wal_reset_at == previous->wal_reset_at &&
		sample->wal_stat_bytes > previous->wal_stat_bytes)
		ms->stat_bytes += sample->wal_stat_bytes - previous->wal_stat_bytes;
	if (sample->redo_lsn > previous->redo_lsn && previous->redo_lsn != 0 &&
		ms->next_redo_move_unjudged)
	{
		/* a cycle starts here; the one before it is not this role's */
		ms->next_redo_move_unjudged = false;
		ms->last_redo_move_at_us = sample->at_us;
		ms->fpi_bytes_at_redo_move = ms->fpi_bytes;
		ms->cycle_reach_bytes = 0;
	}
	else if (sample->redo_lsn > previous->redo_lsn && previous->redo_lsn != 0)
	{
		bool		far = redo_move_was_far(previous->redo_lsn, sample->redo_lsn,
											previous->max_wal_size_mb, set);

		if (far)
		{
			ms->window.far_redo_moves++;
			ms->window.far_redo_moves_since_reset++;
			ms->forced_since_change++;
			/* a load the last timed cycle did not see: images unbounded */
			ms->timed_cycle_fpi_bytes = 0;
		}
		note_cycle(ms, previous->redo_lsn, sample, far, set);
	}
	ms->switched_bytes += segment_switch_skipped(previous->insert_lsn,
												 sample->insert_lsn,
												 set->segment_bytes,
												 sample->standby);
	ms->latest = *sample;

	measure_ring_push(&ms->recent, sample->at_us,
					  sample->insert_lsn > ms->switched_bytes ?
					  sample->insert_lsn - ms->switched_bytes : 0,
					  ms->fpi_bytes, ms->stat_bytes);
	/* enough points to cover the horizon, but never more than one a sample */
	history_step_us = (int64_t) set->sample_interval_ms * 1000;
	if (horizon_us / MEASURE_HISTORY_POINTS > history_step_us)
		history_step_us = horizon_us / MEASURE_HISTORY_POINTS;
	if (ms->history.count == 0 ||
		sample->at_us - ms->last_history_at_us >= history_step_us)
	{
		measure_ring_push(&ms->history, sample->at_us, sample->insert_lsn,
						  ms->fpi_bytes, ms->stat_bytes);
		ms->last_history_at_us = sample->at_us;
	}
	measure_ring_trim(&ms->history, sample->at_us - horizon_us);
	note_reach(ms, set);
}

/*
 * The most WAL a whole timed cycle wrote, among those that ended within the
 * horizon; 0 when none did.  That is what max_wal_size has to hold for the
 * load: a timed cycle's WAL runs from one redo pointer to the next, full-page
 * images included, whatever the size was.  Only cycles as long as the
 * checkpoint_timeout in force count (as note_cycle() judges a whole one):
 * after a DBA changes it, a cycle measured at the old one holds the WAL of
 * a shorter or longer stretch, and would size for the old timeout.
 */
static uint64_t
timed_cycle_peak_bytes(const WalsizerMeasure *ms,
					   const WalsizerMeasureSettings *set)
{
	int64_t		oldest_us = ms->latest.at_us - measure_seconds_to_us(measure_horizon_s(set));
	double		shortest_s = TIMED_CYCLE_MIN_SHARE * measure_timeout_s(set);
	double		longest_s = measure_timeout_s(set) / TIMED_CYCLE_MIN_SHARE;
	uint64_t	peak = 0;

	for (int i = 0; i < ms->timed_cycles_count; i++)
	{
		const WalCycle *cycle = &ms->timed_cycles[i];

		if (cycle->ended_at_us >= oldest_us && cycle->bytes > peak &&
			cycle->seconds >= shortest_s && cycle->seconds <= longest_s)
			peak = cycle->bytes;
	}
	return peak;
}

/*
 * The measurements of the window in progress, as if it ended at the
 * latest sample.  With window_end false only the sample-level fields
 * matter to the policy.
 */
void
walsizer_measure_get(const WalsizerMeasure *ms, bool window_end,
					 bool size_is_ours, const WalsizerMeasureSettings *set,
					 WalsizerMeasurements *m)
{
	const WindowStart *w = &ms->window;
	const WalsizerSample *now = &ms->latest;

	memset(m, 0, sizeof(*m));
	m->window_end = window_end;
	m->counters_reset = w->reset_seen;
	m->window_s = measure_seconds_between(w->at_us, now->at_us);
	if (!w->reset_seen)
	{
		m->timed = now->timed - w->sample.timed;
		m->requested = now->requested - w->sample.requested;
		m->wal_forced = m->requested < w->far_redo_moves ?
			m->requested : w->far_redo_moves;
	}
	m->wal_bytes = now->insert_lsn > w->insert_lsn ?
		now->insert_lsn - w->insert_lsn : 0;

	m->wal_since_redo_bytes = now->insert_lsn > now->redo_lsn ?
		now->insert_lsn - now->redo_lsn : 0;
	m->recent_rate_valid = measure_recent_rate(&ms->recent, &m->recent_rate,
											   &m->recent_record_rate);

	/*
	 * Until the promotion's own checkpoint starts, the redo pointer is the
	 * last restartpoint's, which that checkpoint (requested by the
	 * promotion) is about to replace: the WAL after it says nothing about
	 * a checkpoint WAL could force.
	 */
	if (m->recent_rate_valid && !ms->next_redo_move_unjudged)
		m->reach_bytes = reach_bytes(ms, set, m->recent_rate,
									 m->recent_record_rate, &m->reach_within_s);
	m->peak_rate = measure_peak_rate(&ms->history, set);
	m->peak_covers_cycle = ms->history.count >= 2 &&
		measure_ring_span_us(&ms->history) >= measure_seconds_to_us(measure_timeout_s(set));
	m->seconds_to_timed_checkpoint = seconds_to_timed_checkpoint(ms, set);

	/*
	 * Checkpoints forced at a size walsizer chose show that choice was too
	 * small, which may cut the cooldown short.  After an advice (dry run),
	 * a failed ALTER SYSTEM or the DBA's own change the old size is still
	 * in effect and goes on forcing them: that must not bypass the
	 * cooldown, or every sample would decide again.
	 */
	m->size_is_walsizers = size_is_ours;
	m->wal_forced_since_change = size_is_ours ? ms->forced_since_change : 0;

	m->timed_cycles_at_size = ms->timed_cycles_since_change;
	m->timed_cycle_peak_bytes_at_size = ms->timed_cycle_peak_since_change;
	m->wal_forced_at_size = ms->forced_since_change;
	m->timed_cycle_peak_bytes = timed_cycle_peak_bytes(ms, set);
	m->peak_reach_bytes_at_size = ms->cycle_reach_bytes > ms->last_cycle_reach_bytes ?
		ms->cycle_reach_bytes : ms->last_cycle_reach_bytes;
	m->standby = now->standby;
	m->whole_timeouts_rate = whole_timeouts_rate(&ms->history, set);
}

/* The figures for status() as of the latest sample. */
void
walsizer_measure_status_figures(const WalsizerMeasure *ms,
								WalsizerStatusFigures *f)
{
	memset(f, 0, sizeof(*f));
	f->last_cycle_s = ms->last_cycle.seconds;
	f->last_cycle_bytes = ms->last_cycle.bytes;
	f->last_cycle_fpi_bytes = ms->last_cycle.fpi_bytes;
	f->last_cycle_mid_s = ms->last_cycle.mid_s;
	f->last_cycle_mid_fpi_bytes = ms->last_cycle.mid_fpi_bytes;
	f->last_cycle_timed = ms->last_cycle.timed;
	f->fpi_bytes_measured = ms->latest.fpi_bytes_counted;
}

/*
 * The window described by "ended" is over: start the next one at the
 * latest sample, carrying far redo moves whose requested counter had not
 * yet been bumped when the window ended.  After a reset of the counters
 * the window counted none: of its far moves, only those since the reset
 * can still be bumped in the next window (the earlier ones were, or were
 * reset away).
 */
void
walsizer_measure_end_window(WalsizerMeasure *ms,
							const WalsizerMeasurements *ended,
							const WalsizerMeasureSettings *set)
{
	int64_t		carried = ended->counters_reset ?
		ms->window.far_redo_moves_since_reset :
		ms->window.far_redo_moves - ended->wal_forced;

	start_window(ms, carried > 0 ? carried : 0, set);
}

/*
 * The size changed: WAL measured at the old size (with its extra
 * checkpoints and full-page images) says little about the new one, so
 * the peak rate starts over.
 */
void
walsizer_measure_size_changed(WalsizerMeasure *ms)
{
	ms->history.count = 0;
	ms->last_history_at_us = 0;
	ms->forced_since_change = 0;
	ms->timed_cycles_since_change = 0;
	ms->timed_cycle_peak_since_change = 0;
	ms->size_changed_at_us = ms->latest.at_us;
	ms->cycle_reach_bytes = 0;
	ms->last_cycle_reach_bytes = 0;
}

/*
 * The server was promoted (or, in a simulation, demoted) at this sample.
 * The WAL rate goes on: the replayed WAL of a streaming standby was the
 * primary's, and the load that moves to the promoted server is the same
 * one, so the rate history stays.  What described the old role's
 * checkpoints does not: its cycles ran between restartpoints, its counters
 * (17+) counted restartpoints, and the first checkpoint after a promotion
 * is requested by the promotion itself, from a redo pointer that may lie
 * far behind.  Those start afresh, with a new window from this sample.
 * "promoted" is false when an archive recovery ended without a promotion
 * (or in a simulation's demotion).
 */
void
walsizer_measure_role_changed(WalsizerMeasure *ms, const WalsizerSample *sample,
							  const WalsizerMeasureSettings *set, bool promoted)
{
	uint64_t	redo_lsn = ms->latest.redo_lsn;

	ms->forced_since_change = 0;
	ms->timed_cycles_since_change = 0;
	ms->timed_cycle_peak_since_change = 0;
	ms->size_changed_at_us = sample->at_us;
	ms->cycle_reach_bytes = 0;
	ms->last_cycle_reach_bytes = 0;
	ms->timed_cycles_count = 0;
	ms->timed_cycles_next = 0;
	ms->timed_cycle_fpi_bytes = 0;
	ms->last_redo_move_at_us = 0;
	memset(&ms->last_cycle, 0, sizeof(ms->last_cycle));
	/*
	 * Only a promotion leaves its checkpoint to come: an archive recovery
	 * that ends by itself runs its end-of-recovery checkpoint before the
	 * server leaves recovery, so the redo pointer is already this role's.
	 */
	ms->next_redo_move_unjudged = promoted;

	/*
	 * The new role's counters and redo pointer are the baseline; a redo
	 * pointer that moved since the previous sample moved for the promotion.
	 */
	ms->latest = *sample;
	if (redo_lsn != 0 && sample->redo_lsn > redo_lsn)
		ms->next_redo_move_unjudged = false;
	start_window(ms, 0, set);
}

/*
 * walsizer was switched on: what happened while it was off (a bulk load
 * the DBA ran with walsizer disabled, say) is not evidence.
 */
void
walsizer_measure_forget_load(WalsizerMeasure *ms,
							 const WalsizerMeasureSettings *set)
{
	walsizer_measure_size_changed(ms);
	ms->recent.count = 0;
	ms->timed_cycles_count = 0;
	ms->timed_cycle_fpi_bytes = 0;
	memset(&ms->last_cycle, 0, sizeof(ms->last_cycle));
	start_window(ms, 0, set);
}

/* A new window length applies from the current window's start. */
void
walsizer_measure_window_length_changed(WalsizerMeasure *ms,
									   const WalsizerMeasureSettings *set)
{
	ms->next_window_at_us = time_after_us(ms->window.at_us, set->window_s);
}

/* Has the window in progress reached its length at the latest sample? */
bool
walsizer_measure_window_due(const WalsizerMeasure *ms)
{
	return ms->latest.at_us >= ms->next_window_at_us;
}

/* Full-page images written in the window in progress, 0 after a reset. */
int64_t
walsizer_measure_window_fpi(const WalsizerMeasure *ms)
{
	if (ms->latest.wal_reset_at == ms->window.sample.wal_reset_at &&
		ms->latest.wal_fpi >= ms->window.sample.wal_fpi)
		return ms->latest.wal_fpi - ms->window.sample.wal_fpi;
	return 0;
}

