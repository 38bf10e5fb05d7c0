/*-------------------------------------------------------------------------
 *
 * walsizer_sim.c
 *		Replays a WAL load trace against pg_walsizer's own measurement and
 *		sizing code.
 *
 * The simulator links the very measure.c and policy.c the worker runs and
 * stands in only for the server around them: PostgreSQL's checkpoints and
 * the statistics the worker samples.  It shows, for a described load, how
 * many checkpoints WAL volume would force and how max_wal_size would move,
 * deterministically, in a few milliseconds.
 *
 * The server model, one step per walsizer.sample_interval:
 *	- WAL records are written at the trace's rate.  Full-page images come
 *	  on top, as PostgreSQL writes them: the first change of each page of a
 *	  working set after a checkpoint starts logs the whole page.  The load
 *	  touches touches_per_mb pages, spread evenly over working_set_mb, per
 *	  MB of records, so images are most of the WAL right after a
 *	  checkpoint and fade as the set has been written once.  (An older,
 *	  cruder model is kept for the first traces: WAL times fpi_factor for
 *	  fpi_seconds after each checkpoint start.)
 *	- A checkpoint moves the redo pointer to the insert position when it
 *	  starts.  WAL volume forces one, as XLogCheckpointNeeded() does, when
 *	  segment redo_segment + CheckPointSegments - 1 has been filled; a
 *	  timed one starts checkpoint_timeout after the last start; a trace may
 *	  also inject manual CHECKPOINTs.  The statistics show a checkpoint
 *	  only once it is done, report_delay seconds after it started: WAL-
 *	  forced and manual ones raise the requested counter, timed ones the
 *	  timed counter, exactly as the worker sees them.
 *	- The worker's iteration: sample, measure (measure.c), decide
 *	  (policy.c), keep the policy state as the worker keeps it, apply at
 *	  once, end the window.  What the worker infers (which checkpoints WAL
 *	  forced, the recent and peak rates, the window counts) is inferred
 *	  here by the same code from the same kind of samples.
 *
 * Trace files: one directive per line, '#' starts a comment.
 *	Settings (defaults in parentheses):
 *		start_mb (1024)  baseline_mb (start_mb)  segment_mb (16)
 *		checkpoint_timeout (300)  completion_target (0.9)  window (300)
 *		sample_interval_ms (1000)  report_delay (1)
 *		max_mb (4096)  min_mb (0)  disk_cap_mb (0)  threshold (2)
 *		ratio (0.33)  headroom (0.25)  shrink_after (12)  cooldown (1)
 *		working_set_mb (0)  touches_per_mb (0)  fpi_bytes (8192)
 *		fpi_bytes_counted (0: images counted, their bytes not, as before 19)
 *		fpi_factor (1)  fpi_seconds (0)  duration (sum of the phases)
 *	Load phases, played in order and repeated until duration:
 *		rate SECONDS MB_PER_S
 *		ramp SECONDS FROM_MB_PER_S TO_MB_PER_S
 *	Events:
 *		manual_checkpoint_every SECONDS
 *		reset_counters_at SECOND	(may repeat)
 *	Checks, for a trace recorded from a real server:
 *		real_final_mb MB	the size the real server ended with; the
 *							simulator fails (exit 1) unless its own final
 *							size is within REAL_TOLERANCE of it
 *
 * Usage: walsizer_sim TRACE.  Prints a summary: checkpoint counts, the
 * size changes and where max_wal_size ended.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "policy.h"
#include "size_units.h"

#define MAX_PHASES 256
#define MAX_RESETS 64
#define MAX_CHANGES 200
/* how close a replay of a recorded trace must end to the real server */
#define REAL_TOLERANCE 0.2
/* checkpoints started but not yet shown by the statistics */
#define MAX_UNREPORTED 64
#define USECS_PER_SECOND ((int64_t) 1000000)

typedef struct Phase
{
	long		seconds;
	double		from_mb_s;
	double		to_mb_s;
} Phase;

typedef struct Trace
{
	const char *name;
	WalsizerSettings settings;
	long		window_s;
	long		duration_s;
	int			sample_interval_ms;
	double		report_delay_s;
	double		fpi_factor;
	long		fpi_seconds;
	double		working_set_pages;
	double		touches_per_mb;
	double		fpi_bytes;
	bool		fpi_bytes_counted;
	int64_t		real_final_mb;	/* 0: not a recorded trace */
	long		manual_every_s;
	Phase		phases[MAX_PHASES];
	int			nphases;
	long		resets_at[MAX_RESETS];
	int			nresets;
} Trace;

