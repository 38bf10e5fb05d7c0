/*-------------------------------------------------------------------------
 *
 * test_policy_limits.c
 *		The cap and the floor: how far the policy may move max_wal_size.
 *
 * The cap is walsizer.max, or the disk's share of the WAL volume when that
 * is lower.  The floor is walsizer.min when set, else the DBA's own
 * max_wal_size, and never above the cap.  Both are whole segments and at
 * least two segments, max_wal_size's own minimum.  A disk cap below the
 * current size is urgent (a full pg_wal is a PANIC) and wins over
 * everything; a walsizer.max lowered below a size walsizer set brings the
 * size back down, but never below what the DBA had chosen.  The disk's
 * share the policy sees moves only when a measurement leaves a band around
 * it (walsizer_disk_cap_mb()), so that free space moving by a segment does
 * not change max_wal_size at every measurement.
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "policy_fixtures.h"

static void
growth_beyond_walsizer_max_is_capped(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 2048;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, 2048);
	CHECK_EQ(d.cap_mb, 2048);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_SETTING);
	CHECK(d.warn);
	CHECK_EQ(state.cap_reported, 1);
	CHECK_STR_CONTAINS(d.reason, "walsizer.max");
}

static void
capped_growth_is_reported_once_while_still_capped(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 2048;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	s.current_mb = d.new_mb;

	for (int i = 0; i < 5; i++)
	{
		d = decide(&s, &m, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
		CHECK_EQ(d.new_mb, 2048);
		CHECK(!d.warn);
		CHECK_EQ(state.cap_reported, 1);
		CHECK_STR_CONTAINS(d.reason, "still capped");
	}
}

/*
 * A growth to the cap from a few seconds of WAL (an imminent checkpoint at
 * 1536 MB, whose twice is above the 2048 MB cap) goes to the cap but warns
 * no one: the burst may be over by the next sample.  When the load, at the
 * cap, again shows a checkpoint about to be forced, it keeps needing more:
 * that warns, once.
 */
static void
a_growth_to_the_cap_from_seconds_warns_only_if_the_load_keeps_needing_more(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m;
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 2048;
	s.current_mb = 1536;
	s.baseline_mb = 1024;
	m = sample_reaching(700 * MB, 1500 * MB);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, 2048);
	CHECK(!d.warn);
	CHECK_EQ(state.cap_reported, 0);
	CHECK_STR_CONTAINS(d.reason, "but the cap (walsizer.max) is 2048 MB");
	s.current_mb = d.new_mb;

	/* at the cap, the next checkpoint is about to be forced again */
	m = sample_reaching(1000 * MB, 1600 * MB);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, 2048);
	CHECK(d.warn);
	CHECK_EQ(state.cap_reported, 1);

	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK(!d.warn);
	CHECK_STR_CONTAINS(d.reason, "still capped");
}

static void
cap_is_reported_again_after_the_load_fitted(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements heavy = window_at_rate(4, 0, 3, 3);
	WalsizerMeasurements light = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 2048;
	s.current_mb = 2048;
	d = decide(&s, &heavy, &state);
	/* already at the cap: reported, nothing to change */
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, d.old_mb);
	CHECK_EQ(state.cap_reported, 1);

	d = decide(&s, &light, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.cap_reported, 0);

	d = decide(&s, &heavy, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK(d.warn);
}

static void
disk_cap_lower_than_max_wins(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.disk_cap_mb = 1500;		/* rounds down to 93 segments */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_DISK);
	CHECK_EQ(d.cap_mb, 1488);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, 1488);
	CHECK_STR_CONTAINS(d.reason, "disk");
}

static void
disk_cap_above_max_or_unknown_is_ignored(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	int64_t		disk_caps[] = {8192, 4096, 0, -1};
	WalsizerDecision d;

	for (size_t i = 0; i < sizeof(disk_caps) / sizeof(disk_caps[0]); i++)
	{
		s.disk_cap_mb = disk_caps[i];
		d = decide(&s, &m, &state);
		CHECK_EQ(d.cap_source, WALSIZER_CAP_SETTING);
		CHECK_EQ(d.cap_mb, 4096);
	}
}

