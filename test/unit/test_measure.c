/*-------------------------------------------------------------------------
 *
 * test_measure.c
 *		How samples of the server become the policy's measurements.
 *
 * Each test builds samples the way PostgreSQL shows them to the worker (a
 * checkpoint moves the redo pointer when it starts and bumps a counter
 * when it is done) and checks what measure.c makes of them: which
 * checkpoints WAL forced, the recent and peak rates, the windows, and the
 * checkpoint cycles: which were whole timed ones, their WAL and full-page
 * images, and how far the WAL after the redo pointer is expected to reach.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>

#include "unit.h"

#include "measure.h"
#include "size_units.h"

#define SEGMENT ((uint64_t) 16 * 1024 * 1024)
#define SECOND ((int64_t) 1000000)
/* measure.c's estimate of one full-page image when the server has none */
#define IMAGE_BYTES 8192
#define IMAGES_PER_MB (BYTES_PER_MB / IMAGE_BYTES)

/* Rates and WAL volumes come out of floating point: to the byte/s, to 1 kB. */
#define CHECK_RATE(rate, mb_per_s) \
	CHECK_CMP(llround(rate), ==, llround((mb_per_s) * (double) BYTES_PER_MB))
#define CHECK_BYTES_NEAR(bytes, expected) \
	CHECK_CMP(llabs((long long) (bytes) - (long long) (expected)), <=, 1024)

static WalsizerMeasure ms;

static WalsizerMeasureSettings
settings_30s(void)
{
	WalsizerMeasureSettings set;

	set.segment_bytes = (int64_t) SEGMENT;
	set.checkpoint_timeout_s = 30;
	set.completion_target = 0.9;
	set.window_s = 30;
	set.sample_interval_ms = 1000;
	return set;
}

/* A server at 1 GB with its redo pointer at the start of segment 10. */
static WalsizerSample
first_sample(void)
{
	WalsizerSample s;

	memset(&s, 0, sizeof(s));
	s.at_us = 1000 * SECOND;
	s.insert_lsn = 10 * SEGMENT;
	s.redo_lsn = 10 * SEGMENT;
	s.counters_reset_at = 7;
	s.max_wal_size_mb = 1024;
	return s;
}

/* Advance s by one second of WAL at mb_per_s. */
static void
write_for_one_second(WalsizerSample *s, double mb_per_s)
{
	s->at_us += SECOND;
	s->insert_lsn += (uint64_t) (mb_per_s * BYTES_PER_MB);
}

/*
 * A second in which "segments" of WAL were written and then a checkpoint
 * started: its redo pointer is the insert position.
 */
static void
checkpoint_after(WalsizerSample *s, int segments)
{
	s->at_us += SECOND;
	s->insert_lsn += (uint64_t) segments * SEGMENT;
	s->redo_lsn = s->insert_lsn;
}

/*
 * One second of WAL: records_mb_per_s of records and images_mb_per_s of
 * full-page images, as the WAL position and pg_stat_wal show them (images
 * counted, not their bytes, as before PostgreSQL 19).
 */
static void
write_records_and_images(WalsizerSample *s, double records_mb_per_s,
						 double images_mb_per_s)
{
	double		mb = records_mb_per_s + images_mb_per_s;

	write_for_one_second(s, mb);
	s->wal_stat_bytes += (uint64_t) (mb * BYTES_PER_MB);
	s->wal_fpi += (int64_t) (images_mb_per_s * IMAGES_PER_MB);
}

/* n seconds of write_records_and_images(), a sample a second. */
static void
run_seconds(WalsizerSample *s, const WalsizerMeasureSettings *set, int n,
			double records_mb_per_s, double images_mb_per_s)
{
	for (int i = 0; i < n; i++)
	{
		write_records_and_images(s, records_mb_per_s, images_mb_per_s);
		walsizer_measure_add(&ms, s, set);
	}
}

/*
 * A checkpoint cycle of n seconds as run_seconds() writes it, ended by a
 * checkpoint starting at its last sample (the redo pointer moves there).
 */
static void
run_cycle(WalsizerSample *s, const WalsizerMeasureSettings *set, int n,
		  double records_mb_per_s, double images_mb_per_s)
{
	run_seconds(s, set, n - 1, records_mb_per_s, images_mb_per_s);
	write_records_and_images(s, records_mb_per_s, images_mb_per_s);
	s->redo_lsn = s->insert_lsn;
	walsizer_measure_add(&ms, s, set);
}

/* Start measuring at a checkpoint, so that the next one ends a cycle. */
static void
start_at_a_checkpoint(WalsizerSample *s, const WalsizerMeasureSettings *set)
{
	walsizer_measure_start(&ms, s, set);
	run_cycle(s, set, 1, 1, 0);
}

/* What status() would show of the latest sample. */
static WalsizerStatusFigures
figures_now(void)
{
	WalsizerStatusFigures f;

	walsizer_measure_status_figures(&ms, &f);
	return f;
}

static void
far_redo_move_with_a_requested_checkpoint_counts_as_wal_forced(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	/* 1 GB: CheckPointSegments 33, forced after 33 segments */
	checkpoint_after(&s, 33);
	walsizer_measure_add(&ms, &s, &set);
	s.requested++;
	s.at_us += SECOND;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_EQ(m.requested, 1);
	CHECK_EQ(m.wal_forced, 1);
	CHECK_EQ(m.wal_forced_since_change, 1);
}

static void
near_redo_move_is_a_manual_checkpoint_not_a_forced_one(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	/* a CHECKPOINT command 31 segments on: two short of the trigger */
	checkpoint_after(&s, 31);
	s.requested++;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_EQ(m.requested, 1);
	CHECK_EQ(m.wal_forced, 0);
}

/*
 * PostgreSQL requests a checkpoint when it finishes segment
 * redo_segment + CheckPointSegments - 1 (XLogWrite() calls
 * XLogCheckpointNeeded() at each segment end), so the insert position, and
 * with it the next redo pointer, is then at least CheckPointSegments
 * segments past the start of the old redo pointer's segment.  A requested
 * checkpoint whose redo pointer moved less than that was a CHECKPOINT
 * command (or a base backup), however close it came.  The expected
 * CheckPointSegments are worked out by hand: floor(whole segments of
 * max_wal_size / (1 + checkpoint_completion_target)), at least 1.
 */
typedef struct ForcedMoveCase
{
	int64_t		max_wal_size_mb;
	int64_t		segment_mb;
	double		completion_target;
	int64_t		checkpoint_segments;
} ForcedMoveCase;

static const ForcedMoveCase forced_move_cases[] = {
	{1024, 16, 0.9, 33},		/* 64 segments / 1.9 = 33.7 */
	{64, 16, 0.9, 2},			/* 4 / 1.9 = 2.1 */
	{32, 16, 0.9, 1},			/* 2 / 1.9 = 1.05 */
	{1024, 16, 0.5, 42},		/* 64 / 1.5 = 42.7 */
	{4096, 64, 0.9, 33},		/* 64 / 1.9 = 33.7 */
	{100, 1, 0.9, 52},			/* 100 / 1.9 = 52.6 */
	{250, 16, 0.0, 15},			/* 15 whole segments (250 / 16) / 1.0 */
};

