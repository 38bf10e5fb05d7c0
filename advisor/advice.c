/*-------------------------------------------------------------------------
 *
 * advice.c
 *		From samples of a server to one recommended max_wal_size, with the
 *		worker's own measurement and policy.
 *
 * The worker learns a size by changing it and measuring whole checkpoint
 * cycles at the new size.  The advisor may change nothing, so where WAL
 * forced the server's checkpoints it has no whole timed cycle to measure:
 * every cycle was cut short, and full-page images, which restart at every
 * checkpoint, are most of its WAL.  It predicts the cycle instead: the
 * records go on at the rate measured, and the images of a cycle grow with
 * its length until every page the load changes has been logged once
 * (walsizer_predicted_cycle_bytes(), src/common/what_if.c, the model the
 * what-if table uses too).  The policy then decides on that cycle
 * exactly as it decides on a measured one.
 *
 *-------------------------------------------------------------------------
 */
#include "advice.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "settings_limits.h"
#include "size_units.h"

#define USECS_PER_SECOND 1000000.0
#define SECONDS_PER_HOUR 3600.0
/* the policy's counters saturate well below this; "long ago" */
#define WINDOWS_LONG_AGO 1000
/* more WAL than any cycle can write: where a hostile trace's figures stop */
#define MAX_CYCLE_BYTES 1e18

static const char *const verdict_names[] = {
	[ADVISOR_KEEP] = "keep",
	[ADVISOR_GROW] = "grow",
	[ADVISOR_GROW_CAPPED] = "capped",
	[ADVISOR_SHRINK] = "shrink",
	[ADVISOR_UNKNOWN] = "unknown",
};

const char *
advisor_verdict_name(AdvisorVerdict verdict)
{
	if ((int) verdict < 0 || verdict > ADVISOR_UNKNOWN)
		return "unknown";
	return verdict_names[verdict];
}

/*
 * Bytes from a double: a rate from a hostile trace (a WAL position that
 * jumps by exabytes in a microsecond) must not reach a conversion outside
 * uint64_t's range, which is undefined.
 */
static uint64_t
bytes_from_double(double bytes)
{
	if (!(bytes > 0))
		return 0;
	if (!(bytes < MAX_CYCLE_BYTES))
		return (uint64_t) MAX_CYCLE_BYTES;
	return (uint64_t) bytes;
}

void
advisor_default_options(AdvisorOptions *options)
{
	memset(options, 0, sizeof(*options));
	options->window_s = 0;
	options->sample_interval_s = WALSIZER_SAMPLE_INTERVAL_MS_DEFAULT / 1000.0;
	options->max_mb = WALSIZER_MAX_MB_DEFAULT;
	options->max_recovery_s = WALSIZER_MAX_RECOVERY_TIME_S_DEFAULT;
	options->replay_rate_bytes_s = 0;
}

/*
 * Pages one checkpoint_timeout of a table's load can change: at most the
 * table's own pages, and at most one per row changed in that time (rows
 * changed over the run, scaled to timeout_s); the same for its indexes,
 * one leaf page per new entry in each.  A table that changed no row
 * contributes nothing: appended pages are new, and are logged as records,
 * not as images of old pages.
 */
void
advisor_working_set_add_table(AdvisorWorkingSet *ws, int64_t heap_pages,
							  int64_t index_pages, int index_count,
							  int64_t rows_changed, int64_t index_entries_added,
							  double run_s, double timeout_s)
{
	double		per_cycle;
	double		pages = 0;

	if (!(run_s > 0) || !(timeout_s > 0))
		return;
	per_cycle = timeout_s / run_s;
	if (rows_changed > 0 && heap_pages > 0)
		pages += fmin((double) heap_pages, (double) rows_changed * per_cycle);
	if (index_entries_added > 0 && index_pages > 0 && index_count > 0)
		pages += fmin((double) index_pages,
					  (double) index_entries_added * index_count * per_cycle);
	if (pages <= 0)
		return;
	ws->pages += (int64_t) ceil(pages);
	ws->tables++;
}

/* --- Sampling ------------------------------------------------------------ */

/*
 * Without pg_control_checkpoint(), the redo pointer is inferred: a
 * checkpoint counted since the last sample moved it to about where WAL
 * was then.  The counters see a checkpoint only when it completes, so the
 * cycles this measures lag the real ones by a checkpoint's duration.
 */
