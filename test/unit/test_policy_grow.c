/*-------------------------------------------------------------------------
 *
 * test_policy_grow.c
 *		When the policy grows max_wal_size, and to what.
 *
 * Growth needs evidence: WAL-forced checkpoints in the window that just
 * ended (at least walsizer.threshold of them, and at least walsizer.ratio
 * of all checkpoints), or an imminent one: the WAL after the redo pointer
 * expected (by measure.c) to reach the trigger within seconds.  A
 * projection over the rest of the cycle is no evidence, nor is a burst
 * that will not reach the trigger soon.  Checkpoints requested for other
 * reasons, such as a CHECKPOINT command run from cron, are no evidence at
 * all.  Every growth is provisional (see test_policy_shrink.c).
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
does_not_grow_on_high_rate_without_forced_or_imminent_checkpoint(void)
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
 * With 1 GB, 16 MB segments and 0.9 the trigger is 33 segments (528 MB)
 * after the start of the redo pointer's segment, so a checkpoint can be
 * forced from 512 MB after the redo pointer on.  A checkpoint is imminent
 * when the WAL is expected to reach that within the lookahead, and exactly
 * reaching it is enough.
 */
static void
grows_when_the_reach_meets_the_trigger(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(400 * MB, trigger_of(&s, 1024));
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d = decide(&s, &m, &state);

	CHECK_UEQ(d.trigger_bytes, 528 * MB);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_CMP(d.new_mb, >, 1024);
	CHECK_STR_CONTAINS(d.reason,
					   "projected 512 MB of WAL since the last checkpoint within 3 s");
}

static void
does_not_grow_when_the_reach_stays_below_the_trigger(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(400 * MB, trigger_of(&s, 1024) - 1);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d = decide(&s, &m, &state);

	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1024);
	CHECK_EQ(state.provisional, 0);
}

/*
 * The old proactive rule: 400 MB written and 2 MB/s sustained for the
 * 100 s left projects 600 MB, past the 512 MB trigger.  The load may well
 * slow down before then (full-page images fade), and if it does not, the
 * checkpoint becomes imminent in time: a projection alone grows nothing.
 */
static void
a_projection_past_the_trigger_is_no_evidence_until_imminent(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(400 * MB, 406 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.recent_record_rate = 2 * (double) MB;
	m.peak_rate = 2 * (double) MB;
	m.peak_covers_cycle = true;
	m.seconds_to_timed_checkpoint = 100;
	d = decide(&s, &m, &state);
	CHECK_UEQ(d.projected_bytes, 600 * MB);
	CHECK_UCMP(d.projected_bytes, >, d.trigger_bytes);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1024);
}

/*
 * WAL already past the trigger forces a checkpoint only when a segment is
 * finished.  An idle server whose last checkpoint started before a load
 * ended stays past a smaller size's trigger while it idles (timed
 * checkpoints are skipped): imminent only if a segment's worth of WAL is
 * expected within the lookahead.
 */
static void
wal_past_the_trigger_is_imminent_only_with_a_segment_more_coming(void)
{
	WalsizerSettings s = typical_settings();
	uint64_t	past = trigger_of(&s, 1024) + 88 * MB;
	WalsizerMeasurements m = sample_reaching(past, past + 16 * MB - 1);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1024);

	m.reach_bytes = past + 16 * MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
}

