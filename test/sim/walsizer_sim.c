/*-------------------------------------------------------------------------
 *
 * walsizer_sim.c
 *		Replays a WAL load trace against pg_walsizer's sizing policy.
 *
 * The simulator links the very policy.c the worker runs and stands in for
 * everything around it: PostgreSQL's checkpoint triggers and the worker's
 * sampling.  It shows, for a described load, how many checkpoints WAL
 * volume would force and how max_wal_size would move, deterministically,
 * in a few milliseconds.
 *
 * The model, one step per second:
 *	- WAL is written at the trace's rate, times fpi_factor for fpi_seconds
 *	  after each checkpoint start (full-page images make checkpoints feed
 *	  WAL).
 *	- A checkpoint moves the redo pointer to the insert position at once.
 *	  WAL volume forces one, as XLogCheckpointNeeded() does, when segment
 *	  redo_segment + CheckPointSegments - 1 has been filled; a timed one
 *	  starts checkpoint_timeout after the last start; a trace may also
 *	  inject manual CHECKPOINTs, which count as requested only.
 *	- The walsizer samples every second and measures as src/worker.c does:
 *	  the recent rate is the higher of the averages over the last 2 s and
 *	  the last 5 s (valid once 2 s are covered); the peak rate is the worst
 *	  average over one whole checkpoint_timeout within the horizon (4
 *	  windows, at least 2 checkpoint_timeouts), or the average over the
 *	  whole history while it is shorter than one checkpoint_timeout.  The
 *	  history starts over at every size change, because WAL measured at
 *	  the old size says little about the new one.  Every sample calls
 *	  walsizer_decide(); every window seconds the call is a window end
 *	  with the window's checkpoint counts.  Size changes apply at once.
 *
 * Trace files: one directive per line, '#' starts a comment.
 *	Settings (defaults in parentheses):
 *		start_mb (1024)  baseline_mb (start_mb)  segment_mb (16)
 *		checkpoint_timeout (300)  completion_target (0.9)  window (300)
 *		max_mb (4096)  min_mb (0)  disk_cap_mb (0)  threshold (2)
 *		ratio (0.33)  headroom (0.25)  shrink_after (12)  cooldown (1)
 *		fpi_factor (1)  fpi_seconds (0)  duration (sum of the phases)
 *	Load phases, played in order and repeated until duration:
 *		rate SECONDS MB_PER_S
 *		ramp SECONDS FROM_MB_PER_S TO_MB_PER_S
 *	Events:
 *		manual_checkpoint_every SECONDS
 *		reset_counters_at SECOND	(may repeat)
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

#include "policy.h"

#define BYTES_PER_MB ((double) (1024 * 1024))
#define MAX_PHASES 256
#define MAX_RESETS 64
#define MAX_CHANGES 200
/* the worker's constants (src/worker.c), in whole seconds */
#define RECENT_SECONDS 5
#define RECENT_MIN_SECONDS 2
#define HORIZON_WINDOWS 4
#define HORIZON_MIN_CYCLES 2

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
	double		fpi_factor;
	long		fpi_seconds;
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
	trace->fpi_factor = 1;

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
					(phase->to_mb_s - phase->from_mb_s) * progress) * BYTES_PER_MB;
		}
		offset -= phase->seconds;
	}
	return 0;
}

static bool
reset_in(const Trace *trace, long from_s, long to_s)
{
	for (int i = 0; i < trace->nresets; i++)
		if (trace->resets_at[i] >= from_s && trace->resets_at[i] < to_s)
			return true;
	return false;
}

/*
 * The worker's peak rate: the worst average over one whole
 * checkpoint_timeout among the seconds history_from..now, or the average
 * over all of them while they span less; lsn_at[t] is the insert position
 * after second t.
 */
static double
peak_rate(const uint64_t *lsn_at, long history_from, long now, long timeout_s)
{
	double		peak = 0;

	if (now - history_from < 1)
		return 0;
	if (now - history_from < timeout_s)
		return (double) (lsn_at[now] - lsn_at[history_from]) /
			(double) (now - history_from);
	for (long to = history_from + timeout_s; to <= now; to++)
	{
		double		rate = (double) (lsn_at[to] - lsn_at[to - timeout_s]) /
			(double) timeout_s;

		if (rate > peak)
			peak = rate;
	}
	return peak;
}

/* The worker's recent rate: the higher of the last 2 s and the last 5 s. */
static bool
recent_rate(const uint64_t *lsn_at, long now, double *rate)
{
	long		longest = now - RECENT_SECONDS < 0 ? 0 : now - RECENT_SECONDS;

	if (now - longest < RECENT_MIN_SECONDS)
		return false;
	*rate = (double) (lsn_at[now] - lsn_at[longest]) / (double) (now - longest);
	{
		double		short_rate = (double) (lsn_at[now] - lsn_at[now - RECENT_MIN_SECONDS]) /
			(double) RECENT_MIN_SECONDS;

		if (short_rate > *rate)
			*rate = short_rate;
	}
	return true;
}