static void
infer_redo(Advisor *adv, WalsizerSample *sample, const WalsizerSample *previous)
{
	int64_t		checkpoints = sample->timed + sample->requested;

	if (adv->facts.redo_known)
		return;
	if (previous == NULL)
	{
		adv->inferred_redo_lsn = sample->insert_lsn;
		adv->inferred_checkpoints = checkpoints;
	}
	else if (sample->counters_reset_at != previous->counters_reset_at)
	{
		/* a reset of the counters is not a checkpoint: count from here */
		adv->inferred_checkpoints = checkpoints;
	}
	else if (checkpoints != adv->inferred_checkpoints)
	{
		adv->inferred_redo_lsn = previous->insert_lsn;
		adv->inferred_checkpoints = checkpoints;
	}
	sample->redo_lsn = adv->inferred_redo_lsn;
}

static uint64_t
fpi_bytes_between(const WalsizerSample *before, const WalsizerSample *after,
				  int64_t block_bytes)
{
	if (after->wal_reset_at != before->wal_reset_at)
		return 0;
	if (after->fpi_bytes_counted && before->fpi_bytes_counted)
		return after->wal_fpi_bytes > before->wal_fpi_bytes ?
			after->wal_fpi_bytes - before->wal_fpi_bytes : 0;
	if (after->wal_fpi > before->wal_fpi)
		return (uint64_t) (after->wal_fpi - before->wal_fpi) *
			(uint64_t) (block_bytes > 0 ? block_bytes : FULL_PAGE_IMAGE_BYTES);
	return 0;
}

static uint64_t
stat_bytes_between(const WalsizerSample *before, const WalsizerSample *after)
{
	if (after->wal_reset_at != before->wal_reset_at ||
		after->wal_stat_bytes < before->wal_stat_bytes)
		return 0;
	return after->wal_stat_bytes - before->wal_stat_bytes;
}

void
advisor_start(Advisor *adv, const AdvisorServerFacts *facts,
			  const AdvisorOptions *options, const WalsizerSample *first)
{
	WalsizerSample sample = *first;

	memset(adv, 0, sizeof(*adv));
	adv->facts = *facts;
	/* the role is each sample's: the server's may change during the run */
	adv->facts.standby = sample.standby;
	adv->options = *options;
	adv->measure_settings.segment_bytes = facts->segment_bytes;
	adv->measure_settings.checkpoint_timeout_s = facts->checkpoint_timeout_s;
	adv->measure_settings.completion_target = facts->completion_target;
	adv->measure_settings.window_s = options->window_s > 0 ?
		options->window_s : facts->checkpoint_timeout_s;
	adv->measure_settings.sample_interval_ms =
		(int) lround(options->sample_interval_s * 1000.0);
	infer_redo(adv, &sample, NULL);
	walsizer_measure_start(&adv->measure, &sample, &adv->measure_settings);
	adv->first = sample;
	adv->latest = sample;
	adv->samples = 1;
}

/*
 * The server was promoted (or became a standby) at this sample: the
 * window in progress ends, into *ended (true if it was not empty), and
 * the measurement forgets the old role's checkpoints, as the worker's
 * does (walsizer_measure_role_changed()).
 */
static bool
role_changed(Advisor *adv, const WalsizerSample *sample, AdvisorWindow *ended)
{
	bool		window_ended = advisor_finish_window(adv, ended);

	/*
	 * From outside, an end of recovery reads as a promotion (the usual
	 * one): the first redo move after it is then not judged, which can
	 * only leave a forced checkpoint uncounted, never count one.
	 */
	walsizer_measure_role_changed(&adv->measure, sample, &adv->measure_settings,
								  !sample->standby);
	adv->facts.standby = sample->standby;
	/* the counters may count restartpoints before and checkpoints after */
	adv->inferred_checkpoints = sample->timed + sample->requested;
	return window_ended;
}

/*
 * Add a sample; when it ends a window, fill *ended and return true.  A
 * sample from before the latest one (a clock that went back) is ignored.
 */
bool
advisor_add(Advisor *adv, const WalsizerSample *in, AdvisorWindow *ended)
{
	WalsizerSample sample = *in;
	bool		window_ended = false;

	if (sample.at_us <= adv->latest.at_us)
		return false;
	if (sample.standby != adv->latest.standby)
		window_ended = role_changed(adv, &sample, ended);
	infer_redo(adv, &sample, &adv->latest);
	adv->fpi_bytes += fpi_bytes_between(&adv->latest, &sample,
										adv->facts.block_bytes);
	adv->stat_bytes += stat_bytes_between(&adv->latest, &sample);
	walsizer_measure_add(&adv->measure, &sample, &adv->measure_settings);
	adv->latest = sample;
	adv->samples++;
	if (window_ended || !walsizer_measure_window_due(&adv->measure))
		return window_ended;
	return advisor_finish_window(adv, ended);
}

