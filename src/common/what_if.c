/*-------------------------------------------------------------------------
 *
 * what_if.c
 *		The full-page-image model of a checkpoint cycle's WAL, and the
 *		"what if" table: for candidate sizes, what each would do under the
 *		load measured.
 *
 * A larger max_wal_size saves WAL only through full-page images: the
 * records of the load are the same at any size, but each cycle's first
 * change to a page logs the whole page, so fewer, longer cycles log fewer
 * images.  The model says how many (walsizer_predicted_cycle_bytes()); the
 * table applies PostgreSQL's checkpoint trigger (walsizer_trigger_bytes())
 * and the recovery bound's arithmetic (recovery_bound.c) to it at each
 * size.  The advisor predicts its cycles with the same model, so the two
 * never disagree on a formula.
 *
 * Pure like the policy: no PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "what_if.h"
#include "policy_internal.h"
#include "size_units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SECONDS_PER_HOUR 3600.0
/* more WAL than any cycle can write: where a hostile input's figures stop */
#define MAX_CYCLE_BYTES 1e18

/*
 * The shortest cycle the table reports: a load whose full-page images
 * alone, written at once, pass a size's trigger would otherwise have
 * cycles of no length and infinitely many checkpoints.  PostgreSQL cannot
 * run checkpoints faster than it writes them; one a second is already a
 * server doing little else.
 */
#define MIN_CYCLE_S 1.0

/*
 * The slowest replay rate a recovery time is computed at, in bytes/s:
 * below it (a denormal from a caller's bug, say) the time of the largest
 * size would overflow to infinity; no real recovery is that slow.
 */
#define MIN_REPLAY_BYTES_S 1.0

/* Halvings of the interval when solving an increasing function (least_reaching()). */
#define BISECTIONS 64

/*
 * The working set from a cycle's images (walsizer_working_set_from_images):
 * the point within the cycle must lie in its middle part, the images up to
 * it must be this much more than their share of the time (a steady image
 * rate gives the time's share; sampling moves it by a few hundredths), and
 * past SATURATED_U (e^-30 of the set unlogged) the cycle logged it whole.
 */
#define MIN_POINT_SHARE 0.2
#define MIN_IMAGE_SLOWING 0.03
#define SATURATED_U 30.0

/*
 * The ladder around the recommendation: a quarter, a half, twice and four
 * times it, as fractions (numerator / denominator).
 */
static const int64_t ladder_num[] = {1, 1, 2, 4};
static const int64_t ladder_den[] = {4, 2, 1, 1};

/*
 * The WAL of one cycle of timeout_s at the load measured in cycles of
 * cycle_s, in bytes, unclamped: records at record_bytes_s throughout, plus
 * full-page images.  Each cycle's first change to a page logs the whole
 * page; if changes fall on the working set's pages at random, a share
 * (1 - fpi_per_cycle / W) of it is still unlogged after one measured
 * cycle, and that share to the power timeout_s / cycle_s after a longer
 * one: images W x (1 - (1 - f)^n), f = fpi_per_cycle / W and
 * n = timeout_s / cycle_s.  Without a working set the images grow
 * in proportion to the cycle's length, which only overstates.  A bogus
 * figure counts as none; a cycle of unknown length takes the images as
 * measured.
 */
