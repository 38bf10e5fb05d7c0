/*-------------------------------------------------------------------------
 *
 * test_what_if.c
 *		The what-if table (src/common/what_if.c): for candidate
 *		max_wal_size values, what each would do under the load measured.
 *
 * A larger size never costs more WAL nor more checkpoints per hour, and
 * saves WAL only through full-page images, which saturate at the working
 * set.  Checkpoints are forced exactly when a checkpoint_timeout's WAL
 * passes PostgreSQL's trigger, and a forced cycle lasts as long as the load
 * takes to write the trigger's WAL.  The worst crash recovery grows with
 * the size until the load's own cycle fits, then stays.  A size above the
 * cap, below max_wal_size's minimum or whose pg_wal would not fit its
 * volume is not allowed, and says why.  The candidates are the running
 * size, the recommendation, a ladder around it in whole segments and the
 * caller's sizes, each once, by size.  Bad input gives a table of numbers.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>

#include "unit.h"

#include "size_units.h"
#include "what_if.h"

#define MB ((double) BYTES_PER_MB)
#define SEGMENT_BYTES ((int64_t) 16 * 1024 * 1024)

/* relative comparison of doubles */
#define CHECK_NEAR(actual, expected, rel) \
	CHECK(fabs((actual) - (expected)) <= (rel) * fabs(expected) + 1e-9)

static WalsizerWhatIf table;

/*
 * A load whose images matter: 1 MB/s of records, 200 MB of full-page
 * images in a measured cycle of 60 s, over a working set of 2 GB.  A
 * checkpoint_timeout of 300 s writes 300 MB of records and
 * 2048 x (1 - (1 - 200/2048)^5) = 822.9 MB of images: 1122.9 MB, which
 * fits the trigger of 2560 MB (160 segments / 1.9 = 84 segments, 1344 MB)
 * but not the 528 MB of 1024 MB.
 */
static WalsizerWhatIfInput
standard_input(void)
{
	WalsizerWhatIfInput in;

	memset(&in, 0, sizeof(in));
	in.load.record_bytes_s = 1 * MB;
	in.load.fpi_bytes_per_cycle = 200 * MB;
	in.load.cycle_s = 60;
	in.load.working_set_bytes = 2048 * MB;
	in.segment_bytes = SEGMENT_BYTES;
	in.checkpoint_timeout_s = 300;
	in.completion_target = 0.9;
	in.replay_bytes_per_s = 20 * MB;
	in.replay_rate_source = "assumed";
	in.cap_mb = 4096;
	in.cap_source = WALSIZER_CAP_SETTING;
	in.current_mb = 1024;
	in.recommended_mb = 2560;
	return in;
}

/* The table's one row for size_mb alone. */
static WalsizerWhatIfRow
row_at(WalsizerWhatIfInput in, int64_t size_mb)
{
	WalsizerWhatIfRow none;

	in.current_mb = 0;
	in.recommended_mb = 0;
	in.asked_mb = &size_mb;
	in.asked_count = 1;
	walsizer_what_if(&in, &table);
	if (table.count == 1)
		return table.rows[0];
	memset(&none, 0, sizeof(none));
	CHECK_EQ(table.count, 1);
	return none;
}

static const WalsizerWhatIfRow *
find_row(int64_t size_mb)
{
	for (int i = 0; i < table.count; i++)
		if (table.rows[i].size_mb == size_mb)
			return &table.rows[i];
	return NULL;
}

/* --- the load's cost at each size ---------------------------------------- */

