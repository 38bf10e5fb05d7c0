/*-------------------------------------------------------------------------
 *
 * test_policy_steps.c
 *		One behaviour of each step of walsizer_decide(), at its edges.
 *
 * walsizer_decide() derives the limits, what the load needs and the
 * projection to the next timed checkpoint, then tries its rules in order:
 * protect the WAL volume, follow a lowered walsizer.max, grow, settle a
 * provisional size, shrink slowly, and
 * otherwise say why nothing was done.  The other policy tests specify the
 * rules' main behaviour; these pin each step's numbers at their boundary
 * (the imminence lookahead, the 20 % settle margin, the two timed cycles
 * a settle needs, "less than half", "at least twice", the projection's
 * clamp, the counters' limit), so that a step that is deleted or subtly
 * changed fails a test named for what it promised.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "unit.h"
#include "policy_fixtures.h"

/* The window counters saturate where a fresh state starts its cooldown. */
static int32_t
counter_limit(void)
{
	return fresh_state().windows_since_change;
}

/* --- load estimate -------------------------------------------------- */

/*
 * A window's WAL is the insert position's, which no statistics reset
 * touches: 4 MB/s in a window whose checkpoint counters were reset is part
 * of the need (2864 MB), though the horizon says 1 MB/s.
 */
static void
reset_window_wal_is_part_of_the_need(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.counters_reset = true;
	m.peak_rate = 1 * (double) MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 2864);
}

/*
 * Whole timed cycles come first: a sliding checkpoint_timeout can hold
 * the full-page images of two checkpoints.  The largest cycle wrote 600 MB
 * (2 MB/s over 300 s, 1440 MB), though the peak and the window say 4 MB/s.
 */
static void
whole_timed_cycles_come_first_in_what_the_load_needs(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 2864);

	m.timed_cycle_peak_bytes = 600 * MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 1440);
}

/*
 * With a completion target no server accepts, adding segments until a
 * cycle fits would go on for hundreds of segments; it stops after 64.
 * (1 + 100) * 1 MB/s * 300 s is 30300 MB, 30304 MB in segments; fitting a
 * 300 MB cycle would take 33936 MB.
 */
static void
whole_segment_fitting_stops_after_64_segments(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.completion_target = 100;
	s.headroom = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 30304 + 64 * 16);
}

/* --- projection ----------------------------------------------------- */

/*
 * The projection to the next timed checkpoint goes on at the rate the load
 * sustains: the peak over whole cycles once measured, or the records
 * without their full-page images when those are higher; never at the
 * recent rate, which right after a checkpoint is mostly images.
 */
static void
projection_goes_on_at_the_sustained_rate_not_the_recent_rate(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* the last seconds run at 4 MB/s, 0.5 MB/s of it records */
	m.wal_since_redo_bytes = 100 * MB;
	m.recent_rate_valid = true;
	m.recent_rate = 4 * (double) MB;
	m.recent_record_rate = 0.5 * (double) MB;
	m.peak_rate = 1 * (double) MB;
	m.seconds_to_timed_checkpoint = 100;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.projected_bytes, 150 * MB);

	/* whole cycles averaged 1 MB/s */
	m.peak_covers_cycle = true;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.projected_bytes, 200 * MB);

	/* records heavier than the cycles measured so far */
	m.recent_record_rate = 3 * (double) MB;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.projected_bytes, 400 * MB);
}

static void
projection_without_a_sustained_rate_is_the_wal_since_redo(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* only images recently, and no whole cycle measured */
	m.wal_since_redo_bytes = 100 * MB;
	m.recent_rate_valid = true;
	m.recent_rate = 4 * (double) MB;
	m.recent_record_rate = 0;
	m.peak_rate = 1 * (double) MB;
	m.seconds_to_timed_checkpoint = 100;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.projected_bytes, 100 * MB);

	/* a record rate is not used without a valid recent rate */
	m.recent_rate_valid = false;
	m.recent_record_rate = 2 * (double) MB;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.projected_bytes, 100 * MB);
}