/*
 * End the window in progress, at its full length or (at the end of the
 * run) before; false when it is empty.
 */
bool
advisor_finish_window(Advisor *adv, AdvisorWindow *ended)
{
	WalsizerMeasurements m;
	const WalsizerSample *start = &adv->measure.window.sample;
	uint64_t	stat_bytes;

	walsizer_measure_get(&adv->measure, true, false, &adv->measure_settings, &m);
	if (!(m.window_s > 0))
		return false;

	memset(ended, 0, sizeof(*ended));
	ended->ended_at_s = (double) (adv->latest.at_us - adv->first.at_us) /
		USECS_PER_SECOND;
	ended->seconds = m.window_s;
	ended->wal_bytes = m.wal_bytes;
	ended->timed = m.timed;
	ended->requested = m.requested;
	ended->wal_forced = m.wal_forced;
	ended->max_wal_size_mb = adv->latest.max_wal_size_mb;
	stat_bytes = stat_bytes_between(start, &adv->latest);
	if (stat_bytes > 0)
		ended->fpi_share = fmin(1.0, (double) fpi_bytes_between(start, &adv->latest,
																adv->facts.block_bytes) /
								(double) stat_bytes);

	adv->total.seconds += ended->seconds;
	adv->total.wal_bytes += ended->wal_bytes;
	adv->total.timed += ended->timed;
	adv->total.requested += ended->requested;
	adv->total.wal_forced += ended->wal_forced;
	adv->total.ended_at_s = ended->ended_at_s;
	adv->total.max_wal_size_mb = ended->max_wal_size_mb;

	walsizer_measure_end_window(&adv->measure, &m, &adv->measure_settings);
	return true;
}

/* --- Recommending -------------------------------------------------------- */

static void
policy_settings(const Advisor *adv, double replay_rate, WalsizerSettings *s)
{
	memset(s, 0, sizeof(*s));
	s->current_mb = adv->latest.max_wal_size_mb;
	s->segment_bytes = adv->facts.segment_bytes;
	s->checkpoint_timeout_s = adv->facts.checkpoint_timeout_s;
	s->completion_target = adv->facts.completion_target;
	/* the extension's defaults */
	s->threshold = 2;
	s->ratio = 0.33;
	s->headroom = WALSIZER_HEADROOM_DEFAULT;
	s->max_mb = adv->options.max_mb;
	/*
	 * The size the server runs with is what the advice judges, not a
	 * floor: with walsizer.min unset the policy would take it for the
	 * DBA's own value, never shrink below it, and no advice could be to
	 * shrink.  max_wal_size's own minimum is the only floor.  The
	 * baseline stays the current size: one above --max is the DBA's, not
	 * a size walsizer set and must take back down at once.
	 */
	s->min_mb = MIN_SIZE_SEGMENTS * walsizer_segment_mb(adv->facts.segment_bytes);
	s->baseline_mb = s->current_mb;
	s->disk_cap_mb = 0;			/* the disk cannot be seen from a client */
	s->recovery_cap_mb = walsizer_recovery_cap_mb(adv->options.max_recovery_s,
												  replay_rate);
	/* one decision on the whole run: a quiet run is a quiet window */
	s->shrink_after = 1;
	s->cooldown = 0;
	s->sample_interval_s = adv->options.sample_interval_s;
}

/*
 * The run's load as the image model takes it: the records at the run's
 * rate, its images over its checkpoints (each starts them over) as one
 * cycle's, and the working set from the table statistics, in the server's
 * blocks.  A run without a checkpoint is one cycle, as long as the run.
 */