static void
imminence_needs_a_valid_recent_rate(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(400 * MB, 900 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.recent_rate_valid = false;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
}

/*
 * Whole cycles at 1 MB/s need only 720 MB, less than the current 1 GB,
 * yet the WAL is about to force a checkpoint: that is evidence enough.
 */
static void
an_imminent_checkpoint_grows_even_when_the_peak_rate_needs_less(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(500 * MB, 530 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.peak_covers_cycle = true;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 720);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_CMP(d.new_mb, >, 1024);
}

/*
 * A one-second burst: the recent rate is 1 GB/s, but the WAL after the redo
 * pointer is expected to reach only 300 MB within the lookahead, under the
 * trigger (measure.c bounds the burst's full-page images by what a whole
 * cycle wrote).  The recent rate is never projected over the cycle:
 * nothing changes, at the sample or at the window end, and nothing
 * becomes provisional.
 */
static void
a_one_second_burst_below_the_trigger_changes_nothing(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(200 * MB, 300 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.recent_rate = 1024 * (double) MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1024);

	m.window_end = true;
	m.window_s = 300;
	m.timed = 1;
	m.wal_bytes = 500 * MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1024);
	CHECK_EQ(state.provisional, 0);
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

/*
 * After a dry-run advice the old size stays in effect, and its checkpoint
 * stays imminent at every sample: those samples wait for the cooldown and
 * do not count towards it.
 */
static void
cooldown_counts_window_ends_not_samples(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements forced = window_at_rate(2, 0, 2, 2);
	WalsizerMeasurements urgent = sample_reaching(500 * MB, 700 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	d = decide(&s, &forced, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);

	urgent.size_is_walsizers = false;
	for (int i = 0; i < 10; i++)
	{
		d = decide(&s, &urgent, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
		CHECK_STR_CONTAINS(d.reason, "waiting for the cooldown");
	}
	CHECK_EQ(state.windows_since_change, 0);
}

/*
 * An imminent checkpoint at the size walsizer itself just chose means
 * that choice was too small for a load still rising: grow again at once,
 * cooldown or not, however often it takes.
 */
static void
an_imminent_checkpoint_at_walsizers_size_cuts_the_cooldown_short(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(500 * MB, 600 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.cooldown = 5;
	s.max_mb = 65536;
	state.windows_since_change = 0;
	for (int i = 0; i < 3; i++)
	{
		d = decide(&s, &m, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
		CHECK_CMP(d.new_mb, >, d.old_mb);
		s.current_mb = d.new_mb;
		m.wal_since_redo_bytes = trigger_of(&s, s.current_mb) - 12 * MB;
		m.reach_bytes = trigger_of(&s, s.current_mb);
	}
}

/*
 * The same imminent checkpoint at a size walsizer did not choose (a
 * dry-run advice, a failed ALTER SYSTEM, the DBA's change) waits like any
 * growth, or it would decide again at every sample.
 */
static void
an_imminent_checkpoint_at_a_size_not_walsizers_waits_for_the_cooldown(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(500 * MB, 600 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.cooldown = 2;
	state.windows_since_change = 0;
	m.size_is_walsizers = false;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1024);
	CHECK_STR_CONTAINS(d.reason, "waiting for the cooldown");

	/* once the cooldown is over it is evidence like any other */
	state.windows_since_change = 2;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
}

/*
 * Until whole timed cycles were measured, growing for an imminent
 * checkpoint adds at least half the size, even when the reach and the
 * rest of the cycle would fit in less: a load that keeps its rate is
 * caught up with in a few steps, not one every few samples.
 */
static void
an_imminent_growth_adds_at_least_half_before_whole_cycles_are_known(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(500 * MB, trigger_of(&s, 1024));
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 16384;
	/* the cycle ends in a second: the reach and the rest fit in 1024 MB */
	m.seconds_to_timed_checkpoint = 1;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1024 + 512);

	/* from an odd size: half of it more, rounded up to a segment */
	s.current_mb = 1012;
	s.baseline_mb = 1012;
	m = sample_reaching(490 * MB, trigger_of(&s, 1012));
	m.seconds_to_timed_checkpoint = 1;
	state = fresh_state();
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1520);	/* 1518 MB in 16 MB segments */
}

/*
 * Once whole timed cycles were measured, they say what the load needs:
 * the largest wrote 900 MB from one redo pointer to the next, 3 MB/s over
 * checkpoint_timeout, which needs 2144 MB, more than the reach and the
 * rest of the cycle ask for.  With cycles that need little, the growth
 * is what the reach and the rest of the cycle ask for, not twice the size.
 */
static void
an_imminent_growth_after_whole_cycles_grows_to_what_they_need(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(500 * MB, trigger_of(&s, 1024));
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 16384;
	m.timed_cycle_peak_bytes = 900 * MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 2144);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 2144);

	m.timed_cycle_peak_bytes = 100 * MB;
	state = fresh_state();
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_CMP(d.new_mb, >, 1024);
	CHECK_CMP(d.new_mb, <, 2 * 1024);
}

/*
 * At 3072 MB, 1000 MB written and 1000 MB more expected within the
 * lookahead: the size grown to holds that and one lookahead more (3000 MB
 * after the redo pointer), not two more.  Twice the size (6144 MB) leaves
 * room for it.
 */
static void
an_imminent_growth_makes_room_for_one_more_lookahead(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m;
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 65536;
	s.current_mb = 3072;
	s.baseline_mb = 3072;
	m = sample_reaching(1000 * MB, 2000 * MB);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_UCMP(trigger_of(&s, d.new_mb), >=, 3000 * MB);
	CHECK_UCMP(trigger_of(&s, d.new_mb), <, 4000 * MB);
}

/*
 * A few seconds of WAL justify only so much: at 1024 MB, 500 MB written
 * and 1000 MB more expected within the lookahead (a rate measured over
 * seconds), the lookahead's room would ask for 2500 MB after the redo
 * pointer.  The growth goes to twice the size or to what holds the reach
 * itself (1500 MB), whichever is more, and no further; with 200 s of the
 * cycle left at 20 MB/s, the rest of the cycle asks for no more either.
 */
static void
an_imminent_growth_goes_no_further_than_its_seconds_justify(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(500 * MB, 1500 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 65536;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_UCMP(trigger_of(&s, d.new_mb), >=, 1500 * MB);
	CHECK_UCMP(trigger_of(&s, d.new_mb), <, 1600 * MB);

	/* the reach within twice the size: twice the size, whatever the rest */
	m = sample_reaching(500 * MB, 620 * MB);
	m.recent_record_rate = 20 * (double) MB;
	m.seconds_to_timed_checkpoint = 200;
	state = fresh_state();
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 2 * 1024);

	/* whole timed cycles that need more size without the limit */
	m.timed_cycle_peak_bytes = 2000 * MB;
	state = fresh_state();
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, d.needed_mb);
	CHECK_CMP(d.new_mb, >, 4 * 1024);
}