static void
projection_is_clamped_to_1e18_bytes(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.wal_since_redo_bytes = (uint64_t) 2000000000000000000ULL;
	m.recent_rate_valid = true;
	m.recent_rate = 1 * (double) MB;
	m.recent_record_rate = 1 * (double) MB;
	m.seconds_to_timed_checkpoint = 100;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.projected_bytes, (uint64_t) 1000000000000000000ULL);
}

/*
 * A checkpoint counts as imminent this far ahead: three samples, and at
 * least 3 s, so that the worker has a sample or two to see it coming.
 */
static void
imminence_looks_three_samples_and_at_least_three_seconds_ahead(void)
{
	CHECK_CMP(walsizer_imminent_lookahead_s(1), ==, 3);
	CHECK_CMP(walsizer_imminent_lookahead_s(0.1), ==, 3);
	CHECK_CMP(walsizer_imminent_lookahead_s(2), ==, 6);
	CHECK_CMP(walsizer_imminent_lookahead_s(10), ==, 30);
	/* a nonsense interval counts as 1 s */
	CHECK_CMP(walsizer_imminent_lookahead_s(NAN), ==, 3);
	CHECK_CMP(walsizer_imminent_lookahead_s(-5), ==, 3);
}

static void
trigger_falls_back_to_the_default_completion_target(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* 1 GB at 0.9: 33 checkpoint segments, the trigger 33 segments away */
	s.completion_target = NAN;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.trigger_bytes, 528 * MB);
}

/* --- state update --------------------------------------------------- */

static void
windows_since_change_saturates_at_the_counter_limit(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();

	state.windows_since_change = counter_limit() - 1;
	decide(&s, &m, &state);
	CHECK_EQ(state.windows_since_change, counter_limit());
	decide(&s, &m, &state);
	CHECK_EQ(state.windows_since_change, counter_limit());
}

static void
quiet_window_count_saturates_at_the_counter_limit(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements idle = window_at_rate(0, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();

	s.current_mb = 4096;
	s.shrink_after = 2000000000;	/* never reached */
	state.windows_below_half = counter_limit() - 1;
	decide(&s, &idle, &state);
	CHECK_EQ(state.windows_below_half, counter_limit());
	decide(&s, &idle, &state);
	CHECK_EQ(state.windows_below_half, counter_limit());
}

/* --- protect the WAL volume and follow a lowered walsizer.max --------- */

static void
a_lowered_max_is_no_disk_emergency(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* above walsizer.max, but the disk has room for the current size */
	s.current_mb = 2048;
	s.max_mb = 1024;
	s.disk_cap_mb = 4096;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1024);
	CHECK(!d.warn);
	CHECK_STR_CONTAINS(d.reason,
					   "walsizer.max is 1024 MB, below the 2048 MB walsizer had set");
}

/* --- grow ----------------------------------------------------------- */

static void
imminent_growth_reason_says_what_was_projected_within_what(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(400 * MB, 520 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1536);
	CHECK_STR_CONTAINS(d.reason,
					   "projected 520 MB of WAL since the last checkpoint within 3 s at the recent 40 MB/s; a checkpoint is forced at 512 to 528 MB; room for it and the rest of the cycle needs 1536 MB");
}

/*
 * Every growth is provisional, whatever its evidence: forced checkpoints
 * say the old size was too small, not how large the new one must be; the
 * WAL measured at the old size had its extra checkpoints and full-page
 * images.
 */
