/*-------------------------------------------------------------------------
 *
 * test_policy_formula.c
 *		The arithmetic under the policy, and its behaviour at the edges.
 *
 * walsizer_checkpoint_segments() must agree with PostgreSQL's
 * CalculateCheckpointSegments(), which converts max_wal_size to whole
 * segments (integer division) before dividing by 1 + completion target,
 * and walsizer_trigger_bytes() must be where PostgreSQL forces a
 * checkpoint: CheckPointSegments segments after the start of the redo
 * pointer's segment, neither a segment early nor late.  Whatever the
 * inputs, even ones no server would hand over, the policy must neither
 * overflow nor return a size max_wal_size could not take.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "unit.h"
#include "policy_fixtures.h"

/* CheckPointSegments as PostgreSQL computes it. */
static int64_t
postgres_checkpoint_segments(int64_t max_wal_size_mb, int64_t segment_mb,
							 double completion_target)
{
	int64_t		whole_segments = max_wal_size_mb / segment_mb;
	int64_t		segments = (int64_t) ((double) whole_segments /
									  (1.0 + completion_target));

	return segments < 1 ? 1 : segments;
}

typedef struct SegmentCase
{
	int64_t		max_wal_size_mb;
	int64_t		segment_mb;
	double		completion_target;
	int64_t		expected;
} SegmentCase;

static const SegmentCase segment_cases[] = {
	{1024, 16, 0.9, 33},
	{64, 16, 0.9, 2},
	{32, 16, 0.9, 1},
	{1024, 16, 0.5, 42},
	{1024, 16, 0.0, 64},
	{1024, 16, 1.0, 32},
	{4096, 64, 0.9, 33},
	{2, 1, 0.9, 1},
	{100, 1, 0.9, 52},
	{1000, 16, 0.9, 32},
	{1024, 1024, 0.9, 1},
	{2147483647, 1, 0.9, 1130254551},
	/* sizes that are not whole segments: PostgreSQL truncates first */
	{250, 16, 0.9, 7},
	{61, 16, 0.9, 1},
	{2147483647, 1024, 0.9, 1103763},
};

static void
checkpoint_segments_match_postgresql(void)
{
	for (size_t i = 0; i < sizeof(segment_cases) / sizeof(segment_cases[0]); i++)
	{
		const SegmentCase *c = &segment_cases[i];
		int64_t		got = walsizer_checkpoint_segments(c->max_wal_size_mb,
													   c->segment_mb * (int64_t) MB,
													   c->completion_target);

		CHECK_EQ(postgres_checkpoint_segments(c->max_wal_size_mb, c->segment_mb,
											  c->completion_target),
				 c->expected);
		if (got != c->expected)
			fprintf(stderr, "    max_wal_size %lld MB, %lld MB segments, target %.1f:\n",
					(long long) c->max_wal_size_mb, (long long) c->segment_mb,
					c->completion_target);
		CHECK_EQ(got, c->expected);
	}
}

/*
 * The trigger is CheckPointSegments whole segments, the expected column of
 * segment_cases (constants, not computed), from the start of the redo segment.
 */
static void
trigger_bytes_is_checkpoint_segments_from_the_redo_segment_start(void)
{
	for (size_t i = 0; i < sizeof(segment_cases) / sizeof(segment_cases[0]); i++)
	{
		const SegmentCase *c = &segment_cases[i];
		uint64_t	segment_bytes = (uint64_t) c->segment_mb * MB;
		uint64_t	trigger = walsizer_trigger_bytes(c->max_wal_size_mb,
													 (int64_t) segment_bytes,
													 c->completion_target);

		if (trigger != (uint64_t) c->expected * segment_bytes)
			fprintf(stderr, "    max_wal_size %lld MB, %lld MB segments, target %.1f:\n",
					(long long) c->max_wal_size_mb, (long long) c->segment_mb,
					c->completion_target);
		CHECK_UEQ(trigger, (uint64_t) c->expected * segment_bytes);
	}
}