/*
 * At 2048 MB, with 200 s left in the cycle and records at 5 MB/s, the rest
 * of the cycle needs 1000 MB after the 1000 MB written; the recent rate
 * of 40 MB/s, full of full-page images, would project 8000 MB.  The size
 * holds the former, and is nowhere near the latter.
 */
static void
an_imminent_growth_sizes_the_rest_of_the_cycle_at_the_sustained_rate(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m;
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 65536;
	s.current_mb = 2048;
	s.baseline_mb = 2048;
	m = sample_reaching(1000 * MB, 1120 * MB);
	m.recent_record_rate = 5 * (double) MB;
	m.seconds_to_timed_checkpoint = 200;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_UCMP(trigger_of(&s, d.new_mb), >=, 2000 * MB);
	CHECK_UCMP(trigger_of(&s, d.new_mb), <, 2500 * MB);
	CHECK_STR_CONTAINS(d.reason, "room for it and the rest of the cycle needs");
}

/*
 * Forced checkpoints at the end of a window shorter than a
 * checkpoint_timeout (walsizer.interval 30s): its rate, 20 MB/s, taken for
 * a whole cycle would ask for 14 GB.  Thirty seconds justify twice the
 * size; a window as long as checkpoint_timeout, the whole need.
 */
static void
a_growth_for_a_short_window_at_most_doubles(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(20, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 65536;
	m.window_s = 30;
	m.wal_bytes = 600 * MB;
	m.peak_covers_cycle = false;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_CMP(d.needed_mb, >, 14000);
	CHECK_EQ(d.new_mb, 2 * 1024);

	/* a horizon covering a checkpoint_timeout at that rate: all of it */
	m.peak_covers_cycle = true;
	m.window_s = 300;
	m.wal_bytes = 6000 * MB;
	state = fresh_state();
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, d.needed_mb);
}

/*
 * After a first growth for a light load (to 1440 MB), a much heavier one
 * (a bulk import) forces checkpoints; the window ends while the cooldown
 * of that growth runs.
 */
static WalsizerDecision
decide_during_cooldown(double rate_mb_s, int64_t forced_since_change)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 2, 2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 8192;
	s.cooldown = 2;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.new_mb, 1440);
	s.current_mb = d.new_mb;

	m = window_at_rate(rate_mb_s, 0, 3, 3);
	m.wal_forced_since_change = forced_since_change;
	m.size_is_walsizers = true;
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
	CHECK_EQ(d.state.windows_since_change, 0);
}