static double
model_bytes(double record_bytes_s, double fpi_per_cycle, double cycle_s,
			double working_set_bytes, double timeout_s)
{
	double		images;

	if (!isfinite(record_bytes_s) || record_bytes_s < 0)
		record_bytes_s = 0;
	if (!isfinite(fpi_per_cycle) || fpi_per_cycle < 0)
		fpi_per_cycle = 0;
	if (!isfinite(timeout_s) || timeout_s <= 0)
		return 0;
	if (!isfinite(cycle_s) || cycle_s <= 0)
		images = fpi_per_cycle;
	else if (isfinite(working_set_bytes) && working_set_bytes > 0)
	{
		/*
		 * As -W expm1(n log1p(-f)): 1 - (1 - f)^n written out loses the
		 * digits of a share f far below one (a small cycle over a large
		 * set), and a larger size could then seem to cost more WAL.
		 */
		double		log_unlogged = log1p(-fpi_per_cycle / working_set_bytes);

		if (fpi_per_cycle >= working_set_bytes)
			images = working_set_bytes;
		else if (log_unlogged == 0)
			images = 0;			/* f too small to count, even n times */
		else
			images = -working_set_bytes *
				expm1(timeout_s / cycle_s * log_unlogged);
	}
	else
		images = fpi_per_cycle * timeout_s / cycle_s;
	return fmin(record_bytes_s * timeout_s + images, MAX_CYCLE_BYTES);
}

/*
 * The model's WAL of one cycle of timeout_s, in bytes: 0 without a
 * positive timeout_s, at most MAX_CYCLE_BYTES, so that a hostile input's
 * figure converts to uint64_t defined.
 */
uint64_t
walsizer_predicted_cycle_bytes(double record_bytes_s, double fpi_per_cycle,
							   double cycle_s, double working_set_bytes,
							   double timeout_s)
{
	double		bytes = model_bytes(record_bytes_s, fpi_per_cycle, cycle_s,
									working_set_bytes, timeout_s);

	return bytes > 0 ? (uint64_t) bytes : 0;
}

/* The same for a load, as a double: the table divides it by a time. */
double
walsizer_load_cycle_bytes(const WalsizerLoad *load, double cycle_s)
{
	return model_bytes(load->record_bytes_s, load->fpi_bytes_per_cycle,
					   load->cycle_s, load->working_set_bytes, cycle_s);
}

/*
 * The least v in [lo, hi] at which the increasing f(v, arg) reaches
 * target, by bisection: hi when f(hi) does not, near lo when f(lo) does.
 */