static void
protect_lowers_current_size_above_disk_cap(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 2048;
	s.disk_cap_mb = 1000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_PROTECT);
	CHECK_EQ(d.new_mb, 992);
	CHECK_EQ(d.new_mb, d.cap_mb);
	CHECK(d.warn);
	CHECK_EQ(state.windows_since_change, 0);
}

static void
protect_applies_during_cooldown_and_between_windows(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.cooldown = 10;
	state.windows_since_change = 0;	/* just changed */
	s.current_mb = 2048;
	s.disk_cap_mb = 1000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_PROTECT);
	CHECK_EQ(d.new_mb, 992);
}

static void
protect_applies_in_a_counter_reset_window(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.counters_reset = true;
	s.current_mb = 2048;
	s.disk_cap_mb = 1000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_PROTECT);
}

static void
protect_lowers_to_walsizer_max_when_that_is_below_the_disk_cap(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* DBA's 8 GB no longer fits a 1000 MB disk share; walsizer.max is less */
	s.current_mb = 8192;
	s.baseline_mb = 8192;
	s.max_mb = 512;
	s.disk_cap_mb = 1000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_PROTECT);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_SETTING);
	CHECK_EQ(d.new_mb, 512);
}

static void
protect_goes_below_the_floor(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* the DBA's 1 GB no longer fits on the disk: the disk wins */
	s.current_mb = 1024;
	s.disk_cap_mb = 500;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_PROTECT);
	CHECK_EQ(d.new_mb, 496);
	CHECK_EQ(d.floor_mb, 496);
	CHECK(d.floor_clamped);
}

static void
lowered_max_brings_walsizer_size_back_down(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;		/* set by walsizer; the DBA had 1 GB */
	s.max_mb = 2048;
	state.windows_since_change = 0;	/* even right after a change */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 2048);
	CHECK_STR_CONTAINS(d.reason, "walsizer.max");
}

static void
lowered_max_never_goes_below_the_baseline(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 3000;
	s.current_mb = 4096;
	s.max_mb = 2048;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 3008);	/* the baseline, on a whole segment */
	CHECK_CMP(d.new_mb, >, d.cap_mb);

	/* once there, it stays */
	s.current_mb = d.new_mb;
	s.shrink_after = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 3008);
}

static void
dba_size_above_max_is_not_lowered_to_max(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 8192;
	s.current_mb = 8192;
	s.max_mb = 4096;
	s.shrink_after = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 8192);
}

static void
floor_is_walsizer_min_when_set(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.min_mb = 500;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.floor_mb, 512);	/* rounded up to a whole segment */
	CHECK(!d.floor_clamped);
}

static void
floor_is_baseline_when_walsizer_min_unset(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.min_mb = 0;
	s.baseline_mb = 800;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.floor_mb, 800);
}

static void
floor_above_cap_is_clamped_to_cap(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.min_mb = 8192;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.floor_mb, 4096);
	CHECK_EQ(d.cap_mb, 4096);
	CHECK(d.floor_clamped);
}

static void
cap_rounds_down_and_floor_rounds_up_to_whole_segments(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 4090;
	s.min_mb = 1000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_mb, 4080);
	CHECK_EQ(d.floor_mb, 1008);
}

static void
cap_and_floor_are_at_least_two_segments(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 32;
	s.baseline_mb = 2;
	s.max_mb = 10;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_mb, 32);
	CHECK_EQ(d.floor_mb, 32);
}

/*
 * A server can run below the floor: after the disk forced a PROTECT and
 * then recovered, or when walsizer.min was raised.  When the load then
 * makes the policy grow, the new size still belongs in [floor, cap].
 */
static void
growth_from_below_the_floor_reaches_the_floor(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 256;
	s.min_mb = 2048;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_CMP(d.new_mb, >=, d.floor_mb);
	CHECK_CMP(d.new_mb, <=, d.cap_mb);
}