/*
 * Where PostgreSQL requests a checkpoint, as XLogWrite() and
 * XLogCheckpointNeeded() decide it: each time the writer finishes a
 * segment, it requests one if that segment's number is at least the redo
 * pointer's segment number + CheckPointSegments - 1.  Returns the WAL
 * position (the end of that segment) for a redo pointer at redo_lsn.
 */
static uint64_t
postgres_forces_checkpoint_at(uint64_t redo_lsn, uint64_t segment_bytes,
							  int64_t checkpoint_segments)
{
	uint64_t	redo_segno = redo_lsn / segment_bytes;

	for (uint64_t finished_segno = redo_segno;; finished_segno++)
		if (finished_segno >= redo_segno + (uint64_t) (checkpoint_segments - 1))
			return (finished_segno + 1) * segment_bytes;
}

/*
 * Wherever the redo pointer sits in its segment, PostgreSQL forces the
 * checkpoint exactly trigger_bytes after the start of that segment (so
 * trigger_bytes less the redo pointer's offset after the redo pointer).
 */
static void
trigger_bytes_is_where_postgresql_forces_a_checkpoint(void)
{
	int64_t		sizes_mb[] = {32, 64, 128, 1000, 1024, 4096, 65536};
	int64_t		segments_mb[] = {1, 16, 64};
	double		targets[] = {0.0, 0.5, 0.9, 1.0};

	for (size_t i = 0; i < sizeof(sizes_mb) / sizeof(sizes_mb[0]); i++)
		for (size_t j = 0; j < sizeof(segments_mb) / sizeof(segments_mb[0]); j++)
			for (size_t k = 0; k < sizeof(targets) / sizeof(targets[0]); k++)
			{
				uint64_t	segment_bytes = (uint64_t) segments_mb[j] * MB;
				int64_t		segments = postgres_checkpoint_segments(sizes_mb[i],
																	segments_mb[j],
																	targets[k]);
				uint64_t	trigger = walsizer_trigger_bytes(sizes_mb[i],
															 (int64_t) segment_bytes,
															 targets[k]);
				uint64_t	redo_segment_start = 7 * segment_bytes;
				uint64_t	offsets[] = {0, 1, segment_bytes / 2, segment_bytes - 1};

				for (size_t n = 0; n < sizeof(offsets) / sizeof(offsets[0]); n++)
				{
					uint64_t	redo_lsn = redo_segment_start + offsets[n];
					uint64_t	forced_at = postgres_forces_checkpoint_at(redo_lsn,
																		  segment_bytes,
																		  segments);

					if (trigger != forced_at - redo_segment_start)
						fprintf(stderr, "    max_wal_size %lld MB, %lld MB segments, target %.1f, redo pointer %llu bytes into its segment:\n",
								(long long) sizes_mb[i], (long long) segments_mb[j],
								targets[k], (unsigned long long) offsets[n]);
					CHECK_UEQ(trigger, forced_at - redo_segment_start);
				}
			}
}

static void
trigger_bytes_is_one_segment_when_every_boundary_triggers(void)
{
	CHECK_UEQ(walsizer_trigger_bytes(32, 16 * MB, 0.9), 16 * MB);
	CHECK_UEQ(walsizer_trigger_bytes(2, 1 * MB, 0.9), 1 * MB);
	CHECK_UEQ(walsizer_trigger_bytes(1024, 1024 * MB, 0.9), 1024 * MB);
}

static void
needed_mb_applies_the_formula_with_headroom(void)
{
	WalsizerSettings s = typical_settings();

	CHECK_EQ(walsizer_needed_mb(1 * (double) MB, &s), 720);
	CHECK_EQ(walsizer_needed_mb(2 * (double) MB, &s), 1440);
	CHECK_EQ(walsizer_needed_mb(4 * (double) MB, &s), 2864);
	s.checkpoint_timeout_s = 30;
	s.completion_target = 0.5;
	/* 1.5 * 10 MB/s * 30 s * 1.25 = 562.5 MB, rounded up to 576 */
	CHECK_EQ(walsizer_needed_mb(10 * (double) MB, &s), 576);
}

