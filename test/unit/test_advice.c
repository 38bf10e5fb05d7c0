/*-------------------------------------------------------------------------
 *
 * test_advice.c
 *		The advisor's pipeline: from samples of a server to one
 *		recommended max_wal_size (advisor/advice.c).
 *
 * The model a predicted cycle comes from and the working set it saturates
 * at are checked against values worked out by hand.  The whole pipeline
 * is fed samples built the way PostgreSQL shows them to the advisor: the
 * insert position grows at the load's rate, a checkpoint moves the redo
 * pointer to the insert position when it starts and bumps its counter
 * when it is done, pg_stat_wal counts the same WAL bytes and the full-page
 * images (not their bytes, as before PostgreSQL 19), 8 kB each.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>

#include "unit.h"

#include "advice.h"

#define MB (1024.0 * 1024.0)
#define SEGMENT ((uint64_t) 16 * 1024 * 1024)
#define SECOND ((int64_t) 1000000)
#define BLOCK 8192

/* the pipeline's state is large (the measurement's WAL history) */
static Advisor adv;

/* --- walsizer_predicted_cycle_bytes --------------------------------------- */

#define CHECK_NEAR_BYTES(bytes, expected) \
	CHECK_CMP(llabs((long long) (bytes) - (long long) llround(expected)), <=, 1)

static void
a_cycle_without_images_is_the_records_over_the_timeout(void)
{
	/* 1 MB/s for 300 s, with or without a working set */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 0, 10, 0, 300), 300 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 0, 10, 100 * MB, 300),
			  300 * 1048576ULL);
}

static void
images_saturate_at_the_working_set(void)
{
	/* a measured cycle already logged more than the set: the set, once */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(0, 100 * MB, 10, 50 * MB, 300),
			  50 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(0, 50 * MB, 10, 50 * MB, 300),
			  50 * 1048576ULL);
	/* records come on top */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 100 * MB, 10, 50 * MB, 300),
			  350 * 1048576ULL);
	/* a long cycle over a small share comes close to the set, never past */
	CHECK_UCMP(walsizer_predicted_cycle_bytes(0, MB, 1, 50 * MB, 3600), <=,
			   50 * 1048576ULL);
	CHECK_UCMP(walsizer_predicted_cycle_bytes(0, MB, 1, 50 * MB, 3600), >=,
			   50 * 1048576ULL - 1048576ULL);
}

/*
 * W = 100 MB, 10 MB of images in a measured cycle of 10 s, a timeout of
 * 30 s: 0.9 of the set is unlogged after one cycle, 0.9^3 = 0.729 after
 * three, so 27.1 MB of images; with 2 MB/s of records, 87.1 MB.  Half a
 * cycle: 100 * (1 - sqrt(0.9)) = 5.1317 MB.
 */
static void
images_follow_the_closed_form_between(void)
{
	CHECK_NEAR_BYTES(walsizer_predicted_cycle_bytes(2 * MB, 10 * MB, 10, 100 * MB, 30),
					 87.1 * MB);
	CHECK_NEAR_BYTES(walsizer_predicted_cycle_bytes(0, 10 * MB, 10, 100 * MB, 30),
					 27.1 * MB);
	CHECK_NEAR_BYTES(walsizer_predicted_cycle_bytes(0, 10 * MB, 10, 100 * MB, 5),
					 (1 - sqrt(0.9)) * 100 * MB);
	/* one measured cycle's length: the images measured, exactly */
	CHECK_NEAR_BYTES(walsizer_predicted_cycle_bytes(0, 10 * MB, 10, 100 * MB, 10),
					 10 * MB);
}

static void
images_grow_linearly_without_a_working_set(void)
{
	/* 10 MB per 10 s cycle over 300 s: 300 MB, and 300 MB of records */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 10 * MB, 10, 0, 300),
			  600 * 1048576ULL);
	/* a working set that is not a number, or negative, is none */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 10 * MB, 10, NAN, 300),
			  600 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 10 * MB, 10, INFINITY, 300),
			  600 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 10 * MB, 10, -5 * MB, 300),
			  600 * 1048576ULL);
}

static void
bad_inputs_give_a_bounded_cycle(void)
{
	/* no timeout: no cycle */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 10 * MB, 10, 0, 0), 0);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 10 * MB, 10, 0, -300), 0);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 10 * MB, 10, 0, NAN), 0);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, 10 * MB, 10, 0, INFINITY), 0);
	/* a negative or unknown rate or image volume counts as none */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(-MB, 10 * MB, 10, 0, 300),
			  300 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(NAN, 10 * MB, 10, 0, 300),
			  300 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, -10 * MB, 10, 0, 300),
			  300 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(MB, INFINITY, 10, 0, 300),
			  300 * 1048576ULL);
	/* no measured cycle length: the images measured, not scaled */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(0, 10 * MB, 0, 0, 300), 10 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(0, 10 * MB, NAN, 0, 300), 10 * 1048576ULL);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(0, 10 * MB, -1, 100 * MB, 300),
			  10 * 1048576ULL);
	/* an absurd load is bounded, not undefined */
	CHECK_UEQ(walsizer_predicted_cycle_bytes(1e300, 0, 10, 0, 300),
			  (uint64_t) 1e18);
	CHECK_UEQ(walsizer_predicted_cycle_bytes(0, 1e300, 1e-300, 0, 300),
			  (uint64_t) 1e18);
}