static void
every_growth_is_provisional(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements forced = window_at_rate(2, 0, 2, 2);
	WalsizerMeasurements imminent = sample_reaching(500 * MB, 600 * MB);
	WalsizerMeasurements both = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state;
	WalsizerDecision d;

	state = fresh_state();
	d = decide(&s, &forced, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(state.provisional, 1);

	state = fresh_state();
	d = decide(&s, &imminent, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(state.provisional, 1);

	both.recent_rate_valid = true;
	both.wal_since_redo_bytes = 500 * MB;
	both.reach_bytes = 600 * MB;
	state = fresh_state();
	d = decide(&s, &both, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(state.provisional, 1);
}

/*
 * Forced checkpoints at the window end and an imminent one at once: the
 * larger of the two targets.  At 2 MB/s the load needs 1440 MB, the
 * imminent checkpoint at least twice 1024 MB; at 4 MB/s the load needs
 * 2864 MB.
 */
static void
forced_and_imminent_together_grow_to_the_larger_target(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.recent_rate_valid = true;
	m.wal_since_redo_bytes = 500 * MB;
	m.reach_bytes = 520 * MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 2048);

	m = window_at_rate(4, 0, 2, 2);
	m.recent_rate_valid = true;
	m.wal_since_redo_bytes = 500 * MB;
	m.reach_bytes = 520 * MB;
	state = fresh_state();
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 2864);
}

static void
grow_reason_uses_the_default_timeout_for_a_nonsense_one(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.checkpoint_timeout_s = NAN;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason,
					   "; 600 MB of WAL per checkpoint_timeout needs 1440 MB");
}

/*
 * The end of a window just after walsizer changed the size to 1440 MB:
 * checkpoints were forced since, at a load that needs what rate_mb_s does.
 */
static WalsizerDecision
decide_just_after_a_change(double rate_mb_s)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(rate_mb_s, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();

	s.current_mb = 1440;
	s.max_mb = 8192;
	s.cooldown = 2;
	state.windows_since_change = 0;
	m.size_is_walsizers = true;
	m.wal_forced_since_change = 1;
	return decide(&s, &m, &state);
}

static void
cooldown_override_needs_at_least_twice_the_size(void)
{
	/* 4.02 MB/s needs 2880 MB, exactly twice 1440 */
	WalsizerDecision d = decide_just_after_a_change(4.02);

	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 2880);
	CHECK_STR_CONTAINS(d.reason,
					   "; 1 forced by WAL since the last change and the load needs over 2x the size, so the cooldown is cut short");

	/* 4 MB/s needs 2864 MB, one segment short of twice */
	d = decide_just_after_a_change(4);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_STR_CONTAINS(d.reason,
					   "; waiting for the cooldown before growing to 2864 MB");
}

static void
cooldown_reason_names_the_size_within_the_cap(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 0, 2, 2);	/* 2864 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 2048;
	s.cooldown = 3;
	state.windows_since_change = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_STR_CONTAINS(d.reason,
					   "; waiting for the cooldown before growing to 2048 MB");
}

/* --- settle a provisional size --------------------------------------- */

/*
 * 2 MB/s needs 1440 MB; 20 % more is 1728 MB, a whole number of segments.
 * At 1728 MB the provisional size is kept (and is no longer provisional);
 * one segment more and it settles to 1440 MB.
 */
static void
settle_margin_is_twenty_percent(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 1728;
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 0);

	s.current_mb = 1744;
	state = fresh_state();
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason,
					   "settling: whole checkpoint cycles at 1744 MB need 1440 MB; the growth was sized from WAL measured at a smaller size or over a few seconds");
}

/*
 * Whole timed cycles run from one redo pointer move to the next, which no
 * statistics reset touches: a window whose checkpoint counters were reset
 * settles a provisional size as any other.
 */
static void
settling_goes_on_in_a_counter_reset_window(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	w.counters_reset = true;
	w.timed = 0;
	s.current_mb = 4096;
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason, "settling");
}

/*
 * One whole timed cycle could be the lull of a load still rising: a size
 * settles after two, not before, and stays provisional meanwhile.
 */
static void
settling_needs_two_whole_timed_cycles_at_the_size(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(1, 1);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 2048;
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 1);

	w.timed_cycles_at_size = 2;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1024);
	CHECK_STR_CONTAINS(d.reason, "settling");
}

/*
 * A provisional size that has since become the DBA's value above the cap
 * (walsizer.max 4 GB, the DBA set 8 GB) is never settled below it, and
 * with walsizer.min unset the DBA's value bounds a settle like a shrink:
 * whole cycles needing 1024 MB settle 2048 MB to the baseline, 1536 MB.
 */