static void
a_larger_size_never_costs_more_wal_nor_checkpoints(void)
{
	WalsizerWhatIfInput in = standard_input();
	WalsizerWhatIfRow prev = row_at(in, 32);
	WalsizerWhatIfRow first = prev;
	WalsizerWhatIfRow last = prev;

	for (int64_t size = 48; size <= 16384; size += 16)
	{
		WalsizerWhatIfRow row = row_at(in, size);

		CHECK(row.wal_mb_per_hour <= prev.wal_mb_per_hour);
		CHECK(row.checkpoints_per_hour <= prev.checkpoints_per_hour);
		CHECK(row.forced_per_hour <= prev.forced_per_hour);
		prev = row;
		last = row;
	}
	/*
	 * and the images make the difference: at 32 MB a checkpoint every few
	 * seconds logs images at 4.5 MB/s, the timed cycle at 3.7 MB/s
	 */
	CHECK(first.wal_mb_per_hour > 1.15 * last.wal_mb_per_hour);
	CHECK(first.checkpoints_per_hour > 10 * last.checkpoints_per_hour);
	/* a size the timed cycle fits: 12 timed cycles of 1122.9 MB an hour */
	CHECK_NEAR(last.checkpoints_per_hour, 12.0, 1e-12);
	CHECK_NEAR(last.wal_mb_per_hour,
			   12 * walsizer_load_cycle_bytes(&in.load, 300) / MB, 1e-12);
	CHECK_NEAR(walsizer_load_cycle_bytes(&in.load, 300) / MB,
			   300 + 2048 * (1 - pow(1 - 200.0 / 2048, 5)), 1e-12);
}

/*
 * A share of the working set far below one (26 kB of images a cycle over
 * 32 PB, the fuzzer's): 1 - (1 - f)^n written out lost its digits, and
 * the timed cycle seemed to cost more WAL an hour than a forced one.
 */
static void
a_tiny_share_of_a_huge_working_set_keeps_its_digits(void)
{
	WalsizerWhatIfInput in = standard_input();
	WalsizerWhatIfRow small;
	WalsizerWhatIfRow large;

	in.load.record_bytes_s = 5368709.12;
	in.load.fpi_bytes_per_cycle = 25974;
	in.load.cycle_s = 122.88;
	in.load.working_set_bytes = 3.16323e16;
	in.checkpoint_timeout_s = 327.72;
	in.completion_target = 1.17;
	small = row_at(in, 32);
	large = row_at(in, 250000);
	CHECK(small.forced_per_hour > 0);
	CHECK(large.forced_per_hour == 0);
	CHECK(large.wal_mb_per_hour <= small.wal_mb_per_hour);
	/* 25974 B per 122.88 s, to many digits: the images grow in proportion */
	in.load.record_bytes_s = 0;
	CHECK_NEAR(walsizer_load_cycle_bytes(&in.load, 327.72),
			   25974 * 327.72 / 122.88, 1e-9);
}

static void
checkpoints_are_forced_exactly_when_the_timed_cycle_does_not_fit(void)
{
	WalsizerWhatIfInput in = standard_input();
	double		timed = walsizer_load_cycle_bytes(&in.load, 300);
	int			forced = 0;
	int			fits = 0;

	for (int64_t size = 32; size <= 8192; size += 32)
	{
		WalsizerWhatIfRow row = row_at(in, size);
		double		trigger = (double) walsizer_trigger_bytes(size, SEGMENT_BYTES, 0.9);

		CHECK_NEAR(table.timed_cycle_bytes, timed, 1e-12);
		if (timed <= trigger)
		{
			fits++;
			CHECK(row.forced_per_hour == 0);
			CHECK(row.cycle_s == 300);
		}
		else
		{
			forced++;
			/* every checkpoint forced, each when the trigger's WAL is written */
			CHECK(row.forced_per_hour > 0);
			CHECK(row.forced_per_hour == row.checkpoints_per_hour);
			CHECK(row.cycle_s < 300);
			CHECK_NEAR(walsizer_load_cycle_bytes(&in.load, row.cycle_s), trigger, 1e-9);
			CHECK_NEAR(row.checkpoints_per_hour, 3600 / row.cycle_s, 1e-12);
			CHECK_NEAR(row.wal_mb_per_hour, trigger / MB * 3600 / row.cycle_s, 1e-9);
		}
	}
	CHECK(forced > 10);
	CHECK(fits > 10);
	/* the boundary by hand: 2176 MB is 136 segments, 71 (1136 MB) trigger */
	CHECK(row_at(in, 2176).forced_per_hour == 0);
	CHECK(row_at(in, 2144).forced_per_hour > 0);
}