static void
needed_mb_fits_a_cycle_in_whole_segments(void)
{
	WalsizerSettings s = typical_settings();

	s.checkpoint_timeout_s = 30;
	s.completion_target = 0.5;
	s.headroom = 0;

	/*
	 * The policy does not know where in its segment the redo pointer is, so
	 * a cycle must fit half a segment below the earliest point a checkpoint
	 * can be forced: the trigger less a segment, with the redo pointer at
	 * the end of its segment.  1.5 * 10 MB/s * 30 s = 450 MB, 464 in
	 * segments; but 464 MB (29 segments, 29 / 1.5 = 19 checkpoint
	 * segments) triggers 304 MB after the start of the redo segment, so
	 * from 288 MB after the redo pointer, and 288 - 8 is less than the
	 * 300 MB one cycle writes; so is 296 for 480 and 496 MB (20 checkpoint
	 * segments).  512 MB (21 checkpoint segments, 336 MB) leaves 312.
	 */
	CHECK_EQ(walsizer_needed_mb(10 * (double) MB, &s), 512);
	CHECK_UEQ(walsizer_trigger_bytes(512, 16 * MB, 0.5), 336 * MB);
	CHECK_UEQ(walsizer_trigger_bytes(496, 16 * MB, 0.5), 320 * MB);

	/*
	 * A small server: 1 MB/s with the default headroom and target is 72 MB
	 * by the formula, 80 in segments (5 / 1.9 = 2 checkpoint segments,
	 * 32 MB), which leaves 32 - 16 - 8 = 8 MB for a 30 MB cycle; 96 and
	 * 112 MB (3 checkpoint segments) leave 24; 128 MB (4) is the first
	 * size that holds it, with 40.
	 */
	s.headroom = 0.25;
	s.completion_target = 0.9;
	CHECK_EQ(walsizer_needed_mb(1 * (double) MB, &s), 128);
	CHECK_UEQ(walsizer_trigger_bytes(128, 16 * MB, 0.9), 64 * MB);
	CHECK_UEQ(walsizer_trigger_bytes(112, 16 * MB, 0.9), 48 * MB);

	/*
	 * With one checkpoint segment (up to 48 MB) the first segment end can
	 * force a checkpoint, so even a trickle of WAL needs two: 64 MB, which
	 * holds 8 MB a cycle.
	 */
	CHECK_EQ(walsizer_needed_mb(0.001 * (double) MB, &s), 64);
	CHECK_EQ(walsizer_needed_mb(0.2 * (double) MB, &s), 64);
	/* 0.3 MB/s: 9 MB a cycle; 96 MB (3 checkpoint segments) holds 24 */
	CHECK_EQ(walsizer_needed_mb(0.3 * (double) MB, &s), 96);
}

static void
needed_mb_is_zero_for_unknown_rates(void)
{
	WalsizerSettings s = typical_settings();

	CHECK_EQ(walsizer_needed_mb(0, &s), 0);
	CHECK_EQ(walsizer_needed_mb(-5 * (double) MB, &s), 0);
	CHECK_EQ(walsizer_needed_mb(NAN, &s), 0);
	CHECK_EQ(walsizer_needed_mb(INFINITY, &s), 0);
	CHECK_EQ(walsizer_needed_mb(-INFINITY, &s), 0);
}

static void
needed_mb_saturates_at_the_largest_max_wal_size(void)
{
	WalsizerSettings s = typical_settings();
	int64_t		needed = walsizer_needed_mb(1e300, &s);

	CHECK_CMP(needed, <=, SIZE_LIMIT_MB);
	CHECK_EQ(needed % 16, 0);
	CHECK_CMP(needed, >, SIZE_LIMIT_MB - 16);
}