typedef struct Change
{
	long		at_s;
	WalsizerAction action;
	int64_t		old_mb;
	int64_t		new_mb;
} Change;

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "walsizer_sim: %s: %s\n", what, detail);
	exit(2);
}

static void
parse_trace(const char *path, Trace *trace)
{
	FILE	   *file = fopen(path, "r");
	char		line[512];
	bool		baseline_given = false;
	WalsizerSettings *s = &trace->settings;

	if (file == NULL)
		die("cannot open trace", path);
	memset(trace, 0, sizeof(*trace));
	s->current_mb = 1024;
	s->segment_bytes = 16 * 1024 * 1024;
	s->checkpoint_timeout_s = 300;
	s->completion_target = 0.9;
	s->threshold = 2;
	s->ratio = 0.33;
	s->headroom = 0.25;
	s->max_mb = 4096;
	s->shrink_after = 12;
	s->cooldown = 1;
	trace->window_s = 300;
	trace->sample_interval_ms = 1000;
	trace->report_delay_s = 1;
	trace->fpi_factor = 1;
	trace->fpi_bytes = 8192;

	while (fgets(line, sizeof(line), file))
	{
		char		key[64];
		double		a = 0,
					b = 0,
					c = 0;
		char	   *comment = strchr(line, '#');
		int			n;

		if (comment)
			*comment = '\0';
		n = sscanf(line, "%63s %lf %lf %lf", key, &a, &b, &c);
		if (n <= 0)
			continue;
		if (n < 2)
			die("directive without a value", line);
		if (strcmp(key, "start_mb") == 0)
			s->current_mb = (int64_t) a;
		else if (strcmp(key, "baseline_mb") == 0)
		{
			s->baseline_mb = (int64_t) a;
			baseline_given = true;
		}
		else if (strcmp(key, "segment_mb") == 0)
			s->segment_bytes = (int64_t) a * 1024 * 1024;
		else if (strcmp(key, "checkpoint_timeout") == 0)
			s->checkpoint_timeout_s = a;
		else if (strcmp(key, "completion_target") == 0)
			s->completion_target = a;
		else if (strcmp(key, "window") == 0)
			trace->window_s = (long) a;
		else if (strcmp(key, "sample_interval_ms") == 0)
			trace->sample_interval_ms = (int) a;
		else if (strcmp(key, "report_delay") == 0)
			trace->report_delay_s = a;
		else if (strcmp(key, "max_mb") == 0)
			s->max_mb = (int64_t) a;
		else if (strcmp(key, "min_mb") == 0)
			s->min_mb = (int64_t) a;
		else if (strcmp(key, "disk_cap_mb") == 0)
			s->disk_cap_mb = (int64_t) a;
		else if (strcmp(key, "threshold") == 0)
			s->threshold = (int) a;
		else if (strcmp(key, "ratio") == 0)
			s->ratio = a;
		else if (strcmp(key, "headroom") == 0)
			s->headroom = a;
		else if (strcmp(key, "shrink_after") == 0)
			s->shrink_after = (int) a;
		else if (strcmp(key, "cooldown") == 0)
			s->cooldown = (int) a;
		else if (strcmp(key, "working_set_mb") == 0)
			trace->working_set_pages = a * BYTES_PER_MB / 8192;
		else if (strcmp(key, "touches_per_mb") == 0)
			trace->touches_per_mb = a;
		else if (strcmp(key, "fpi_bytes") == 0)
			trace->fpi_bytes = a;
		else if (strcmp(key, "real_final_mb") == 0)
			trace->real_final_mb = (int64_t) a;
		else if (strcmp(key, "fpi_bytes_counted") == 0)
			trace->fpi_bytes_counted = a != 0;
		else if (strcmp(key, "fpi_factor") == 0)
			trace->fpi_factor = a;
		else if (strcmp(key, "fpi_seconds") == 0)
			trace->fpi_seconds = (long) a;
		else if (strcmp(key, "duration") == 0)
			trace->duration_s = (long) a;
		else if (strcmp(key, "manual_checkpoint_every") == 0)
			trace->manual_every_s = (long) a;
		else if (strcmp(key, "reset_counters_at") == 0)
		{
			if (trace->nresets == MAX_RESETS)
				die("too many resets", path);
			trace->resets_at[trace->nresets++] = (long) a;
		}
		else if (strcmp(key, "rate") == 0 || strcmp(key, "ramp") == 0)
		{
			Phase	   *phase = &trace->phases[trace->nphases];
			bool		ramp = strcmp(key, "ramp") == 0;

			if (trace->nphases == MAX_PHASES)
				die("too many phases", path);
			if (n < (ramp ? 4 : 3) || a < 1)
				die("malformed phase", line);
			phase->seconds = (long) a;
			phase->from_mb_s = b;
			phase->to_mb_s = ramp ? c : b;
			trace->nphases++;
		}
		else
			die("unknown directive", key);
	}
	fclose(file);

	if (trace->nphases == 0)
		die("no load phases", path);
	if (!baseline_given)
		s->baseline_mb = s->current_mb;
	if (trace->duration_s <= 0)
		for (int i = 0; i < trace->nphases; i++)
			trace->duration_s += trace->phases[i].seconds;
	if (trace->window_s < 1)
		die("window must be at least 1 s", path);
	if (trace->sample_interval_ms < 100 || trace->sample_interval_ms > 60000)
		die("sample_interval_ms must be between 100 and 60000", path);
	if (trace->report_delay_s < 0)
		die("report_delay must not be negative", path);
}

