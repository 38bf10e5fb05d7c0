/*-------------------------------------------------------------------------
 *
 * test_policy_standby.c
 *		How the policy sizes a standby: for the WAL it replays.
 *
 * On a standby the WAL rate is the replay rate (the primary's), the redo
 * pointer moves at restartpoints, and restartpoints can only start at
 * replayed checkpoint records.  So requested restartpoints and an
 * imminent one are no evidence (growing for them would never end), and
 * restartpoint cycles do not say what the load needs: the size follows
 * the replayed WAL over whole checkpoint_timeouts, up at a window end,
 * down when a growth proves more than the margin above it.  walsizer.min
 * is its floor, and a cap is reported once per stretch of load beyond it.
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "policy_fixtures.h"

/* A standby's window end: the horizon covers whole checkpoint_timeouts. */
static WalsizerMeasurements
standby_window(double rate_mb_s)
{
	WalsizerMeasurements m = window_at_rate(rate_mb_s, 1, 0, 0);

	m.standby = true;
	m.peak_covers_cycle = true;
	m.whole_timeouts_rate = m.peak_rate;
	return m;
}

static WalsizerSettings
standby_settings(int64_t current_mb)
{
	WalsizerSettings s = typical_settings();

	s.current_mb = current_mb;
	s.baseline_mb = 64;
	return s;
}

static void
grows_to_what_the_replayed_wal_needs_without_forced_checkpoints(void)
{
	WalsizerSettings s = standby_settings(64);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d = decide(&s, &m, &state);

	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_EQ(state.provisional, 1);
	CHECK_STR_CONTAINS(d.reason, "standby: it replays up to 600 MB of WAL per checkpoint_timeout");
	/* a standby's own reason, not a primary's (grow_to_target()) */
	CHECK_STR_CONTAINS(d.reason, "per checkpoint_timeout, which needs 1440 MB");
}

static void
requested_restartpoints_are_no_reason_to_grow(void)
{
	WalsizerSettings s = standby_settings(1440);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* every restartpoint requested, each redo move far: still enough */
	m.timed = 0;
	m.requested = 10;
	m.wal_forced = 10;
	m.wal_forced_since_change = 10;
	m.wal_forced_at_size = 10;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason, "standby: the WAL it replays needs 1440 MB");
}

static void
an_imminent_restartpoint_is_no_reason_to_grow(void)
{
	WalsizerSettings s = standby_settings(1024);
	WalsizerMeasurements m = sample_reaching(500 * MB, 700 * MB);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.standby = true;
	m.peak_covers_cycle = true;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	m.window_end = true;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	/* the same sample on a primary grows */
	m.standby = false;
	m.window_end = false;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
}

/*
 * Not the worst stretch of the horizon: that is a maximum over many
 * overlapping stretches, above what whole cycles measure.
 */
static void
sizes_from_whole_checkpoint_timeouts_not_the_worst_stretch(void)
{
	WalsizerSettings s = standby_settings(64);
	WalsizerMeasurements m = standby_window(1);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.peak_rate = 2 * (double) MB;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 720);
}

static void
restartpoint_cycles_do_not_size_it(void)
{
	WalsizerSettings s = standby_settings(64);
	WalsizerMeasurements m = standby_window(1);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* a restartpoint that skipped a checkpoint record: two cycles' WAL */
	m.timed_cycle_peak_bytes = (uint64_t) (2 * 300 * MB);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.needed_mb, 720);
	CHECK_EQ(d.new_mb, 720);
}

static void
waits_for_a_whole_checkpoint_timeout_of_replayed_wal(void)
{
	WalsizerSettings s = standby_settings(64);
	WalsizerMeasurements m = standby_window(8);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* a few seconds after the primary's checkpoint: mostly images */
	m.peak_covers_cycle = false;
	m.whole_timeouts_rate = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.needed_mb, 0);
	CHECK_STR_CONTAINS(d.reason, "waiting for a whole checkpoint_timeout of replayed WAL");
}

/*
 * Quiet windows before a whole checkpoint_timeout was measured are not
 * evidence: with walsizer.interval x shrink_after shorter than
 * checkpoint_timeout, a standby would shrink before it had measured once.
 */
static void
never_shrinks_before_a_whole_checkpoint_timeout_of_replayed_wal(void)
{
	WalsizerSettings s = standby_settings(2048);
	WalsizerMeasurements m = standby_window(0.1);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 64;
	s.shrink_after = 2;
	m.peak_covers_cycle = false;
	m.whole_timeouts_rate = 0;
	for (int i = 0; i < 5; i++)
	{
		d = decide(&s, &m, &state);
		CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
		CHECK_EQ(state.windows_below_half, 0);
	}
	/* once one is covered, the same light load shrinks after the windows */
	m.peak_covers_cycle = true;
	m.whole_timeouts_rate = m.peak_rate;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
}

static void
decides_only_at_window_ends(void)
{
	WalsizerSettings s = standby_settings(64);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.window_end = false;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
}