static void
images_saturate_at_the_working_set(void)
{
	WalsizerWhatIfInput in = standard_input();
	WalsizerWhatIfRow row;

	in.load.record_bytes_s = 0;
	/* a cycle long enough to touch every page logs the set once, no more */
	CHECK_NEAR(walsizer_load_cycle_bytes(&in.load, 1e6), 2048 * MB, 1e-12);
	CHECK(walsizer_load_cycle_bytes(&in.load, 1e6) <= 2048 * MB);
	/* a measured cycle: the images measured */
	CHECK_NEAR(walsizer_load_cycle_bytes(&in.load, 60), 200 * MB, 1e-12);
	/* a checkpoint_timeout of a day: at most the set per cycle */
	in.checkpoint_timeout_s = 86400;
	row = row_at(in, 65536);
	CHECK_NEAR(row.wal_mb_per_hour, 2048.0 / 24, 1e-9);
	/* without a working set, the images grow with the cycle: no saving */
	in = standard_input();
	in.load.record_bytes_s = 0;
	in.load.working_set_bytes = 0;
	CHECK_NEAR(row_at(in, 256).wal_mb_per_hour, 200.0 * 60, 1e-9);
	CHECK_NEAR(row_at(in, 65536).wal_mb_per_hour, 200.0 * 60, 1e-9);
	CHECK(!table.working_set_known);
	CHECK_STR_CONTAINS(table.basis, "working set unknown");
}

/*
 * The working set the images of a cycle show, from the images up to a
 * point in it and over all of it.  Images of a model working set of
 * 2048 MB, with u = 1.5 (the cycle leaves e^-1.5 of it unlogged): up to
 * the middle W (1 - e^-0.75), over the cycle W (1 - e^-1.5); the estimate
 * gives W back, from a point at 40 % too.  A steady image rate (the
 * time's share) or one that slowed less than the sampling could show is
 * no working set; a cycle whose first part logged all its images has one
 * of what it logged.
 */
static void
the_working_set_is_what_the_images_slowing_shows(void)
{
	double		w = 2048 * MB;
	double		whole = -w * expm1(-1.5);

	CHECK_NEAR(walsizer_working_set_from_images(30, -w * expm1(-0.75), 60, whole),
			   w, 1e-6);
	CHECK_NEAR(walsizer_working_set_from_images(24, -w * expm1(-0.6), 60, whole),
			   w, 1e-6);
	/* a set four times as large, touched as fast: u = 0.375 */
	CHECK_NEAR(walsizer_working_set_from_images(30, -4 * w * expm1(-0.1875), 60,
												-4 * w * expm1(-0.375)),
			   4 * w, 1e-6);
	/* steady images: no slowing, no set */
	CHECK_CMP(walsizer_working_set_from_images(30, 100 * MB, 60, 200 * MB), ==, 0);
	/* a slowing within the sampling's noise: 52 % of them in half the time */
	CHECK_CMP(walsizer_working_set_from_images(30, 104 * MB, 60, 200 * MB), ==, 0);
	/* just past it: 54 % */
	CHECK(walsizer_working_set_from_images(30, 108 * MB, 60, 200 * MB) > 200 * MB);
	/* every image in the first half: the set is what was logged */
	CHECK_NEAR(walsizer_working_set_from_images(30, 200 * MB, 60, 200 * MB),
			   200 * MB, 1e-12);
	/* a point near either end of the cycle says too little */
	CHECK_CMP(walsizer_working_set_from_images(6, 150 * MB, 60, 200 * MB), ==, 0);
	CHECK_CMP(walsizer_working_set_from_images(54, 199 * MB, 60, 200 * MB), ==, 0);
	CHECK(walsizer_working_set_from_images(13, 100 * MB, 60, 200 * MB) > 0);
	CHECK(walsizer_working_set_from_images(47, 199 * MB, 60, 200 * MB) > 0);
	/* no images, no cycle, or figures that are not numbers: none */
	CHECK_CMP(walsizer_working_set_from_images(30, 0, 60, 0), ==, 0);
	CHECK_CMP(walsizer_working_set_from_images(0, 0, 0, 200 * MB), ==, 0);
	CHECK_CMP(walsizer_working_set_from_images(30, -1, 60, 200 * MB), ==, 0);
	CHECK_CMP(walsizer_working_set_from_images(NAN, 150 * MB, 60, 200 * MB), ==, 0);
	CHECK_CMP(walsizer_working_set_from_images(30, 150 * MB, INFINITY, 200 * MB), ==, 0);
	CHECK_CMP(walsizer_working_set_from_images(30, NAN, 60, 200 * MB), ==, 0);
	CHECK_CMP(walsizer_working_set_from_images(30, 150 * MB, 60, NAN), ==, 0);
}