/* The trace's WAL rate in bytes/s during second t. */
static double
load_at(const Trace *trace, long t)
{
	long		cycle = 0;
	long		offset;

	for (int i = 0; i < trace->nphases; i++)
		cycle += trace->phases[i].seconds;
	offset = t % cycle;
	for (int i = 0; i < trace->nphases; i++)
	{
		const Phase *phase = &trace->phases[i];

		if (offset < phase->seconds)
		{
			double		progress = (double) offset / (double) phase->seconds;

			return (phase->from_mb_s +
					(phase->to_mb_s - phase->from_mb_s) * progress) * (double) BYTES_PER_MB;
		}
		offset -= phase->seconds;
	}
	return 0;
}

/* Is a statistics reset due in the step (from_us, to_us]? */
static bool
reset_due(const Trace *trace, int64_t from_us, int64_t to_us)
{
	for (int i = 0; i < trace->nresets; i++)
	{
		int64_t		at_us = trace->resets_at[i] * USECS_PER_SECOND;

		if (at_us > from_us && at_us <= to_us)
			return true;
	}
	return false;
}

typedef enum CheckpointKind
{
	CHECKPOINT_TIMED,
	CHECKPOINT_WAL,
	CHECKPOINT_MANUAL
} CheckpointKind;

/*
 * PostgreSQL as the worker sees it: WAL positions, the redo pointer and
 * the cumulative checkpoint counters, which show a checkpoint only once it
 * is done.
 */
typedef struct Server
{
	WalsizerSample stats;		/* what a sample reads */
	int64_t		last_start_us;	/* the latest checkpoint start */
	double		touched_share;	/* of the working set since that start */
	double		fpi_exact;		/* images so far, with their fractions */
	double		fpi_bytes_exact;
	struct
	{
		int64_t		done_at_us;
		CheckpointKind kind;
	}			unreported[MAX_UNREPORTED];
	int			nunreported;
	long		forced;			/* true counts, for the summary */
	long		timed;
	long		manual;
} Server;

static void
start_checkpoint(Server *server, const Trace *trace, int64_t now_us,
				 CheckpointKind kind)
{
	server->stats.redo_lsn = server->stats.insert_lsn;
	server->last_start_us = now_us;
	server->touched_share = 0;
	if (server->nunreported == MAX_UNREPORTED)
		die("too many checkpoints in flight", trace->name);
	server->unreported[server->nunreported].done_at_us = now_us +
		(int64_t) (trace->report_delay_s * USECS_PER_SECOND);
	server->unreported[server->nunreported].kind = kind;
	server->nunreported++;
	if (kind == CHECKPOINT_WAL)
		server->forced++;
	else if (kind == CHECKPOINT_TIMED)
		server->timed++;
	else
		server->manual++;
}

/* Bump the counters of checkpoints done by now_us. */
static void
report_checkpoints(Server *server, int64_t now_us)
{
	int			kept = 0;

	for (int i = 0; i < server->nunreported; i++)
	{
		if (server->unreported[i].done_at_us > now_us)
		{
			server->unreported[kept++] = server->unreported[i];
			continue;
		}
		if (server->unreported[i].kind == CHECKPOINT_TIMED)
			server->stats.timed++;
		else
			server->stats.requested++;
	}
	server->nunreported = kept;
}