/*
 * The worker's loop over the disk cap, reduced to the policy: every 10 s a
 * measurement (measured[i % count]) goes through walsizer_disk_cap_mb()
 * into the settings, the policy decides on a window of a load that needs
 * 2864 MB, more than any cap here, and a change is applied.  Counts the
 * changes, the WARNINGs and the floors seen.
 */
typedef struct DiskRun
{
	int			changes;
	int			warnings;
	int			floors;			/* times the clamped floor moved */
	int64_t		held_mb;
	int64_t		size_mb;
} DiskRun;

static DiskRun
run_disk_measurements(WalsizerSettings s, const int64_t *measured, int count,
					  int measurements)
{
	WalsizerMeasurements m = window_at_rate(4, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	DiskRun		run = {0};
	int64_t		floor_mb = -1;

	/* the growth that took it to the cap was reported already */
	state.cap_reported = 1;

	for (int i = 0; i < measurements; i++)
	{
		WalsizerDecision d;

		run.held_mb = walsizer_disk_cap_mb(run.held_mb, measured[i % count],
										   s.segment_bytes);
		s.disk_cap_mb = run.held_mb;
		d = decide(&s, &m, &state);
		if (d.new_mb != d.old_mb)
		{
			run.changes++;
			s.current_mb = d.new_mb;
		}
		if (d.warn)
			run.warnings++;
		if (i > 0 && d.floor_mb != floor_mb)
			run.floors++;
		floor_mb = d.floor_mb;
	}
	run.size_mb = s.current_mb;
	return run;
}

/* At the cap under a load above it: the cap moves by a segment, both ways. */
static void
disk_cap_moving_by_a_segment_changes_nothing(void)
{
	WalsizerSettings s = typical_settings();
	const int64_t down_first[] = {1000, 984, 1000, 984};
	const int64_t up_first[] = {1000, 1016, 1000, 984};
	DiskRun		run;

	s.current_mb = 992;
	run = run_disk_measurements(s, down_first, 4, 40);
	CHECK_EQ(run.changes, 0);
	CHECK_EQ(run.warnings, 0);
	CHECK_EQ(run.size_mb, 992);
	run = run_disk_measurements(s, up_first, 4, 40);
	CHECK_EQ(run.changes, 0);
	CHECK_EQ(run.warnings, 0);

	/* walsizer.min above the cap: the clamped floor stays put too */
	s.min_mb = 2048;
	run = run_disk_measurements(s, down_first, 4, 40);
	CHECK_EQ(run.changes, 0);
	CHECK_EQ(run.floors, 0);
}

/*
 * A fall beyond the lower band is real: one protect, at the measurement
 * that sees it.  The move back up is within the raise band and changes
 * nothing, however often it repeats.
 */
static void
disk_cap_falling_and_coming_back_a_little_changes_once(void)
{
	WalsizerSettings s = typical_settings();
	const int64_t measured[] = {1000, 950};
	DiskRun		run;

	s.current_mb = 992;
	run = run_disk_measurements(s, measured, 2, 2);
	CHECK_EQ(run.changes, 1);
	CHECK_EQ(run.size_mb, 944);
	run = run_disk_measurements(s, measured, 2, 40);
	CHECK_EQ(run.changes, 1);
	CHECK_EQ(run.warnings, 1);
	CHECK_EQ(run.held_mb, 950);
	CHECK_EQ(run.size_mb, 944);
}

/* A real rise is followed: the capped load grows to the new cap, once. */
static void
disk_cap_rising_beyond_the_band_is_followed(void)
{
	WalsizerSettings s = typical_settings();
	const int64_t measured[] = {1000, 1200, 1200, 1200};
	DiskRun		run;

	s.current_mb = 992;
	run = run_disk_measurements(s, measured, 4, 4);
	CHECK_EQ(run.changes, 1);
	CHECK_EQ(run.held_mb, 1200);
	CHECK_EQ(run.size_mb, 1200);
}

/*
 * The bands: below a cap of 32 segments, 2 segments down and 4 up; above
 * that, 1/32 of the cap down and 1/8 up.  Only a move beyond a band
 * counts.
 */
static void
disk_cap_bands(void)
{
	const int64_t seg = 16 * MB;

	CHECK_EQ(walsizer_disk_cap_mb(128, 96, seg), 128);
	CHECK_EQ(walsizer_disk_cap_mb(128, 95, seg), 95);
	CHECK_EQ(walsizer_disk_cap_mb(128, 192, seg), 128);
	CHECK_EQ(walsizer_disk_cap_mb(128, 193, seg), 193);
	CHECK_EQ(walsizer_disk_cap_mb(3200, 3100, seg), 3200);
	CHECK_EQ(walsizer_disk_cap_mb(3200, 3099, seg), 3099);
	CHECK_EQ(walsizer_disk_cap_mb(3200, 3600, seg), 3200);
	CHECK_EQ(walsizer_disk_cap_mb(3200, 3601, seg), 3601);
	/* 1 GB segments: the bands are in segments of that size */
	CHECK_EQ(walsizer_disk_cap_mb(8192, 6144, 1024 * MB), 8192);
	CHECK_EQ(walsizer_disk_cap_mb(8192, 6143, 1024 * MB), 6143);
}

/* Nothing held yet takes the measurement; a failed one is unknown. */
static void
disk_cap_first_and_failed_measurements(void)
{
	const int64_t seg = 16 * MB;

	CHECK_EQ(walsizer_disk_cap_mb(0, 1000, seg), 1000);
	CHECK_EQ(walsizer_disk_cap_mb(-1, 1000, seg), 1000);
	CHECK_EQ(walsizer_disk_cap_mb(1000, 0, seg), 0);
	CHECK_EQ(walsizer_disk_cap_mb(32, 0, seg), 0);
	CHECK_EQ(walsizer_disk_cap_mb(1000, -5, seg), 0);
	CHECK_EQ(walsizer_disk_cap_mb(1000, 1000, 0), 1000);
}

int
main(void)
{
	const char *suite = "policy_limits";

	RUN_TEST(suite, growth_beyond_walsizer_max_is_capped);
	RUN_TEST(suite, capped_growth_is_reported_once_while_still_capped);
	RUN_TEST(suite, a_growth_to_the_cap_from_seconds_warns_only_if_the_load_keeps_needing_more);
	RUN_TEST(suite, cap_is_reported_again_after_the_load_fitted);
	RUN_TEST(suite, disk_cap_lower_than_max_wins);
	RUN_TEST(suite, disk_cap_above_max_or_unknown_is_ignored);
	RUN_TEST(suite, protect_lowers_current_size_above_disk_cap);
	RUN_TEST(suite, protect_applies_during_cooldown_and_between_windows);
	RUN_TEST(suite, protect_applies_in_a_counter_reset_window);
	RUN_TEST(suite, protect_lowers_to_walsizer_max_when_that_is_below_the_disk_cap);
	RUN_TEST(suite, protect_goes_below_the_floor);
	RUN_TEST(suite, lowered_max_brings_walsizer_size_back_down);
	RUN_TEST(suite, lowered_max_never_goes_below_the_baseline);
	RUN_TEST(suite, dba_size_above_max_is_not_lowered_to_max);
	RUN_TEST(suite, floor_is_walsizer_min_when_set);
	RUN_TEST(suite, floor_is_baseline_when_walsizer_min_unset);
	RUN_TEST(suite, floor_above_cap_is_clamped_to_cap);
	RUN_TEST(suite, cap_rounds_down_and_floor_rounds_up_to_whole_segments);
	RUN_TEST(suite, cap_and_floor_are_at_least_two_segments);
	RUN_TEST(suite, growth_from_below_the_floor_reaches_the_floor);
	RUN_TEST(suite, disk_cap_moving_by_a_segment_changes_nothing);
	RUN_TEST(suite, disk_cap_falling_and_coming_back_a_little_changes_once);
	RUN_TEST(suite, disk_cap_rising_beyond_the_band_is_followed);
	RUN_TEST(suite, disk_cap_bands);
	RUN_TEST(suite, disk_cap_first_and_failed_measurements);
	return unit_exit_status();
}