/*
 * With the set the images show, a table says what a longer cycle saves:
 * a 60 s cycle whose images fell as over 2048 MB, at a 300 s timeout,
 * writes less WAL per hour at a size that holds the whole timeout.
 */
static void
a_set_from_the_images_makes_a_larger_size_save_wal(void)
{
	WalsizerWhatIfInput in = standard_input();
	double		w = 2048 * MB;

	in.load.fpi_bytes_per_cycle = -w * expm1(-1.5);
	in.load.working_set_bytes =
		walsizer_working_set_from_images(30, -w * expm1(-0.75), 60,
										 in.load.fpi_bytes_per_cycle);
	CHECK(row_at(in, 8192).wal_mb_per_hour <
		  0.75 * row_at(in, 512).wal_mb_per_hour);
	CHECK(table.working_set_known);
}

static void
recovery_time_grows_with_the_size_up_to_the_loads_cycle(void)
{
	WalsizerWhatIfInput in = standard_input();
	double		timed = walsizer_load_cycle_bytes(&in.load, 300);
	double		prev = 0;

	for (int64_t size = 32; size <= 16384; size += 16)
	{
		WalsizerWhatIfRow row = row_at(in, size);
		double		trigger = (double) walsizer_trigger_bytes(size, SEGMENT_BYTES, 0.9);

		CHECK(row.recovery_known);
		CHECK(row.recovery_s >= prev);
		prev = row.recovery_s;
		/* never more than the size at the rate */
		CHECK(row.recovery_s <= (double) size / 20 + 1e-9);
		if (timed <= trigger)
			CHECK_NEAR(row.recovery_s, fmin(1.9 * timed, (double) size * MB) / (20 * MB),
					   1e-9);
		else
			CHECK_NEAR(row.recovery_s, fmin(1.9 * trigger, (double) size * MB) / (20 * MB),
					   1e-9);
	}
	/* a size the cycle fits: 1.9 x 1122.9 MB at 20 MB/s */
	CHECK_NEAR(row_at(in, 16384).recovery_s, 1.9 * timed / (20 * MB), 1e-9);
	CHECK_STR_CONTAINS(table.basis, "assumed");
	CHECK(strcmp(table.replay_rate_source, "assumed") == 0);
	/* what pg_wal keeps: that WAL in whole segments, and one being written */
	CHECK_EQ(row_at(in, 16384).peak_pg_wal_mb,
			 (int64_t) ceil(1.9 * timed / (16 * MB)) * 16 + 16);
	/* 1024 MB forces at 528 MB: 1.9 x 528 = 1003.2 MB, 63 segments and one */
	CHECK_EQ(row_at(in, 1024).peak_pg_wal_mb, 1024);
}

/* --- what pg_walsizer would allow ---------------------------------------- */