/*
 * The images of a step that wrote record_bytes of records: its page
 * touches fall evenly on the working set, and each page touched for the
 * first time since the checkpoint started is logged whole.  The expected
 * share of pages touched after n touches is 1 - (1 - 1/W)^n.
 */
static void
write_full_page_images(Server *server, const Trace *trace, double record_bytes)
{
	double		touches;
	double		share;
	double		images;

	if (trace->working_set_pages < 1 || trace->touches_per_mb <= 0)
		return;
	touches = trace->touches_per_mb * record_bytes / (double) BYTES_PER_MB;
	share = 1 - (1 - server->touched_share) *
		exp(-touches / trace->working_set_pages);
	images = (share - server->touched_share) * trace->working_set_pages;
	server->touched_share = share;
	server->fpi_exact += images;
	server->fpi_bytes_exact += images * trace->fpi_bytes;
	server->stats.insert_lsn += (uint64_t) llround(images * trace->fpi_bytes);
	server->stats.wal_fpi = (int64_t) server->fpi_exact;
	if (trace->fpi_bytes_counted)
	{
		server->stats.wal_fpi_bytes = (uint64_t) server->fpi_bytes_exact;
		server->stats.fpi_bytes_counted = true;
	}
}

/*
 * One step of the server: write the WAL of (now_us - step_us, now_us],
 * then start whatever checkpoint is due, as the checkpointer would.
 */
static void
server_step(Server *server, const Trace *trace, const WalsizerSettings *s,
			int64_t now_us, int64_t step_us)
{
	double		second = (double) (now_us - step_us) / USECS_PER_SECOND;
	double		rate = load_at(trace, (long) floor(second));
	uint64_t	segment_bytes = (uint64_t) s->segment_bytes;
	int64_t		checkpoint_segments;

	if (now_us - server->last_start_us <=
		(int64_t) trace->fpi_seconds * USECS_PER_SECOND)
		rate *= trace->fpi_factor;
	server->stats.insert_lsn += (uint64_t) llround(rate * step_us / USECS_PER_SECOND);
	write_full_page_images(server, trace, rate * step_us / USECS_PER_SECOND);

	/* XLogCheckpointNeeded(): segment redo + CheckPointSegments - 1 full */
	checkpoint_segments = walsizer_checkpoint_segments(s->current_mb,
													   s->segment_bytes,
													   s->completion_target);
	if (server->stats.insert_lsn / segment_bytes >=
		server->stats.redo_lsn / segment_bytes + (uint64_t) checkpoint_segments)
		start_checkpoint(server, trace, now_us, CHECKPOINT_WAL);
	else if (now_us - server->last_start_us >=
			 (int64_t) (s->checkpoint_timeout_s * USECS_PER_SECOND))
		start_checkpoint(server, trace, now_us, CHECKPOINT_TIMED);
	if (trace->manual_every_s > 0 &&
		now_us / (trace->manual_every_s * USECS_PER_SECOND) !=
		(now_us - step_us) / (trace->manual_every_s * USECS_PER_SECOND))
		start_checkpoint(server, trace, now_us, CHECKPOINT_MANUAL);

	report_checkpoints(server, now_us);
	if (reset_due(trace, now_us - step_us, now_us))
	{
		server->stats.timed = 0;
		server->stats.requested = 0;
		server->stats.counters_reset_at = now_us;
	}
	/* the simulated backends flush their statistics at once */
	server->stats.wal_stat_bytes = server->stats.insert_lsn;
	server->stats.at_us = now_us;
	server->stats.max_wal_size_mb = s->current_mb;
}

