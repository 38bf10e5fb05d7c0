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
 * A size set from a projection is provisional: once whole checkpoint
 * cycles were measured at it, it comes down to what they need, without
 * waiting for shrink_after quiet windows.
 */
static void
provisional_size_settles_once_whole_cycles_are_measured(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_at_rate(1, 1, 0, 0);	/* needs 720 MB */
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
 * A load that stopped right after a projected growth looks, to the settle
 * step, like an overestimate; it comes down at most by half, and the slow
 * shrink takes it from there.
 */
static void
settling_at_most_halves(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_at_rate(1, 1, 0, 0);	/* needs 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 64;
	s.current_mb = 4096;
	state.provisional = 1;
	w.peak_covers_cycle = true;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 2048);
	CHECK_STR_CONTAINS(d.reason, "settling");
	CHECK_EQ(state.provisional, 0);
}

static void
provisional_size_close_to_the_need_is_kept(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_at_rate(2, 1, 0, 0);	/* needs 1440 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 1600;
	state.provisional = 1;
	w.peak_covers_cycle = true;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 0);
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
	RUN_TEST(suite, settling_at_most_halves);
	RUN_TEST(suite, provisional_size_close_to_the_need_is_kept);
	return unit_exit_status();
}
