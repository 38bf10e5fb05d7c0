/*-------------------------------------------------------------------------
 *
 * test_policy_grow.c
 *		When the policy grows max_wal_size, and to what.
 *
 * Growth needs evidence: WAL-forced checkpoints in the window that just
 * ended (at least walsizer.threshold of them, and at least walsizer.ratio
 * of all checkpoints), or a projection that the next checkpoint will be
 * forced.  Checkpoints requested for other reasons, such as a CHECKPOINT
 * command run from cron, are no evidence at all.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "unit.h"
#include "policy_fixtures.h"

static void
grows_on_wal_forced_checkpoints_at_threshold_and_ratio(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d = decide(&s, &m, &state);

	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.old_mb, 1024);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_EQ(d.needed_mb, 1440);
	CHECK_EQ(state.windows_since_change, 0);
	CHECK_STR_CONTAINS(d.reason, "forced by WAL");
}

static void
grows_when_forced_share_equals_ratio_exactly(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 2, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.ratio = 0.5;				/* 2 forced of 4 checkpoints */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
}

static void
does_not_grow_below_threshold(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.threshold = 3;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, d.old_mb);
}

static void
does_not_grow_below_ratio(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 3, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.ratio = 0.5;				/* 2 forced of 5 checkpoints */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, d.old_mb);
}

static void
threshold_below_one_still_needs_a_forced_checkpoint(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 1, 5, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.threshold = 0;
	s.ratio = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
}

static void
does_not_grow_on_requested_checkpoints_not_forced_by_wal(void)
{
	WalsizerSettings s = typical_settings();
	/* a CHECKPOINT every 5 s: 60 requested, none forced by WAL volume */
	WalsizerMeasurements m = window_at_rate(0.5, 0, 60, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d = decide(&s, &m, &state);

	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1024);
}

static void
does_not_grow_on_high_rate_without_forced_or_projected_checkpoint(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d = decide(&s, &m, &state);

	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.needed_mb, 2864);
	CHECK_STR_CONTAINS(d.reason, "no checkpoint was forced");
}

static void
grown_size_is_formula_rounded_up_to_whole_segment(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* 1.9 * 2 MB/s * 300 s * 1.25 = 1425 MB: 23 segments of 64 MB */
	s.segment_bytes = 64 * MB;
	s.current_mb = 1024;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1472);
	CHECK_EQ(d.new_mb % 64, 0);
}

static void
grown_size_is_at_least_one_segment_above_current(void)
{
	WalsizerSettings s = typical_settings();
	/* 0.5 MB/s needs only 368 MB, yet checkpoints were forced */
	WalsizerMeasurements m = window_at_rate(0.5, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d = decide(&s, &m, &state);

	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1024 + 16);
}

static void
needed_size_follows_peak_rate_when_above_window_average(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.peak_rate = 4 * (double) MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 2864);
}

static void
needed_size_follows_window_average_when_above_peak_rate(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.peak_rate = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.new_mb, 2864);
}

/*
 * With 1 GB, 16 MB segments and 0.9 the trigger is 32 segments (512 MB)
 * after the redo pointer: 400 MB written and 2 MB/s for the 100 s left
 * projects 600 MB.
 */
static void
grows_proactively_when_projection_exceeds_trigger(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.wal_since_redo_bytes = 400 * MB;
	m.recent_rate_valid = true;
	m.recent_rate = 2 * (double) MB;
	m.peak_rate = 2 * (double) MB;
	m.seconds_to_timed_checkpoint = 100;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.trigger_bytes, 512 * MB);
	CHECK_UEQ(d.projected_bytes, 600 * MB);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason, "projected");
}

static void
does_not_grow_proactively_when_projection_is_below_trigger(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.wal_since_redo_bytes = 100 * MB;
	m.recent_rate_valid = true;
	m.recent_rate = 2 * (double) MB;
	m.peak_rate = 2 * (double) MB;
	m.seconds_to_timed_checkpoint = 100;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.projected_bytes, 300 * MB);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
}

static void
does_not_grow_proactively_without_valid_recent_rate(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.wal_since_redo_bytes = 900 * MB;
	m.recent_rate_valid = false;
	m.peak_rate = 2 * (double) MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
}

static void
does_not_grow_proactively_when_current_size_is_enough(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* the projection crosses the trigger, but the peak needs only 720 MB */
	m.wal_since_redo_bytes = 500 * MB;
	m.recent_rate_valid = true;
	m.recent_rate = 1 * (double) MB;
	m.peak_rate = 1 * (double) MB;
	m.seconds_to_timed_checkpoint = 100;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
}

static void
first_change_needs_no_cooldown(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.cooldown = 5;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
}

static void
cooldown_blocks_second_change_until_enough_windows_end(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.cooldown = 2;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	s.current_mb = d.new_mb;

	/* still forced at 4 MB/s: one window after the change is too soon */
	m = window_at_rate(4, 0, 2, 2);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason, "cooldown");

	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 2864);
}

