/*-------------------------------------------------------------------------
 *
 * test_policy_shrink.c
 *		When the policy gives WAL space back.
 *
 * Shrinking is deliberately slow: only after walsizer.shrink_after
 * consecutive windows in which the load needed less than half the current
 * size, by at most half at a time, and never below the floor or what the
 * load needs.  A busy window in between starts the count again.
 *
 * Settling is not a shrink: every growth is provisional, and once whole
 * timed checkpoint cycles were measured at the grown size it comes down,
 * in one step, to what they need.
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "policy_fixtures.h"

static void
shrinks_after_shrink_after_consecutive_quiet_windows(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements quiet = window_at_rate(1, 1, 0, 0);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.shrink_after = 3;
	for (int i = 1; i <= 2; i++)
	{
		d = decide(&s, &quiet, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
		CHECK_EQ(state.windows_below_half, i);
		CHECK_STR_CONTAINS(d.reason, "quiet windows");
	}
	d = decide(&s, &quiet, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 2048);
	CHECK_EQ(state.windows_below_half, 0);
	CHECK_EQ(state.windows_since_change, 0);
}

static void
busy_window_restarts_the_quiet_count(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements quiet = window_at_rate(1, 1, 0, 0);
	WalsizerMeasurements busy = window_at_rate(3, 1, 0, 0);	/* 2144 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.shrink_after = 3;
	decide(&s, &quiet, &state);
	decide(&s, &quiet, &state);
	d = decide(&s, &busy, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.windows_below_half, 0);
	decide(&s, &quiet, &state);
	d = decide(&s, &quiet, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	d = decide(&s, &quiet, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
}

static void
samples_between_windows_do_not_count_as_quiet_windows(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements sample = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.shrink_after = 1;
	for (int i = 0; i < 50; i++)
	{
		d = decide(&s, &sample, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	}
	CHECK_EQ(state.windows_below_half, 0);
}

static void
shrink_at_most_halves(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements idle = window_at_rate(0, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 16384;
	s.max_mb = 16384;
	s.shrink_after = 1;
	d = decide(&s, &idle, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 8192);
}

static void
shrink_steps_down_by_halves_to_the_floor(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements idle = window_at_rate(0, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	int64_t		expected[] = {4096, 2048, 1024};
	WalsizerDecision d;

	s.current_mb = 8192;
	s.max_mb = 8192;
	s.shrink_after = 2;
	for (int step = 0; step < 3; step++)
	{
		d = decide(&s, &idle, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
		d = decide(&s, &idle, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
		CHECK_EQ(d.new_mb, expected[step]);
		s.current_mb = d.new_mb;
	}
	for (int i = 0; i < 10; i++)
	{
		d = decide(&s, &idle, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
		CHECK_EQ(d.new_mb, 1024);
	}
}

static void
shrink_never_goes_below_the_floor(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements idle = window_at_rate(0, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.baseline_mb = 3000;
	s.shrink_after = 1;
	d = decide(&s, &idle, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 3008);
	CHECK_EQ(d.new_mb, d.floor_mb);
}

static void
shrink_never_goes_below_what_the_load_needs(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* 1 MB/s needs 720 MB, under half of 1456 MB, which halves to 736 MB */
	s.current_mb = 1456;
	s.baseline_mb = 64;
	s.shrink_after = 1;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_CMP(d.new_mb, >=, d.needed_mb);
	CHECK_EQ(d.new_mb, 736);
}

