/*-------------------------------------------------------------------------
 *
 * test_measure.c
 *		How samples of the server become the policy's measurements.
 *
 * Each test builds samples the way PostgreSQL shows them to the worker (a
 * checkpoint moves the redo pointer when it starts and bumps a counter
 * when it is done) and checks what measure.c makes of them: which
 * checkpoints WAL forced, the recent and peak rates, and the windows.
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "measure.h"
#include "size_units.h"

#define SEGMENT ((uint64_t) 16 * 1024 * 1024)
#define SECOND ((int64_t) 1000000)

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

static void
far_redo_move_with_a_requested_checkpoint_counts_as_wal_forced(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	walsizer_measure_start(&ms, &s, &set);
	/* 1 GB: CheckPointSegments 33, forced after 32 segments */
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
	/* a CHECKPOINT command 31 segments on: one short of the trigger */
	checkpoint_after(&s, 31);
	s.requested++;
	walsizer_measure_add(&ms, &s, &set);
	walsizer_measure_get(&ms, true, true, &set, &m);
	CHECK_EQ(m.requested, 1);
	CHECK_EQ(m.wal_forced, 0);
}

static void
the_trigger_is_judged_at_the_size_before_the_move(void)
{
	WalsizerMeasureSettings set = settings_30s();
	WalsizerSample s = first_sample();
	WalsizerMeasurements m;

	/* at 64 MB one segment is far enough; the size then grows to 1 GB */
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

int
main(void)
{
	const char *suite = "measure";

	RUN_TEST(suite, far_redo_move_with_a_requested_checkpoint_counts_as_wal_forced);
	RUN_TEST(suite, near_redo_move_is_a_manual_checkpoint_not_a_forced_one);
	RUN_TEST(suite, the_trigger_is_judged_at_the_size_before_the_move);
	RUN_TEST(suite, a_forced_checkpoint_reported_after_the_window_counts_in_the_next);
	RUN_TEST(suite, forced_checkpoints_at_a_size_not_ours_do_not_count_since_change);
	RUN_TEST(suite, a_counter_reset_marks_the_window);
	RUN_TEST(suite, recent_rate_needs_two_seconds_then_takes_the_higher_span);
	RUN_TEST(suite, peak_rate_is_the_worst_whole_cycle);
	RUN_TEST(suite, peak_rate_before_a_whole_cycle_is_the_average_so_far);
	RUN_TEST(suite, peak_rate_forgets_a_burst_older_than_the_horizon);
	RUN_TEST(suite, a_size_change_restarts_the_peak_history);
	RUN_TEST(suite, history_thins_to_cover_the_horizon_with_fast_samples);
	RUN_TEST(suite, timed_checkpoint_clock_starts_at_the_last_redo_move);
	RUN_TEST(suite, windows_end_on_time_and_follow_a_new_length);
	RUN_TEST(suite, window_full_page_images_and_their_reset);
	RUN_TEST(suite, forgetting_the_load_empties_both_rates);
	return unit_exit_status();
}