/* --- advisor_working_set_add_table ---------------------------------------- */

static void
heap_pages_are_the_rows_changed_in_one_timeout(void)
{
	AdvisorWorkingSet ws = {0, 0};

	/* 100 rows over a 600 s run: 50 in a 300 s timeout */
	advisor_working_set_add_table(&ws, 1000, 0, 0, 100, 0, 600, 300);
	CHECK_EQ(ws.pages, 50);
	CHECK_EQ(ws.tables, 1);
	/* a share of a page is a page */
	advisor_working_set_add_table(&ws, 1000, 0, 0, 1, 0, 600, 300);
	CHECK_EQ(ws.pages, 51);
	CHECK_EQ(ws.tables, 2);
}

static void
heap_pages_are_bounded_by_the_table(void)
{
	AdvisorWorkingSet ws = {0, 0};

	advisor_working_set_add_table(&ws, 10, 0, 0, 100000, 0, 300, 300);
	CHECK_EQ(ws.pages, 10);
	/* rows scaled up to a longer timeout are still bounded */
	advisor_working_set_add_table(&ws, 10, 0, 0, 5, 0, 60, 3600);
	CHECK_EQ(ws.pages, 20);
	CHECK_EQ(ws.tables, 2);
}

static void
index_pages_come_only_from_new_entries(void)
{
	AdvisorWorkingSet ws = {0, 0};

	/* rows updated in place (HOT): heap pages, no index page */
	advisor_working_set_add_table(&ws, 1000, 500, 2, 30, 0, 300, 300);
	CHECK_EQ(ws.pages, 30);
	/* 30 new entries in each of 2 indexes: 60 leaf pages */
	ws.pages = 0;
	ws.tables = 0;
	advisor_working_set_add_table(&ws, 1000, 500, 2, 30, 30, 300, 300);
	CHECK_EQ(ws.pages, 90);
	/* bounded by the indexes' pages */
	ws.pages = 0;
	advisor_working_set_add_table(&ws, 1000, 40, 2, 30, 30, 300, 300);
	CHECK_EQ(ws.pages, 70);
	/* an insert-only table: its appended heap pages are new, its index
	 * leaves are not */
	ws.pages = 0;
	ws.tables = 0;
	advisor_working_set_add_table(&ws, 1000, 500, 1, 0, 25, 300, 300);
	CHECK_EQ(ws.pages, 25);
	CHECK_EQ(ws.tables, 1);
	/* entries but no index */
	ws.pages = 0;
	advisor_working_set_add_table(&ws, 1000, 0, 0, 0, 25, 300, 300);
	advisor_working_set_add_table(&ws, 1000, 500, 0, 0, 25, 300, 300);
	CHECK_EQ(ws.pages, 0);
	CHECK_EQ(ws.tables, 1);
	/* counters reset during the run can make the difference negative:
	 * that takes nothing away from the heap's pages */
	ws.pages = 0;
	advisor_working_set_add_table(&ws, 1000, 500, 2, 30, -10, 300, 300);
	CHECK_EQ(ws.pages, 30);
}

static void
a_table_that_changed_nothing_adds_nothing(void)
{
	AdvisorWorkingSet ws = {7, 1};

	advisor_working_set_add_table(&ws, 1000, 500, 2, 0, 0, 300, 300);
	CHECK_EQ(ws.pages, 7);
	CHECK_EQ(ws.tables, 1);
	/* an empty table, even with rows counted */
	advisor_working_set_add_table(&ws, 0, 0, 0, 100, 0, 300, 300);
	CHECK_EQ(ws.pages, 7);
	CHECK_EQ(ws.tables, 1);
	/* no run or no timeout to scale to */
	advisor_working_set_add_table(&ws, 1000, 500, 2, 100, 100, 0, 300);
	advisor_working_set_add_table(&ws, 1000, 500, 2, 100, 100, 300, 0);
	advisor_working_set_add_table(&ws, 1000, 500, 2, 100, 100, NAN, 300);
	CHECK_EQ(ws.pages, 7);
	CHECK_EQ(ws.tables, 1);
}

/* --- The pipeline ---------------------------------------------------------- */

/*
 * PostgreSQL as the advisor samples it, one second at a time: a load of
 * records and full-page images, checkpoints forced by WAL when segment
 * redo_segment + CheckPointSegments - 1 is full (XLogCheckpointNeeded()),
 * timed ones every checkpoint_timeout.  A checkpoint moves the redo
 * pointer when it starts; its counter shows it when it is done: a forced
 * one a second later, a timed one after completion_target of the timeout.
 */
typedef struct FakeServer
{
	WalsizerSample s;
	AdvisorServerFacts facts;
	int64_t		last_start_us;
	int64_t		requested_done_at_us[64];
	int			nrequested;
	int64_t		timed_done_at_us[64];
	int			ntimed;
	int			started_forced;
	int			started_timed;
} FakeServer;

