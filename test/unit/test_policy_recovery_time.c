/*-------------------------------------------------------------------------
 *
 * test_policy_recovery_time.c
 *		The crash-recovery time bound: walsizer.max_recovery_time.
 *
 * Crash recovery replays the WAL from the redo pointer of the last
 * completed checkpoint; at its worst that is what max_wal_size holds, so a
 * size S takes at most S / replay rate to recover.  The bound caps the size
 * at max_recovery_time times the replay rate, the slowest of the last few
 * measured.  A bound below a size walsizer set lowers it at once, but
 * never below the DBA's own value; a DBA's value above it is left alone.
 * The expected values are worked out by hand in each test.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "unit.h"
#include "policy_fixtures.h"

/* Seconds, compared to a hundredth of a millisecond. */
#define CHECK_SECONDS(actual, expected) \
	CHECK(fabs((actual) - (expected)) < 1e-5)

/* --- the helpers ------------------------------------------------------------ */

static void
recovery_cap_is_the_wal_replayed_within_the_bound(void)
{
	/* 10 s at 50 MB/s: 500 MB */
	CHECK_EQ(walsizer_recovery_cap_mb(10, 50 * (double) MB), 500);
	/* 5 min at 20 MB/s: 6000 MB */
	CHECK_EQ(walsizer_recovery_cap_mb(300, 20 * (double) MB), 6000);
	/* 2.5 s at 3 MB/s is 7.5 MB: rounded down, the bound is kept */
	CHECK_EQ(walsizer_recovery_cap_mb(2.5, 3 * (double) MB), 7);
	/* 1 s at one byte short of 1 GB/s: 1023 MB and a bit */
	CHECK_EQ(walsizer_recovery_cap_mb(1, 1024 * (double) MB - 1), 1023);
}

static void
recovery_cap_is_no_bound_without_a_time_and_a_rate(void)
{
	double		no_values[] = {0, -0.0, -1, NAN, INFINITY, -INFINITY};

	for (size_t i = 0; i < sizeof(no_values) / sizeof(no_values[0]); i++)
	{
		CHECK_EQ(walsizer_recovery_cap_mb(no_values[i], 50 * (double) MB), 0);
		CHECK_EQ(walsizer_recovery_cap_mb(10, no_values[i]), 0);
	}
}

/* A bound that rounds down to nothing is still a bound, not "none". */
static void
recovery_cap_below_one_mb_is_one_mb(void)
{
	/* 0.1 s at 1 MB/s: 0.1 MB */
	CHECK_EQ(walsizer_recovery_cap_mb(0.1, (double) MB), 1);
	CHECK_EQ(walsizer_recovery_cap_mb(1, 1), 1);
}

static void
recovery_cap_is_at_most_the_size_limit(void)
{
	CHECK_EQ(walsizer_recovery_cap_mb(1e300, 1e300), SIZE_LIMIT_MB);
	/* a day at 1 TB/s: 82 PB, beyond max_wal_size's 2 PB */
	CHECK_EQ(walsizer_recovery_cap_mb(86400, 1e12), SIZE_LIMIT_MB);
}

static void
estimated_recovery_replays_what_the_load_fills(void)
{
	/*
	 * At 1024 MB, with a completion target of 0.9 and a load writing 300 MB
	 * a cycle, recovery replays at most 1.9 * 300 = 570 MB: at 100 MB/s,
	 * 5.7 s.
	 */
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, 0.9, 300 * MB, 0,
												100 * (double) MB), 5.7);
	/* a completion target of 0.5: 1.5 * 300 = 450 MB, 4.5 s */
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, 0.5, 300 * MB, 0,
												100 * (double) MB), 4.5);
}

static void
estimated_recovery_is_at_most_the_size(void)
{
	/* 600 MB a cycle would be 1140 MB: the size, 1024 MB, forces a checkpoint first */
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, 0.9, 600 * MB, 0,
												100 * (double) MB), 10.24);
	/* no cycle measured: the worst case, the size */
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, 0.9, 0, 0,
												100 * (double) MB), 10.24);
	/* the size as the cap was computed: it fits the bound it came from */
	CHECK(walsizer_estimated_recovery_s(walsizer_recovery_cap_mb(7.3, 33 * (double) MB),
										0.9, 0, 0, 33 * (double) MB) <= 7.3);
}