static void
cooldown_holds_for_forced_checkpoints_from_before_the_change(void)
{
	/* the window's forced checkpoints all came before the growth */
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

/*
 * A window whose checkpoint counters were reset does not know how many
 * checkpoints were requested: a far redo pointer move may have been a
 * CHECKPOINT command, so forced checkpoints it cannot count are no
 * evidence, even were a caller to pass some.
 */
static void
counter_reset_window_does_not_grow_on_forced_checkpoints(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 0, 9, 9);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.counters_reset = true;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, d.old_mb);
	CHECK(strstr(d.reason, "forced by WAL") == NULL);
	/* what the WAL position says the load needs still holds */
	CHECK_EQ(d.needed_mb, 2864);
}

/* An imminent checkpoint shows in the WAL position, whatever was reset. */
static void
counter_reset_window_grows_for_an_imminent_checkpoint(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = sample_reaching(500 * MB, 600 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.window_end = true;
	m.window_s = 300;
	m.counters_reset = true;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_CMP(d.new_mb, >, 1024);
	CHECK_STR_CONTAINS(d.reason, "projected");
}

/*
 * A quiet window counts towards shrinking, reset or not: what the load
 * needs comes from the WAL position and the redo pointer.
 */
static void
counter_reset_window_counts_towards_shrinking(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(0.1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.shrink_after = 2;
	m.counters_reset = true;
	state.windows_since_change = 5;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.windows_below_half, 1);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 2048);
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
	RUN_TEST(suite, does_not_grow_on_high_rate_without_forced_or_imminent_checkpoint);
	RUN_TEST(suite, grown_size_is_formula_rounded_up_to_whole_segment);
	RUN_TEST(suite, grown_size_is_at_least_one_segment_above_current);
	RUN_TEST(suite, needed_size_follows_peak_rate_when_above_window_average);
	RUN_TEST(suite, needed_size_follows_window_average_when_above_peak_rate);
	RUN_TEST(suite, grows_when_the_reach_meets_the_trigger);
	RUN_TEST(suite, does_not_grow_when_the_reach_stays_below_the_trigger);
	RUN_TEST(suite, a_projection_past_the_trigger_is_no_evidence_until_imminent);
	RUN_TEST(suite, wal_past_the_trigger_is_imminent_only_with_a_segment_more_coming);
	RUN_TEST(suite, imminence_needs_a_valid_recent_rate);
	RUN_TEST(suite, an_imminent_checkpoint_grows_even_when_the_peak_rate_needs_less);
	RUN_TEST(suite, a_one_second_burst_below_the_trigger_changes_nothing);
	RUN_TEST(suite, first_change_needs_no_cooldown);
	RUN_TEST(suite, cooldown_blocks_second_change_until_enough_windows_end);
	RUN_TEST(suite, cooldown_counts_window_ends_not_samples);
	RUN_TEST(suite, an_imminent_checkpoint_at_walsizers_size_cuts_the_cooldown_short);
	RUN_TEST(suite, an_imminent_checkpoint_at_a_size_not_walsizers_waits_for_the_cooldown);
	RUN_TEST(suite, an_imminent_growth_adds_at_least_half_before_whole_cycles_are_known);
	RUN_TEST(suite, an_imminent_growth_after_whole_cycles_grows_to_what_they_need);
	RUN_TEST(suite, an_imminent_growth_makes_room_for_one_more_lookahead);
	RUN_TEST(suite, an_imminent_growth_goes_no_further_than_its_seconds_justify);
	RUN_TEST(suite, a_growth_for_a_short_window_at_most_doubles);
	RUN_TEST(suite, an_imminent_growth_sizes_the_rest_of_the_cycle_at_the_sustained_rate);
	RUN_TEST(suite, cooldown_gives_way_to_a_much_heavier_load_forcing_checkpoints);
	RUN_TEST(suite, cooldown_holds_for_forced_checkpoints_from_before_the_change);
	RUN_TEST(suite, cooldown_holds_for_forced_checkpoints_of_a_slightly_heavier_load);
	RUN_TEST(suite, counter_reset_window_does_not_grow_on_forced_checkpoints);
	RUN_TEST(suite, counter_reset_window_grows_for_an_imminent_checkpoint);
	RUN_TEST(suite, counter_reset_window_counts_towards_shrinking);
	RUN_TEST(suite, grows_only_with_valid_window_length);
	return unit_exit_status();
}