static void
run_load(const Advisor *adv, const AdvisorWorkingSet *ws, WalsizerLoad *load)
{
	int64_t		checkpoints = adv->total.timed + adv->total.requested;
	double		share = adv->stat_bytes > 0 ?
		fmin(1.0, (double) adv->fpi_bytes / (double) adv->stat_bytes) : 0;
	double		cycles = checkpoints > 0 ? (double) checkpoints : 1;

	memset(load, 0, sizeof(*load));
	if (!(adv->total.seconds > 0))
		return;
	load->cycle_s = adv->total.seconds / cycles;
	load->fpi_bytes_per_cycle = (double) adv->total.wal_bytes * share / cycles;
	load->record_bytes_s = (double) adv->total.wal_bytes * (1.0 - share) /
		adv->total.seconds;
	load->working_set_bytes = (double) ws->pages *
		(double) (adv->facts.block_bytes > 0 ?
				  adv->facts.block_bytes : FULL_PAGE_IMAGE_BYTES);
}

/*
 * The run as one window: the counts of all windows, the rest as measured
 * at its end.  Where WAL forced checkpoints, the cycle the policy sizes
 * from is predicted, not measured, unless a whole timed cycle measured
 * within the horizon wrote more: the prediction comes from the run's
 * averages, and a load that forced a checkpoint needs no less than its
 * heaviest whole cycle.  Say from what in advice->basis.
 */
static void
run_measurements(const Advisor *adv, const AdvisorWorkingSet *ws,
				 WalsizerMeasurements *m, Advice *advice)
{
	double		timeout_s = adv->facts.checkpoint_timeout_s;
	int64_t		checkpoints = adv->total.timed + adv->total.requested;
	uint64_t	measured;
	uint64_t	predicted = 0;

	walsizer_measure_get(&adv->measure, true, false, &adv->measure_settings, m);
	m->window_ended_early = false;
	m->counters_reset = false;
	m->window_s = adv->total.seconds;
	m->timed = adv->total.timed;
	m->requested = adv->total.requested;
	m->wal_forced = adv->total.wal_forced;
	m->wal_bytes = adv->total.wal_bytes;
	/*
	 * No imminent checkpoint: the worker reacts to one within seconds and
	 * settles the growth later, but the advisor answers once, and its last
	 * sample falling on the full-page images at a cycle's start must not
	 * be the answer.  (Nor could it tell: pg_control_checkpoint() shows the
	 * redo pointer of the last completed checkpoint, not of the one in
	 * progress that PostgreSQL measures its trigger from.)  What decides is
	 * the run: the checkpoints forced in it and the cycle it needs.
	 */
	m->recent_rate_valid = false;
	m->reach_bytes = 0;
	measured = m->timed_cycle_peak_bytes;
	run_load(adv, ws, &advice->load);

	/*
	 * A standby's restartpoints can only follow the primary's checkpoints,
	 * so their cycles say nothing of its size: the policy sizes it from
	 * the WAL it replays over whole checkpoint_timeouts, and there is no
	 * cycle to predict.
	 */
	if (m->standby)
	{
		advice->cycle_bytes = bytes_from_double(m->whole_timeouts_rate * timeout_s);
		if (advice->cycle_bytes > 0)
			snprintf(advice->basis, sizeof(advice->basis),
					 "standby: the WAL it replays over whole %.0f s checkpoint_timeouts, at most %.0f MB per checkpoint_timeout (its restartpoints only follow the primary's checkpoints)",
					 timeout_s, (double) advice->cycle_bytes / BYTES_PER_MB_DOUBLE);
		else
			snprintf(advice->basis, sizeof(advice->basis),
					 "standby: no whole %.0f s checkpoint_timeout of replayed WAL was measured",
					 timeout_s);
		return;
	}

	if (adv->total.wal_forced > 0 && checkpoints > 0 && timeout_s > 0)
	{
		double		cycle_s = advice->load.cycle_s;
		double		fpi_per_cycle = advice->load.fpi_bytes_per_cycle;
		double		record_rate = advice->load.record_bytes_s;
		double		set_bytes = advice->load.working_set_bytes;

		predicted = walsizer_predicted_cycle_bytes(record_rate, fpi_per_cycle,
												   cycle_s, set_bytes, timeout_s);
		if (predicted >= measured)
		{
			m->timed_cycle_peak_bytes = predicted;
			m->peak_rate = (double) predicted / timeout_s;
			m->peak_covers_cycle = false;
			advice->cycle_predicted = true;
			advice->cycle_bytes = predicted;
			advice->working_set_pages = ws->pages;
			if (ws->pages > 0)
				snprintf(advice->basis, sizeof(advice->basis),
						 "checkpoints every %.1f s: no whole %.0f s cycle to measure; %.1f MB/s of records, %.0f MB of full-page images per cycle, over %.0f MB of pages the load changes (%d tables): %.0f MB per %.0f s cycle",
						 cycle_s, timeout_s, record_rate / BYTES_PER_MB_DOUBLE,
						 fpi_per_cycle / BYTES_PER_MB_DOUBLE, set_bytes / BYTES_PER_MB_DOUBLE,
						 ws->tables, (double) predicted / BYTES_PER_MB_DOUBLE, timeout_s);
			else
				snprintf(advice->basis, sizeof(advice->basis),
						 "checkpoints every %.1f s: no whole %.0f s cycle to measure; %.1f MB/s of records, %.0f MB of full-page images per cycle: at most %.0f MB per %.0f s cycle (no table statistics: images taken to grow with the cycle, which overstates)",
						 cycle_s, timeout_s, record_rate / BYTES_PER_MB_DOUBLE,
						 fpi_per_cycle / BYTES_PER_MB_DOUBLE,
						 (double) predicted / BYTES_PER_MB_DOUBLE, timeout_s);
			return;
		}
	}

	if (measured > 0)
	{
		advice->cycle_bytes = measured;
		if (adv->total.wal_forced > 0)
			snprintf(advice->basis, sizeof(advice->basis),
					 "measured: the heaviest whole %.0f s checkpoint cycle wrote %.0f MB, more than the %.0f MB predicted from the run's averages",
					 timeout_s, (double) measured / BYTES_PER_MB_DOUBLE,
					 (double) predicted / BYTES_PER_MB_DOUBLE);
		else
			snprintf(advice->basis, sizeof(advice->basis),
					 "measured: the heaviest whole %.0f s checkpoint cycle wrote %.0f MB",
					 timeout_s, (double) measured / BYTES_PER_MB_DOUBLE);
	}
	else
	{
		advice->cycle_bytes = bytes_from_double(m->peak_rate * timeout_s);
		snprintf(advice->basis, sizeof(advice->basis),
				 "no whole checkpoint cycle was measured; the WAL rate over the run stands for one");
		if (adv->total.seconds > 0 &&
			(double) adv->total.wal_bytes / adv->total.seconds > m->peak_rate)
		{
			m->peak_rate = (double) adv->total.wal_bytes / adv->total.seconds;
			advice->cycle_bytes = bytes_from_double(m->peak_rate * timeout_s);
		}
	}
}