static AdvisorServerFacts
facts_15(double timeout_s)
{
	AdvisorServerFacts f;

	memset(&f, 0, sizeof(f));
	f.major = 15;
	f.redo_known = true;
	f.segment_bytes = (int64_t) SEGMENT;
	f.block_bytes = BLOCK;
	f.checkpoint_timeout_s = timeout_s;
	f.completion_target = 0.9;
	return f;
}

/* Just after a checkpoint, at the start of segment 10. */
static void
server_start(FakeServer *srv, int64_t max_wal_size_mb, double timeout_s)
{
	memset(srv, 0, sizeof(*srv));
	srv->facts = facts_15(timeout_s);
	srv->s.at_us = 1000 * SECOND;
	srv->s.insert_lsn = 10 * SEGMENT;
	srv->s.redo_lsn = 10 * SEGMENT;
	srv->s.timed = 3;
	srv->s.requested = 5;
	srv->s.counters_reset_at = 11;
	srv->s.wal_fpi = 1000;
	srv->s.wal_stat_bytes = 123456789;
	srv->s.wal_reset_at = 12;
	srv->s.max_wal_size_mb = max_wal_size_mb;
	srv->last_start_us = srv->s.at_us;
}

/* PostgreSQL's CheckPointSegments, worked out here rather than borrowed */
static uint64_t
checkpoint_segments(const FakeServer *srv)
{
	int64_t		segments = srv->s.max_wal_size_mb / (int64_t) (SEGMENT / 1048576);
	uint64_t	n = (uint64_t) floor((double) segments /
									 (1.0 + srv->facts.completion_target));

	return n < 1 ? 1 : n;
}

static void
server_second(FakeServer *srv, double records_mb, double images_mb)
{
	int64_t		block = srv->facts.block_bytes;
	int64_t		images = (int64_t) llround(images_mb * MB / (double) block);
	uint64_t	bytes = (uint64_t) llround(records_mb * MB) +
		(uint64_t) images * (uint64_t) block;
	int			kept;

	srv->s.at_us += SECOND;
	srv->s.insert_lsn += bytes;
	srv->s.wal_stat_bytes += bytes;
	srv->s.wal_fpi += images;

	/* checkpoints done by now show in the counters */
	kept = 0;
	for (int i = 0; i < srv->nrequested; i++)
		if (srv->requested_done_at_us[i] <= srv->s.at_us)
			srv->s.requested++;
		else
			srv->requested_done_at_us[kept++] = srv->requested_done_at_us[i];
	srv->nrequested = kept;
	kept = 0;
	for (int i = 0; i < srv->ntimed; i++)
		if (srv->timed_done_at_us[i] <= srv->s.at_us)
			srv->s.timed++;
		else
			srv->timed_done_at_us[kept++] = srv->timed_done_at_us[i];
	srv->ntimed = kept;

	if (srv->s.insert_lsn / SEGMENT >=
		srv->s.redo_lsn / SEGMENT + checkpoint_segments(srv))
	{
		srv->s.redo_lsn = srv->s.insert_lsn;
		srv->last_start_us = srv->s.at_us;
		srv->requested_done_at_us[srv->nrequested++] = srv->s.at_us + SECOND;
		srv->started_forced++;
	}
	else if (srv->s.at_us - srv->last_start_us >=
			 (int64_t) (srv->facts.checkpoint_timeout_s * SECOND))
	{
		srv->s.redo_lsn = srv->s.insert_lsn;
		srv->last_start_us = srv->s.at_us;
		srv->timed_done_at_us[srv->ntimed++] = srv->s.at_us +
			(int64_t) (srv->facts.completion_target *
					   srv->facts.checkpoint_timeout_s * SECOND);
		srv->started_timed++;
	}
}

typedef struct RunResult
{
	Advice		advice;
	int			windows;
	uint64_t	window_wal_bytes;
	int64_t		window_forced;
	double		window_fpi_share[16];
} RunResult;

/* A stretch of the load: seconds of records and images, in MB/s. */
typedef struct Phase
{
	int			seconds;
	double		records_mb;
	double		images_mb;
} Phase;

static void
count_window(RunResult *r, const AdvisorWindow *window)
{
	if (r->windows < 16)
		r->window_fpi_share[r->windows] = window->fpi_share;
	r->windows++;
	r->window_wal_bytes += window->wal_bytes;
	r->window_forced += window->wal_forced;
}

/*
 * Sample srv once a second through the phases, as the advisor does:
 * start, add, end the last window, recommend.  redo_known false shows the
 * redo pointer as 0, as a server that hides it would.
 */