int
main(int argc, char **argv)
{
	static Trace trace;
	static Server server;
	static WalsizerMeasure measure;
	WalsizerSettings *s = &trace.settings;
	WalsizerMeasureSettings set;
	WalsizerPolicyState state;
	int64_t		step_us;
	int64_t		duration_us;
	bool		size_is_ours = false;
	long		forced_before_first_change = 0;
	long		capped_reports = 0;
	int64_t		start_mb;
	int64_t		largest_mb;
	int64_t		final_need_mb = 0;
	Change		changes[MAX_CHANGES];
	int			nchanges = 0;
	long		changes_total = 0;
	const char *name;

	if (argc != 2)
	{
		fprintf(stderr, "usage: walsizer_sim TRACE\n");
		return 2;
	}
	parse_trace(argv[1], &trace);
	name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	trace.name = name;

	set.segment_bytes = s->segment_bytes;
	set.checkpoint_timeout_s = s->checkpoint_timeout_s;
	set.completion_target = s->completion_target;
	set.window_s = (double) trace.window_s;
	set.sample_interval_ms = trace.sample_interval_ms;
	s->sample_interval_s = trace.sample_interval_ms / 1000.0;
	step_us = (int64_t) trace.sample_interval_ms * 1000;
	duration_us = (int64_t) trace.duration_s * USECS_PER_SECOND;

	/* the worker starts with the server, just after a checkpoint */
	server.stats.insert_lsn = server.stats.redo_lsn = (uint64_t) s->segment_bytes;
	server.stats.max_wal_size_mb = s->current_mb;
	walsizer_measure_start(&measure, &server.stats, &set);
	walsizer_policy_init_state(&state);
	start_mb = s->current_mb;
	largest_mb = s->current_mb;

	for (int64_t now_us = step_us; now_us <= duration_us; now_us += step_us)
	{
		bool		window_end;
		WalsizerMeasurements m;
		WalsizerDecision d;

		server_step(&server, &trace, s, now_us, step_us);

		/* the worker's iteration, as wsw_iteration() runs it */
		walsizer_measure_add(&measure, &server.stats, &set);
		window_end = walsizer_measure_window_due(&measure);
		walsizer_measure_get(&measure, window_end, size_is_ours, &set, &m);
		walsizer_decide(s, &m, &state, &d);
		if (window_end)
			final_need_mb = d.needed_mb;
		if (walsizer_decision_keeps_state(&m, &d))
			state = d.state;
		if (d.action == WALSIZER_ACTION_CAPPED && d.new_mb == d.old_mb)
			capped_reports++;
		if (d.new_mb != d.old_mb)
		{
			if (nchanges < MAX_CHANGES)
			{
				changes[nchanges].at_s = (long) (now_us / USECS_PER_SECOND);
				changes[nchanges].action = d.action;
				changes[nchanges].old_mb = d.old_mb;
				changes[nchanges].new_mb = d.new_mb;
				nchanges++;
			}
			if (changes_total == 0)
				forced_before_first_change = server.forced;
			changes_total++;
			/* applied at once; the worker measures afresh at a new size */
			s->current_mb = d.new_mb;
			walsizer_measure_size_changed(&measure);
			size_is_ours = true;
			if (s->current_mb > largest_mb)
				largest_mb = s->current_mb;
		}
		if (window_end)
			walsizer_measure_end_window(&measure, &m, &set);
	}
	if (changes_total == 0)
		forced_before_first_change = server.forced;

	printf("trace %s: %ld s, start %lld MB, cap %lld MB, segment %lld MB, checkpoint_timeout %.0f s, window %ld s, sample %d ms\n",
		   name, trace.duration_s, (long long) start_mb,
		   (long long) s->max_mb, (long long) (s->segment_bytes / BYTES_PER_MB),
		   s->checkpoint_timeout_s, trace.window_s, trace.sample_interval_ms);
	printf("wal written: %.0f MB\n",
		   (double) (server.stats.insert_lsn - (uint64_t) s->segment_bytes) /
		   (double) BYTES_PER_MB);
	printf("checkpoints: %ld forced by WAL (%ld after the first change), %ld timed, %ld manual\n",
		   server.forced, server.forced - forced_before_first_change,
		   server.timed, server.manual);
	printf("size changes: %ld; final %lld MB; largest %lld MB; cap reported without change %ld times\n",
		   changes_total, (long long) s->current_mb, (long long) largest_mb,
		   capped_reports);
	printf("need at the last window end: %lld MB (whole checkpoint_timeouts, with headroom); final size %.2fx that\n",
		   (long long) final_need_mb,
		   final_need_mb > 0 ? (double) s->current_mb / (double) final_need_mb : 0.0);
	for (int i = 0; i < nchanges; i++)
		printf("  t=%lds %s %lld->%lld MB\n", changes[i].at_s,
			   walsizer_action_name(changes[i].action),
			   (long long) changes[i].old_mb, (long long) changes[i].new_mb);
	if (changes_total > nchanges)
		printf("  ... %ld more\n", changes_total - nchanges);
	if (trace.real_final_mb > 0)
	{
		double		ratio = (double) s->current_mb / (double) trace.real_final_mb;
		bool		close = fabs(ratio - 1.0) <= REAL_TOLERANCE;

		printf("real server: final %lld MB; simulated / real = %.2f, %s\n",
			   (long long) trace.real_final_mb, ratio,
			   close ? "within 20 %" : "OFF BY MORE THAN 20 %");
		return close ? 0 : 1;
	}
	return 0;
}