static void
settling_never_goes_below_the_dbas_value(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(1, 2);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 8192;
	s.baseline_mb = 8192;
	s.max_mb = 4096;
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 8192);

	s = typical_settings();
	s.current_mb = 2048;
	s.baseline_mb = 1536;
	state = fresh_state();
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1536);

	/* walsizer.min, set, is the floor instead */
	s.min_mb = 1024;
	state = fresh_state();
	state.provisional = 1;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1024);
}

/*
 * A checkpoint forced at the grown size proves it is not too large, even
 * if whole cycles look light: no settle, and the size stays provisional
 * while the growth rules take it further.  Whoever set the size, and even
 * when the forced checkpoints fall short of walsizer.threshold.
 */
static void
settling_waits_while_checkpoints_were_forced_at_the_size(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(1, 3);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 2048;
	state.provisional = 1;
	w.wal_forced_at_size = 1;
	w.size_is_walsizers = false;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 2048);
	CHECK_EQ(state.provisional, 1);
}

/*
 * The first seconds of every cycle at the grown size were projected to
 * reach 1000 MB after the redo pointer.  Whole cycles at 1 MB/s need only
 * 720 MB, but a size that small would see that reach as an imminent
 * checkpoint in the next cycle and grow again: the settled size keeps the
 * reach 10 % below its trigger.
 */
static void
settled_size_keeps_the_peak_reach_clear_of_its_trigger(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(1, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 8192;
	s.max_mb = 8192;
	state.provisional = 1;
	w.peak_reach_bytes_at_size = 1000 * MB;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_CMP(d.new_mb, >, 720);
	CHECK_UCMP(trigger_of(&s, d.new_mb), >=, 1100 * MB);
	/* and not much further: whole segments, not a wider margin */
	CHECK_UCMP(trigger_of(&s, d.new_mb), <, 1150 * MB);
	CHECK_STR_CONTAINS(d.reason,
					   "settling: whole checkpoint cycles at 8192 MB need 720 MB");
}

/*
 * A settle judges the size by the cycles measured at it: a larger cycle
 * from before the growth (the one that asked for it, 4 MB/s) is not what
 * the grown size has to hold.  The cycles at the size wrote 1 MB/s.
 */
static void
settling_sizes_for_the_cycles_measured_at_the_size(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(1, 2);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 64;
	s.current_mb = 4096;
	state.provisional = 1;
	w.timed_cycle_peak_bytes = 1200 * MB;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 720);
	CHECK_STR_CONTAINS(d.reason,
					   "settling: whole checkpoint cycles at 4096 MB need 720 MB");
}

static void
settling_waits_for_the_cooldown(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_after_timed_cycles(1, 2);	/* 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 2048;
	s.cooldown = 2;
	state.provisional = 1;
	state.windows_since_change = 0;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 1);

	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1024);
	CHECK_STR_CONTAINS(d.reason, "settling");
}

static void
settling_happens_only_at_window_ends(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_after_timed_cycles(1, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 2048;
	state.provisional = 1;
	m.window_end = false;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 1);
}

/* --- shrink slowly --------------------------------------------------- */

static void
quiet_means_needing_less_than_half(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_at_rate(1, 1, 0, 0);	/* needs 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 64;
	s.shrink_after = 1;

	/* exactly half is not quiet */
	s.current_mb = 1440;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.windows_below_half, 0);

	s.current_mb = 1456;
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 736);
	CHECK_STR_CONTAINS(d.reason,
					   "for 1 windows the load needed at most 720 MB, under half of 1456 MB");
}

/*
 * Windows walsizer.check_now() ended early are decided on, but count
 * towards neither the cooldown nor the quiet windows: twelve calls in a
 * row do not stand for twelve windows.  A busy early window still starts
 * the quiet count again, and a full window after them counts as usual.
 */