static void
run_phases(FakeServer *srv, const AdvisorOptions *options,
		   const Phase *phases, int nphases, const AdvisorWorkingSet *ws,
		   RunResult *r)
{
	WalsizerSample shown;
	AdvisorWindow window;

	memset(r, 0, sizeof(*r));
	shown = srv->s;
	if (!srv->facts.redo_known)
		shown.redo_lsn = 0;
	advisor_start(&adv, &srv->facts, options, &shown);
	for (int p = 0; p < nphases; p++)
		for (int i = 0; i < phases[p].seconds; i++)
		{
			server_second(srv, phases[p].records_mb, phases[p].images_mb);
			shown = srv->s;
			if (!srv->facts.redo_known)
				shown.redo_lsn = 0;
			if (advisor_add(&adv, &shown, &window))
				count_window(r, &window);
		}
	if (advisor_finish_window(&adv, &window))
		count_window(r, &window);
	advisor_recommend(&adv, ws, &r->advice);
}

static void
run_advisor(FakeServer *srv, const AdvisorOptions *options, int seconds,
			double records_mb, double images_mb,
			const AdvisorWorkingSet *ws, RunResult *r)
{
	Phase		phase = {seconds, records_mb, images_mb};

	run_phases(srv, options, &phase, 1, ws, r);
}

/*
 * 64 MB, 16 MB segments, completion_target 0.9: CheckPointSegments is
 * floor(4 / 1.9) = 2, so 4 MB/s of records and 12 MB/s of images (16 MB,
 * one segment, a second) force a checkpoint every 2 s.  Over 120 s: 60
 * start, 59 are done; 1920 MB of WAL, 3/4 of it images.  The predicted
 * cycle of 300 s: 1200 MB of records and, over a working set of 200 MB
 * (25600 pages), 200 * (1 - (1 - 24.4 / 200)^147.5) = 200 MB of images:
 * 1400 MB.  It needs 1.9 * 1.25 * 1400 = 3325 MB, 3328 in segments, whose
 * trigger (109 segments, 1744 MB) holds the cycle.
 */
static void
forced_checkpoints_at_64mb_grow_to_what_a_predicted_cycle_needs(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {25600, 3};
	RunResult r;
	const Advice *a = &r.advice;

	advisor_default_options(&options);
	server_start(&srv, 64, 300);
	run_advisor(&srv, &options, 120, 4, 12, &ws, &r);

	CHECK_EQ(srv.started_forced, 60);
	CHECK_EQ(srv.started_timed, 0);
	CHECK_EQ(r.windows, 1);
	CHECK_UEQ(r.window_wal_bytes, 1920 * 1048576ULL);
	CHECK_EQ(r.window_forced, 59);

	CHECK_EQ(a->verdict, ADVISOR_GROW);
	CHECK(strcmp(advisor_verdict_name(a->verdict), "grow") == 0);
	CHECK_EQ(a->current_mb, 64);
	CHECK_UEQ(a->wal_bytes, 1920 * 1048576ULL);
	CHECK_EQ(a->requested, 59);
	CHECK_EQ(a->wal_forced, 59);
	CHECK_EQ(a->timed, 0);
	CHECK_CMP(llround(a->seconds), ==, 120);
	CHECK_CMP(llround(a->fpi_share * 1000), ==, 750);

	CHECK(a->cycle_predicted);
	CHECK_EQ(a->working_set_pages, 25600);
	CHECK_UCMP(a->cycle_bytes, >=, 1400 * 1048576ULL - 1048576ULL);
	CHECK_UCMP(a->cycle_bytes, <=, 1400 * 1048576ULL);
	CHECK_STR_CONTAINS(a->basis, "200 MB of pages");

	CHECK_EQ(a->needed_mb, 3328);
	CHECK_EQ(a->recommended_mb, 3328);
	CHECK_CMP(a->recommended_mb, >=, a->needed_mb);
	CHECK_CMP(a->recommended_mb, >, a->current_mb);
	CHECK_EQ(a->cap_mb, 4096);
	CHECK_EQ(a->cap_source, WALSIZER_CAP_SETTING);
	CHECK_STR_CONTAINS(a->reason, "59 of 59 checkpoints");

	/* 59 forced in 120 s: 1770 an hour; none once the cycle fits */
	CHECK_CMP(llround(a->forced_per_hour_now), ==, 1770);
	CHECK(a->forced_per_hour_after == 0);
	CHECK(a->replay_rate_assumed);
	CHECK(a->replay_rate_bytes_s == ADVISOR_ASSUMED_REPLAY_RATE);
	/* 1.9 cycles of 1400 MB at 20 MB/s */
	CHECK_CMP(llround(a->estimated_recovery_s), ==, 133);
}

/*
 * The same load without table statistics, on a 60 s timeout: images grow
 * with the cycle, 12 MB/s for 60 s, plus 240 MB of records: 960 MB, which
 * needs 1.9 * 1.25 * 960 = 2280 MB, 2288 in segments.
 */