static void
needed_mb_falls_back_for_nonsense_settings(void)
{
	WalsizerSettings s = typical_settings();
	int64_t		sane = walsizer_needed_mb(2 * (double) MB, &s);

	s.completion_target = NAN;
	s.headroom = -1;
	s.checkpoint_timeout_s = INFINITY;
	CHECK_EQ(walsizer_needed_mb(2 * (double) MB, &s), sane);
}

/*
 * Every combination of extreme settings and measurements: the decision is
 * well formed, and any size it sets is a whole number of segments that
 * max_wal_size accepts.
 */
static void
extreme_inputs_stay_in_range(void)
{
	int64_t		segment_mbs[] = {1, 2, 16, 64, 256, 1024};
	int64_t		sizes_mb[] = {0, 2, 1024, 2147483647, INT64_MAX, -1};
	double		rates[] = {0, 1.0, 9e6, 1e18, 1e300, INFINITY, NAN, -1};
	double		timeouts[] = {0, -5, 1, 30, 86400, INFINITY, NAN};
	long		combinations = 0;

	for (size_t a = 0; a < sizeof(segment_mbs) / sizeof(segment_mbs[0]); a++)
	for (size_t b = 0; b < sizeof(sizes_mb) / sizeof(sizes_mb[0]); b++)
	for (size_t c = 0; c < sizeof(sizes_mb) / sizeof(sizes_mb[0]); c++)
	for (size_t e = 0; e < sizeof(rates) / sizeof(rates[0]); e++)
	for (size_t f = 0; f < sizeof(timeouts) / sizeof(timeouts[0]); f++)
	for (int forced = 0; forced <= 1; forced++)
	{
		WalsizerSettings s = typical_settings();
		WalsizerMeasurements m = window_at_rate(0, 0, 3, forced ? 3 : 0);
		WalsizerPolicyState state = fresh_state();
		WalsizerDecision d;
		int64_t		seg = segment_mbs[a];

		s.segment_bytes = seg * (int64_t) MB;
		s.current_mb = sizes_mb[b];
		s.max_mb = sizes_mb[c];
		s.baseline_mb = sizes_mb[(b + c) % 6];
		s.disk_cap_mb = sizes_mb[(b + 2 * c) % 6];
		s.checkpoint_timeout_s = timeouts[f];
		s.completion_target = timeouts[(f + e) % 7];
		s.shrink_after = 1;
		m.peak_rate = rates[e];
		m.wal_bytes = UINT64_MAX;
		m.window_s = timeouts[(f + 3) % 7];
		m.recent_rate_valid = true;
		m.recent_rate = rates[(e + 1) % 8];
		m.wal_since_redo_bytes = forced ? UINT64_MAX : 0;
		m.seconds_to_timed_checkpoint = timeouts[(f + 1) % 7];

		walsizer_decide(&s, &m, &state, &d);
		combinations++;

		CHECK(memchr(d.reason, '\0', sizeof(d.reason)) != NULL);
		CHECK(d.reason[0] != '\0');
		CHECK_CMP(d.cap_mb, >=, 2 * seg);
		CHECK_CMP(d.cap_mb, <=, SIZE_LIMIT_MB);
		CHECK_CMP(d.floor_mb, >=, 2 * seg);
		CHECK_CMP(d.floor_mb, <=, d.cap_mb);
		CHECK_CMP(d.needed_mb, >=, 0);
		CHECK_CMP(d.needed_mb, <=, SIZE_LIMIT_MB);
		CHECK_CMP(d.old_mb, >=, 0);
		CHECK_CMP(d.old_mb, <=, SIZE_LIMIT_MB);
		CHECK_UCMP(d.trigger_bytes, <=, (uint64_t) SIZE_LIMIT_MB * MB);
		CHECK_CMP(d.state.windows_since_change, >=, 0);
		CHECK_CMP(d.state.windows_below_half, >=, 0);
		if (d.new_mb != d.old_mb)
		{
			CHECK(walsizer_changes_size(d.action));
			CHECK_CMP(d.new_mb, >=, 2 * seg);
			CHECK_CMP(d.new_mb, <=, SIZE_LIMIT_MB);
			CHECK_EQ(d.new_mb % seg, 0);
		}
		if (unit_checks_failed_in_test > 0)
		{
			fprintf(stderr, "    first failing combination: segment %lld MB, current %lld, max %lld, rate %g, timeout %g, forced %d\n",
					(long long) seg, (long long) s.current_mb,
					(long long) s.max_mb, rates[e], timeouts[f], forced);
			return;
		}
	}
	CHECK_CMP(combinations, >, 10000);
}