int
main(int argc, char **argv)
{
	static Trace trace;
	WalsizerSettings *s = &trace.settings;
	WalsizerPolicyState state;
	uint64_t   *lsn_at;
	uint64_t	insert = 0;
	uint64_t	redo = 0;
	uint64_t	segment_bytes;
	long		timeout_s;
	long		horizon_s;
	long		history_from = 0;	/* first second the peak rate may use */
	long		last_checkpoint_s = 0;
	long		window_start_s = 0;
	uint64_t	window_start_lsn = 0;
	int64_t		window_timed = 0;
	int64_t		window_requested = 0;
	int64_t		window_forced = 0;
	long		forced_total = 0;
	int64_t		forced_since_change = 0;
	long		forced_after_first_change = 0;
	long		timed_total = 0;
	long		manual_total = 0;
	long		capped_reports = 0;
	int64_t		start_mb;
	int64_t		largest_mb;
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

	segment_bytes = (uint64_t) s->segment_bytes;
	timeout_s = (long) s->checkpoint_timeout_s;
	horizon_s = HORIZON_WINDOWS * trace.window_s;
	if (horizon_s < HORIZON_MIN_CYCLES * timeout_s)
		horizon_s = HORIZON_MIN_CYCLES * timeout_s;
	lsn_at = calloc((size_t) trace.duration_s + 1, sizeof(uint64_t));
	if (lsn_at == NULL)
		die("out of memory", name);
	walsizer_policy_init_state(&state);
	start_mb = s->current_mb;
	largest_mb = s->current_mb;

	for (long t = 1; t <= trace.duration_s; t++)
	{
		double		rate = load_at(&trace, t - 1);
		int64_t		checkpoint_segments;
		bool		window_end;
		WalsizerMeasurements m;
		WalsizerDecision d;

		if (t - last_checkpoint_s <= trace.fpi_seconds)
			rate *= trace.fpi_factor;
		insert += (uint64_t) llround(rate);

		/* WAL volume: segment redo_segment + CheckPointSegments - 1 filled */
		checkpoint_segments = walsizer_checkpoint_segments(s->current_mb,
														   s->segment_bytes,
														   s->completion_target);
		if (insert / segment_bytes >=
			redo / segment_bytes + (uint64_t) checkpoint_segments)
		{
			redo = insert;
			last_checkpoint_s = t;
			window_requested++;
			window_forced++;
			forced_total++;
			forced_since_change++;
			if (changes_total > 0)
				forced_after_first_change++;
		}
		else if (t - last_checkpoint_s >= timeout_s)
		{
			redo = insert;
			last_checkpoint_s = t;
			window_timed++;
			timed_total++;
		}
		if (trace.manual_every_s > 0 && t % trace.manual_every_s == 0)
		{
			redo = insert;
			last_checkpoint_s = t;
			window_requested++;
			manual_total++;
		}
		lsn_at[t] = insert;

		/* the walsizer's sample */
		window_end = t - window_start_s >= trace.window_s;
		memset(&m, 0, sizeof(m));
		m.window_end = window_end;
		m.wal_since_redo_bytes = insert - redo;
		m.recent_rate_valid = recent_rate(lsn_at, t, &m.recent_rate);
		if (history_from < t - horizon_s)
			history_from = t - horizon_s;
		m.peak_rate = peak_rate(lsn_at, history_from, t, timeout_s);
		m.peak_covers_cycle = t - history_from >= timeout_s;
		m.wal_forced_since_change = forced_since_change;
		m.seconds_to_timed_checkpoint = (double) (timeout_s -
												  (t - last_checkpoint_s) % timeout_s);
		if (window_end)
		{
			m.counters_reset = reset_in(&trace, window_start_s, t);
			m.window_s = (double) (t - window_start_s);
			m.timed = window_timed;
			m.requested = window_requested;
			m.wal_forced = window_forced;
			m.wal_bytes = insert - window_start_lsn;
		}

		walsizer_decide(s, &m, &state, &d);
		state = d.state;
		if (d.action == WALSIZER_ACTION_CAPPED && d.new_mb == d.old_mb)
			capped_reports++;
		if (d.new_mb != d.old_mb)
		{
			if (nchanges < MAX_CHANGES)
			{
				changes[nchanges].at_s = t;
				changes[nchanges].action = d.action;
				changes[nchanges].old_mb = d.old_mb;
				changes[nchanges].new_mb = d.new_mb;
				nchanges++;
			}
			changes_total++;
			s->current_mb = d.new_mb;
			/* the worker's history starts with its next sample */
			history_from = t + 1;
			forced_since_change = 0;
			if (s->current_mb > largest_mb)
				largest_mb = s->current_mb;
		}

		if (window_end)
		{
			window_start_s = t;
			window_start_lsn = insert;
			window_timed = window_requested = window_forced = 0;
		}
	}

	printf("trace %s: %ld s, start %lld MB, cap %lld MB, segment %lld MB, checkpoint_timeout %ld s, window %ld s\n",
		   name, trace.duration_s, (long long) start_mb,
		   (long long) s->max_mb, (long long) (segment_bytes >> 20),
		   timeout_s, trace.window_s);
	printf("wal written: %.0f MB\n", (double) insert / BYTES_PER_MB);
	printf("checkpoints: %ld forced by WAL (%ld after the first change), %ld timed, %ld manual\n",
		   forced_total, forced_after_first_change, timed_total, manual_total);
	printf("size changes: %ld; final %lld MB; largest %lld MB; cap reported without change %ld times\n",
		   changes_total, (long long) s->current_mb, (long long) largest_mb,
		   capped_reports);
	for (int i = 0; i < nchanges; i++)
		printf("  t=%lds %s %lld->%lld MB\n", changes[i].at_s,
			   walsizer_action_name(changes[i].action),
			   (long long) changes[i].old_mb, (long long) changes[i].new_mb);
	if (changes_total > nchanges)
		printf("  ... %ld more\n", changes_total - nchanges);
	free(lsn_at);
	return 0;
}