static void
windows_ended_early_do_not_count(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements w = window_at_rate(1, 1, 0, 0);	/* needs 720 MB */
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 64;
	s.current_mb = 2048;
	s.shrink_after = 3;
	s.cooldown = 2;
	state.windows_since_change = 0;
	w.window_ended_early = true;
	for (int i = 0; i < 12; i++)
	{
		d = decide(&s, &w, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	}
	CHECK_EQ(state.windows_below_half, 0);
	CHECK_EQ(state.windows_since_change, 0);

	/* a busy early window starts the quiet count again */
	state.windows_below_half = 2;
	s.current_mb = 1024;
	d = decide(&s, &w, &state);
	CHECK_EQ(state.windows_below_half, 0);

	/* full windows count */
	s.current_mb = 2048;
	w.window_ended_early = false;
	d = decide(&s, &w, &state);
	d = decide(&s, &w, &state);
	CHECK_EQ(state.windows_since_change, 2);
	CHECK_EQ(state.windows_below_half, 2);
	d = decide(&s, &w, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
}

/* --- say why nothing was done ---------------------------------------- */

static void
a_decision_to_do_nothing_says_why(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	d = decide(&s, &m, &state);
	CHECK_STR_CONTAINS(d.reason,
					   "no WAL load measured yet; max_wal_size 1024 MB is kept");

	m = window_at_rate(4, 1, 0, 0);
	d = decide(&s, &m, &state);
	CHECK_STR_CONTAINS(d.reason,
					   "the peak rate would need 2864 MB, but no checkpoint was forced and none is imminent");

	m = window_at_rate(1, 1, 0, 0);
	d = decide(&s, &m, &state);
	CHECK_STR_CONTAINS(d.reason,
					   "the load needs 720 MB; max_wal_size 1024 MB is enough");

	s.current_mb = 2048;
	d = decide(&s, &m, &state);
	CHECK_STR_CONTAINS(d.reason,
					   "the load needs 720 MB; 1 of 12 quiet windows before shrinking");
}

int
main(void)
{
	const char *suite = "policy_steps";

	RUN_TEST(suite, reset_window_wal_is_part_of_the_need);
	RUN_TEST(suite, whole_timed_cycles_come_first_in_what_the_load_needs);
	RUN_TEST(suite, whole_segment_fitting_stops_after_64_segments);
	RUN_TEST(suite, projection_goes_on_at_the_sustained_rate_not_the_recent_rate);
	RUN_TEST(suite, projection_without_a_sustained_rate_is_the_wal_since_redo);
	RUN_TEST(suite, projection_is_clamped_to_1e18_bytes);
	RUN_TEST(suite, imminence_looks_three_samples_and_at_least_three_seconds_ahead);
	RUN_TEST(suite, trigger_falls_back_to_the_default_completion_target);
	RUN_TEST(suite, windows_since_change_saturates_at_the_counter_limit);
	RUN_TEST(suite, quiet_window_count_saturates_at_the_counter_limit);
	RUN_TEST(suite, a_lowered_max_is_no_disk_emergency);
	RUN_TEST(suite, imminent_growth_reason_says_what_was_projected_within_what);
	RUN_TEST(suite, every_growth_is_provisional);
	RUN_TEST(suite, forced_and_imminent_together_grow_to_the_larger_target);
	RUN_TEST(suite, grow_reason_uses_the_default_timeout_for_a_nonsense_one);
	RUN_TEST(suite, cooldown_override_needs_at_least_twice_the_size);
	RUN_TEST(suite, cooldown_reason_names_the_size_within_the_cap);
	RUN_TEST(suite, settle_margin_is_twenty_percent);
	RUN_TEST(suite, settling_goes_on_in_a_counter_reset_window);
	RUN_TEST(suite, settling_needs_two_whole_timed_cycles_at_the_size);
	RUN_TEST(suite, settling_waits_while_checkpoints_were_forced_at_the_size);
	RUN_TEST(suite, settling_never_goes_below_the_dbas_value);
	RUN_TEST(suite, settled_size_keeps_the_peak_reach_clear_of_its_trigger);
	RUN_TEST(suite, settling_sizes_for_the_cycles_measured_at_the_size);
	RUN_TEST(suite, settling_waits_for_the_cooldown);
	RUN_TEST(suite, settling_happens_only_at_window_ends);
	RUN_TEST(suite, quiet_means_needing_less_than_half);
	RUN_TEST(suite, windows_ended_early_do_not_count);
	RUN_TEST(suite, a_decision_to_do_nothing_says_why);
	return unit_exit_status();
}