static double
least_reaching(double (*f) (double v, const void *arg), const void *arg,
			   double target, double lo, double hi)
{
	for (int i = 0; i < BISECTIONS; i++)
	{
		double		mid = (lo + hi) / 2;

		if (f(mid, arg) >= target)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * The share of a cycle's images written by the share x of its time, when
 * the unlogged share of the working set decays as e^(-u t / c).
 */
static double
image_ratio(double u, double x)
{
	return expm1(-u * x) / expm1(-u);
}

/* image_ratio() as least_reaching() takes it: x behind a pointer. */
static double
image_ratio_at(double u, const void *x)
{
	return image_ratio(u, *(const double *) x);
}

/*
 * The working set the images of one cycle show.  If the load changes its
 * pages at random, the share of the working set W still unlogged decays as
 * e^(-u t / c) over a cycle of c seconds: the images up to t are
 * I(t) = W (1 - e^(-u t / c)), and the image rate falls as the cycle goes
 * on.  From the images up to a point within the cycle (mid_fpi at mid_s)
 * and over all of it (cycle_fpi over cycle_s), their ratio
 * (1 - e^(-u x)) / (1 - e^(-u)), x = mid_s / cycle_s, gives u (it grows
 * with u, from x for a working set far larger than the cycle touches to 1
 * for one the first part of the cycle logged whole), and
 * W = cycle_fpi / (1 - e^(-u)).  This is what the worker has in place of
 * the table statistics it cannot read.  0 (unknown) when the point is not
 * well inside the cycle, when there were no images, or when the images
 * did not slow down by a margin that noise in the sampling could not
 * give: the model then lets images grow with the cycle, which overstates.
 */
double
walsizer_working_set_from_images(double mid_s, double mid_fpi,
								 double cycle_s, double cycle_fpi)
{
	double		x;
	double		ratio;
	double		u;

	if (!isfinite(mid_s) || !isfinite(mid_fpi) || !isfinite(cycle_s) ||
		!isfinite(cycle_fpi) || cycle_s <= 0 || cycle_fpi <= 0 || mid_fpi < 0)
		return 0;
	x = mid_s / cycle_s;
	if (x < MIN_POINT_SHARE || x > 1 - MIN_POINT_SHARE)
		return 0;
	ratio = mid_fpi / cycle_fpi;
	if (ratio < x + MIN_IMAGE_SLOWING)
		return 0;
	if (ratio >= image_ratio(SATURATED_U, x))
		return cycle_fpi;		/* logged whole early: W is what was */
	u = least_reaching(image_ratio_at, &x, ratio, 0, SATURATED_U);
	return cycle_fpi / -expm1(-u);
}

/* The replay rate's source as the caller named it, or "given". */
static const char *
rate_source(const WalsizerWhatIfInput *in)
{
	return in->replay_rate_source && in->replay_rate_source[0] ?
		in->replay_rate_source : "given";
}

/* "running,recommended" and so on: the kinds of a row, in that order. */
void
walsizer_what_if_kinds_text(unsigned kinds, char *buf, int len)
{
	static const struct
	{
		unsigned	flag;
		const char *name;
	}			names[] = {
		{WALSIZER_WHAT_IF_RUNNING, "running"},
		{WALSIZER_WHAT_IF_RECOMMENDED, "recommended"},
		{WALSIZER_WHAT_IF_LADDER, "ladder"},
		{WALSIZER_WHAT_IF_ASKED, "asked"},
	};
	int			used = 0;

	if (len <= 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < (int) (sizeof(names) / sizeof(names[0])); i++)
	{
		int			n;

		if (!(kinds & names[i].flag))
			continue;
		n = snprintf(buf + used, (size_t) (len - used), "%s%s",
					 used > 0 ? "," : "", names[i].name);
		if (n < 0 || n >= len - used)
			return;
		used += n;
	}
}

/*
 * Add a size to the table, kept sorted by size; a size already there only
 * gains the kind.  Sizes that are not positive are left out, sizes past
 * max_wal_size's limit are taken at it.
 */
static void
add_size(WalsizerWhatIf *out, int64_t size_mb, unsigned kind)
{
	int			at;

	if (size_mb <= 0)
		return;
	size_mb = policy_clamp_size(size_mb);
	for (at = 0; at < out->count && out->rows[at].size_mb < size_mb; at++)
		;
	if (at < out->count && out->rows[at].size_mb == size_mb)
	{
		out->rows[at].kinds |= kind;
		return;
	}
	if (out->count == WALSIZER_WHAT_IF_MAX_ROWS)
		return;
	memmove(&out->rows[at + 1], &out->rows[at],
			sizeof(out->rows[0]) * (size_t) (out->count - at));
	memset(&out->rows[at], 0, sizeof(out->rows[0]));
	out->rows[at].size_mb = size_mb;
	out->rows[at].kinds = kind;
	out->count++;
}

/*
 * The candidate sizes: the running one, the recommendation, the ladder
 * around the recommendation (around the running size without one) in
 * whole segments, rounded up as the policy rounds a size, never below
 * max_wal_size's minimum of two segments, and the caller's sizes as given.
 */
static void
candidate_sizes(const WalsizerWhatIfInput *in, int64_t seg_mb,
				WalsizerWhatIf *out)
{
	int64_t		base = in->recommended_mb > 0 ? in->recommended_mb : in->current_mb;
	int			asked = in->asked_count;

	add_size(out, in->current_mb, WALSIZER_WHAT_IF_RUNNING);
	add_size(out, in->recommended_mb, WALSIZER_WHAT_IF_RECOMMENDED);
	if (base > 0)
		for (int i = 0; i < (int) (sizeof(ladder_num) / sizeof(ladder_num[0])); i++)
		{
			int64_t		step = policy_clamp_size(base);

			/* the clamp keeps step * 4 within int64_t */
			step = step * ladder_num[i] / ladder_den[i];
			step = policy_round_up_to_segment(step, seg_mb);
			if (step < MIN_SIZE_SEGMENTS * seg_mb)
				step = MIN_SIZE_SEGMENTS * seg_mb;
			add_size(out, step, WALSIZER_WHAT_IF_LADDER);
		}
	if (in->asked_mb == NULL || asked < 0)
		asked = 0;
	if (asked > WALSIZER_WHAT_IF_MAX_ASKED)
		asked = WALSIZER_WHAT_IF_MAX_ASKED;
	for (int i = 0; i < asked; i++)
		add_size(out, in->asked_mb[i], WALSIZER_WHAT_IF_ASKED);
}

/*
 * How long one checkpoint cycle lasts at a trigger of trigger_bytes: a
 * whole checkpoint_timeout when its WAL stays below the trigger, else the
 * time t in which the load writes trigger_bytes, C(t) = trigger, found by
 * bisection (the model grows with t).  Never below MIN_CYCLE_S, which
 * timeout_s is not below either.
 */
static double
load_cycle_bytes_at(double cycle_s, const void *load)
{
	return walsizer_load_cycle_bytes((const WalsizerLoad *) load, cycle_s);
}

static double
cycle_length_s(const WalsizerLoad *load, double timeout_s, double trigger_bytes,
			   bool *forced)
{
	*forced = walsizer_load_cycle_bytes(load, timeout_s) > trigger_bytes;
	if (!*forced)
		return timeout_s;
	return fmax(least_reaching(load_cycle_bytes_at, load, trigger_bytes,
							   0, timeout_s),
				MIN_CYCLE_S);
}

/* Append "; " and a reason to a row's why_not. */
static void
add_why_not(WalsizerWhatIfRow *row, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

static void
add_why_not(WalsizerWhatIfRow *row, const char *fmt,...)
{
	size_t		used = strlen(row->why_not);
	va_list		args;

	row->allowed = false;
	if (used > 0 && used + 2 < sizeof(row->why_not))
	{
		memcpy(row->why_not + used, "; ", 3);
		used += 2;
	}
	va_start(args, fmt);
	vsnprintf(row->why_not + used, sizeof(row->why_not) - used, fmt, args);
	va_end(args);
}

/*
 * One row: the cycle at its size, what that cycle writes and costs, and
 * whether pg_walsizer would set the size.
 */
static void
fill_row(const WalsizerWhatIfInput *in, double timeout_s, double ct,
		 int64_t seg_mb, WalsizerWhatIfRow *row)
{
	double		trigger = (double) walsizer_trigger_bytes(row->size_mb,
														  in->segment_bytes, ct);
	bool		forced;
	double		cycle_bytes;
	double		peak_bytes;
	double		peak_segments;

	row->cycle_s = cycle_length_s(&in->load, timeout_s, trigger, &forced);
	cycle_bytes = walsizer_load_cycle_bytes(&in->load, row->cycle_s);
	row->checkpoints_per_hour = SECONDS_PER_HOUR / row->cycle_s;
	row->forced_per_hour = forced ? row->checkpoints_per_hour : 0;
	row->wal_mb_per_hour = cycle_bytes * SECONDS_PER_HOUR / row->cycle_s /
		(double) BYTES_PER_MB;

	/* the recovery bound's own arithmetic, at this size's cycle */
	row->recovery_known = isfinite(in->replay_bytes_per_s) &&
		in->replay_bytes_per_s >= MIN_REPLAY_BYTES_S;
	if (row->recovery_known)
		row->recovery_s = walsizer_estimated_recovery_s(row->size_mb, ct,
														(uint64_t) cycle_bytes, 0,
														in->replay_bytes_per_s);

	/*
	 * What a crash would replay is what the checkpoints keep in pg_wal:
	 * from the last completed checkpoint's redo pointer on, in whole
	 * segments, and the segment being written.
	 */
	peak_bytes = walsizer_worst_pending_bytes(row->size_mb, ct,
											  (uint64_t) cycle_bytes, 0);
	peak_segments = ceil(peak_bytes / ((double) seg_mb * (double) BYTES_PER_MB)) + 1;
	row->peak_pg_wal_mb = policy_clamp_size((int64_t) fmin(peak_segments * (double) seg_mb,
														   (double) SIZE_LIMIT_MB));

	row->allowed = true;
	if (row->size_mb < MIN_SIZE_SEGMENTS * seg_mb)
		add_why_not(row, "below max_wal_size's minimum of %d segments (%lld MB)",
					MIN_SIZE_SEGMENTS, (long long) (MIN_SIZE_SEGMENTS * seg_mb));
	if (in->cap_mb > 0 && row->size_mb > in->cap_mb)
	{
		if (in->cap_source == WALSIZER_CAP_RECOVERY_TIME)
			add_why_not(row, "above the cap of %lld MB (recovery_time: walsizer.max_recovery_time at the %s replay rate)",
						(long long) in->cap_mb, rate_source(in));
		else
			add_why_not(row, "above the cap of %lld MB (%s)",
						(long long) in->cap_mb,
						walsizer_cap_source_name(in->cap_source));
	}
	if (in->wal_room_mb > 0 && row->peak_pg_wal_mb > in->wal_room_mb)
		add_why_not(row, "pg_wal would hold up to %lld MB, more than the %lld MB its volume has room for",
					(long long) row->peak_pg_wal_mb, (long long) in->wal_room_mb);
}

/*
 * The table: one row per candidate size, sorted by size, each size once.
 * Settings that are not numbers fall back as the policy's do
 * (policy_sane_fraction()); a checkpoint_timeout that is not a time of at
 * least MIN_CYCLE_S, to PostgreSQL's default, and the basis says so.
 */
void
walsizer_what_if(const WalsizerWhatIfInput *in, WalsizerWhatIf *out)
{
	int64_t		seg_mb = walsizer_segment_mb(in->segment_bytes);
	double		timeout_s = in->checkpoint_timeout_s;
	double		ct = policy_sane_fraction(in->completion_target,
										  FALLBACK_COMPLETION_TARGET);
	size_t		used;

	memset(out, 0, sizeof(*out));
	/* PostgreSQL's least is 30 s; below a second, a cycle means nothing */
	if (!isfinite(timeout_s) || timeout_s < MIN_CYCLE_S)
	{
		timeout_s = FALLBACK_CHECKPOINT_TIMEOUT_S;
		snprintf(out->basis, sizeof(out->basis),
				 "checkpoint_timeout unknown: %.0f s; ", timeout_s);
	}
	out->working_set_known = isfinite(in->load.working_set_bytes) &&
		in->load.working_set_bytes > 0;
	out->wal_room_known = in->wal_room_mb > 0;
	out->wal_room_mb = out->wal_room_known ? in->wal_room_mb : 0;
	out->replay_rate_source = isfinite(in->replay_bytes_per_s) &&
		in->replay_bytes_per_s >= MIN_REPLAY_BYTES_S ?
		rate_source(in) : NULL;
	out->timed_cycle_bytes = walsizer_load_cycle_bytes(&in->load, timeout_s);

	used = strlen(out->basis);
	snprintf(out->basis + used, sizeof(out->basis) - used, "%s; %s%s; %s",
			 out->working_set_known ?
			 "full-page images up to the working set" :
			 "working set unknown: full-page images grow with the cycle (overstates longer cycles' WAL)",
			 out->replay_rate_source ? "replay rate " : "",
			 out->replay_rate_source ? out->replay_rate_source :
			 "no replay rate: recovery time unknown",
			 out->wal_room_known ? "pg_wal against its volume's room" :
			 "free space of the WAL volume unknown: not checked");

	candidate_sizes(in, seg_mb, out);
	for (int i = 0; i < out->count; i++)
		fill_row(in, timeout_s, ct, seg_mb, &out->rows[i]);
}