/*
 * The reason quotes the WAL per checkpoint_timeout.  With the largest
 * walsizer.max, a rate no real server reaches still makes a valid grow,
 * and the figure quoted must not wrap around into nonsense (converting an
 * out-of-range double to an integer is undefined behaviour in C).
 */
static void
grow_reason_survives_enormous_rates(void)
{
	WalsizerSettings s = typical_settings();
	WalsizerMeasurements m = window_at_rate(0, 0, 3, 3);
	WalsizerPolicyState state = fresh_state();
	WalsizerDecision d;

	s.segment_bytes = 1 * MB;
	s.max_mb = SIZE_LIMIT_MB;
	m.peak_rate = 1e30;
	d = decide(&s, &m, &state);
	CHECK_EQ(d.action, WALSIZER_ACTION_GROW);
	CHECK_EQ(d.new_mb, SIZE_LIMIT_MB);
	CHECK(strstr(d.reason, " -") == NULL);
}

static void
action_names_are_stable(void)
{
	CHECK(strcmp(walsizer_action_name(WALSIZER_ACTION_NONE), "none") == 0);
	CHECK(strcmp(walsizer_action_name(WALSIZER_ACTION_GROW), "grow") == 0);
	CHECK(strcmp(walsizer_action_name(WALSIZER_ACTION_PROTECT), "protect") == 0);
	CHECK(strcmp(walsizer_action_name(WALSIZER_ACTION_UNCONFIRMED), "unconfirmed") == 0);
	CHECK(strcmp(walsizer_action_name((WalsizerAction) 99), "unknown") == 0);
	CHECK(strcmp(walsizer_action_name((WalsizerAction) -1), "unknown") == 0);
	CHECK(walsizer_changes_size(WALSIZER_ACTION_SHRINK));
	CHECK(!walsizer_changes_size(WALSIZER_ACTION_ADVISE));
}

int
main(void)
{
	const char *suite = "policy_formula";

	RUN_TEST(suite, checkpoint_segments_match_postgresql);
	RUN_TEST(suite, trigger_bytes_is_checkpoint_segments_from_the_redo_segment_start);
	RUN_TEST(suite, trigger_bytes_is_where_postgresql_forces_a_checkpoint);
	RUN_TEST(suite, trigger_bytes_is_one_segment_when_every_boundary_triggers);
	RUN_TEST(suite, needed_mb_applies_the_formula_with_headroom);
	RUN_TEST(suite, needed_mb_fits_a_cycle_in_whole_segments);
	RUN_TEST(suite, needed_mb_is_zero_for_unknown_rates);
	RUN_TEST(suite, needed_mb_saturates_at_the_largest_max_wal_size);
	RUN_TEST(suite, needed_mb_falls_back_for_nonsense_settings);
	RUN_TEST(suite, extreme_inputs_stay_in_range);
	RUN_TEST(suite, grow_reason_survives_enormous_rates);
	RUN_TEST(suite, action_names_are_stable);
	return unit_exit_status();
}