static void
effect(const Advisor *adv, const WalsizerSettings *s, Advice *advice)
{
	double		timeout_s = adv->facts.checkpoint_timeout_s;
	uint64_t	trigger;

	advice->forced_per_hour_now = adv->total.seconds > 0 ?
		(double) adv->total.wal_forced * SECONDS_PER_HOUR / adv->total.seconds : 0;
	/*
	 * After: a cycle that fits under the recommended size's trigger forces
	 * nothing; one that does not is cut short each time it reaches it.
	 */
	trigger = walsizer_trigger_bytes(advice->recommended_mb, s->segment_bytes,
									 s->completion_target);
	if (advice->cycle_bytes == 0 || !(timeout_s > 0))
		advice->forced_per_hour_after = advice->verdict == ADVISOR_KEEP ?
			advice->forced_per_hour_now : 0;
	else if (advice->cycle_bytes <= trigger)
		advice->forced_per_hour_after = 0;
	else
		advice->forced_per_hour_after = SECONDS_PER_HOUR /
			(timeout_s * (double) trigger / (double) advice->cycle_bytes);
}

/*
 * The what-if table at the run's load, the policy's cap and the replay
 * rate given or assumed.  A standby's checkpoints follow its primary's,
 * whatever its size: no table for it.
 */
static void
what_if(const Advisor *adv, const WalsizerSettings *s, Advice *advice)
{
	WalsizerWhatIfInput in;

	memset(&in, 0, sizeof(in));
	in.load = advice->load;
	in.segment_bytes = s->segment_bytes;
	in.checkpoint_timeout_s = s->checkpoint_timeout_s;
	in.completion_target = s->completion_target;
	in.replay_bytes_per_s = advice->replay_rate_bytes_s;
	/* the SQL API's names: --replay-rate is walsizer.replay_rate */
	in.replay_rate_source = advice->replay_rate_assumed ? "assumed" : "setting";
	in.cap_mb = advice->cap_mb;
	in.cap_source = advice->cap_source;
	in.wal_room_mb = 0;			/* the disk cannot be seen from a client */
	in.current_mb = advice->current_mb;
	in.recommended_mb = advice->recommended_mb;
	in.asked_mb = adv->options.what_if_mb;
	in.asked_count = adv->options.what_if_count;
	walsizer_what_if(&in, &advice->what_if);
	advice->what_if_done = true;
}