/*
 * One requested checkpoint whose redo pointer moves from redo_offset into
 * segment 10 to new_redo; was it counted as forced by WAL?
 */
static int64_t
forced_count_after_move(const ForcedMoveCase *c, uint64_t redo_offset,
						uint64_t new_redo)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	uint64_t	segment_bytes = (uint64_t) c->segment_mb * BYTES_PER_MB;
	WalsizerMeasurements m;

	set.segment_bytes = (int64_t) segment_bytes;
	set.completion_target = c->completion_target;
	s.max_wal_size_mb = c->max_wal_size_mb;
	s.redo_lsn = 10 * segment_bytes + redo_offset;
	s.insert_lsn = s.redo_lsn;
	walsizer_measure_start(&ms, &s, &set);
	s.at_us += SECOND;
	s.insert_lsn = new_redo;
	s.redo_lsn = new_redo;
	s.requested++;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_EQ(m.requested, 1);
	return m.wal_forced;
}

static void
a_requested_checkpoint_short_of_checkpoint_segments_is_not_forced(void)
{
	for (size_t i = 0; i < sizeof(forced_move_cases) / sizeof(forced_move_cases[0]); i++)
	{
		const ForcedMoveCase *c = &forced_move_cases[i];
		uint64_t	segment_bytes = (uint64_t) c->segment_mb * BYTES_PER_MB;
		uint64_t	redo_segment_start = 10 * segment_bytes;
		uint64_t	trigger_at = redo_segment_start +
			(uint64_t) c->checkpoint_segments * segment_bytes;
		int			failures_before = unit_checks_failed_in_test;

		/*
		 * A cron CHECKPOINT after CheckPointSegments - 1 segments and a bit
		 * (or, from a redo pointer late in its segment, the last byte
		 * before the trigger): PostgreSQL had not finished the segment that
		 * forces one.
		 */
		CHECK_EQ(forced_count_after_move(c, 0, trigger_at - segment_bytes / 4), 0);
		CHECK_EQ(forced_count_after_move(c, segment_bytes / 2, trigger_at - 1), 0);
		/* at the trigger, wherever the redo pointer was in its segment */
		CHECK_EQ(forced_count_after_move(c, 0, trigger_at), 1);
		CHECK_EQ(forced_count_after_move(c, segment_bytes - 1, trigger_at), 1);
		if (unit_checks_failed_in_test != failures_before)
			fprintf(stderr, "#     max_wal_size %lld MB, %lld MB segments, target %.1f\n",
					(long long) c->max_wal_size_mb, (long long) c->segment_mb,
					c->completion_target);
	}
}

static void
the_trigger_is_judged_at_the_size_before_the_move(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	/* at 64 MB two segments are far enough; the size then grows to 1 GB */
	s.max_wal_size_mb = 64;
	walsizer_measure_start(&ms, &s, &set);
	checkpoint_after(&s, 2);
	s.requested++;
	s.max_wal_size_mb = 1024;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_EQ(m.wal_forced, 1);
}

static void
a_forced_checkpoint_reported_after_the_window_counts_in_the_next(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements ended;
	WalsizerMeasurements next;

	walsizer_measure_start(&ms, &s, &set);
	checkpoint_after(&s, 40);
	walsizer_measure_add(&ms, &s, &set);
	/* the window ends before the checkpoint is done */
	walsizer_measure_get(&ms, true, true, &set, &ended);
	CHECK_EQ(ended.wal_forced, 0);
	walsizer_measure_end_window(&ms, &ended, &set);
	s.requested++;
	s.at_us += SECOND;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &next);
	CHECK_EQ(next.requested, 1);
	CHECK_EQ(next.wal_forced, 1);
}

static void
forced_checkpoints_at_a_size_not_ours_do_not_count_since_change(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	checkpoint_after(&s, 40);
	s.requested++;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, false, &set, &m);
	CHECK_EQ(m.wal_forced_since_change, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_EQ(m.wal_forced_since_change, 1);
	walsizer_measure_size_changed(&ms);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_EQ(m.wal_forced_since_change, 0);
}

static void
a_counter_reset_marks_the_window(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.timed = 50;
	s.requested = 20;
	walsizer_measure_start(&ms, &s, &set);
	write_for_one_second(&s, 1);
	s.timed = 0;
	s.requested = 0;
	s.counters_reset_at = 8;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK(m.counters_reset);
	CHECK_EQ(m.requested, 0);
	CHECK_EQ(m.timed, 0);
	/* the next window is clean again */
	walsizer_measure_end_window(&ms, &m, &set);
	write_for_one_second(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK(!m.counters_reset);
}

/*
 * A statistics reset whose counters, by the next sample, are back at or
 * past their old values (a reset at small counts, then a few checkpoints)
 * shows only in its timestamp.  Across it, "now minus window start" is no
 * count of anything, so the window must still be marked as reset and
 * count no checkpoints rather than a made-up difference.
 */
static void
a_counter_reset_is_seen_in_its_timestamp_alone(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.timed = 1;
	s.requested = 1;
	walsizer_measure_start(&ms, &s, &set);
	/* reset, then one timed and two requested checkpoints within 10 s */
	s.at_us += 10 * SECOND;
	s.insert_lsn += 10 * BYTES_PER_MB;
	s.timed = 1;
	s.requested = 2;
	s.counters_reset_at = 8;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK(m.counters_reset);
	CHECK_EQ(m.requested, 0);
	CHECK_EQ(m.timed, 0);
	CHECK_EQ(m.wal_forced, 0);
}

/*
 * The same load measured twice, once with a reset of the checkpoint
 * counters in the middle of the window: the reset costs the window's
 * checkpoint counts, nothing else.  The WAL, the redo pointer moves and
 * the cycles between them, the rates and the reach are never reset, so
 * the policy decides on them as in any window.
 */
static void
measure_a_load_with_cycles(bool reset_midway, WalsizerMeasurements *m,
						   WalsizerStatusFigures *f)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();

	s.timed = 50;
	s.requested = 20;
	start_at_a_checkpoint(&s, &set);
	for (int cycle = 0; cycle < 3; cycle++)
	{
		run_cycle(&s, &set, 30, 2, 1);
		s.timed++;
		if (reset_midway && cycle == 1)
		{
			s.timed = 0;
			s.requested = 0;
			s.counters_reset_at = 8;
		}
	}
	run_seconds(&s, &set, 5, 2, 1);
	walsizer_measure_get(&ms, true, true, &set, m);
	walsizer_measure_status_figures(&ms, f);
}