static void
growth_waits_for_the_cooldown(void)
{
	WalsizerSettings s = standby_settings(720);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	state.windows_since_change = -1;	/* changed in this window */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_STR_CONTAINS(d.reason, "waiting for the cooldown before growing to 1440 MB");
	/* walsizer.cooldown = 1: one whole window after the change */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1440);
}

static void
growth_beyond_the_cap_stops_at_the_cap(void)
{
	WalsizerSettings s = standby_settings(64);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 1024;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, 1024);
	CHECK_STR_CONTAINS(d.reason, "the load needs 1440 MB but the cap (walsizer.max) is 1024 MB");
	/* and says so only once */
	d = decide(&s, &m, &state);
	s.current_mb = 1024;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
}

/* walsizer.min is a standby's floor too: it grows to it, not below. */
static void
growth_stops_no_lower_than_walsizer_min(void)
{
	WalsizerSettings s = standby_settings(64);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.min_mb = 2048;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 2048);
}

/*
 * Held at the cap, a standby says so once; once the load has fitted under
 * the cap again, a load beyond it is news, said (and warned of) again.
 */
static void
a_load_beyond_the_cap_again_is_reported_again(void)
{
	WalsizerSettings s = standby_settings(1024);
	WalsizerMeasurements heavy = standby_window(2);
	WalsizerMeasurements light = standby_window(0.5);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.max_mb = 1024;
	d = decide(&s, &heavy, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK(d.warn);
	d = decide(&s, &heavy, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK(!d.warn);
	CHECK_STR_CONTAINS(d.reason, "still capped at 1024 MB");
	d = decide(&s, &light, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	d = decide(&s, &heavy, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK(d.warn);
	CHECK_STR_CONTAINS(d.reason, "the load needs 1440 MB but the cap (walsizer.max) is 1024 MB");
}

static void
a_growth_settles_once_the_peak_has_left_the_horizon(void)
{
	WalsizerSettings s = standby_settings(2864);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	state.provisional = 1;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1440);
	CHECK_STR_CONTAINS(d.reason, "settling on a standby: the WAL it replays needs 1440 MB");
	CHECK_STR_CONTAINS(d.reason, "at most 600 MB per checkpoint_timeout over the horizon");
}

static void
a_growth_within_the_margin_stays_and_is_settled(void)
{
	WalsizerSettings s = standby_settings(1728);	/* 1440 + 20 % */
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	state.provisional = 1;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(state.provisional, 0);
	/* one segment more is beyond the margin */
	s.current_mb = 1744;
	state.provisional = 1;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
}

static void
a_settled_size_comes_down_only_after_quiet_windows(void)
{
	WalsizerSettings s = standby_settings(2864);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d = {0};

	/* not provisional: 1440 is over half of 2864, so no window is quiet */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	m = standby_window(0.5);
	for (int i = 0; i < s.shrink_after; i++)
		d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1440);	/* at most halved */
}

/*
 * The DBA's own size above walsizer.max is the floor of a settle too
 * (the floor proper is clamped to the cap).
 */
static void
never_settles_below_the_dbas_own_size_above_the_cap(void)
{
	WalsizerSettings s = standby_settings(3008);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 3008;
	s.max_mb = 2048;
	state.provisional = 1;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 3008);
}

static void
never_settles_below_the_dbas_own_size(void)
{
	WalsizerSettings s = standby_settings(2864);
	WalsizerMeasurements m = standby_window(2);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 2048;
	state.provisional = 1;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 2048);
}

int
main(void)
{
	const char *suite = "policy_standby";

	RUN_TEST(suite, grows_to_what_the_replayed_wal_needs_without_forced_checkpoints);
	RUN_TEST(suite, requested_restartpoints_are_no_reason_to_grow);
	RUN_TEST(suite, an_imminent_restartpoint_is_no_reason_to_grow);
	RUN_TEST(suite, restartpoint_cycles_do_not_size_it);
	RUN_TEST(suite, sizes_from_whole_checkpoint_timeouts_not_the_worst_stretch);
	RUN_TEST(suite, waits_for_a_whole_checkpoint_timeout_of_replayed_wal);
	RUN_TEST(suite, never_shrinks_before_a_whole_checkpoint_timeout_of_replayed_wal);
	RUN_TEST(suite, decides_only_at_window_ends);
	RUN_TEST(suite, growth_waits_for_the_cooldown);
	RUN_TEST(suite, growth_beyond_the_cap_stops_at_the_cap);
	RUN_TEST(suite, growth_stops_no_lower_than_walsizer_min);
	RUN_TEST(suite, a_load_beyond_the_cap_again_is_reported_again);
	RUN_TEST(suite, a_growth_settles_once_the_peak_has_left_the_horizon);
	RUN_TEST(suite, a_growth_within_the_margin_stays_and_is_settled);
	RUN_TEST(suite, a_settled_size_comes_down_only_after_quiet_windows);
	RUN_TEST(suite, never_settles_below_the_dbas_own_size);
	RUN_TEST(suite, never_settles_below_the_dbas_own_size_above_the_cap);
	return unit_exit_status();
}