static void
without_a_working_set_images_grow_with_the_cycle(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {0, 0};
	RunResult r;
	const Advice *a = &r.advice;

	advisor_default_options(&options);
	server_start(&srv, 64, 60);
	run_advisor(&srv, &options, 120, 4, 12, &ws, &r);

	CHECK_EQ(r.windows, 2);
	CHECK_EQ(a->verdict, ADVISOR_GROW);
	CHECK(a->cycle_predicted);
	CHECK_EQ(a->working_set_pages, 0);
	CHECK_UCMP(a->cycle_bytes, >=, 960 * 1048576ULL - 1048576ULL);
	CHECK_UCMP(a->cycle_bytes, <=, 960 * 1048576ULL + 1048576ULL);
	/* the caveat is not cut off */
	CHECK_STR_CONTAINS(a->basis, "which overstates)");
	CHECK_EQ(a->needed_mb, 2288);
	CHECK_EQ(a->recommended_mb, 2288);
	CHECK(a->forced_per_hour_after == 0);
}

/*
 * A server whose checkpoints all come on time: 1.5 MB/s of records and
 * 0.5 MB/s of images, a timed checkpoint every 30 s, whole cycles of 60 MB
 * measured.  They need 1.9 * 1.25 * 60 = 142.5 MB, fitted to whole
 * segments 192 MB (at 144 to 176 MB the trigger, less a segment and a
 * half, is below 60 MB).
 */
static void
timed_cycles_on_a_large_enough_server_do_not_grow(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {0, 0};
	RunResult r;
	const Advice *a = &r.advice;

	advisor_default_options(&options);
	server_start(&srv, 256, 30);
	run_advisor(&srv, &options, 240, 1.5, 0.5, &ws, &r);

	CHECK_EQ(srv.started_forced, 0);
	CHECK_EQ(srv.started_timed, 8);
	CHECK_EQ(r.windows, 8);
	CHECK_EQ(a->requested, 0);
	CHECK_EQ(a->wal_forced, 0);
	CHECK_EQ(a->timed, 7);
	CHECK(!a->cycle_predicted);
	CHECK_UEQ(a->cycle_bytes, 60 * 1048576ULL);
	CHECK_STR_CONTAINS(a->basis, "measured");
	CHECK_EQ(a->needed_mb, 192);
	/* 256 MB is less than twice that: it stays */
	CHECK_EQ(a->verdict, ADVISOR_KEEP);
	CHECK_EQ(a->recommended_mb, 256);
	CHECK(a->forced_per_hour_now == 0);
	CHECK(a->forced_per_hour_after == 0);
}

/*
 * The same load at 1024 MB, over five times what it needs: shrink, by at
 * most half, as the extension would.
 */
static void
timed_cycles_on_a_far_too_large_server_shrink(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {0, 0};
	RunResult r;
	const Advice *a = &r.advice;

	advisor_default_options(&options);
	server_start(&srv, 1024, 30);
	run_advisor(&srv, &options, 240, 1.5, 0.5, &ws, &r);

	CHECK_EQ(a->needed_mb, 192);
	CHECK_EQ(a->verdict, ADVISOR_SHRINK);
	CHECK(strcmp(advisor_verdict_name(a->verdict), "shrink") == 0);
	CHECK_EQ(a->recommended_mb, 512);
	CHECK_CMP(a->recommended_mb, <, a->current_mb);
	CHECK_CMP(a->recommended_mb, >=, a->needed_mb);
	CHECK(a->forced_per_hour_after == 0);

	/* the same over less than one checkpoint_timeout: too short to shrink */
	server_start(&srv, 1024, 30);
	run_advisor(&srv, &options, 20, 1.5, 0.5, &ws, &r);
	CHECK_EQ(a->verdict, ADVISOR_KEEP);
	CHECK_EQ(a->recommended_mb, 1024);
	CHECK(strstr(a->reason, "too short a run to recommend less") != NULL);
}

/*
 * At 512 MB (a trigger of 16 segments, 256 MB) on a 30 s timeout: a light
 * load of 0.5 MB/s, one heavy timed cycle of 4 MB/s (120 MB), then a
 * burst of 40 MB/s for 8 s that forces a checkpoint.  The forced one makes
 * the cycle a prediction, from the run's averages (about 1.5 MB/s, 45 MB a
 * cycle); but a whole timed cycle of 120 MB was measured, and the cycle
 * the load needs is no less than that: 1.9 * 1.25 * 120 = 285 MB, 288 in
 * segments, more than half of 512 MB.  Sized from the average, the need
 * would be 160 MB, and the advice to halve the size.
 */
static void
a_predicted_cycle_is_no_less_than_a_measured_one(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {0, 0};
	RunResult r;
	const Advice *a = &r.advice;
	const Phase phases[] = {
		{300, 0.5, 0}, {30, 4, 0}, {70, 0.5, 0}, {8, 40, 0}, {12, 0.5, 0}
	};

	advisor_default_options(&options);
	server_start(&srv, 512, 30);
	run_phases(&srv, &options, phases, 5, &ws, &r);

	CHECK_EQ(srv.started_forced, 1);
	CHECK_EQ(a->wal_forced, 1);
	CHECK(!a->cycle_predicted);
	CHECK_UEQ(a->cycle_bytes, 120 * 1048576ULL);
	CHECK_STR_CONTAINS(a->basis, "wrote 120 MB, more than the 45 MB predicted");
	CHECK_EQ(a->needed_mb, 288);
	CHECK_EQ(a->verdict, ADVISOR_KEEP);
	CHECK_EQ(a->recommended_mb, 512);
}