static void
a_size_above_the_cap_is_not_allowed_and_says_which(void)
{
	WalsizerWhatIfInput in = standard_input();
	WalsizerWhatIfRow row;

	in.cap_mb = 2048;
	in.cap_source = WALSIZER_CAP_DISK;
	row = row_at(in, 2064);
	CHECK(!row.allowed);
	CHECK_STR_CONTAINS(row.why_not, "above the cap of 2048 MB (disk)");
	row = row_at(in, 2048);
	CHECK(row.allowed);
	CHECK_EQ(row.why_not[0], '\0');
	in.cap_source = WALSIZER_CAP_SETTING;
	CHECK_STR_CONTAINS(row_at(in, 4096).why_not, "(walsizer.max)");
	in.cap_source = WALSIZER_CAP_RECOVERY_TIME;
	in.replay_rate_source = "measured";
	CHECK_STR_CONTAINS(row_at(in, 4096).why_not,
					   "(recovery_time: walsizer.max_recovery_time at the measured replay rate)");
	/* a rate whose source the caller does not name is a given one */
	in.replay_rate_source = NULL;
	CHECK_STR_CONTAINS(row_at(in, 4096).why_not, "at the given replay rate");
	CHECK_STR_CONTAINS(table.basis, "replay rate given");
	/* no cap: anything up to max_wal_size's limit */
	in.cap_mb = 0;
	CHECK(row_at(in, 1048576).allowed);
	/* max_wal_size's minimum: two segments */
	row = row_at(in, 16);
	CHECK(!row.allowed);
	CHECK_STR_CONTAINS(row.why_not, "minimum of 2 segments (32 MB)");
	CHECK(row_at(in, 32).allowed);
}

static void
a_size_whose_pg_wal_does_not_fit_its_volume_is_not_allowed(void)
{
	WalsizerWhatIfInput in = standard_input();
	WalsizerWhatIfRow row;

	/* 8192 MB keeps 1.9 x 1122.9 MB: 2144 MB of segments, and one more */
	in.cap_mb = 0;
	in.wal_room_mb = 2160;
	row = row_at(in, 8192);
	CHECK_EQ(row.peak_pg_wal_mb, 2160);
	CHECK(row.allowed);
	CHECK(table.wal_room_known);
	CHECK_EQ(table.wal_room_mb, 2160);
	in.wal_room_mb = 2159;
	row = row_at(in, 8192);
	CHECK(!row.allowed);
	CHECK_STR_CONTAINS(row.why_not, "pg_wal would hold up to 2160 MB, more than the 2159 MB its volume has room for");
	/* two reasons at once, both said */
	in.cap_mb = 4096;
	CHECK_STR_CONTAINS(row_at(in, 8192).why_not, "above the cap of 4096 MB (walsizer.max); pg_wal would hold");
	/* room unknown: not checked, and the table says so */
	in.wal_room_mb = 0;
	in.cap_mb = 0;
	CHECK(row_at(in, 8192).allowed);
	CHECK(!table.wal_room_known);
	CHECK_STR_CONTAINS(table.basis, "free space of the WAL volume unknown");
}

/* --- the candidates ------------------------------------------------------ */