static void
estimated_recovery_is_zero_without_a_rate(void)
{
	double		no_rates[] = {0, -1, NAN, INFINITY, -INFINITY};

	for (size_t i = 0; i < sizeof(no_rates) / sizeof(no_rates[0]); i++)
		CHECK(walsizer_estimated_recovery_s(1024, 0.9, 300 * MB, 0, no_rates[i]) == 0);
}

/* A bogus completion target is PostgreSQL's default, 0.9, as elsewhere. */
static void
estimated_recovery_with_a_bogus_completion_target(void)
{
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, NAN, 300 * MB, 0,
												100 * (double) MB), 5.7);
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, -1, 300 * MB, 0,
												100 * (double) MB), 5.7);
}

/*
 * What a crash would really have replayed raises the estimate above the
 * model, up to past the size (a checkpoint can run late); less than the
 * model changes nothing.
 */
static void
estimated_recovery_is_never_below_what_was_seen(void)
{
	/* the model: 1.9 * 300 = 570 MB; seen 640 MB: 6.4 s at 100 MB/s */
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, 0.9, 300 * MB, 640 * MB,
												100 * (double) MB), 6.4);
	/* seen below the model: the model */
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, 0.9, 300 * MB, 500 * MB,
												100 * (double) MB), 5.7);
	/* seen past the size: what was seen */
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, 0.9, 600 * MB, 1100 * MB,
												100 * (double) MB), 11.0);
	/* nothing measured but what was seen: still the size at least */
	CHECK_SECONDS(walsizer_estimated_recovery_s(1024, 0.9, 0, 200 * MB,
												100 * (double) MB), 10.24);
}

static void
conservative_replay_rate_is_the_slowest(void)
{
	double		rates[] = {80e6, 50e6, 120e6, 51e6};

	CHECK(walsizer_conservative_replay_rate(rates, 4) == 0.8 * 50e6);
	/* only the first count */
	CHECK(walsizer_conservative_replay_rate(rates, 1) == 0.8 * 80e6);
	CHECK(walsizer_conservative_replay_rate(rates + 2, 2) == 0.8 * 51e6);
}

static void
conservative_replay_rate_ignores_what_is_no_rate(void)
{
	double		rates[] = {NAN, 0, 70e6, -5e6, INFINITY, 90e6, -INFINITY};
	double		none[] = {0, NAN, -1};

	CHECK(walsizer_conservative_replay_rate(rates, 7) == 0.8 * 70e6);
	CHECK(walsizer_conservative_replay_rate(none, 3) == 0);
	CHECK(walsizer_conservative_replay_rate(rates, 0) == 0);
	CHECK(walsizer_conservative_replay_rate(rates, -1) == 0);
	CHECK(walsizer_conservative_replay_rate(NULL, 4) == 0);
}

/* --- the cap ----------------------------------------------------------------- */

static void
recovery_bound_below_walsizer_max_is_the_cap(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.recovery_cap_mb = 2010;	/* rounds down to 125 segments */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_RECOVERY_TIME);
	CHECK_EQ(d.cap_mb, 2000);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);

	/* the lowest wins, whichever it is */
	s.disk_cap_mb = 1500;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_DISK);
	CHECK_EQ(d.cap_mb, 1488);
	s.recovery_cap_mb = 1000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_RECOVERY_TIME);
	CHECK_EQ(d.cap_mb, 992);
	s.max_mb = 999;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_SETTING);
	CHECK_EQ(d.cap_mb, 992);
}

static void
recovery_bound_off_or_above_the_other_limits_is_ignored(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	int64_t		recovery_caps[] = {0, -1, 4097, 8192, SIZE_LIMIT_MB};
	WalsizerDecision d;

	for (size_t i = 0; i < sizeof(recovery_caps) / sizeof(recovery_caps[0]); i++)
	{
		s.recovery_cap_mb = recovery_caps[i];
		d = decide(&s, &m, &state);
		CHECK_EQ(d.cap_source, WALSIZER_CAP_SETTING);
		CHECK_EQ(d.cap_mb, 4096);
	}
}