/*
 * The first test's load on a server with 16 kB blocks: the same WAL, in
 * half as many images of twice the bytes, and a working set of 12800
 * pages of 16 kB is the same 200 MB.  The predicted cycle and what it
 * needs are the same.  (Not the growth: measure.c takes every image for
 * 8 kB, the rest of the WAL for records, and its imminent checkpoint asks
 * for more.)
 */
static void
images_and_the_working_set_are_counted_in_the_servers_blocks(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {12800, 3};
	RunResult r;
	const Advice *a = &r.advice;

	advisor_default_options(&options);
	server_start(&srv, 64, 300);
	srv.facts.block_bytes = 16384;
	run_advisor(&srv, &options, 120, 4, 12, &ws, &r);

	CHECK_CMP(llround(a->fpi_share * 1000), ==, 750);
	CHECK(a->cycle_predicted);
	CHECK_UCMP(a->cycle_bytes, >=, 1400 * 1048576ULL - 1048576ULL);
	CHECK_UCMP(a->cycle_bytes, <=, 1400 * 1048576ULL);
	CHECK_STR_CONTAINS(a->basis, "200 MB of pages");
	CHECK_EQ(a->needed_mb, 3328);
}

/*
 * A timed checkpoint, then a load that forces them: the predicted cycle's
 * length is the run over all its checkpoints, the timed one included (each
 * starts the images over), and its images and records the run's.
 */
static void
a_predicted_cycle_is_the_run_over_all_its_checkpoints(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {0, 0};
	RunResult r;
	const Advice *a = &r.advice;
	const Phase phases[] = {{31, 0.5, 0}, {29, 4, 12}};
	double		seconds;
	double		checkpoints;
	uint64_t	expected;

	advisor_default_options(&options);
	server_start(&srv, 64, 30);
	run_phases(&srv, &options, phases, 2, &ws, &r);

	/* the timed one at 30 s is done at 57 s */
	CHECK_EQ(a->timed, 1);
	CHECK_CMP(a->requested, >=, 10);
	CHECK_EQ(a->wal_forced, a->requested);
	CHECK(a->cycle_predicted);
	seconds = a->seconds;
	checkpoints = (double) (a->timed + a->requested);
	expected = walsizer_predicted_cycle_bytes((double) a->wal_bytes *
											 (1 - a->fpi_share) / seconds,
											 (double) a->wal_bytes *
											 a->fpi_share / checkpoints,
											 seconds / checkpoints, 0, 30);
	CHECK_UEQ(a->cycle_bytes, expected);
}

/*
 * --what-if: the table is built on the model the advice predicted its
 * cycle with (the same WAL per checkpoint_timeout), around the running
 * size and the recommendation, with the sizes asked for; at the running
 * size it gives back the run it was measured on (59 checkpoints forced in
 * 120 s: 1770 an hour); the advisor knows the working set, not the disk.
 */
static void
what_if_is_built_on_the_advices_own_model(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {25600, 3};
	RunResult r;
	const Advice *a = &r.advice;
	const WalsizerWhatIf *w = &a->what_if;
	const WalsizerWhatIfRow *running = NULL;
	const WalsizerWhatIfRow *recommended = NULL;
	const WalsizerWhatIfRow *asked = NULL;

	advisor_default_options(&options);
	options.what_if = true;
	options.what_if_mb[0] = 1024;
	options.what_if_count = 1;
	server_start(&srv, 64, 300);
	run_advisor(&srv, &options, 120, 4, 12, &ws, &r);

	CHECK(a->what_if_asked);
	CHECK(a->what_if_done);
	CHECK(a->cycle_predicted);
	CHECK(fabs(w->timed_cycle_bytes - (double) a->cycle_bytes) <= 1);
	for (int i = 0; i < w->count; i++)
	{
		if (w->rows[i].kinds & WALSIZER_WHAT_IF_RUNNING)
			running = &w->rows[i];
		if (w->rows[i].kinds & WALSIZER_WHAT_IF_RECOMMENDED)
			recommended = &w->rows[i];
		if (w->rows[i].kinds & WALSIZER_WHAT_IF_ASKED)
			asked = &w->rows[i];
	}
	CHECK(running && running->size_mb == 64);
	CHECK(running && fabs(running->forced_per_hour - 1770) < 0.05 * 1770);
	CHECK(recommended && recommended->size_mb == a->recommended_mb);
	CHECK(recommended && recommended->forced_per_hour == 0);
	CHECK(recommended && recommended->checkpoints_per_hour == 12);
	CHECK(recommended && fabs(recommended->recovery_s - a->estimated_recovery_s) < 0.01);
	CHECK(asked && asked->size_mb == 1024);
	CHECK(w->working_set_known);
	CHECK(!w->wal_room_known);
	CHECK_STR_CONTAINS(w->basis, "free space of the WAL volume unknown");
	CHECK(strcmp(w->replay_rate_source, "assumed") == 0);

	/* not asked for: not built */
	advisor_default_options(&options);
	server_start(&srv, 64, 300);
	run_advisor(&srv, &options, 120, 4, 12, &ws, &r);
	CHECK(!a->what_if_asked);
	CHECK(!a->what_if_done);
	CHECK_EQ(w->count, 0);
}