void
advisor_recommend(const Advisor *adv, const AdvisorWorkingSet *ws,
				  Advice *advice)
{
	WalsizerSettings s;
	WalsizerMeasurements m;
	WalsizerPolicyState state;
	WalsizerDecision d;
	double		replay_rate = adv->options.replay_rate_bytes_s;

	memset(advice, 0, sizeof(*advice));
	advice->what_if_asked = adv->options.what_if;
	advice->replay_rate_assumed = !(replay_rate > 0);
	if (advice->replay_rate_assumed)
		replay_rate = ADVISOR_ASSUMED_REPLAY_RATE;
	advice->replay_rate_bytes_s = replay_rate;
	advice->current_mb = adv->latest.max_wal_size_mb;
	advice->recommended_mb = advice->current_mb;
	advice->seconds = adv->total.seconds;
	advice->wal_bytes = adv->total.wal_bytes;
	advice->timed = adv->total.timed;
	advice->requested = adv->total.requested;
	advice->wal_forced = adv->total.wal_forced;
	if (adv->stat_bytes > 0)
		advice->fpi_share = fmin(1.0, (double) adv->fpi_bytes /
								 (double) adv->stat_bytes);

	if (adv->samples < 2 || !(adv->total.seconds > 0))
	{
		advice->verdict = ADVISOR_UNKNOWN;
		snprintf(advice->reason, sizeof(advice->reason),
				 "too little was measured: %lld samples over %.0f s",
				 (long long) adv->samples, adv->total.seconds);
		return;
	}

	policy_settings(adv, replay_rate, &s);
	run_measurements(adv, ws, &m, advice);
	walsizer_policy_init_state(&state);
	state.windows_since_change = WINDOWS_LONG_AGO;
	walsizer_decide(&s, &m, &state, &d);

	advice->needed_mb = d.needed_mb;
	advice->cap_mb = d.cap_mb;
	advice->cap_source = d.cap_source;
	snprintf(advice->reason, sizeof(advice->reason), "%s", d.reason);
	switch (d.action)
	{
		case WALSIZER_ACTION_GROW:
			advice->verdict = ADVISOR_GROW;
			advice->recommended_mb = d.new_mb;
			break;
		case WALSIZER_ACTION_CAPPED:
			/* already at the cap: nothing to apply, though the load needs more */
			advice->verdict = d.new_mb > advice->current_mb ?
				ADVISOR_GROW_CAPPED : ADVISOR_KEEP;
			advice->recommended_mb = d.new_mb > advice->current_mb ?
				d.new_mb : advice->current_mb;
			break;
		case WALSIZER_ACTION_SHRINK:
			/*
			 * The worker shrinks after walsizer.shrink_after quiet windows;
			 * the advisor's one window must at least hold a whole cycle,
			 * or a pause between two busy minutes would pass for a quiet
			 * server.
			 */
			if (adv->total.seconds < adv->facts.checkpoint_timeout_s)
			{
				advice->verdict = ADVISOR_KEEP;
				snprintf(advice->reason, sizeof(advice->reason),
						 "the load measured needs less than half of %lld MB, but %.0f s is less than one checkpoint_timeout (%.0f s): too short a run to recommend less",
						 (long long) advice->current_mb, adv->total.seconds,
						 adv->facts.checkpoint_timeout_s);
				break;
			}
			advice->verdict = ADVISOR_SHRINK;
			advice->recommended_mb = d.new_mb;
			/* the worker's reason counts its quiet windows; here the run is one */
			snprintf(advice->reason, sizeof(advice->reason),
					 "over the whole run (%.0f s) the load needed at most %lld MB, under half of %lld MB; down by at most half at a time, as the extension shrinks",
					 adv->total.seconds, (long long) advice->needed_mb,
					 (long long) advice->current_mb);
			break;
		default:
			advice->verdict = ADVISOR_KEEP;
			break;
	}
	effect(adv, &s, advice);
	advice->estimated_recovery_s =
		walsizer_estimated_recovery_s(advice->recommended_mb,
									  s.completion_target, advice->cycle_bytes,
									  0, replay_rate);
	if (adv->options.what_if && !m.standby)
		what_if(adv, &s, advice);
}