static void
cooldown_counts_window_ends_not_samples(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements forced = window_at_rate(2, 0, 2, 2);
	WalsizerMeasurements urgent = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	d = decide(&s, &forced, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	s.current_mb = d.new_mb;

	/* a projected forced checkpoint right after the change must wait */
	urgent.wal_since_redo_bytes = 700 * MB;
	urgent.recent_rate_valid = true;
	urgent.recent_rate = 4 * (double) MB;
	urgent.peak_rate = 4 * (double) MB;
	urgent.seconds_to_timed_checkpoint = 200;
	for (int i = 0; i < 10; i++)
	{
		d = decide(&s, &urgent, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	}
	CHECK_EQ(state.windows_since_change, 0);
}

/*
 * After a first growth for a light load, a much heavier one (a bulk import)
 * forces checkpoints at the new size; sample during the cooldown.
 */
static WalsizerMeasurements
heavier_load_sample(double recent_mb_s, int64_t forced_since_change)
{
	WalsizerMeasurements m = quiet_sample();

	m.wal_since_redo_bytes = 700 * MB;
	m.recent_rate_valid = true;
	m.recent_rate = recent_mb_s * (double) MB;
	m.peak_rate = 2 * (double) MB;
	m.seconds_to_timed_checkpoint = 200;
	m.wal_forced_since_change = forced_since_change;
	return m;
}

/*
 * Grow once for 2 MB/s (to 1440 MB, below an 8 GB cap), then decide on a
 * heavier_load_sample() while the cooldown of that growth runs.
 */
static WalsizerDecision
decide_during_cooldown(double recent_mb_s, int64_t forced_since_change)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 8192;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.new_mb, 1440);
	s.current_mb = d.new_mb;

	m = heavier_load_sample(recent_mb_s, forced_since_change);
	return decide(&s, &m, &state);
}

static void
cooldown_gives_way_to_a_much_heavier_load_forcing_checkpoints(void)
{
	/* 5 MB/s needs 3568 MB, over twice 1440, and checkpoints are forced */
	WalsizerDecision d = decide_during_cooldown(5, 1);

	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 3568);
	CHECK_STR_CONTAINS(d.reason, "cooldown is cut short");
	/* and this change starts a cooldown of its own */
	CHECK_EQ(d.state.windows_since_change, -1);
}

static void
cooldown_holds_for_a_heavier_projection_without_forced_checkpoints(void)
{
	/* a burst of full-page images projects a lot, but nothing was forced */
	WalsizerDecision d = decide_during_cooldown(5, 0);

	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason, "waiting for the cooldown");
}

static void
cooldown_holds_for_forced_checkpoints_of_a_slightly_heavier_load(void)
{
	/* 2.5 MB/s needs 1792 MB: more, but not twice 1440; wait */
	WalsizerDecision d = decide_during_cooldown(2.5, 3);

	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason, "waiting for the cooldown");
}

static void
counter_reset_window_makes_no_decision(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 0, 9, 9);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.counters_reset = true;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, d.old_mb);
	CHECK_STR_CONTAINS(d.reason, "reset");
}

static void
counter_reset_window_does_not_count_towards_shrinking(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(0.1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.shrink_after = 1;
	m.counters_reset = true;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.windows_below_half, 0);
}

static void
grows_only_with_valid_window_length(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* a window of no length says nothing about the rate; peak still does */
	m.window_s = 0;
	m.peak_rate = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 0);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1024 + 16);
}

int
main(void)
{
	const char *suite = "policy_grow";

	RUN_TEST(suite, grows_on_wal_forced_checkpoints_at_threshold_and_ratio);
	RUN_TEST(suite, grows_when_forced_share_equals_ratio_exactly);
	RUN_TEST(suite, does_not_grow_below_threshold);
	RUN_TEST(suite, does_not_grow_below_ratio);
	RUN_TEST(suite, threshold_below_one_still_needs_a_forced_checkpoint);
	RUN_TEST(suite, does_not_grow_on_requested_checkpoints_not_forced_by_wal);
	RUN_TEST(suite, does_not_grow_on_high_rate_without_forced_or_projected_checkpoint);
	RUN_TEST(suite, grown_size_is_formula_rounded_up_to_whole_segment);
	RUN_TEST(suite, grown_size_is_at_least_one_segment_above_current);
	RUN_TEST(suite, needed_size_follows_peak_rate_when_above_window_average);
	RUN_TEST(suite, needed_size_follows_window_average_when_above_peak_rate);
	RUN_TEST(suite, grows_proactively_when_projection_exceeds_trigger);
	RUN_TEST(suite, does_not_grow_proactively_when_projection_is_below_trigger);
	RUN_TEST(suite, does_not_grow_proactively_without_valid_recent_rate);
	RUN_TEST(suite, does_not_grow_proactively_when_current_size_is_enough);
	RUN_TEST(suite, first_change_needs_no_cooldown);
	RUN_TEST(suite, cooldown_blocks_second_change_until_enough_windows_end);
	RUN_TEST(suite, cooldown_counts_window_ends_not_samples);
	RUN_TEST(suite, cooldown_gives_way_to_a_much_heavier_load_forcing_checkpoints);
	RUN_TEST(suite, cooldown_holds_for_a_heavier_projection_without_forced_checkpoints);
	RUN_TEST(suite, cooldown_holds_for_forced_checkpoints_of_a_slightly_heavier_load);
	RUN_TEST(suite, counter_reset_window_makes_no_decision);
	RUN_TEST(suite, counter_reset_window_does_not_count_towards_shrinking);
	RUN_TEST(suite, grows_only_with_valid_window_length);
	return unit_exit_status();
}