/* Each window's image share is its own, not the run's so far. */
static void
each_window_has_its_own_image_share(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {0, 0};
	RunResult r;
	const Phase phases[] = {{30, 2, 0}, {30, 1, 1}, {30, 0.5, 1.5}};

	advisor_default_options(&options);
	server_start(&srv, 1024, 30);
	run_phases(&srv, &options, phases, 3, &ws, &r);

	CHECK_EQ(r.windows, 3);
	CHECK_CMP(llround(r.window_fpi_share[0] * 100), ==, 0);
	CHECK_CMP(llround(r.window_fpi_share[1] * 100), ==, 50);
	CHECK_CMP(llround(r.window_fpi_share[2] * 100), ==, 75);
	/* and the run's is the whole run's: 2.0 of 6 MB/s */
	CHECK_CMP(llround(r.advice.fpi_share * 1000), ==, 417);
}

/*
 * The load of the first test with --max 256: the cap is the advice, and
 * checkpoints are still forced there, each time a cycle reaches the
 * trigger: floor(16 / 1.9) = 8 segments, 128 MB of a 1400 MB cycle.
 */
static void
a_load_above_the_cap_is_capped_at_the_cap(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {25600, 3};
	RunResult r;
	const Advice *a = &r.advice;

	advisor_default_options(&options);
	options.max_mb = 256;
	server_start(&srv, 64, 300);
	run_advisor(&srv, &options, 120, 4, 12, &ws, &r);

	CHECK_EQ(a->verdict, ADVISOR_GROW_CAPPED);
	CHECK(strcmp(advisor_verdict_name(a->verdict), "capped") == 0);
	CHECK_EQ(a->cap_mb, 256);
	CHECK_EQ(a->cap_source, WALSIZER_CAP_SETTING);
	CHECK_EQ(a->recommended_mb, 256);
	CHECK_EQ(a->needed_mb, 3328);
	/* 3600 / (300 * 128 / 1400) = 131.25 an hour */
	CHECK_CMP(llround(a->forced_per_hour_after), ==, 131);
	CHECK(a->forced_per_hour_after < a->forced_per_hour_now);
}

/* --max_recovery_time as the cap: 10 s at 20 MB/s allows 200 MB, 192. */
static void
the_recovery_time_bound_caps_the_advice(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {25600, 3};
	RunResult r;
	const Advice *a = &r.advice;

	advisor_default_options(&options);
	options.max_recovery_s = 10;
	server_start(&srv, 64, 300);
	run_advisor(&srv, &options, 120, 4, 12, &ws, &r);

	CHECK_EQ(a->verdict, ADVISOR_GROW_CAPPED);
	CHECK_EQ(a->cap_source, WALSIZER_CAP_RECOVERY_TIME);
	CHECK_EQ(a->recommended_mb, 192);
}

/*
 * Without pg_control_checkpoint() the redo pointer is inferred from the
 * counters: each checkpoint is seen a second late, at the insert position
 * of the sample before.  The moves are as far apart, so the same 59
 * checkpoints count as forced and the advice is the same.
 */
static void
an_inferred_redo_pointer_still_sees_forced_checkpoints(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {25600, 3};
	RunResult r;
	const Advice *a = &r.advice;

	advisor_default_options(&options);
	server_start(&srv, 64, 300);
	srv.facts.redo_known = false;
	run_advisor(&srv, &options, 120, 4, 12, &ws, &r);

	CHECK_EQ(a->wal_forced, 59);
	CHECK_EQ(a->verdict, ADVISOR_GROW);
	CHECK(a->cycle_predicted);
	CHECK_EQ(a->recommended_mb, 3328);
	CHECK(a->forced_per_hour_now > 0);
	CHECK(a->forced_per_hour_after == 0);
	/*
	 * the checkpoint started at the last sample is not done yet, and the
	 * one before was seen done a second after it started, at the insert
	 * position of the sample before: 2 s, two segments, behind
	 */
	CHECK_UEQ(adv.latest.redo_lsn, srv.s.redo_lsn - 2 * SEGMENT);
}

/*
 * A reset of the checkpoint counters sets them back to 0: with the redo
 * pointer inferred from them, that must not look like a checkpoint.
 */
