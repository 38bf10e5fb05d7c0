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
 *		max_recovery_time (0: no bound)  replay_rate (0): the recovery-time
 *		bound, walsizer_recovery_cap_mb() of seconds and MB/s, as the
 *		worker derives it
 *	Load phases, played in order and repeated until duration:
 *		rate SECONDS MB_PER_S
 *		ramp SECONDS FROM_MB_PER_S TO_MB_PER_S
 *	Events:
 *		manual_checkpoint_every SECONDS
 *		reset_counters_at SECOND	(may repeat)
 *	Properties the replay must satisfy (T and S in seconds):
 *		expect max_forced N [after T]
 *			at most N checkpoints forced by WAL (started after second T)
 *		expect max_changes N [after T]
 *			at most N size changes (made after second T)
 *		expect max_shrink_factor F [after T]
 *			no change (after second T) divides the size by more than F
 *		expect size_mb LO HI [from T [until U]]
 *			max_wal_size within [LO, HI] MB at every sample from second T
 *			to second U (the end), or at the last sample without "from"
 *		expect need_ratio LO HI [from T [until U]] [over S]
 *			the same for max_wal_size / the true need: the need of the
 *			worst cycle starting in the last S seconds (checkpoint_timeout),
 *			clamped into [floor, cap]
 *		expect capped_by SOURCE
 *			a decision reports a growth capped (CAPPED) by the cap from
 *			SOURCE: walsizer.max, disk or recovery_time
 *		real_final_mb MB
 *			for a trace recorded from a real server: the final size is
 *			within REAL_TOLERANCE of the size that server ended with
 *	and, for every trace, at every sample:
 *		never_below_floor	a size walsizer set is not below walsizer.min,
 *							else the DBA's own value (a disk cap may go
 *							lower: pg_wal comes first)
 *		never_above_cap		nor above walsizer.max, the disk cap and the
 *							recovery-time bound (the DBA's own value may
 *							be above them)
 *		reset_window_counts_no_forced
 *							the end of a window in which the checkpoint
 *							counters were reset grows for no checkpoint
 *							forced by WAL: it cannot count them (it still
 *							decides on the WAL and the redo pointer)
 *
 * The true need comes from the trace, not from measure.c: a cycle starting
 * at second t0 writes the load's WAL for checkpoint_timeout seconds (times
 * fpi_factor for its first fpi_seconds) plus the images of the working set
 * pages its records touch, W * (1 - exp(-touches / W)) of the W pages; it
 * needs (1 + completion_target) * (1 + headroom) times that.  The simulator
 * knows the load ahead, so the cycle starting at the current second counts.
 *
 * Recorded advisor traces: a trace whose first directive is "server" is
 * not a load to model but the samples of a real server, as
 * pg_walsizer_advisor --record writes them (advisor/sample_trace.h:
 * "server key=value...", "sample" with 12 numbers, "working_set PAGES
 * TABLES").  It is replayed through the advisor's own pipeline
 * (trace_replay(), advisor/advice.c, with the advisor's default options)
 * instead of the model: a line per window and the recommendation are
 * printed, and its properties are about the recommendation:
 *		expect recommend_mb LO HI
 *			the recommended max_wal_size is within [LO, HI] MB
 *		expect verdict NAME
 *			the verdict is NAME: keep, grow, capped, shrink or unknown
 *	No other directive or property is taken in such a trace.
 *
 * Usage: walsizer_sim [-v] TRACE.  Prints a summary on stdout: checkpoint
 * counts, the size changes and where max_wal_size ended (for a recorded
 * advisor trace, its windows and the recommendation); and on stderr a
 * line per failed property, "FAILS at t=..." (for an advisor trace,
 * "FAILS:"), with the values (with -v, for every property, "holds" and
 * how).  Exits 1 when a property fails, 2 on a bad trace.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "policy.h"
#include "sample_trace.h"
#include "size_units.h"

#define MAX_PHASES 256
#define MAX_RESETS 64
#define MAX_CHANGES 200
/* how close a replay of a recorded trace must end to the real server */
#define REAL_TOLERANCE 0.2
/* checkpoints started but not yet shown by the statistics */
#define MAX_UNREPORTED 64
#define USECS_PER_SECOND ((int64_t) 1000000)
#define MAX_EXPECTS 32
#define VERDICT_LEN 320

/* What an "expect" directive asks of the replay. */
typedef enum ExpectKind
{
	EXPECT_MAX_FORCED,			/* limits: at most limit after after_s */
	EXPECT_MAX_CHANGES,
	EXPECT_MAX_SHRINK_FACTOR,
	EXPECT_CAPPED_BY,			/* a CAPPED decision from cap_source */
	EXPECT_PEAK_RATIO,			/* the largest size after after_s over the
								 * need at the end: at most limit */
	EXPECT_NEED_RATIO,			/* ranges: within [low, high] from from_s
								 * until until_s */
	EXPECT_SIZE_MB
} ExpectKind;

#define EXPECT_IS_RANGE(kind) ((kind) >= EXPECT_NEED_RATIO)

typedef struct Expect
{
	ExpectKind	kind;
	int			line;			/* in the trace file, for the verdict */
	double		limit;			/* limits: the most allowed */
	long		after_s;		/* limits: only what happens after it */
	long		count;			/* max_forced, max_changes: so far */
	double		low;			/* ranges: the bounds */
	double		high;
	long		from_s;			/* ranges: checked from this second, -1 for
								 * the last sample only */
	long		until_s;		/* ranges: and until this one, -1 for the
								 * end */
	long		over_s;			/* need_ratio: cycles starting this far back
								 * count towards the need */
	WalsizerCapSource cap_source;	/* capped_by: the cap's source */
} Expect;

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
	double		max_recovery_s; /* walsizer.max_recovery_time, 0: none */
	double		replay_mb_s;	/* the replay rate in use */
	long		manual_every_s;
	Phase		phases[MAX_PHASES];
	int			nphases;
	long		resets_at[MAX_RESETS];
	int			nresets;
	Expect		expects[MAX_EXPECTS];
	int			nexpects;
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

/* A whole word as a number, or false. */
static bool
parse_number(const char *word, double *value)
{
	char	   *end;

	if (word == NULL)
		return false;
	*value = strtod(word, &end);
	return end != word && *end == '\0' && isfinite(*value);
}

/*
 * "expect PROPERTY NUMBER... [OPTION SECONDS]...", '#' comments already
 * cut off.  The header says which numbers and options each property takes.
 */
static void
parse_expect(Trace *trace, char *line, int lineno, const char *path)
{
	const char *separators = " \t\r\n";
	Expect	   *e = &trace->expects[trace->nexpects];
	const char *property;
	const char *option;
	double		numbers[2];

	if (trace->nexpects == MAX_EXPECTS)
		die("too many expect directives", path);
	memset(e, 0, sizeof(*e));
	e->line = lineno;
	e->from_s = -1;
	e->until_s = -1;
	strtok(line, separators);	/* "expect" */
	property = strtok(NULL, separators);
	if (property == NULL)
		die("expect without a property", path);
	if (strcmp(property, "max_forced") == 0)
		e->kind = EXPECT_MAX_FORCED;
	else if (strcmp(property, "max_changes") == 0)
		e->kind = EXPECT_MAX_CHANGES;
	else if (strcmp(property, "max_shrink_factor") == 0)
		e->kind = EXPECT_MAX_SHRINK_FACTOR;
	else if (strcmp(property, "need_ratio") == 0)
		e->kind = EXPECT_NEED_RATIO;
	else if (strcmp(property, "size_mb") == 0)
		e->kind = EXPECT_SIZE_MB;
	else if (strcmp(property, "peak_ratio") == 0)
		e->kind = EXPECT_PEAK_RATIO;
	else if (strcmp(property, "capped_by") == 0)
	{
		const char *source = strtok(NULL, separators);

		e->kind = EXPECT_CAPPED_BY;
		if (source == NULL)
			die("expect capped_by: which cap?", path);
		if (strcmp(source, "walsizer.max") == 0)
			e->cap_source = WALSIZER_CAP_SETTING;
		else if (strcmp(source, "disk") == 0)
			e->cap_source = WALSIZER_CAP_DISK;
		else if (strcmp(source, "recovery_time") == 0)
			e->cap_source = WALSIZER_CAP_RECOVERY_TIME;
		else
			die("expect capped_by: unknown cap", source);
		if (strtok(NULL, separators) != NULL)
			die("expect capped_by takes no options", path);
		trace->nexpects++;
		return;
	}
	else
		die("unknown property", property);
	for (int i = 0; i < (EXPECT_IS_RANGE(e->kind) ? 2 : 1); i++)
		if (!parse_number(strtok(NULL, separators), &numbers[i]) ||
			numbers[i] < 0)
			die("expect: a property's bounds are numbers >= 0", property);
	if (EXPECT_IS_RANGE(e->kind))
	{
		e->low = numbers[0];
		e->high = numbers[1];
		if (e->low > e->high)
			die("expect: LO above HI", property);
	}
	else
		e->limit = numbers[0];

	while ((option = strtok(NULL, separators)) != NULL)
	{
		double		seconds;
		bool		range = EXPECT_IS_RANGE(e->kind);

		if (!parse_number(strtok(NULL, separators), &seconds) || seconds < 0)
			die("expect: an option needs seconds >= 0", option);
		if (strcmp(option, "after") == 0 && !range)
			e->after_s = (long) seconds;
		else if (strcmp(option, "from") == 0 && range)
			e->from_s = (long) seconds;
		else if (strcmp(option, "until") == 0 && range)
			e->until_s = (long) seconds;
		else if (strcmp(option, "over") == 0 &&
				 (e->kind == EXPECT_NEED_RATIO || e->kind == EXPECT_PEAK_RATIO))
			e->over_s = (long) seconds;
		else
			die("expect: option not taken by this property", option);
	}
	if (e->until_s >= 0 && (e->from_s < 0 || e->until_s < e->from_s))
		die("expect: until needs an earlier from", property);
	trace->nexpects++;
}

static void
parse_trace(const char *path, Trace *trace)
{
	FILE	   *file = fopen(path, "r");
	char		line[512];
	int			lineno = 0;
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

		lineno++;
		if (comment)
			*comment = '\0';
		n = sscanf(line, "%63s %lf %lf %lf", key, &a, &b, &c);
		if (n <= 0)
			continue;
		if (strcmp(key, "expect") == 0)
		{
			parse_expect(trace, line, lineno, path);
			continue;
		}
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
		else if (strcmp(key, "max_recovery_time") == 0)
			trace->max_recovery_s = a;
		else if (strcmp(key, "replay_rate") == 0)
			trace->replay_mb_s = a;
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
	if (trace->max_recovery_s < 0 || trace->replay_mb_s < 0)
		die("max_recovery_time and replay_rate must not be negative", path);
	s->recovery_cap_mb = walsizer_recovery_cap_mb(trace->max_recovery_s,
												  trace->replay_mb_s * (double) BYTES_PER_MB);
	if (trace->duration_s <= 0)
		for (int i = 0; i < trace->nphases; i++)
			trace->duration_s += trace->phases[i].seconds;
	if (trace->window_s < 1)
		die("window must be at least 1 s", path);
	if (trace->sample_interval_ms < 100 || trace->sample_interval_ms > 60000)
		die("sample_interval_ms must be between 100 and 60000", path);
	if (trace->report_delay_s < 0)
		die("report_delay must not be negative", path);
	for (int i = 0; i < trace->nexpects; i++)
		if (trace->expects[i].over_s == 0)
			trace->expects[i].over_s = (long) s->checkpoint_timeout_s;
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

	/*
	 * XLogCheckpointNeeded(): segment redo + CheckPointSegments - 1 full,
	 * so the insert position is in segment redo + CheckPointSegments
	 */
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

/* --- Properties ------------------------------------------------------------ */

/*
 * What the replay is judged by, computed from the trace alone: the WAL a
 * checkpoint cycle starting at each second writes, and the limits every
 * size walsizer sets must keep to.
 */
typedef struct Truth
{
	double	   *cycle_bytes;	/* [t0] for t0 = 0 .. duration_s */
	long		nstarts;
	double		need_per_byte_mb;	/* need in MB per byte of a cycle */
	int64_t		floor_mb;		/* no size walsizer sets is below it */
	const char *floor_source;
	int64_t		cap_mb;			/* nor above it */
	const char *cap_source;
} Truth;

/* A property's outcome: how it held, or its first failure. */
typedef struct Verdict
{
	bool		failed;
	char		text[VERDICT_LEN];
} Verdict;

/*
 * The properties being checked during a replay: the trace's own (one
 * verdict per expect directive) and those every trace is held to.
 */
typedef struct Checks
{
	Truth		truth;
	Verdict		expected[MAX_EXPECTS];	/* per expect directive */
	double		lowest[MAX_EXPECTS];	/* ranges: the values seen */
	double		highest[MAX_EXPECTS];	/* and max_shrink_factor's,
										 * peak_ratio's */
	double		peak_mb[MAX_EXPECTS];	/* peak_ratio: the largest size */
	long		peak_at_s[MAX_EXPECTS]; /* and when it was first seen */
	Verdict		below_floor;
	Verdict		above_cap;
	Verdict		reset_window;
	Verdict		real_final;
	long		reset_windows;	/* windows with a reset, for the verdict */
	int64_t		window_start_us;	/* of the window in progress */
} Checks;

static void fail(Verdict *verdict, int64_t at_us, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* Keep the first failure of a property: later ones follow from it. */
static void
fail(Verdict *verdict, int64_t at_us, const char *fmt,...)
{
	va_list		args;
	int			used;

	if (verdict->failed)
		return;
	verdict->failed = true;
	used = snprintf(verdict->text, sizeof(verdict->text), "FAILS at t=%gs: ",
					(double) at_us / USECS_PER_SECOND);
	va_start(args, fmt);
	vsnprintf(verdict->text + used, sizeof(verdict->text) - used, fmt, args);
	va_end(args);
}

/*
 * The WAL of a checkpoint cycle starting at second t0, from the trace's
 * description: its load for checkpoint_timeout seconds (nothing past the
 * trace's end), fpi_factor times for the first fpi_seconds, plus the
 * images of the working set pages its records touch for the first time.
 */
static double
true_cycle_bytes(const Trace *trace, long t0)
{
	long		timeout_s = (long) ceil(trace->settings.checkpoint_timeout_s);
	double		bytes = 0;

	for (long k = 0; k < timeout_s && t0 + k < trace->duration_s; k++)
		bytes += load_at(trace, t0 + k) *
			(k < trace->fpi_seconds ? trace->fpi_factor : 1);
	if (trace->working_set_pages >= 1 && trace->touches_per_mb > 0)
	{
		double		touches = trace->touches_per_mb * bytes / (double) BYTES_PER_MB;

		bytes += trace->working_set_pages *
			(1 - exp(-touches / trace->working_set_pages)) * trace->fpi_bytes;
	}
	return bytes;
}

static int64_t
round_up_to(int64_t mb, int64_t unit_mb)
{
	return (mb + unit_mb - 1) / unit_mb * unit_mb;
}

/*
 * The limits as docs/sizing.md states them: the cap is the lowest of
 * walsizer.max, the disk cap and the recovery-time bound, in whole
 * segments; the floor is walsizer.min (clamped to the cap), else the DBA's
 * own value (even above walsizer.max and the recovery-time bound); both at
 * least max_wal_size's minimum of two segments.  A disk cap below the
 * floor wins: running out of pg_wal is worse than checkpoints.
 */
static void
true_limits(const WalsizerSettings *s, Truth *truth)
{
	int64_t		seg_mb = s->segment_bytes / BYTES_PER_MB < 1 ? 1 :
		s->segment_bytes / BYTES_PER_MB;
	int64_t		smallest_mb = 2 * seg_mb;
	bool		disk_capped = s->disk_cap_mb > 0 && s->disk_cap_mb < s->max_mb;
	int64_t		cap_mb = disk_capped ? s->disk_cap_mb : s->max_mb;
	bool		recovery_capped = s->recovery_cap_mb > 0 &&
		s->recovery_cap_mb < cap_mb;
	int64_t		without_recovery_mb;
	int64_t		floor_mb;

	cap_mb = cap_mb / seg_mb * seg_mb;
	if (cap_mb < smallest_mb)
		cap_mb = smallest_mb;
	without_recovery_mb = cap_mb;
	truth->cap_source = disk_capped ? "the disk cap" : "walsizer.max";
	if (recovery_capped)
	{
		cap_mb = s->recovery_cap_mb / seg_mb * seg_mb;
		if (cap_mb < smallest_mb)
			cap_mb = smallest_mb;
		truth->cap_source = "the recovery-time bound";
	}
	if (s->min_mb > 0)
	{
		floor_mb = round_up_to(s->min_mb, seg_mb);
		truth->floor_source = "walsizer.min";
		if (floor_mb > cap_mb)
			floor_mb = cap_mb;
	}
	else
	{
		floor_mb = round_up_to(s->baseline_mb, seg_mb);
		truth->floor_source = "the DBA's max_wal_size";
		if (floor_mb > cap_mb && !disk_capped)
		{
			cap_mb = floor_mb;
			truth->cap_source = "the DBA's max_wal_size, above the cap";
		}
		else if (floor_mb > cap_mb && recovery_capped)
		{
			/* the recovery-time bound keeps it, the disk does not */
			cap_mb = floor_mb < without_recovery_mb ? floor_mb : without_recovery_mb;
			truth->cap_source = floor_mb < without_recovery_mb ?
				"the DBA's max_wal_size, above the recovery-time bound" :
				"the disk cap";
		}
	}
	if (floor_mb < smallest_mb)
		floor_mb = smallest_mb;
	if (floor_mb > cap_mb)
	{
		floor_mb = cap_mb;
		truth->floor_source = "the disk cap";
	}
	truth->floor_mb = floor_mb;
	truth->cap_mb = cap_mb;
}

static void
truth_init(const Trace *trace, Truth *truth)
{
	const WalsizerSettings *s = &trace->settings;

	truth->nstarts = trace->duration_s + 1;
	truth->cycle_bytes = malloc(sizeof(double) * (size_t) truth->nstarts);
	if (truth->cycle_bytes == NULL)
		die("out of memory", trace->name);
	for (long t0 = 0; t0 < truth->nstarts; t0++)
		truth->cycle_bytes[t0] = true_cycle_bytes(trace, t0);
	truth->need_per_byte_mb = (1 + s->completion_target) * (1 + s->headroom) /
		(double) BYTES_PER_MB;
	true_limits(s, truth);
}

/*
 * What the load needs at second t: the need of the worst cycle starting
 * in [t - over_s, t], in MB, and that cycle's WAL and start.
 */
static double
true_need_mb(const Truth *truth, long t, long over_s, double *cycle_bytes,
			 long *cycle_start)
{
	long		last = t < truth->nstarts - 1 ? t : truth->nstarts - 1;
	long		first = t - over_s > 0 ? t - over_s : 0;

	*cycle_bytes = 0;
	*cycle_start = first;
	for (long t0 = first; t0 <= last; t0++)
		if (truth->cycle_bytes[t0] > *cycle_bytes)
		{
			*cycle_bytes = truth->cycle_bytes[t0];
			*cycle_start = t0;
		}
	return *cycle_bytes * truth->need_per_byte_mb;
}

static void
checks_init(Checks *c, const Trace *trace)
{
	memset(c, 0, sizeof(*c));
	truth_init(trace, &c->truth);
	for (int i = 0; i < trace->nexpects; i++)
	{
		c->lowest[i] = INFINITY;
		c->highest[i] = 0;
	}
}

/*
 * need_ratio and size_mb: checked at every sample from from_s until
 * until_s, or at the last sample only.
 */
static void
check_range(Checks *c, const Expect *e, int i, int64_t size_mb,
			int64_t now_us, bool last_sample)
{
	const Truth *truth = &c->truth;
	long		t = (long) (now_us / USECS_PER_SECOND);
	double		cycle_bytes = 0;
	long		cycle_start = 0;
	double		target_mb = 0;
	double		value = (double) size_mb;

	if (e->from_s < 0 ? !last_sample :
		t < e->from_s || (e->until_s >= 0 && t > e->until_s))
		return;
	if (e->kind == EXPECT_NEED_RATIO)
	{
		double		need_mb = true_need_mb(truth, t, e->over_s, &cycle_bytes,
										   &cycle_start);

		target_mb = need_mb < (double) truth->floor_mb ? (double) truth->floor_mb :
			need_mb > (double) truth->cap_mb ? (double) truth->cap_mb : need_mb;
		value = (double) size_mb / target_mb;
	}
	if (value < c->lowest[i])
		c->lowest[i] = value;
	if (value > c->highest[i])
		c->highest[i] = value;
	if (value >= e->low && value <= e->high)
		return;
	if (e->kind == EXPECT_NEED_RATIO)
		fail(&c->expected[i], now_us,
			 "max_wal_size %lld MB is %.2fx the true need of %.0f MB (%.0f MB of WAL in the worst cycle, starting at t=%lds; floor %lld MB, cap %lld MB), outside [%g, %g]",
			 (long long) size_mb, value, target_mb,
			 cycle_bytes / (double) BYTES_PER_MB, cycle_start,
			 (long long) truth->floor_mb, (long long) truth->cap_mb,
			 e->low, e->high);
	else
		fail(&c->expected[i], now_us,
			 "max_wal_size %lld MB is outside [%g, %g] MB",
			 (long long) size_mb, e->low, e->high);
}

/*
 * peak_ratio: the largest size after after_s, at the last sample divided
 * by the need then: the worst cycle starting in the last over_s seconds
 * (checkpoint_timeout by default), the load the size settles on.  A first
 * growth sized from a few seconds may overshoot that need only so far.
 */
static void
check_peak(Checks *c, const Expect *e, int i, int64_t size_mb,
		   int64_t now_us, bool last_sample)
{
	long		t = (long) (now_us / USECS_PER_SECOND);
	double		cycle_bytes = 0;
	long		cycle_start = 0;
	double		need_mb;
	double		ratio;

	if (t > e->after_s && (double) size_mb > c->peak_mb[i])
	{
		c->peak_mb[i] = (double) size_mb;
		c->peak_at_s[i] = t;
	}
	if (!last_sample)
		return;
	need_mb = true_need_mb(&c->truth, t, e->over_s, &cycle_bytes,
						   &cycle_start);
	if (need_mb < (double) c->truth.floor_mb)
		need_mb = (double) c->truth.floor_mb;
	if (need_mb > (double) c->truth.cap_mb)
		need_mb = (double) c->truth.cap_mb;
	ratio = c->peak_mb[i] / need_mb;
	c->highest[i] = ratio;
	if (ratio > e->limit)
		fail(&c->expected[i], now_us,
			 "the largest max_wal_size, %.0f MB at t=%lds, is %.2fx the need at the end, %.0f MB (%.0f MB of WAL in the worst cycle, starting at t=%lds), more than %g",
			 c->peak_mb[i], c->peak_at_s[i], ratio, need_mb,
			 cycle_bytes / (double) BYTES_PER_MB, cycle_start, e->limit);
}

/* max_forced and max_changes: count what happens after after_s. */
static void
check_count(Expect *e, Verdict *verdict, long happened, int64_t now_us,
			const char *what)
{
	if (happened <= 0 || now_us <= e->after_s * USECS_PER_SECOND)
		return;
	e->count += happened;
	if (e->count > e->limit)
		fail(verdict, now_us, "%ld %s after t=%lds, at most %g expected",
			 e->count, what, e->after_s, e->limit);
}

/* max_shrink_factor: no change after after_s divides the size by more. */
static void
check_shrink_factor(Checks *c, const Expect *e, int i,
					const WalsizerDecision *d, int64_t now_us)
{
	double		factor;

	if (d->new_mb >= d->old_mb || d->new_mb <= 0 ||
		now_us <= e->after_s * USECS_PER_SECOND)
		return;
	factor = (double) d->old_mb / (double) d->new_mb;
	if (factor > c->highest[i])
		c->highest[i] = factor;
	if (factor > e->limit)
		fail(&c->expected[i], now_us,
			 "%s %lld->%lld MB divides the size by %.2f, more than %g",
			 walsizer_action_name(d->action), (long long) d->old_mb,
			 (long long) d->new_mb, factor, e->limit);
}

/*
 * The properties of each decision: max_changes, max_shrink_factor, and
 * that the end of a window in which the trace reset the checkpoint
 * counters (by its own schedule, not by what measure.c noticed) grows
 * for no checkpoint forced by WAL, which it cannot count.
 */
static void
check_decision(Checks *c, Trace *trace, int64_t now_us, bool window_end,
			   const WalsizerDecision *d)
{
	for (int i = 0; i < trace->nexpects; i++)
	{
		if (trace->expects[i].kind == EXPECT_MAX_CHANGES)
			check_count(&trace->expects[i], &c->expected[i],
						d->new_mb != d->old_mb ? 1 : 0, now_us,
						"size changes");
		else if (trace->expects[i].kind == EXPECT_MAX_SHRINK_FACTOR)
			check_shrink_factor(c, &trace->expects[i], i, d, now_us);
		else if (trace->expects[i].kind == EXPECT_CAPPED_BY &&
				 d->action == WALSIZER_ACTION_CAPPED &&
				 d->cap_source == trace->expects[i].cap_source)
			trace->expects[i].count++;
	}
	if (!window_end)
		return;
	if (reset_due(trace, c->window_start_us, now_us))
	{
		c->reset_windows++;
		/* the evidence grow_find_evidence() gives for forced checkpoints */
		if (d->new_mb > d->old_mb &&
			strstr(d->reason, " checkpoints in the last ") != NULL)
			fail(&c->reset_window, now_us,
				 "the window from t=%gs had its counters reset, yet its end grew %lld->%lld MB on forced checkpoints: %s",
				 (double) c->window_start_us / USECS_PER_SECOND,
				 (long long) d->old_mb, (long long) d->new_mb, d->reason);
	}
	c->window_start_us = now_us;
}

/*
 * The properties of the state after a sample: the checkpoints WAL forced
 * in it, the size in effect against the limits (a size walsizer set; the
 * one the server started with is the DBA's) and against the true need.
 */
static void
check_sample(Checks *c, Trace *trace, int64_t now_us, bool last_sample,
			 long forced_now, int64_t size_mb, bool size_is_ours)
{
	const Truth *truth = &c->truth;

	for (int i = 0; i < trace->nexpects; i++)
	{
		Expect	   *e = &trace->expects[i];

		if (e->kind == EXPECT_MAX_FORCED)
			check_count(e, &c->expected[i], forced_now, now_us,
						"checkpoints forced by WAL");
		else if (e->kind == EXPECT_PEAK_RATIO)
			check_peak(c, e, i, size_mb, now_us, last_sample);
		else if (EXPECT_IS_RANGE(e->kind))
			check_range(c, e, i, size_mb, now_us, last_sample);
	}
	if (!size_is_ours)
		return;
	if (size_mb < truth->floor_mb)
		fail(&c->below_floor, now_us,
			 "max_wal_size %lld MB is below the floor, %lld MB from %s",
			 (long long) size_mb, (long long) truth->floor_mb,
			 truth->floor_source);
	if (size_mb > truth->cap_mb)
		fail(&c->above_cap, now_us,
			 "max_wal_size %lld MB is above the cap, %lld MB from %s",
			 (long long) size_mb, (long long) truth->cap_mb,
			 truth->cap_source);
}

/* real_final_mb: a recorded trace ends within REAL_TOLERANCE of its server. */
static void
check_real_final(Checks *c, const Trace *trace, int64_t final_mb,
				 int64_t now_us)
{
	double		ratio = (double) final_mb / (double) trace->real_final_mb;

	if (fabs(ratio - 1.0) > REAL_TOLERANCE)
		fail(&c->real_final, now_us,
			 "final max_wal_size %lld MB is %.2fx the real server's %lld MB, more than %.0f %% off",
			 (long long) final_mb, ratio, (long long) trace->real_final_mb,
			 REAL_TOLERANCE * 100);
	else
		snprintf(c->real_final.text, sizeof(c->real_final.text),
				 "holds: final %lld MB is %.2fx the real server's %lld MB",
				 (long long) final_mb, ratio, (long long) trace->real_final_mb);
}

static const char *const expect_names[] = {
	[EXPECT_MAX_FORCED] = "max_forced",
	[EXPECT_MAX_CHANGES] = "max_changes",
	[EXPECT_MAX_SHRINK_FACTOR] = "max_shrink_factor",
	[EXPECT_CAPPED_BY] = "capped_by",
	[EXPECT_PEAK_RATIO] = "peak_ratio",
	[EXPECT_NEED_RATIO] = "need_ratio",
	[EXPECT_SIZE_MB] = "size_mb",
};

/*
 * A property's line on stderr, if it failed or verbose is set;
 * how_it_held stands in when it held.
 */
static void
print_verdict(const char *trace_name, const char *property,
			  const Verdict *v, const char *how_it_held, bool verbose)
{
	if (v->failed || verbose)
		fprintf(stderr, "%s: %s: %s\n", trace_name, property,
				v->failed ? v->text : how_it_held);
}

/* One line per property (failed, or any with verbose); how many failed. */
static int
report_verdicts(Checks *c, const Trace *trace, int64_t end_us, bool verbose)
{
	char		held[VERDICT_LEN];
	char		property[64];
	int			failures = 0;

	for (int i = 0; i < trace->nexpects; i++)
	{
		const Expect *e = &trace->expects[i];
		Verdict    *v = &c->expected[i];

		if (EXPECT_IS_RANGE(e->kind) && c->lowest[i] > c->highest[i])
			fail(v, end_us, "never checked: no sample from t=%lds on",
				 e->from_s);
		if (e->kind == EXPECT_CAPPED_BY && e->count == 0)
			fail(v, end_us, "no decision reported a growth capped by %s",
				 walsizer_cap_source_name(e->cap_source));
		if (e->kind == EXPECT_NEED_RATIO)
			snprintf(held, sizeof(held),
					 "holds: size / need from %.2f to %.2f, within [%g, %g]",
					 c->lowest[i], c->highest[i], e->low, e->high);
		else if (e->kind == EXPECT_SIZE_MB)
			snprintf(held, sizeof(held),
					 "holds: from %.0f to %.0f MB, within [%g, %g]",
					 c->lowest[i], c->highest[i], e->low, e->high);
		else if (e->kind == EXPECT_MAX_SHRINK_FACTOR)
			snprintf(held, sizeof(held),
					 "holds: shrinks divided the size by at most %.2f, at most %g",
					 c->highest[i], e->limit);
		else if (e->kind == EXPECT_PEAK_RATIO)
			snprintf(held, sizeof(held),
					 "holds: the largest size, %.0f MB at t=%lds, is %.2fx the need at the end, at most %g",
					 c->peak_mb[i], c->peak_at_s[i], c->highest[i], e->limit);
		else if (e->kind == EXPECT_CAPPED_BY)
			snprintf(held, sizeof(held),
					 "holds: %ld decisions reported a growth capped by %s",
					 e->count, walsizer_cap_source_name(e->cap_source));
		else
			snprintf(held, sizeof(held), "holds: %ld, at most %g",
					 e->count, e->limit);
		snprintf(property, sizeof(property), "expect %s (line %d)",
				 expect_names[e->kind], e->line);
		print_verdict(trace->name, property, v, held, verbose);
		failures += v->failed;
	}
	if (trace->real_final_mb > 0)
	{
		print_verdict(trace->name, "real_final_mb", &c->real_final,
					  c->real_final.text, verbose);
		failures += c->real_final.failed;
	}
	snprintf(held, sizeof(held), "holds: %lld MB, from %s",
			 (long long) c->truth.floor_mb, c->truth.floor_source);
	print_verdict(trace->name, "never_below_floor", &c->below_floor, held,
				  verbose);
	snprintf(held, sizeof(held), "holds: %lld MB, from %s",
			 (long long) c->truth.cap_mb, c->truth.cap_source);
	print_verdict(trace->name, "never_above_cap", &c->above_cap, held,
				  verbose);
	snprintf(held, sizeof(held), "holds: %ld windows had a reset",
			 c->reset_windows);
	print_verdict(trace->name, "reset_window_counts_no_forced",
				  &c->reset_window, held, verbose);
	return failures + c->below_floor.failed + c->above_cap.failed +
		c->reset_window.failed;
}

/* --- Recorded advisor traces ----------------------------------------------- */

/*
 * A trace whose first directive is "server" was recorded by
 * pg_walsizer_advisor --record (advisor/sample_trace.h): a real server's
 * samples, not a load to model.  It is replayed through the advisor's own
 * pipeline (trace_replay(), advice.c, measure.c, policy.c), which prints a
 * line per window and the recommendation; its properties are about that
 * recommendation.
 */
typedef enum AdvisorExpectKind
{
	ADVISOR_EXPECT_RECOMMEND_MB,	/* recommended_mb within [low, high] */
	ADVISOR_EXPECT_VERDICT			/* the verdict is verdict */
} AdvisorExpectKind;

typedef struct AdvisorExpect
{
	AdvisorExpectKind kind;
	int			line;
	double		low;
	double		high;
	AdvisorVerdict verdict;
} AdvisorExpect;

typedef struct AdvisorReplay
{
	const char *path;
	AdvisorExpect expects[MAX_EXPECTS];
	int			nexpects;
} AdvisorReplay;

/* Is the first directive of the trace at path "server"? */
static bool
is_advisor_trace(const char *path)
{
	FILE	   *file = fopen(path, "r");
	char		line[512];
	bool		advisor = false;

	if (file == NULL)
		die("cannot open trace", path);
	while (fgets(line, sizeof(line), file))
	{
		char		word[64];
		char	   *comment = strchr(line, '#');

		if (comment)
			*comment = '\0';
		if (sscanf(line, "%63s", word) == 1)
		{
			advisor = strcmp(word, "server") == 0;
			break;
		}
	}
	fclose(file);
	return advisor;
}

/*
 * trace_replay()'s on_other: "expect recommend_mb LO HI" and "expect
 * verdict NAME"; any other directive is not one of a recorded trace.
 */
static bool
advisor_trace_directive(const char *text, int line_no, void *arg)
{
	AdvisorReplay *replay = arg;
	const char *separators = " \t\r\n";
	char		line[1024];
	char	   *comment;
	const char *property;
	const char *word;
	AdvisorExpect *e = &replay->expects[replay->nexpects];

	snprintf(line, sizeof(line), "%s", text);
	if ((comment = strchr(line, '#')) != NULL)
		*comment = '\0';
	word = strtok(line, separators);
	if (word == NULL || strcmp(word, "expect") != 0)
		return false;
	if (replay->nexpects == MAX_EXPECTS)
		die("too many expect directives", replay->path);
	memset(e, 0, sizeof(*e));
	e->line = line_no;
	property = strtok(NULL, separators);
	if (property == NULL)
		die("expect without a property", replay->path);
	if (strcmp(property, "recommend_mb") == 0)
	{
		e->kind = ADVISOR_EXPECT_RECOMMEND_MB;
		if (!parse_number(strtok(NULL, separators), &e->low) ||
			!parse_number(strtok(NULL, separators), &e->high) ||
			e->low < 0 || e->high < 0)
			die("expect recommend_mb: LO and HI are numbers >= 0", replay->path);
		if (e->low > e->high)
			die("expect: LO above HI", property);
	}
	else if (strcmp(property, "verdict") == 0)
	{
		const char *name = strtok(NULL, separators);
		int			v;

		e->kind = ADVISOR_EXPECT_VERDICT;
		if (name == NULL)
			die("expect verdict: which verdict?", replay->path);
		for (v = ADVISOR_KEEP; v <= ADVISOR_UNKNOWN; v++)
			if (strcmp(name, advisor_verdict_name((AdvisorVerdict) v)) == 0)
				break;
		if (v > ADVISOR_UNKNOWN)
			die("expect verdict: unknown verdict", name);
		e->verdict = (AdvisorVerdict) v;
	}
	else
		die("property not taken by a recorded advisor trace", property);
	if (strtok(NULL, separators) != NULL)
		die("expect: too many values", property);
	replay->nexpects++;
	return true;
}

static void
print_advisor_window(const AdvisorWindow *w, void *arg)
{
	(void) arg;
	printf("  window to t=%.0fs (%.0f s): %.0f MB of WAL, %lld timed, %lld requested, %lld forced by WAL, %.0f %% full-page images, at %lld MB\n",
		   w->ended_at_s, w->seconds, (double) w->wal_bytes / (double) BYTES_PER_MB,
		   (long long) w->timed, (long long) w->requested,
		   (long long) w->wal_forced, w->fpi_share * 100,
		   (long long) w->max_wal_size_mb);
}

static const char *
advisor_cap_source_name(WalsizerCapSource source)
{
	switch (source)
	{
		case WALSIZER_CAP_DISK:
			return "the disk";
		case WALSIZER_CAP_RECOVERY_TIME:
			return "the recovery-time bound";
		case WALSIZER_CAP_SETTING:
			break;
	}
	return "--max";
}

/*
 * Replay a recorded advisor trace, print its windows and recommendation
 * on stdout and its properties' verdicts on stderr; 1 when one fails.
 */
static int
replay_advisor_trace(const char *path, const char *name, bool verbose)
{
	static Advisor adv;
	static AdvisorReplay replay;
	AdvisorOptions options;
	AdvisorServerFacts facts;
	Advice		a;
	char		error[512];
	FILE	   *file = fopen(path, "r");
	int			failures = 0;

	if (file == NULL)
		die("cannot open trace", path);
	memset(&replay, 0, sizeof(replay));
	replay.path = path;
	advisor_default_options(&options);

	printf("trace %s: recorded by pg_walsizer_advisor, replayed with its defaults (--max %lld MB, --max-recovery-time %.0f s)\n",
		   name, (long long) options.max_mb, options.max_recovery_s);
	fflush(stdout);
	if (!trace_replay(file, &options, &adv, print_advisor_window,
					  advisor_trace_directive, &replay, &a, &facts,
					  error, sizeof(error)))
		die(path, error);
	fclose(file);

	printf("server: PostgreSQL %d%s, segment %lld MB, block %lld bytes, checkpoint_timeout %.0f s, completion_target %g, redo pointer %s\n",
		   facts.major, facts.standby ? " (standby)" : "",
		   (long long) (facts.segment_bytes / BYTES_PER_MB),
		   (long long) facts.block_bytes, facts.checkpoint_timeout_s,
		   facts.completion_target, facts.redo_known ? "read" : "inferred");
	printf("run: %lld samples over %.0f s, %.0f MB of WAL; checkpoints: %lld timed, %lld requested, %lld forced by WAL; %.0f %% full-page images\n",
		   (long long) adv.samples, a.seconds,
		   (double) a.wal_bytes / (double) BYTES_PER_MB, (long long) a.timed,
		   (long long) a.requested, (long long) a.wal_forced, a.fpi_share * 100);
	if (a.verdict == ADVISOR_UNKNOWN)
		printf("recommendation: unknown, %lld MB as it is\n",
			   (long long) a.current_mb);
	else
	{
		printf("recommendation: %s, %lld -> %lld MB (the load needs %lld MB; cap %lld MB from %s)\n",
			   advisor_verdict_name(a.verdict), (long long) a.current_mb,
			   (long long) a.recommended_mb, (long long) a.needed_mb,
			   (long long) a.cap_mb, advisor_cap_source_name(a.cap_source));
		printf("cycle: %.0f MB per checkpoint_timeout, %s%s\n",
			   (double) a.cycle_bytes / (double) BYTES_PER_MB,
			   a.cycle_predicted ? "predicted" : "measured",
			   a.cycle_predicted && a.working_set_pages > 0 ?
			   " over the working set" : "");
		printf("checkpoints forced by WAL per hour: %.0f now, %.0f at %lld MB\n",
			   a.forced_per_hour_now, a.forced_per_hour_after,
			   (long long) a.recommended_mb);
		printf("crash recovery at %lld MB: about %.0f s at %.0f MB/s%s\n",
			   (long long) a.recommended_mb, a.estimated_recovery_s,
			   a.replay_rate_bytes_s / (double) BYTES_PER_MB,
			   a.replay_rate_assumed ? " (assumed)" : "");
		printf("basis: %s\n", a.basis);
	}
	printf("reason: %s\n", a.reason);

	for (int i = 0; i < replay.nexpects; i++)
	{
		const AdvisorExpect *e = &replay.expects[i];
		Verdict		v;
		char		property[64];

		memset(&v, 0, sizeof(v));
		if (e->kind == ADVISOR_EXPECT_RECOMMEND_MB)
		{
			bool		holds = (double) a.recommended_mb >= e->low &&
				(double) a.recommended_mb <= e->high;

			v.failed = !holds;
			snprintf(v.text, sizeof(v.text), "%s: recommends %lld MB, %s [%g, %g]",
					 holds ? "holds" : "FAILS", (long long) a.recommended_mb,
					 holds ? "within" : "outside", e->low, e->high);
			snprintf(property, sizeof(property), "expect recommend_mb (line %d)",
					 e->line);
		}
		else
		{
			v.failed = a.verdict != e->verdict;
			snprintf(v.text, sizeof(v.text), "%s: the verdict is %s%s%s",
					 v.failed ? "FAILS" : "holds", advisor_verdict_name(a.verdict),
					 v.failed ? ", not " : "",
					 v.failed ? advisor_verdict_name(e->verdict) : "");
			snprintf(property, sizeof(property), "expect verdict (line %d)",
					 e->line);
		}
		print_verdict(name, property, &v, v.text, verbose);
		failures += v.failed;
	}
	return failures == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	static Trace trace;
	static Server server;
	static WalsizerMeasure measure;
	static Checks checks;
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
	bool		verbose = argc == 3 && strcmp(argv[1], "-v") == 0;
	const char *path = argv[argc - 1];
	const char *name;
	int			failures;

	if (argc != (verbose ? 3 : 2))
	{
		fprintf(stderr, "usage: walsizer_sim [-v] TRACE\n");
		return 2;
	}
	name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (is_advisor_trace(path))
		return replay_advisor_trace(path, name, verbose);
	parse_trace(path, &trace);
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
	checks_init(&checks, &trace);

	for (int64_t now_us = step_us; now_us <= duration_us; now_us += step_us)
	{
		bool		window_end;
		WalsizerMeasurements m;
		WalsizerDecision d;
		long		forced_before = server.forced;

		server_step(&server, &trace, s, now_us, step_us);

		/* the worker's iteration, as wsw_iteration() runs it */
		walsizer_measure_add(&measure, &server.stats, &set);
		window_end = walsizer_measure_window_due(&measure);
		walsizer_measure_get(&measure, window_end, size_is_ours, &set, &m);
		walsizer_decide(s, &m, &state, &d);
		check_decision(&checks, &trace, now_us, window_end, &d);
		if (window_end)
			final_need_mb = d.needed_mb;
		if (walsizer_decision_keeps_state(&m, &d))
			state = d.state;
		if (d.action == WALSIZER_ACTION_CAPPED && d.new_mb == d.old_mb)
			capped_reports++;
		if (d.new_mb != d.old_mb)
		{
			if (verbose)
				fprintf(stderr, "%s: t=%.1fs %s %lld->%lld MB: %s\n",
						trace.name, (double) now_us / USECS_PER_SECOND,
						walsizer_action_name(d.action), (long long) d.old_mb,
						(long long) d.new_mb, d.reason);
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
		check_sample(&checks, &trace, now_us, now_us + step_us > duration_us,
					 server.forced - forced_before, s->current_mb,
					 size_is_ours);
	}
	if (changes_total == 0)
		forced_before_first_change = server.forced;

	printf("trace %s: %ld s, start %lld MB, cap %lld MB, segment %lld MB, checkpoint_timeout %.0f s, window %ld s, sample %d ms\n",
		   name, trace.duration_s, (long long) start_mb,
		   (long long) s->max_mb, (long long) (s->segment_bytes / BYTES_PER_MB),
		   s->checkpoint_timeout_s, trace.window_s, trace.sample_interval_ms);
	if (s->recovery_cap_mb > 0)
		printf("recovery-time bound: %g s at %g MB/s allows %lld MB\n",
			   trace.max_recovery_s, trace.replay_mb_s,
			   (long long) s->recovery_cap_mb);
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
		check_real_final(&checks, &trace, s->current_mb, duration_us);
	}
	failures = report_verdicts(&checks, &trace, duration_us, verbose);
	free(checks.truth.cycle_bytes);
	return failures == 0 ? 0 : 1;
}