static void
the_ladder_is_whole_segments_deduplicated_sorted_with_the_asked_sizes(void)
{
	WalsizerWhatIfInput in = standard_input();
	int64_t		asked[] = {4000, 8192, 0, -5, 512, 8192};
	int64_t		expected[] = {256, 512, 1000, 2000, 4000, 8192};
	unsigned	kinds[] = {
		WALSIZER_WHAT_IF_LADDER,
		WALSIZER_WHAT_IF_RUNNING | WALSIZER_WHAT_IF_LADDER | WALSIZER_WHAT_IF_ASKED,
		WALSIZER_WHAT_IF_RECOMMENDED,
		WALSIZER_WHAT_IF_LADDER,
		WALSIZER_WHAT_IF_LADDER | WALSIZER_WHAT_IF_ASKED,
		WALSIZER_WHAT_IF_ASKED,
	};
	char		text[64];

	/* 1000 / 4 = 250 and 1000 / 2 = 500 round up to whole 16 MB segments */
	in.current_mb = 512;
	in.recommended_mb = 1000;
	in.asked_mb = asked;
	in.asked_count = 6;
	walsizer_what_if(&in, &table);
	CHECK_EQ(table.count, 6);
	for (int i = 0; i < 6 && i < table.count; i++)
	{
		CHECK_EQ(table.rows[i].size_mb, expected[i]);
		CHECK_EQ(table.rows[i].kinds, kinds[i]);
	}
	walsizer_what_if_kinds_text(table.rows[1].kinds, text, sizeof(text));
	CHECK(strcmp(text, "running,ladder,asked") == 0);
	/* a ladder step never goes below two segments */
	in.recommended_mb = 64;
	in.current_mb = 0;
	in.asked_count = 0;
	walsizer_what_if(&in, &table);
	CHECK_EQ(table.count, 4);
	CHECK_EQ(table.rows[0].size_mb, 32);
	CHECK_EQ(table.rows[0].kinds, WALSIZER_WHAT_IF_LADDER);
	CHECK(find_row(64) && find_row(64)->kinds == WALSIZER_WHAT_IF_RECOMMENDED);
	CHECK(find_row(128) && find_row(256));
	/* no recommendation: the ladder is around the running size */
	in.recommended_mb = 0;
	in.current_mb = 1024;
	walsizer_what_if(&in, &table);
	CHECK_EQ(table.count, 5);
	CHECK(find_row(256) && find_row(4096));
	/* more asked sizes than the table holds: the first ones */
	{
		int64_t		many[WALSIZER_WHAT_IF_MAX_ASKED + 4];

		for (int i = 0; i < WALSIZER_WHAT_IF_MAX_ASKED + 4; i++)
			many[i] = 10000 + 16 * i;
		in.asked_mb = many;
		in.asked_count = WALSIZER_WHAT_IF_MAX_ASKED + 4;
		walsizer_what_if(&in, &table);
		CHECK_EQ(table.count, 5 + WALSIZER_WHAT_IF_MAX_ASKED);
		CHECK(find_row(10000 + 16 * (WALSIZER_WHAT_IF_MAX_ASKED - 1)) != NULL);
		CHECK(find_row(10000 + 16 * WALSIZER_WHAT_IF_MAX_ASKED) == NULL);
		for (int i = 1; i < table.count; i++)
			CHECK(table.rows[i - 1].size_mb < table.rows[i].size_mb);
	}
}

/* --- bad input ----------------------------------------------------------- */

static void
check_numbers(void)
{
	for (int i = 0; i < table.count; i++)
	{
		const WalsizerWhatIfRow *r = &table.rows[i];

		CHECK(isfinite(r->cycle_s) && r->cycle_s > 0);
		CHECK(isfinite(r->checkpoints_per_hour) && r->checkpoints_per_hour > 0);
		CHECK(isfinite(r->forced_per_hour) && r->forced_per_hour >= 0);
		CHECK(isfinite(r->wal_mb_per_hour) && r->wal_mb_per_hour >= 0);
		CHECK(isfinite(r->recovery_s) && r->recovery_s >= 0);
		CHECK(r->peak_pg_wal_mb > 0);
	}
}