static void
an_inferred_redo_pointer_ignores_a_counter_reset(void)
{
	AdvisorServerFacts facts;
	AdvisorOptions options;
	WalsizerSample s;
	AdvisorWindow w;

	memset(&facts, 0, sizeof(facts));
	facts.major = 15;
	facts.redo_known = false;
	facts.segment_bytes = SEGMENT;
	facts.block_bytes = 8192;
	facts.checkpoint_timeout_s = 300;
	facts.completion_target = 0.9;
	advisor_default_options(&options);

	memset(&s, 0, sizeof(s));
	s.at_us = 1000000;
	s.insert_lsn = 100 * SEGMENT;
	s.timed = 7;
	s.requested = 3;
	s.counters_reset_at = 1;
	s.max_wal_size_mb = 1024;
	advisor_start(&adv, &facts, &options, &s);
	s.at_us += 1000000;
	s.insert_lsn += SEGMENT;
	advisor_add(&adv, &s, &w);
	CHECK_UEQ(adv.latest.redo_lsn, 100 * SEGMENT);
	/* the reset: counters at 0, a new reset time */
	s.at_us += 1000000;
	s.insert_lsn += SEGMENT;
	s.timed = 0;
	s.requested = 0;
	s.counters_reset_at = 2;
	advisor_add(&adv, &s, &w);
	CHECK_UEQ(adv.latest.redo_lsn, 100 * SEGMENT);
	/* a checkpoint after it moves the pointer as before */
	s.at_us += 1000000;
	s.insert_lsn += SEGMENT;
	s.timed = 1;
	advisor_add(&adv, &s, &w);
	CHECK_UEQ(adv.latest.redo_lsn, 102 * SEGMENT);
}

/* One sample, or two at the same time, measure nothing. */
static void
too_few_samples_say_unknown(void)
{
	static FakeServer srv;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {0, 0};
	AdvisorWindow window;
	Advice a;

	advisor_default_options(&options);
	server_start(&srv, 64, 300);
	advisor_start(&adv, &srv.facts, &options, &srv.s);
	advisor_recommend(&adv, &ws, &a);
	CHECK_EQ(a.verdict, ADVISOR_UNKNOWN);
	CHECK(strcmp(advisor_verdict_name(a.verdict), "unknown") == 0);
	CHECK_EQ(a.recommended_mb, 64);
	CHECK_STR_CONTAINS(a.reason, "1 samples");

	/* a sample from the same instant, or before, is ignored */
	CHECK(!advisor_add(&adv, &srv.s, &window));
	srv.s.at_us -= SECOND;
	CHECK(!advisor_add(&adv, &srv.s, &window));
	CHECK(!advisor_finish_window(&adv, &window));
	advisor_recommend(&adv, &ws, &a);
	CHECK_EQ(a.verdict, ADVISOR_UNKNOWN);
	CHECK_EQ(adv.samples, 1);
}

static void
verdict_names_are_stable(void)
{
	CHECK(strcmp(advisor_verdict_name(ADVISOR_KEEP), "keep") == 0);
	CHECK(strcmp(advisor_verdict_name(ADVISOR_GROW), "grow") == 0);
	CHECK(strcmp(advisor_verdict_name(ADVISOR_GROW_CAPPED), "capped") == 0);
	CHECK(strcmp(advisor_verdict_name(ADVISOR_SHRINK), "shrink") == 0);
	CHECK(strcmp(advisor_verdict_name(ADVISOR_UNKNOWN), "unknown") == 0);
	CHECK(strcmp(advisor_verdict_name((AdvisorVerdict) 99), "unknown") == 0);
	CHECK(strcmp(advisor_verdict_name((AdvisorVerdict) -1), "unknown") == 0);
}

int
main(void)
{
	const char *suite = "advice";

	RUN_TEST(suite, a_cycle_without_images_is_the_records_over_the_timeout);
	RUN_TEST(suite, images_saturate_at_the_working_set);
	RUN_TEST(suite, images_follow_the_closed_form_between);
	RUN_TEST(suite, images_grow_linearly_without_a_working_set);
	RUN_TEST(suite, bad_inputs_give_a_bounded_cycle);
	RUN_TEST(suite, heap_pages_are_the_rows_changed_in_one_timeout);
	RUN_TEST(suite, heap_pages_are_bounded_by_the_table);
	RUN_TEST(suite, index_pages_come_only_from_new_entries);
	RUN_TEST(suite, a_table_that_changed_nothing_adds_nothing);
	RUN_TEST(suite, forced_checkpoints_at_64mb_grow_to_what_a_predicted_cycle_needs);
	RUN_TEST(suite, without_a_working_set_images_grow_with_the_cycle);
	RUN_TEST(suite, timed_cycles_on_a_large_enough_server_do_not_grow);
	RUN_TEST(suite, timed_cycles_on_a_far_too_large_server_shrink);
	RUN_TEST(suite, a_predicted_cycle_is_no_less_than_a_measured_one);
	RUN_TEST(suite, images_and_the_working_set_are_counted_in_the_servers_blocks);
	RUN_TEST(suite, a_predicted_cycle_is_the_run_over_all_its_checkpoints);
	RUN_TEST(suite, what_if_is_built_on_the_advices_own_model);
	RUN_TEST(suite, each_window_has_its_own_image_share);
	RUN_TEST(suite, a_load_above_the_cap_is_capped_at_the_cap);
	RUN_TEST(suite, the_recovery_time_bound_caps_the_advice);
	RUN_TEST(suite, an_inferred_redo_pointer_still_sees_forced_checkpoints);
	RUN_TEST(suite, an_inferred_redo_pointer_ignores_a_counter_reset);
	RUN_TEST(suite, too_few_samples_say_unknown);
	RUN_TEST(suite, verdict_names_are_stable);
	return unit_exit_status();
}