static void
a_counter_reset_costs_only_the_windows_checkpoint_counts(void)
{
	WalsizerMeasurements calm;
	WalsizerMeasurements reset;
	WalsizerStatusFigures calm_figures;
	WalsizerStatusFigures reset_figures;

	measure_a_load_with_cycles(false, &calm, &calm_figures);
	measure_a_load_with_cycles(true, &reset, &reset_figures);

	CHECK(!calm.counters_reset);
	CHECK_EQ(calm.timed, 3);
	CHECK(reset.counters_reset);
	CHECK_EQ(reset.timed, 0);
	CHECK_EQ(reset.requested, 0);
	CHECK_EQ(reset.wal_forced, 0);

	/* what the WAL position and the redo pointer show is all there */
	CHECK_UEQ(reset.wal_bytes, calm.wal_bytes);
	CHECK_CMP(reset.wal_bytes, >, 0);
	CHECK_EQ(reset.timed_cycles_at_size, calm.timed_cycles_at_size);
	CHECK_CMP(reset.timed_cycles_at_size, >=, 2);
	CHECK_UEQ(reset.timed_cycle_peak_bytes, calm.timed_cycle_peak_bytes);
	CHECK_UEQ(reset.timed_cycle_peak_bytes_at_size,
			  calm.timed_cycle_peak_bytes_at_size);
	CHECK_EQ(reset.wal_forced_at_size, calm.wal_forced_at_size);
	CHECK_UEQ(reset_figures.last_cycle_bytes, calm_figures.last_cycle_bytes);
	CHECK_UEQ(reset_figures.last_cycle_fpi_bytes, calm_figures.last_cycle_fpi_bytes);
	CHECK_RATE(reset.peak_rate, calm.peak_rate / (double) BYTES_PER_MB);
	CHECK_RATE(reset.recent_rate, calm.recent_rate / (double) BYTES_PER_MB);
	CHECK_UEQ(reset.reach_bytes, calm.reach_bytes);
	CHECK_UEQ(reset.peak_reach_bytes_at_size, calm.peak_reach_bytes_at_size);
}

/*
 * A window that saw a reset counted no requested checkpoints, so it
 * cannot tell which of its far redo moves had their counter bumped.  Those
 * before the reset were counted, or reset away: carried into the next
 * window they would make a CHECKPOINT command there look forced by WAL.
 * A far move after the reset may still be counted in the next window.
 */
static void
a_reset_window_carries_only_the_far_moves_after_the_reset(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.requested = 20;
	walsizer_measure_start(&ms, &s, &set);
	/* forced by WAL and counted, then the counters are reset */
	checkpoint_after(&s, 40);
	walsizer_measure_add(&ms, &s, &set);
	s.at_us += SECOND;
	s.requested = 21;
	walsizer_measure_add(&ms, &s, &set);
	s.at_us += SECOND;
	s.requested = 0;
	s.counters_reset_at = 8;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK(m.counters_reset);
	walsizer_measure_end_window(&ms, &m, &set);
	/* the next window: a CHECKPOINT command, one segment on */
	checkpoint_after(&s, 1);
	s.requested++;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK(!m.counters_reset);
	CHECK_EQ(m.requested, 1);
	CHECK_EQ(m.wal_forced, 0);
	walsizer_measure_end_window(&ms, &m, &set);

	/* a reset, then a far move counted only in the next window */
	s.at_us += SECOND;
	s.requested = 0;
	s.counters_reset_at = 9;
	walsizer_measure_add(&ms, &s, &set);
	checkpoint_after(&s, 40);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK(m.counters_reset);
	walsizer_measure_end_window(&ms, &m, &set);
	s.at_us += SECOND;
	s.requested = 1;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_EQ(m.requested, 1);
	CHECK_EQ(m.wal_forced, 1);
}

static void
recent_rate_needs_two_seconds_then_takes_the_higher_span(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	write_for_one_second(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(!m.recent_rate_valid);
	/* three quiet seconds, then two at 10 MB/s */
	write_for_one_second(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	write_for_one_second(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	write_for_one_second(&s, 10);
	walsizer_measure_add(&ms, &s, &set);
	write_for_one_second(&s, 10);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate_valid);
	/* the last two seconds, not the five-second average of 4.6 MB/s */
	CHECK_CMP(m.recent_rate, ==, 10 * BYTES_PER_MB);
}

/*
 * The recent rate rests on at least three samples, two intervals: with
 * walsizer.sample_interval at 2 or 3 s, two samples already span the two
 * seconds it also needs, but a single interval is one reading, and one
 * burst in it (a COPY finishing, the images right after a checkpoint)
 * would pass for the load the policy sizes for.
 */
static void
recent_rate_needs_three_samples_with_slow_sampling(void)
{
	static const int interval_ms[] = {2000, 3000};

	for (size_t i = 0; i < sizeof(interval_ms) / sizeof(interval_ms[0]); i++)
	{
		WalsizerMeasureSettings set = settings_30s();
		WalsizerSample s = first_sample();
		int64_t		interval_us = (int64_t) interval_ms[i] * 1000;
		WalsizerMeasurements m;

		set.sample_interval_ms = interval_ms[i];
		walsizer_measure_start(&ms, &s, &set);
		s.at_us += interval_us;
		s.insert_lsn += 100 * BYTES_PER_MB;
		walsizer_measure_add(&ms, &s, &set);
		walsizer_measure_get(&ms, false, true, &set, &m);
		CHECK(!m.recent_rate_valid);
		CHECK_UEQ(m.reach_bytes, 0);

		s.at_us += interval_us;
		s.insert_lsn += 100 * BYTES_PER_MB;
		walsizer_measure_add(&ms, &s, &set);
		walsizer_measure_get(&ms, false, true, &set, &m);
		CHECK(m.recent_rate_valid);
		CHECK_RATE(m.recent_rate, 100.0 * 1000 / interval_ms[i]);
	}
}

/*
 * A segment switch on an idle server (a base backup's start and stop,
 * pg_switch_wal(), archive_timeout) moves the insert position to the next
 * segment's start at once.  Those positions count towards the redo
 * distance, but they are a step, not a rate: the recent rate, and the
 * reach projected from it, must not take one pg_basebackup for a load
 * writing megabytes a second.
 */
static void
a_segment_switch_is_a_step_not_a_recent_rate(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.insert_lsn += 3 * BYTES_PER_MB;
	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 3; i++)
	{
		s.at_us += SECOND;
		s.insert_lsn += 1000;	/* idle: a few records a second */
		walsizer_measure_add(&ms, &s, &set);
	}
	/* the switch: the rest of segment 10 skipped, a checkpoint record */
	s.at_us += SECOND;
	s.insert_lsn = 11 * SEGMENT + 120;
	walsizer_measure_add(&ms, &s, &set);
	s.at_us += SECOND;
	s.insert_lsn += 1000;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate_valid);
	CHECK_CMP(m.recent_rate, <, 0.1 * BYTES_PER_MB);
	/* the skipped positions still count towards a forced checkpoint */
	CHECK_UEQ(m.wal_since_redo_bytes, SEGMENT + 120 + 1000);
	CHECK_CMP((double) m.reach_bytes, <, (double) m.wal_since_redo_bytes + 0.1 * BYTES_PER_MB);

	/* two switches within one sample (a backup's stop, pg_switch_wal()) */
	s.at_us += SECOND;
	s.insert_lsn = 13 * SEGMENT + 20000;
	walsizer_measure_add(&ms, &s, &set);
	s.at_us += SECOND;
	s.insert_lsn += 1000;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(m.recent_rate, <, 0.1 * BYTES_PER_MB);
}

/*
 * A standby replays the switch: its replay position ends on the next
 * segment's very start (the switch record ends there), where a primary's
 * insert position never is.  The same step, not a rate.
 */