static void
bad_input_gives_a_defined_table(void)
{
	WalsizerWhatIfInput in = standard_input();

	/* checkpoint_timeout 0: PostgreSQL's default, and the basis says so */
	in.checkpoint_timeout_s = 0;
	walsizer_what_if(&in, &table);
	CHECK_EQ(table.count, 6);
	check_numbers();
	CHECK_STR_CONTAINS(table.basis, "checkpoint_timeout unknown: 300 s");
	CHECK_NEAR(find_row(10240)->checkpoints_per_hour, 12.0, 1e-12);
	in.checkpoint_timeout_s = -300;
	walsizer_what_if(&in, &table);
	check_numbers();
	CHECK_NEAR(find_row(10240)->checkpoints_per_hour, 12.0, 1e-12);
	in.checkpoint_timeout_s = NAN;
	walsizer_what_if(&in, &table);
	check_numbers();
	/* a denormal: no cycle of no length, no infinitely many checkpoints */
	in.checkpoint_timeout_s = 1e-306;
	walsizer_what_if(&in, &table);
	check_numbers();
	CHECK_NEAR(find_row(10240)->checkpoints_per_hour, 12.0, 1e-12);
	/* a second is a time */
	in.checkpoint_timeout_s = 1;
	walsizer_what_if(&in, &table);
	CHECK_NEAR(find_row(10240)->checkpoints_per_hour, 3600.0, 1e-12);

	/* a load that is not numbers: none */
	in = standard_input();
	in.load.record_bytes_s = NAN;
	in.load.fpi_bytes_per_cycle = -1;
	in.load.cycle_s = INFINITY;
	in.load.working_set_bytes = NAN;
	in.completion_target = NAN;
	walsizer_what_if(&in, &table);
	CHECK_EQ(table.count, 6);
	check_numbers();
	CHECK(table.rows[0].forced_per_hour == 0);
	CHECK(table.rows[0].wal_mb_per_hour == 0);

	/* no replay rate: the recovery time is unknown, not a number made up */
	in = standard_input();
	in.replay_bytes_per_s = NAN;
	walsizer_what_if(&in, &table);
	check_numbers();
	CHECK(!table.rows[0].recovery_known);
	CHECK(table.rows[0].recovery_s == 0);
	CHECK(table.replay_rate_source == NULL);
	CHECK_STR_CONTAINS(table.basis, "no replay rate");
	/* nor a denormal one, whose recovery would take forever */
	in.replay_bytes_per_s = 4.9e-324;
	walsizer_what_if(&in, &table);
	check_numbers();
	CHECK(!table.rows[table.count - 1].recovery_known);
	in.replay_bytes_per_s = 1;
	walsizer_what_if(&in, &table);
	CHECK(table.rows[table.count - 1].recovery_known);
	CHECK(table.rows[table.count - 1].recovery_s > 0);

	/* images alone past any trigger: a checkpoint a second, not infinitely many */
	in = standard_input();
	in.load.record_bytes_s = 0;
	in.load.cycle_s = 0;
	in.load.working_set_bytes = 0;
	in.load.fpi_bytes_per_cycle = 1e6 * MB;
	walsizer_what_if(&in, &table);
	check_numbers();
	CHECK_NEAR(table.rows[0].checkpoints_per_hour, 3600.0, 1e-12);
	CHECK_NEAR(table.rows[0].forced_per_hour, 3600.0, 1e-12);

	/* absurd sizes, segments and counts */
	in = standard_input();
	in.segment_bytes = 0;
	in.current_mb = INT64_MAX;
	in.recommended_mb = INT64_MIN;
	in.asked_mb = NULL;
	in.asked_count = 1000;
	in.load.record_bytes_s = 1e300;
	walsizer_what_if(&in, &table);
	/* the running size at the limit, a quarter and a half of it */
	CHECK_EQ(table.count, 3);
	check_numbers();
	CHECK_EQ(table.rows[table.count - 1].size_mb, SIZE_LIMIT_MB);
	CHECK_EQ(table.rows[table.count - 1].kinds,
			 WALSIZER_WHAT_IF_RUNNING | WALSIZER_WHAT_IF_LADDER);
	in.asked_count = -3;
	walsizer_what_if(&in, &table);
	check_numbers();

	/* nothing to size: an empty table, still a basis */
	in = standard_input();
	in.current_mb = 0;
	in.recommended_mb = 0;
	walsizer_what_if(&in, &table);
	CHECK_EQ(table.count, 0);
	CHECK(table.basis[0] != '\0');
}

int
main(void)
{
	const char *suite = "what_if";

	RUN_TEST(suite, a_larger_size_never_costs_more_wal_nor_checkpoints);
	RUN_TEST(suite, a_tiny_share_of_a_huge_working_set_keeps_its_digits);
	RUN_TEST(suite, checkpoints_are_forced_exactly_when_the_timed_cycle_does_not_fit);
	RUN_TEST(suite, images_saturate_at_the_working_set);
	RUN_TEST(suite, the_working_set_is_what_the_images_slowing_shows);
	RUN_TEST(suite, a_set_from_the_images_makes_a_larger_size_save_wal);
	RUN_TEST(suite, recovery_time_grows_with_the_size_up_to_the_loads_cycle);
	RUN_TEST(suite, a_size_above_the_cap_is_not_allowed_and_says_which);
	RUN_TEST(suite, a_size_whose_pg_wal_does_not_fit_its_volume_is_not_allowed);
	RUN_TEST(suite, the_ladder_is_whole_segments_deduplicated_sorted_with_the_asked_sizes);
	RUN_TEST(suite, bad_input_gives_a_defined_table);
	return unit_exit_status();
}