/* On a tie walsizer.max is named first, then the disk. */
static void
recovery_bound_tied_with_another_limit_is_not_named(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.recovery_cap_mb = 4096;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_SETTING);

	s.disk_cap_mb = 3000;
	s.recovery_cap_mb = 3000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_DISK);
	CHECK_EQ(d.cap_mb, 2992);
}

/* The bound is a cap like the others: two segments at least. */
static void
recovery_bound_of_one_mb_caps_at_two_segments(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.recovery_cap_mb = walsizer_recovery_cap_mb(0.01, (double) MB);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_RECOVERY_TIME);
	CHECK_EQ(d.cap_mb, 32);
	CHECK_EQ(d.floor_mb, 32);
	CHECK(d.floor_clamped);
}

static void
growth_beyond_the_recovery_bound_is_capped(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(4, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* 4 MB/s needs 2864 MB; 10 s at 200 MB/s allows 2000 MB */
	s.recovery_cap_mb = walsizer_recovery_cap_mb(10, 200 * (double) MB);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, 2000);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_RECOVERY_TIME);
	CHECK_EQ(d.needed_mb, 2864);
	CHECK(d.warn);
	CHECK_EQ(state.cap_reported, 1);
	CHECK_STR_CONTAINS(d.reason, "the load needs 2864 MB but the cap (recovery_time) is 2000 MB");

	/* and once at it, it stays there, reported once */
	s.current_mb = d.new_mb;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 2000);
	CHECK(!d.warn);
	CHECK_STR_CONTAINS(d.reason, "still capped at 2000 MB");
}

/* A growth under the bound is an ordinary growth. */
static void
growth_under_the_recovery_bound_is_not_capped(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(2, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* 2 MB/s needs 1440 MB, under 2000 MB */
	s.recovery_cap_mb = 2000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, 1440);
	CHECK(!d.warn);
}

/* --- lowering at once -------------------------------------------------------- */

static void
recovery_bound_lowers_a_size_walsizer_set_at_once(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	/* walsizer set 4 GB; the DBA had 1 GB */
	s.current_mb = 4096;
	s.recovery_cap_mb = 2010;
	/* at a sample between window ends, right after a change */
	s.cooldown = 10;
	state.windows_since_change = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 2000);
	CHECK_STR_CONTAINS(d.reason,
					   "the recovery-time bound allows at most 2000 MB, below the 4096 MB walsizer had set");
	CHECK_EQ(state.windows_since_change, -1);
}

static void
recovery_bound_lowers_at_once_in_a_counter_reset_window(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	m.counters_reset = true;
	s.current_mb = 4096;
	s.recovery_cap_mb = 2000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 2000);
	CHECK_EQ(state.windows_since_change, 0);
}

/* A replay measured slower than the last lowers the bound, and the size. */
static void
slower_replay_measured_lowers_the_size(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	double		rates[] = {125 * (double) MB, 0};
	WalsizerDecision d;

	/* 30 s at 0.8 x 125 = 100 MB/s: 3000 MB, above walsizer's 2880 MB */
	s.current_mb = 2880;
	s.recovery_cap_mb = walsizer_recovery_cap_mb(30, walsizer_conservative_replay_rate(rates, 1));
	CHECK_EQ(s.recovery_cap_mb, 3000);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);

	/* a recovery at 62.5 MB/s, planned as 50 MB/s: 1500 MB */
	rates[1] = 62.5 * (double) MB;
	s.recovery_cap_mb = walsizer_recovery_cap_mb(30, walsizer_conservative_replay_rate(rates, 2));
	CHECK_EQ(s.recovery_cap_mb, 1500);
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1488);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_RECOVERY_TIME);
}

static void
recovery_bound_never_lowers_below_the_dba_value(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 3000;
	s.current_mb = 4096;
	s.recovery_cap_mb = 2000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 3008);	/* the DBA's 3000 MB, on a whole segment */
	CHECK_STR_CONTAINS(d.reason, "recovery-time bound");

	/* once there, it stays, with the load asking for more: capped */
	s.current_mb = d.new_mb;
	s.shrink_after = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	m = window_at_rate(4, 0, 3, 3);
	state = fresh_state();		/* after the cooldown */
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_CAPPED);
	CHECK_EQ(d.new_mb, 3008);
}