static void
a_replayed_segment_switch_is_a_step_not_a_recent_rate(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.standby = true;
	s.insert_lsn += 3 * BYTES_PER_MB;
	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 3; i++)
	{
		s.at_us += SECOND;
		s.insert_lsn += 1000;
		walsizer_measure_add(&ms, &s, &set);
	}
	s.at_us += SECOND;
	s.insert_lsn = 11 * SEGMENT;	/* the switch record replayed */
	walsizer_measure_add(&ms, &s, &set);
	s.at_us += SECOND;
	walsizer_measure_add(&ms, &s, &set);	/* nothing more yet */
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate_valid);
	CHECK_CMP(m.recent_rate, <, 0.1 * BYTES_PER_MB);
}

/*
 * A load that crosses into the next segment by itself keeps its rate; a
 * sample that happens to land within the first few kilobytes of a segment,
 * which looks like a switch, costs the rate at most that one interval.
 */
static void
a_load_crossing_segments_keeps_its_recent_rate(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.insert_lsn += 100;
	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 10; i++)
	{
		write_for_one_second(&s, 6);	/* lands at 6, 12, 2, 8, 14, 4 ... MB */
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_RATE(m.recent_rate, 6);

	/* one second that ends 100 bytes into the next segment */
	s.at_us += SECOND;
	s.insert_lsn = (s.insert_lsn / SEGMENT + 1) * SEGMENT + 100;
	walsizer_measure_add(&ms, &s, &set);
	for (int i = 0; i < 2; i++)
	{
		write_for_one_second(&s, 6);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(m.recent_rate, >=, 0.75 * 6 * BYTES_PER_MB);
}

static void
peak_rate_is_the_worst_whole_cycle(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	/* a 10 s burst at 20 MB/s inside 60 s at 2 MB/s */
	for (int i = 0; i < 60; i++)
	{
		write_for_one_second(&s, i >= 20 && i < 30 ? 20 : 2);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK(m.peak_covers_cycle);
	/* worst 30 s: 10 s at 20 and 20 s at 2 = 240 MB / 30 s = 8 MB/s */
	CHECK_CMP(m.peak_rate, >, 7.99 * BYTES_PER_MB);
	CHECK_CMP(m.peak_rate, <, 8.01 * BYTES_PER_MB);
}

static void
peak_rate_before_a_whole_cycle_is_the_average_so_far(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 10; i++)
	{
		write_for_one_second(&s, i < 5 ? 8 : 2);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(!m.peak_covers_cycle);
	CHECK_CMP(m.peak_rate, ==, 5 * BYTES_PER_MB);
}

static void
peak_rate_forgets_a_burst_older_than_the_horizon(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	/* horizon: 4 windows of 30 s; the burst ends 150 s before the end */
	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 180; i++)
	{
		write_for_one_second(&s, i < 30 ? 20 : 1);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(m.peak_rate, ==, 1 * BYTES_PER_MB);
}

/*
 * Samples further apart than the horizon (a worker held up, a suspended
 * machine) leave the history with the two points around the gap, not one:
 * the WAL written across the gap is still a rate, and a history with no
 * rate would read as an idle server.  400 MB in 200 s, horizon 120 s.
 */
static void
a_gap_longer_than_the_horizon_still_gives_a_peak_rate(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 10; i++)
	{
		write_for_one_second(&s, 1);
		walsizer_measure_add(&ms, &s, &set);
	}
	s.at_us += 200 * SECOND;
	s.insert_lsn += 400 * BYTES_PER_MB;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_EQ(ms.history.count, 2);
	CHECK(m.peak_covers_cycle);
	CHECK_RATE(m.peak_rate, 2);
}

static void
a_size_change_restarts_the_peak_history(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 40; i++)
	{
		write_for_one_second(&s, 20);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_size_changed(&ms);
	for (int i = 0; i < 5; i++)
	{
		write_for_one_second(&s, 2);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(!m.peak_covers_cycle);
	CHECK_CMP(m.peak_rate, ==, 2 * BYTES_PER_MB);
}

static void
history_thins_to_cover_the_horizon_with_fast_samples(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	/* 100 ms samples over 1200 s: more samples than history points */
	set.sample_interval_ms = 100;
	set.window_s = 300;
	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 12000; i++)
	{
		s.at_us += SECOND / 10;
		s.insert_lsn += (uint64_t) ((i < 3000 ? 9.0 : 1.0) * BYTES_PER_MB / 10);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	/* the busy first 300 s are still inside the 1200 s horizon */
	CHECK(m.peak_covers_cycle);
	CHECK_CMP(m.peak_rate, >, 8.9 * BYTES_PER_MB);
	CHECK_CMP(ms.history.count, <=, MEASURE_HISTORY_POINTS);
}

static void
timed_checkpoint_clock_starts_at_the_last_redo_move(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	write_for_one_second(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	/* no checkpoint seen yet: assume a whole cycle */
	CHECK_CMP(m.seconds_to_timed_checkpoint, ==, 30);
	s.redo_lsn = s.insert_lsn;
	walsizer_measure_add(&ms, &s, &set);
	for (int i = 0; i < 12; i++)
	{
		write_for_one_second(&s, 1);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(m.seconds_to_timed_checkpoint, ==, 18);
	CHECK_UEQ(m.wal_since_redo_bytes, 12 * BYTES_PER_MB);
}

static void
windows_end_on_time_and_follow_a_new_length(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 29; i++)
	{
		write_for_one_second(&s, 1);
		walsizer_measure_add(&ms, &s, &set);
	}
	CHECK(!walsizer_measure_window_due(&ms));
	write_for_one_second(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	CHECK(walsizer_measure_window_due(&ms));
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_CMP(m.window_s, ==, 30);
	CHECK_UEQ(m.wal_bytes, 30 * BYTES_PER_MB);
	walsizer_measure_end_window(&ms, &m, &set);
	CHECK(!walsizer_measure_window_due(&ms));
	/* a shorter window applies from the current window's start */
	set.window_s = 5;
	for (int i = 0; i < 5; i++)
	{
		write_for_one_second(&s, 1);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_window_length_changed(&ms, &set);
	CHECK(walsizer_measure_window_due(&ms));
}

static void
window_full_page_images_and_their_reset(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();

	s.wal_fpi = 100;
	walsizer_measure_start(&ms, &s, &set);
	write_for_one_second(&s, 1);
	s.wal_fpi = 350;
	walsizer_measure_add(&ms, &s, &set);
	CHECK_EQ(walsizer_measure_window_fpi(&ms), 250);
	s.wal_fpi = 10;
	s.wal_reset_at = 99;
	walsizer_measure_add(&ms, &s, &set);
	CHECK_EQ(walsizer_measure_window_fpi(&ms), 0);
}

/*
 * Whole timed cycles measured while walsizer was off (a bulk load the DBA
 * ran with walsizer.enable = off) are no evidence either.
 */
static void
forgetting_the_load_forgets_its_cycles(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	checkpoint_after(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	for (int i = 0; i < 30; i++)
	{
		write_for_one_second(&s, 10);
		walsizer_measure_add(&ms, &s, &set);
	}
	checkpoint_after(&s, 0);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UCMP(m.timed_cycle_peak_bytes, >, 0);
	CHECK(figures_now().last_cycle_s > 0);
	walsizer_measure_forget_load(&ms, &set);
	write_for_one_second(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 0);
	CHECK(figures_now().last_cycle_s == 0);
}

static void
forgetting_the_load_empties_both_rates(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 10; i++)
	{
		write_for_one_second(&s, 50);
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_forget_load(&ms, &set);
	write_for_one_second(&s, 1);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(!m.recent_rate_valid);
	CHECK_CMP(m.peak_rate, <, 2 * BYTES_PER_MB);
	CHECK_UEQ(m.wal_bytes, 1 * BYTES_PER_MB);
}

/* --- full-page images and the record rate ----------------------------- */

/*
 * Before PostgreSQL 19 the server counts images, not their bytes: each is
 * taken for a whole 8 kB block.  10 MB/s of WAL of which 256 images a
 * second (2 MB) leaves 8 MB/s of records.
 */
static void
recent_record_rate_leaves_out_images_estimated_from_their_count(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	run_seconds(&s, &set, 5, 8, 2);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate_valid);
	CHECK(!figures_now().fpi_bytes_measured);
	CHECK_RATE(m.recent_rate, 10);
	CHECK_RATE(m.recent_record_rate, 8);
}

/*
 * Where the server counts image bytes (19+), those are used, not the
 * count: 3 MB/s of images in 10 MB/s, whatever their number.
 */
static void
recent_record_rate_uses_the_servers_image_bytes_when_counted(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.fpi_bytes_counted = true;
	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 5; i++)
	{
		write_for_one_second(&s, 10);
		s.wal_stat_bytes += 10 * BYTES_PER_MB;
		s.wal_fpi += 1000;		/* compressed: 1000 images in 3 MB */
		s.wal_fpi_bytes += 3 * BYTES_PER_MB;
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(figures_now().fpi_bytes_measured);
	CHECK_RATE(m.recent_rate, 10);
	CHECK_RATE(m.recent_record_rate, 7);
}

/*
 * Before PostgreSQL 19 an image counts as a whole 8 kB block, but with
 * wal_compression it takes less: a load of images alone, 4 MB/s holding
 * 2048 of them (16 MB by the count), has no records, never a negative
 * record rate.
 */
static void
compressed_images_never_make_a_negative_record_rate(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	for (int i = 0; i < 5; i++)
	{
		write_for_one_second(&s, 4);
		s.wal_stat_bytes += 4 * BYTES_PER_MB;
		s.wal_fpi += 4 * 4 * IMAGES_PER_MB;
		walsizer_measure_add(&ms, &s, &set);
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate_valid);
	CHECK_RATE(m.recent_rate, 4);
	CHECK_RATE(m.recent_record_rate, 0);
}

/*
 * A WAL position behind the one before (a server put back to an older
 * copy of itself under a running worker) is no WAL written: the rates
 * over it are 0, not the 16 EB/s an unsigned difference would give.
 */
static void
a_wal_position_that_went_back_is_no_rate(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	run_seconds(&s, &set, 5, 4, 0);
	write_for_one_second(&s, 0);
	s.insert_lsn = 5 * SEGMENT;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate == 0);
	CHECK(m.recent_record_rate == 0);
	CHECK(m.peak_rate == 0);
}

/* A reset of the WAL statistics sets wal_fpi back: no images across it. */
static void
images_across_a_wal_statistics_reset_are_not_counted(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.wal_fpi = 100;
	walsizer_measure_start(&ms, &s, &set);
	run_seconds(&s, &set, 2, 4, 0);
	/* reset, then 5000 images counted from zero by the next sample */
	write_for_one_second(&s, 4);
	s.wal_fpi = 5000;
	s.wal_stat_bytes = 4 * BYTES_PER_MB;
	s.wal_reset_at = 99;
	walsizer_measure_add(&ms, &s, &set);
	run_seconds(&s, &set, 2, 4, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_RATE(m.recent_record_rate, 4);
}

/* --- checkpoint cycles ---------------------------------------------------- */

/*
 * A cycle from one redo pointer move to the next: its length, its WAL and
 * its images, and whether it was a whole timed one.  30 s at 2 MB/s of
 * records and 1 MB/s of images.  The first move the worker sees ends no
 * cycle.
 */
static void
a_whole_timed_cycle_is_measured_and_counted(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	run_cycle(&s, &set, 10, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(figures_now().last_cycle_s, ==, 0);
	CHECK_EQ(m.timed_cycles_at_size, 0);

	run_cycle(&s, &set, 30, 2, 1);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(figures_now().last_cycle_s, ==, 30);
	CHECK_UEQ(figures_now().last_cycle_bytes, 90 * BYTES_PER_MB);
	CHECK_UEQ(figures_now().last_cycle_fpi_bytes, 30 * BYTES_PER_MB);
	CHECK(figures_now().last_cycle_timed);
	CHECK_EQ(m.timed_cycles_at_size, 1);
	CHECK_EQ(m.wal_forced_at_size, 0);

	run_cycle(&s, &set, 30, 2, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(figures_now().last_cycle_fpi_bytes, 0);
	CHECK_EQ(m.timed_cycles_at_size, 2);
}

/*
 * A cycle keeps its images up to a point near its middle, which show how
 * fast they fell (the what-if table's working set): 3 MB/s of images for
 * the first 15 s of a 30 s cycle, then 1 MB/s.  The point nearest the
 * middle is 15 s in, with 45 of the 60 MB.  The first cycle measuring
 * sees has no start, so no middle; a cycle of one sample has no point
 * inside it.
 */
static void
a_cycle_keeps_its_images_up_to_its_middle(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();

	start_at_a_checkpoint(&s, &set);
	CHECK_CMP(figures_now().last_cycle_mid_s, ==, 0);
	run_seconds(&s, &set, 15, 1, 3);
	run_cycle(&s, &set, 15, 1, 1);
	CHECK_CMP(figures_now().last_cycle_s, ==, 30);
	CHECK_UEQ(figures_now().last_cycle_fpi_bytes, 60 * BYTES_PER_MB);
	CHECK_CMP(figures_now().last_cycle_mid_s, ==, 15);
	CHECK_UEQ(figures_now().last_cycle_mid_fpi_bytes, 45 * BYTES_PER_MB);

	/* images only late in the cycle: few up to its middle */
	run_seconds(&s, &set, 20, 1, 0);
	run_cycle(&s, &set, 10, 1, 2);
	CHECK_CMP(figures_now().last_cycle_mid_s, ==, 15);
	CHECK_UEQ(figures_now().last_cycle_mid_fpi_bytes, 0);

	run_cycle(&s, &set, 1, 1, 5);
	CHECK_CMP(figures_now().last_cycle_s, ==, 1);
	CHECK_CMP(figures_now().last_cycle_mid_s, ==, 0);
	CHECK_UEQ(figures_now().last_cycle_mid_fpi_bytes, 0);
}

/*
 * A cycle a CHECKPOINT command cut short says less about a cycle's WAL:
 * it is a timed one only when it lasted 90 % of checkpoint_timeout (27 s
 * of 30), not 26 s.
 */
static void
a_timed_cycle_lasts_most_of_checkpoint_timeout(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_cycle(&s, &set, 26, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(figures_now().last_cycle_s, ==, 26);
	CHECK(!figures_now().last_cycle_timed);
	CHECK_EQ(m.timed_cycles_at_size, 0);

	run_cycle(&s, &set, 27, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(figures_now().last_cycle_timed);
	CHECK_EQ(m.timed_cycles_at_size, 1);
}

/*
 * A cycle that WAL forced is no timed one, however long it ran; it counts
 * as forced at the size, whoever set the size.
 */
static void
a_forced_cycle_is_not_a_timed_one(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	/* 30 s at 20 MB/s: 600 MB, past the 512 MB trigger at 1 GB */
	run_cycle(&s, &set, 30, 20, 0);
	walsizer_measure_get(&ms, false, false, &set, &m);
	CHECK_CMP(figures_now().last_cycle_s, ==, 30);
	CHECK(!figures_now().last_cycle_timed);
	CHECK_EQ(m.timed_cycles_at_size, 0);
	CHECK_EQ(m.wal_forced_at_size, 1);
	CHECK(!m.size_is_walsizers);
	CHECK_EQ(m.wal_forced_since_change, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.size_is_walsizers);
	CHECK_EQ(m.wal_forced_at_size, 1);
}

/*
 * Cycles are counted for the size in effect when they started: one that
 * was half over when the size changed says little about the new size.
 * A size change starts the count, and the forced count, again.
 */
static void
only_cycles_started_after_the_size_change_count(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_cycle(&s, &set, 30, 20, 0);		/* forced */
	run_cycle(&s, &set, 30, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_EQ(m.timed_cycles_at_size, 1);
	CHECK_EQ(m.wal_forced_at_size, 1);

	run_seconds(&s, &set, 15, 1, 0);
	walsizer_measure_size_changed(&ms);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_EQ(m.timed_cycles_at_size, 0);
	CHECK_EQ(m.wal_forced_at_size, 0);

	run_cycle(&s, &set, 15, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(figures_now().last_cycle_timed);
	CHECK_EQ(m.timed_cycles_at_size, 0);
	CHECK_UEQ(m.timed_cycle_peak_bytes_at_size, 0);

	run_cycle(&s, &set, 30, 2, 0);
	run_cycle(&s, &set, 30, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_EQ(m.timed_cycles_at_size, 2);
	CHECK_UEQ(m.timed_cycle_peak_bytes_at_size, 60 * BYTES_PER_MB);

	walsizer_measure_size_changed(&ms);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_EQ(m.timed_cycles_at_size, 0);
	CHECK_UEQ(m.timed_cycle_peak_bytes_at_size, 0);
}

/*
 * What the load needs comes first from whole timed cycles: the most WAL
 * one wrote among those that ended within the horizon (120 s here),
 * whatever the size was then.  Forced cycles are not among them.
 */
static void
timed_cycle_peak_is_the_largest_whole_timed_cycle_in_the_horizon(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 0);

	run_cycle(&s, &set, 30, 2, 1);		/* 90 MB */
	run_cycle(&s, &set, 30, 1, 0);		/* 30 MB */
	run_cycle(&s, &set, 10, 60, 0);		/* forced: 600 MB */
	walsizer_measure_size_changed(&ms);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 90 * BYTES_PER_MB);

	/* 120 s later the 90 MB cycle is past the horizon */
	for (int i = 0; i < 4; i++)
		run_cycle(&s, &set, 30, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 30 * BYTES_PER_MB);
}

/*
 * A timed cycle holds one checkpoint_timeout of the load at the timeout it
 * was measured at: once the DBA changes checkpoint_timeout, the cycles of
 * the old one do not size for the new (30 s cycles would size a 60 s
 * timeout for half its WAL), and count again when it is changed back.
 */
static void
timed_cycles_count_only_at_the_checkpoint_timeout_they_lasted(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_cycle(&s, &set, 30, 2, 1);		/* 90 MB */
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 90 * BYTES_PER_MB);

	set.checkpoint_timeout_s = 60;
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 0);
	set.checkpoint_timeout_s = 15;
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 0);
	set.checkpoint_timeout_s = 30;
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 90 * BYTES_PER_MB);
}

/* --- how far the WAL after the redo pointer will reach ------------------- */

/*
 * The lookahead is three samples, at least 3 s, and never past the timed
 * checkpoint, which starts a new cycle.  Records only, at 2 MB/s.
 */
static void
reach_looks_ahead_no_further_than_the_timed_checkpoint(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_seconds(&s, &set, 10, 2, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate_valid);
	CHECK_CMP(m.reach_within_s, ==, 3);
	CHECK_BYTES_NEAR(m.reach_bytes, m.wal_since_redo_bytes + 3 * 2 * BYTES_PER_MB);

	/* 2 s before the timed checkpoint */
	run_seconds(&s, &set, 18, 2, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(m.seconds_to_timed_checkpoint, ==, 2);
	CHECK_CMP(m.reach_within_s, ==, 2);
	CHECK_BYTES_NEAR(m.reach_bytes, m.wal_since_redo_bytes + 2 * 2 * BYTES_PER_MB);

	/* with 2 s samples, three of them: 6 s */
	set.sample_interval_ms = 2000;
	start_at_a_checkpoint(&s, &set);
	run_seconds(&s, &set, 10, 2, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(m.reach_within_s, ==, 6);
}

/*
 * The first 5 s of a cycle after a checkpoint: 12 MB/s of full-page images
 * on 1 MB/s of records, 65 MB after the redo pointer.  At their recent
 * rate, images would add 36 MB within the 3 s lookahead, records 3 MB.
 */
static void
run_image_heavy_seconds(WalsizerSample *s, const WalsizerMeasureSettings *set)
{
	run_seconds(s, set, 5, 1, 12);
}

/*
 * Cycle A, a whole timed one, wrote 60 MB of images (2 MB/s); cycle B
 * starts image-heavy and has written 60 MB of them after 5 s.  B may write
 * only 20 % more images than A, 72 MB, so 12 MB more, not 36.
 */
static void
reach_bounds_images_by_the_last_timed_cycles_images(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_cycle(&s, &set, 30, 1, 2);
	run_image_heavy_seconds(&s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(figures_now().last_cycle_fpi_bytes, 60 * BYTES_PER_MB);
	CHECK_UEQ(m.wal_since_redo_bytes, 65 * BYTES_PER_MB);
	CHECK_RATE(m.recent_rate, 13);
	CHECK_RATE(m.recent_record_rate, 1);
	CHECK_BYTES_NEAR(m.reach_bytes, (65 + 3 + 12) * BYTES_PER_MB);

	/* once B wrote all A's images and 20 % more, records alone go on */
	run_seconds(&s, &set, 1, 1, 12);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_BYTES_NEAR(m.reach_bytes, m.wal_since_redo_bytes + 3 * BYTES_PER_MB);
}

/* Before any whole timed cycle was measured, images go on at their rate. */
static void
reach_does_not_bound_images_before_a_timed_cycle(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_image_heavy_seconds(&s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.wal_since_redo_bytes, 65 * BYTES_PER_MB);
	CHECK_BYTES_NEAR(m.reach_bytes, (65 + 3 + 36) * BYTES_PER_MB);
}

/*
 * A checkpoint forced by WAL is a load the last timed cycle did not see:
 * its images no longer bound the next cycle's, until another whole timed
 * cycle is measured.
 */
static void
reach_drops_the_image_bound_after_a_forced_checkpoint(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_cycle(&s, &set, 30, 1, 2);		/* timed: 60 MB of images */
	run_cycle(&s, &set, 10, 60, 0);		/* forced: 600 MB */
	run_image_heavy_seconds(&s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(!figures_now().last_cycle_timed);
	CHECK_BYTES_NEAR(m.reach_bytes, (65 + 3 + 36) * BYTES_PER_MB);

	/* a cycle cut short by a CHECKPOINT command does not bound them */
	run_cycle(&s, &set, 1, 1, 0);
	run_image_heavy_seconds(&s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_BYTES_NEAR(m.reach_bytes, (65 + 3 + 36) * BYTES_PER_MB);

	/* the next whole timed cycle bounds them again */
	run_cycle(&s, &set, 25, 1, 0);
	run_cycle(&s, &set, 30, 1, 2);
	run_image_heavy_seconds(&s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_BYTES_NEAR(m.reach_bytes, (65 + 3 + 12) * BYTES_PER_MB);
}

/*
 * The policy keeps a settled size clear of the furthest reach of the last
 * two cycles at the size: a heavy cycle is remembered through the next
 * one, and forgotten after that.
 */
static void
peak_reach_is_the_furthest_of_the_last_two_cycles(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_cycle(&s, &set, 30, 10, 0);		/* reaches about 300 MB */
	run_seconds(&s, &set, 10, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UCMP(m.peak_reach_bytes_at_size, >=, 290 * BYTES_PER_MB);
	CHECK_UCMP(m.reach_bytes, <, 50 * BYTES_PER_MB);

	run_cycle(&s, &set, 20, 1, 0);
	run_seconds(&s, &set, 10, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UCMP(m.peak_reach_bytes_at_size, <, 100 * BYTES_PER_MB);
	CHECK_UCMP(m.peak_reach_bytes_at_size, >=, m.reach_bytes);
}

/*
 * Reaches measured at the old size say nothing about the new one: the
 * peak reach restarts at a size change, with the sample after it.
 */
static void
peak_reach_restarts_at_a_size_change(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	start_at_a_checkpoint(&s, &set);
	run_cycle(&s, &set, 30, 10, 0);
	run_seconds(&s, &set, 10, 10, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UCMP(m.peak_reach_bytes_at_size, >=, 290 * BYTES_PER_MB);

	walsizer_measure_size_changed(&ms);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.peak_reach_bytes_at_size, 0);

	run_seconds(&s, &set, 1, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UCMP(m.peak_reach_bytes_at_size, >, 0);
	CHECK_UEQ(m.peak_reach_bytes_at_size, m.reach_bytes);
}

/*
 * A promotion: the replayed WAL's rate goes on into the new primary's
 * (same load, same WAL positions), and the window starts afresh; the
 * restartpoint cycles and far moves of the standby are forgotten.
 */
static void
a_promotion_keeps_the_rate_and_forgets_the_restartpoints(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.standby = true;
	s.max_wal_size_mb = 64;
	start_at_a_checkpoint(&s, &set);
	/* restartpoints at far replayed checkpoint records: requested, far */
	for (int i = 0; i < 2; i++)
	{
		run_cycle(&s, &set, 30, 4, 0);
		s.requested++;
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.standby);
	CHECK(m.peak_covers_cycle);
	CHECK_CMP(m.wal_forced_at_size, >, 0);
	CHECK_UCMP(figures_now().last_cycle_bytes, >, 0);
	/* and timed ones, once it is large enough */
	s.max_wal_size_mb = 1024;
	for (int i = 0; i < 2; i++)
	{
		run_cycle(&s, &set, 30, 4, 0);
		s.timed++;
	}
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 120 * BYTES_PER_MB);

	/* promoted: the checkpoint counters take over from the restartpoints' */
	s.standby = false;
	s.requested = 0;
	s.timed = 0;
	write_for_one_second(&s, 4);
	walsizer_measure_role_changed(&ms, &s, &set, true);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK(!m.standby);
	CHECK(!m.counters_reset);
	CHECK_EQ(m.wal_forced_at_size, 0);
	CHECK_EQ(m.timed_cycles_at_size, 0);
	CHECK_UEQ(m.timed_cycle_peak_bytes, 0);
	CHECK_CMP(figures_now().last_cycle_s, ==, 0);
	CHECK(m.peak_covers_cycle);
	CHECK_RATE(m.peak_rate, 4);
	CHECK_CMP(m.window_s, ==, 0);
}

/*
 * The first checkpoint after a promotion is the promotion's own, from a
 * redo pointer (the last restartpoint's) that may be far behind: it starts
 * the first cycle, is not counted as forced, and the next one ends a
 * cycle that counts.
 */
static void
the_promotions_checkpoint_starts_a_cycle_and_is_not_forced(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.standby = true;
	s.max_wal_size_mb = 64;
	start_at_a_checkpoint(&s, &set);
	run_seconds(&s, &set, 30, 4, 0);	/* 120 MB since the restartpoint */
	s.standby = false;
	walsizer_measure_role_changed(&ms, &s, &set, true);
	walsizer_measure_add(&ms, &s, &set);
	/* 120 MB after the old redo pointer, 4 MB/s: no reach projected */
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate_valid);
	CHECK_UEQ(m.wal_since_redo_bytes, 120 * BYTES_PER_MB);
	CHECK_UEQ(m.reach_bytes, 0);
	s.requested++;
	run_cycle(&s, &set, 2, 4, 0);	/* the promotion's checkpoint: far */
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_UCMP(m.reach_bytes, >, 0);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_EQ(m.wal_forced, 0);
	CHECK_EQ(m.wal_forced_at_size, 0);
	CHECK_CMP(figures_now().last_cycle_s, ==, 0);

	s.max_wal_size_mb = 1024;
	s.timed++;
	run_cycle(&s, &set, 30, 4, 0);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_CMP(figures_now().last_cycle_s, ==, 30);
	CHECK(figures_now().last_cycle_timed);
	CHECK_EQ(m.timed_cycles_at_size, 1);
}

/*
 * An archive recovery that ends without a promotion ran its end-of-recovery
 * checkpoint before the server left recovery: the redo pointer is already
 * the primary's, and a checkpoint that WAL would force is projected at
 * once, not muted until the next redo move as after a promotion.
 */
static void
an_archive_recovery_ended_without_promotion_projects_at_once(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.standby = true;
	s.max_wal_size_mb = 64;
	start_at_a_checkpoint(&s, &set);
	run_seconds(&s, &set, 30, 4, 0);	/* 120 MB since the redo pointer */
	s.standby = false;
	walsizer_measure_role_changed(&ms, &s, &set, false);
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK(m.recent_rate_valid);
	CHECK_UEQ(m.wal_since_redo_bytes, 120 * BYTES_PER_MB);
	CHECK_UCMP(m.reach_bytes, >, 0);
}

/*
 * When the promotion's checkpoint had already moved the redo pointer by
 * the first sample as a primary, the next move is an ordinary one.
 */
static void
a_redo_move_seen_with_the_promotion_leaves_the_next_move_judged(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	s.standby = true;
	s.max_wal_size_mb = 32;
	start_at_a_checkpoint(&s, &set);
	run_seconds(&s, &set, 5, 4, 0);
	s.standby = false;
	checkpoint_after(&s, 1);
	walsizer_measure_role_changed(&ms, &s, &set, true);
	walsizer_measure_add(&ms, &s, &set);
	s.requested++;
	checkpoint_after(&s, 3);	/* 48 MB: far at 32 MB */
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_EQ(m.wal_forced, 1);
}

/*
 * A standby's rate: the highest of whole checkpoint_timeouts (each covered
 * at least 90 %) laid back to back from the latest sample over the horizon
 * (here four windows of 30 s); not the worst overlapping stretch.
 */
static void
the_whole_timeouts_rate_is_the_highest_back_to_back_stretch(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	run_seconds(&s, &set, 20, 2, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_CMP(m.whole_timeouts_rate, ==, 0);
	run_seconds(&s, &set, 8, 2, 0);		/* 28 s: 93 % of one */
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_RATE(m.whole_timeouts_rate, 2);

	/* 30 s at 1, then 15 s at 6 and 15 s at 1: 3.5 over the last 30 s */
	run_seconds(&s, &set, 2, 1, 0);
	run_seconds(&s, &set, 30, 1, 0);
	run_seconds(&s, &set, 15, 6, 0);
	run_seconds(&s, &set, 15, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_RATE(m.whole_timeouts_rate, 3.5);
	/*
	 * 7 s later the stretches split the burst: 8 s of it and 22 s at 1 in
	 * the last, 23 s at 1 and 7 s of it in the one before; the worst
	 * overlapping stretch still holds all of it
	 */
	run_seconds(&s, &set, 7, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_RATE(m.whole_timeouts_rate, 70.0 / 30);
	CHECK_RATE(m.peak_rate, 3.5);

	/* an earlier stretch counts while it is in the horizon (120 s) */
	run_seconds(&s, &set, 45, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_RATE(m.whole_timeouts_rate, 3.5);
	run_seconds(&s, &set, 90, 1, 0);
	walsizer_measure_get(&ms, false, true, &set, &m);
	CHECK_RATE(m.whole_timeouts_rate, 1);
}

int
main(void)
{
	const char *suite = "measure";

	RUN_TEST(suite, far_redo_move_with_a_requested_checkpoint_counts_as_wal_forced);
	RUN_TEST(suite, near_redo_move_is_a_manual_checkpoint_not_a_forced_one);
	RUN_TEST(suite, a_requested_checkpoint_short_of_checkpoint_segments_is_not_forced);
	RUN_TEST(suite, the_trigger_is_judged_at_the_size_before_the_move);
	RUN_TEST(suite, a_forced_checkpoint_reported_after_the_window_counts_in_the_next);
	RUN_TEST(suite, forced_checkpoints_at_a_size_not_ours_do_not_count_since_change);
	RUN_TEST(suite, a_counter_reset_marks_the_window);
	RUN_TEST(suite, a_counter_reset_is_seen_in_its_timestamp_alone);
	RUN_TEST(suite, a_counter_reset_costs_only_the_windows_checkpoint_counts);
	RUN_TEST(suite, a_reset_window_carries_only_the_far_moves_after_the_reset);
	RUN_TEST(suite, recent_rate_needs_two_seconds_then_takes_the_higher_span);
	RUN_TEST(suite, recent_rate_needs_three_samples_with_slow_sampling);
	RUN_TEST(suite, a_segment_switch_is_a_step_not_a_recent_rate);
	RUN_TEST(suite, a_replayed_segment_switch_is_a_step_not_a_recent_rate);
	RUN_TEST(suite, a_load_crossing_segments_keeps_its_recent_rate);
	RUN_TEST(suite, peak_rate_is_the_worst_whole_cycle);
	RUN_TEST(suite, peak_rate_before_a_whole_cycle_is_the_average_so_far);
	RUN_TEST(suite, peak_rate_forgets_a_burst_older_than_the_horizon);
	RUN_TEST(suite, a_gap_longer_than_the_horizon_still_gives_a_peak_rate);
	RUN_TEST(suite, a_size_change_restarts_the_peak_history);
	RUN_TEST(suite, history_thins_to_cover_the_horizon_with_fast_samples);
	RUN_TEST(suite, timed_checkpoint_clock_starts_at_the_last_redo_move);
	RUN_TEST(suite, windows_end_on_time_and_follow_a_new_length);
	RUN_TEST(suite, window_full_page_images_and_their_reset);
	RUN_TEST(suite, forgetting_the_load_empties_both_rates);
	RUN_TEST(suite, forgetting_the_load_forgets_its_cycles);
	RUN_TEST(suite, recent_record_rate_leaves_out_images_estimated_from_their_count);
	RUN_TEST(suite, recent_record_rate_uses_the_servers_image_bytes_when_counted);
	RUN_TEST(suite, images_across_a_wal_statistics_reset_are_not_counted);
	RUN_TEST(suite, compressed_images_never_make_a_negative_record_rate);
	RUN_TEST(suite, a_wal_position_that_went_back_is_no_rate);
	RUN_TEST(suite, a_whole_timed_cycle_is_measured_and_counted);
	RUN_TEST(suite, a_cycle_keeps_its_images_up_to_its_middle);
	RUN_TEST(suite, a_timed_cycle_lasts_most_of_checkpoint_timeout);
	RUN_TEST(suite, a_forced_cycle_is_not_a_timed_one);
	RUN_TEST(suite, only_cycles_started_after_the_size_change_count);
	RUN_TEST(suite, timed_cycle_peak_is_the_largest_whole_timed_cycle_in_the_horizon);
	RUN_TEST(suite, timed_cycles_count_only_at_the_checkpoint_timeout_they_lasted);
	RUN_TEST(suite, reach_looks_ahead_no_further_than_the_timed_checkpoint);
	RUN_TEST(suite, reach_bounds_images_by_the_last_timed_cycles_images);
	RUN_TEST(suite, reach_does_not_bound_images_before_a_timed_cycle);
	RUN_TEST(suite, reach_drops_the_image_bound_after_a_forced_checkpoint);
	RUN_TEST(suite, peak_reach_is_the_furthest_of_the_last_two_cycles);
	RUN_TEST(suite, peak_reach_restarts_at_a_size_change);
	RUN_TEST(suite, a_promotion_keeps_the_rate_and_forgets_the_restartpoints);
	RUN_TEST(suite, the_promotions_checkpoint_starts_a_cycle_and_is_not_forced);
	RUN_TEST(suite, an_archive_recovery_ended_without_promotion_projects_at_once);
	RUN_TEST(suite, a_redo_move_seen_with_the_promotion_leaves_the_next_move_judged);
	RUN_TEST(suite, the_whole_timeouts_rate_is_the_highest_back_to_back_stretch);
	return unit_exit_status();
}