static void
shrink_after_zero_never_shrinks(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements idle = window_at_rate(0, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.shrink_after = 0;
	for (int i = 0; i < 200; i++)
	{
		d = decide(&s, &idle, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
		CHECK_EQ(d.new_mb, 4096);
	}
}

static void
shrink_waits_for_the_cooldown(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements forced = window_at_rate(4, 0, 3, 3);
	WalsizerMeasurements idle = window_at_rate(0, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.cooldown = 4;
	s.shrink_after = 1;
	d = decide(&s, &forced, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	s.current_mb = d.new_mb;
	for (int i = 1; i < 4; i++)
	{
		d = decide(&s, &idle, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	}
	d = decide(&s, &idle, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
}

static void
no_shrink_when_already_at_the_floor(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements idle = window_at_rate(0, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.shrink_after = 1;
	d = decide(&s, &idle, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.windows_below_half, 0);
}

/*
 * The DBA's own value above walsizer.max clamps the floor to the cap, but a
 * quiet load still never takes max_wal_size below what the DBA chose.
 */
static void
shrink_never_goes_below_the_dba_value_above_the_cap(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements idle = window_at_rate(0, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 4096;
	s.baseline_mb = 8192;
	s.current_mb = 8192;
	s.shrink_after = 1;
	for (int i = 0; i < 5; i++)
	{
		d = decide(&s, &idle, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
		CHECK_EQ(d.new_mb, 8192);
	}

	/* above the DBA's value, it comes back down to it and no further */
	s.current_mb = 16384;
	d = decide(&s, &idle, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 8192);
}

/*
 * A grown size is provisional: once whole checkpoint cycles were measured
 * at it, it comes down to what they need, without waiting for
 * shrink_after quiet windows.
 */
static void
provisional_size_settles_once_whole_cycles_are_measured(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(1, 2);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 2048;
	state.provisional = 1;

	/* not before the horizon holds a whole cycle at this size */
	w.peak_covers_cycle = false;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 1);

	w.peak_covers_cycle = true;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1024);		/* never below the floor (baseline) */
	CHECK_STR_CONTAINS(d.reason, "settling");
	CHECK_EQ(state.provisional, 0);
}

/*
 * Whole cycles measured at the size say what it needs: a settle goes
 * there in one step, however far below half of the size that is (a slow
 * shrink would at most halve).
 */
static void
settling_goes_in_one_step(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(1, 2);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 64;
	s.current_mb = 8192;
	s.max_mb = 8192;
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, d.needed_mb);
	CHECK_EQ(d.new_mb, 720);
	CHECK_CMP(d.new_mb, <, 8192 / 4);
	CHECK_STR_CONTAINS(d.reason, "settling");
	CHECK_EQ(state.provisional, 0);
}

static void
provisional_size_close_to_the_need_is_kept(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(2, 2);	/* 1440 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 1600;
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 0);
}

/*
 * A growth the cap cut short is provisional too: at the cap, whole cycles
 * may show the load needed far less than the evidence suggested.  Forced
 * checkpoints at 4 MB/s ask for 2864 MB; the cap is 2048 MB; cycles
 * measured there need 720 MB, so it settles down to the floor.
 */
static void
capped_growth_is_provisional_and_settles(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements forced = window_at_rate(4, 0, 2, 2);
	WalsizerMeasurements w = window_after_timed_cycles(1, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 2048;
	d = decide(&s, &forced, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, 2048);
	CHECK_EQ(state.provisional, 1);
	s.current_mb = d.new_mb;

	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1024);
	CHECK_STR_CONTAINS(d.reason, "settling");
	CHECK_EQ(state.provisional, 0);
}

/*
 * A growth sized from seconds (to 1536 MB) falls short of what whole timed
 * cycles at it then need (2 MB/s: 1440 MB; 2.5 MB/s: 1792 MB), though
 * none was forced: it settles up to that, after the cooldown, and is no
 * longer provisional.  Cycles that need less leave it alone (the margin).
 */
static void
a_growth_short_of_whole_cycles_settles_up_to_them(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements imminent = sample_reaching(500 * MB, 600 * MB);
	WalsizerMeasurements w = window_after_timed_cycles(2.5, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 16384;
	imminent.seconds_to_timed_checkpoint = 1;
	d = decide(&s, &imminent, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1536);
	s.current_mb = d.new_mb;

	d = decide(&s, &w, &state);		/* the cooldown's window */
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_STR_CONTAINS(d.reason, "waiting for the cooldown before settling up to 1792 MB");
	CHECK_EQ(state.provisional, 1);
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1792);
	CHECK_STR_CONTAINS(d.reason, "settling: whole checkpoint cycles at 1536 MB need 1792 MB");
	CHECK_EQ(state.provisional, 0);

	/* cycles needing a little less than the size: nothing to settle */
	state = fresh_state();
	s.current_mb = 1024;
	d = decide(&s, &imminent, &state);
	s.current_mb = d.new_mb;
	w = window_after_timed_cycles(2, 2);	/* 1440 MB */
	d = decide(&s, &w, &state);
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1536);
	CHECK_EQ(state.provisional, 0);
}

/*
 * The walsizer's growth settles to what whole cycles need, and a steady
 * load at that size does not grow again: its reach stays under the
 * settled size's trigger, and it is settled for good.
 */
static void
a_settled_size_holds_a_steady_load(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements imminent = sample_reaching(500 * MB, 1100 * MB);
	WalsizerMeasurements w = window_after_timed_cycles(2, 2);	/* 1440 MB */
	WalsizerMeasurements sample;
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 16384;
	d = decide(&s, &imminent, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	s.current_mb = d.new_mb;

	/* whole cycles at 2 MB/s; their reach was at most 700 MB */
	w.peak_reach_bytes_at_size = 700 * MB;
	for (int i = 0; i < 3 && d.action != WALSIZER_ACTION_SHRINK; i++)
		d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	s.current_mb = d.new_mb;

	/* the next cycles at the settled size reach as far again */
	sample = sample_reaching(600 * MB, 700 * MB);
	d = decide(&s, &sample, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	w.timed_cycles_at_size = 0;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	w.timed_cycles_at_size = 2;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 0);
}

/*
 * A grown size still being judged is settled from whole cycles at it, in
 * one step: while WAL is written, quiet windows do not shrink it by
 * halves meanwhile.  An idle server writes no cycles to judge by, and
 * shrinks as usual.
 */
static void
a_provisional_size_under_load_waits_for_its_settle_not_a_slow_shrink(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_at_rate(1, 1, 0, 0);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.shrink_after = 1;
	state.provisional = 1;
	w.recent_rate_valid = true;
	w.recent_rate = 1 * (double) MB;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 4096);
	CHECK_EQ(state.provisional, 1);

	w.recent_rate = 0;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 2048);
}

int
main(void)
{
	const char *suite = "policy_shrink";

	RUN_TEST(suite, shrinks_after_shrink_after_consecutive_quiet_windows);
	RUN_TEST(suite, busy_window_restarts_the_quiet_count);
	RUN_TEST(suite, samples_between_windows_do_not_count_as_quiet_windows);
	RUN_TEST(suite, shrink_at_most_halves);
	RUN_TEST(suite, shrink_steps_down_by_halves_to_the_floor);
	RUN_TEST(suite, shrink_never_goes_below_the_floor);
	RUN_TEST(suite, shrink_never_goes_below_what_the_load_needs);
	RUN_TEST(suite, shrink_after_zero_never_shrinks);
	RUN_TEST(suite, shrink_waits_for_the_cooldown);
	RUN_TEST(suite, no_shrink_when_already_at_the_floor);
	RUN_TEST(suite, shrink_never_goes_below_the_dba_value_above_the_cap);
	RUN_TEST(suite, provisional_size_settles_once_whole_cycles_are_measured);
	RUN_TEST(suite, settling_goes_in_one_step);
	RUN_TEST(suite, provisional_size_close_to_the_need_is_kept);
	RUN_TEST(suite, capped_growth_is_provisional_and_settles);
	RUN_TEST(suite, a_growth_short_of_whole_cycles_settles_up_to_them);
	RUN_TEST(suite, a_settled_size_holds_a_steady_load);
	RUN_TEST(suite, a_provisional_size_under_load_waits_for_its_settle_not_a_slow_shrink);
	return unit_exit_status();
}