static void
dba_value_above_the_recovery_bound_is_left_alone(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(1, 1, 0, 0);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.baseline_mb = 8192;
	s.current_mb = 8192;
	s.max_mb = 16384;
	s.recovery_cap_mb = 2000;
	s.shrink_after = 0;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_NONE);
	CHECK_EQ(d.new_mb, 8192);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_RECOVERY_TIME);
}

/* walsizer.max lowered keeps its own reason. */
static void
lowered_walsizer_max_is_named_as_such(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.max_mb = 1500;
	s.recovery_cap_mb = 2000;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_SHRINK);
	CHECK_EQ(d.new_mb, 1488);
	CHECK_STR_CONTAINS(d.reason,
					   "walsizer.max is 1488 MB, below the 4096 MB walsizer had set");
}

/*
 * The disk protects pg_wal below anything, the DBA's value included; the
 * recovery-time bound, lower still, does not take the size below the
 * DBA's value.
 */
static void
protect_with_a_lower_recovery_bound_keeps_the_dba_value(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = quiet_sample();
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.current_mb = 4096;
	s.disk_cap_mb = 3000;
	s.recovery_cap_mb = 1000;

	/* the DBA's 2 GB fits on the disk: down to it, not to 992 MB */
	s.baseline_mb = 2048;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_PROTECT);
	CHECK_EQ(d.cap_source, WALSIZER_CAP_RECOVERY_TIME);
	CHECK_EQ(d.new_mb, 2048);
	CHECK(d.warn);
	CHECK_STR_CONTAINS(d.reason, "from 4096 MB to 2048 MB");

	/* the DBA's 3.5 GB does not: the disk's share */
	s.baseline_mb = 3500;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_PROTECT);
	CHECK_EQ(d.new_mb, 2992);

	/* the DBA's 512 MB is below the bound: the bound */
	s.baseline_mb = 512;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_PROTECT);
	CHECK_EQ(d.new_mb, 992);
}

int
main(void)
{
	const char *suite = "policy_recovery_time";

	RUN_TEST(suite, recovery_cap_is_the_wal_replayed_within_the_bound);
	RUN_TEST(suite, recovery_cap_is_no_bound_without_a_time_and_a_rate);
	RUN_TEST(suite, recovery_cap_below_one_mb_is_one_mb);
	RUN_TEST(suite, recovery_cap_is_at_most_the_size_limit);
	RUN_TEST(suite, estimated_recovery_replays_what_the_load_fills);
	RUN_TEST(suite, estimated_recovery_is_at_most_the_size);
	RUN_TEST(suite, estimated_recovery_is_zero_without_a_rate);
	RUN_TEST(suite, estimated_recovery_with_a_bogus_completion_target);
	RUN_TEST(suite, estimated_recovery_is_never_below_what_was_seen);
	RUN_TEST(suite, conservative_replay_rate_is_the_slowest);
	RUN_TEST(suite, conservative_replay_rate_ignores_what_is_no_rate);
	RUN_TEST(suite, recovery_bound_below_walsizer_max_is_the_cap);
	RUN_TEST(suite, recovery_bound_off_or_above_the_other_limits_is_ignored);
	RUN_TEST(suite, recovery_bound_tied_with_another_limit_is_not_named);
	RUN_TEST(suite, recovery_bound_of_one_mb_caps_at_two_segments);
	RUN_TEST(suite, growth_beyond_the_recovery_bound_is_capped);
	RUN_TEST(suite, growth_under_the_recovery_bound_is_not_capped);
	RUN_TEST(suite, recovery_bound_lowers_a_size_walsizer_set_at_once);
	RUN_TEST(suite, recovery_bound_lowers_at_once_in_a_counter_reset_window);
	RUN_TEST(suite, slower_replay_measured_lowers_the_size);
	RUN_TEST(suite, recovery_bound_never_lowers_below_the_dba_value);
	RUN_TEST(suite, dba_value_above_the_recovery_bound_is_left_alone);
	RUN_TEST(suite, lowered_walsizer_max_is_named_as_such);
	RUN_TEST(suite, protect_with_a_lower_recovery_bound_keeps_the_dba_value);
	return unit_exit_status();
}
