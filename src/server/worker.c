/*-------------------------------------------------------------------------
 *
 * worker.c
 *		The pg_walsizer background worker: sample, measure, decide, act,
 *		record.
 *
 * Every walsizer.sample_interval the worker reads the WAL insert position,
 * the redo pointer and the checkpoint counters (all cheap) and hands them
 * to measure.c, which keeps the rate history and the window in progress.
 * The pure policy (policy.c) decides on those measurements: at every
 * sample for what cannot wait (protecting the WAL volume, a projected
 * forced checkpoint), at each window end (by default one
 * checkpoint_timeout) for the rest.  act.c carries a decision out through
 * ALTER SYSTEM, and record.c keeps the history and the figures
 * walsizer.status() shows.
 *
 * On a hot standby the worker runs too (it starts at the consistent
 * state): the WAL position it samples is the replay position and the redo
 * pointer the last restartpoint's, and the policy sizes the standby for
 * the WAL it replays.  A promotion changes the role under the running
 * worker, which keeps its history and size (wsw_role_changed()).
 *
 * The worker never fights the DBA: size_owner.c holds the rules of who
 * owns max_wal_size and when walsizer may write it, and size_owner_server.c
 * feeds it what the server runs, the configuration files as loaded (read
 * after every reload, config_files.c) and the DBA's ALTER SYSTEM
 * statements, and carries out what it concludes.
 *
 * Data flows one way through an iteration, and nothing but this file
 * reads the server's globals for the pure modules:
 *
 *		wsw_sample()  ->  walsizer_measure_get()  ->  walsizer_decide()
 *		    -> walsizer_act()  ->  walsizer_publish()
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/bgwriter.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "act.h"
#include "compat.h"
#include "alter_system.h"
#include "disk_space.h"
#include "held_wal_server.h"
#include "measure.h"
#include "monotonic_clock.h"
#include "policy.h"
#include "record.h"
#include "recovery_bound_server.h"
#include "server_sample.h"
#include "shared_state.h"
#include "size_owner_server.h"
#include "stats_reader.h"
#include "test_hold.h"
#include "walsizer.h"

/* How often free space on the WAL volume is measured. */
#define DISK_REFRESH_MS 10000

/*
 * At a window end the policy's counters (the cooldown, the quiet windows)
 * are saved when the state file was last saved this long ago or more, so
 * that a crash loses little of a long quiet spell.  A clean stop saves
 * them too.
 */
#define COUNTERS_SAVE_INTERVAL_S 10

/*
 * How long after a stop on pg_terminate_backend() or an error the
 * postmaster starts the worker again (bgw_restart_time).
 */
#define WALSIZER_RESTART_TIME_S 5

/* The worker's own memory; shared figures live in walsizer_shared. */
/* Times named *_us are on the monotonic clock (monotonic_clock.h). */
typedef struct WorkerState
{
	WalsizerMeasure measure;	/* samples turned into measurements */
	int64		next_sample_us;
	bool		was_enabled;	/* walsizer.enable at the previous sample */

	int64		disk_measured_us;	/* 0: measure at the next sample */
	int64		disk_cap_mb;	/* disk_fraction of the WAL volume, 0 unknown */
	double		disk_cap_fraction;	/* walsizer.disk_fraction it was taken at */
	int64		disk_cap_without_held_mb;	/* the share were no WAL held,
											 * 0 unknown */
	WalsizerHeldWal held;		/* WAL slots, wal_keep_size, the archiver hold */
	bool		held_known;		/* held was measured */
	int64		counters_saved_us;	/* the policy's counters last saved */

	int64		floor_warned_mb;	/* clamped floor last warned about */
	int64		dba_above_cap_warned_mb;	/* DBA size last warned about */
} WorkerState;

static WorkerState ws;

/* --- Sampling ------------------------------------------------------------- */

static void
wsw_refresh_disk_cap(int64 now_us)
{
	if (ws.disk_measured_us == 0 ||
		now_us - ws.disk_measured_us >= DISK_REFRESH_MS * 1000)
	{
		int64		measured;

		ws.held_known = walsizer_measure_held_wal(&ws.held);
		measured = walsizer_measure_disk_cap_mb(walsizer_disk_fraction,
												ws.held.bytes,
												&ws.disk_cap_without_held_mb);

		/* jitter keeps the cap (policy.c); a new fraction is the DBA's */
		ws.disk_cap_mb = walsizer_disk_cap_mb(ws.disk_cap_fraction == walsizer_disk_fraction ?
											  ws.disk_cap_mb : 0,
											  measured, wal_segment_size);
		ws.disk_cap_fraction = walsizer_disk_fraction;
		ws.disk_measured_us = now_us;
	}
}

/*
 * The standby this worker runs on was promoted (or an archive recovery
 * ended: then its end-of-recovery checkpoint has completed, and nothing
 * is left to wait for; see walsizer_measure_role_changed).  The size it set for the
 * WAL it replayed is the size the load needs here, and the history and
 * the WAL rate go on; only what described restartpoints starts afresh
 * (walsizer_measure_role_changed).
 */
static void
wsw_role_changed(const WalsizerSample *sample, const WalsizerMeasureSettings *set)
{
	walsizer_measure_role_changed(&ws.measure, sample, set,
								  !sample->standby && PromoteIsTriggered());
	ereport(LOG,
			(errmsg("pg_walsizer: the server is now a %s; max_wal_size %d MB is kept",
					sample->standby ? "standby" : "primary", max_wal_size_mb),
			 sample->standby ? 0 :
			 errdetail("It was sized for the WAL this server replayed as a standby.")));
}

/* Take a sample and add it to what measure.c has measured. */
static void
wsw_sample(int64 now_us)
{
	WalsizerSample sample;
	WalsizerMeasureSettings set;

	walsizer_read_sample(now_us, &sample);
	walsizer_read_measure_settings(&set);
	if (sample.standby != ws.measure.latest.standby)
		wsw_role_changed(&sample, &set);
	walsizer_measure_add(&ws.measure, &sample, &set);
	wsw_refresh_disk_cap(now_us);
	walsizer_recovery_track_checkpoint();

	/* what happened while walsizer was off (a bulk load, say) is no evidence */
	if (walsizer_enable && !ws.was_enabled)
		walsizer_measure_forget_load(&ws.measure, &set);
	ws.was_enabled = walsizer_enable;
}

/* The policy's input, and beside it the figures only status() shows. */
static void
wsw_measurements(bool window_end, WalsizerMeasurements *m,
				 WalsizerStatusFigures *figures)
{
	WalsizerMeasureSettings set;

	walsizer_read_measure_settings(&set);
	walsizer_measure_get(&ws.measure, window_end,
						 walsizer_tracking_owner()->answers_our_choice, &set, m);
	walsizer_measure_status_figures(&ws.measure, figures);
}

/* --- Deciding ------------------------------------------------------------ */

static void
wsw_warn_about_settings(const WalsizerDecision *d)
{
	/*
	 * walsizer.min above the cap: say which floor is used, again whenever it
	 * changes.  A DBA's own max_wal_size above the cap has its own warning.
	 */
	if (d->floor_clamped && walsizer_min_mb > 0 &&
		ws.floor_warned_mb != d->floor_mb)
		ereport(WARNING,
				(errmsg("pg_walsizer floor is above its cap; using %lld MB as the floor",
						(long long) d->floor_mb),
				 errhint("Lower walsizer.min or raise walsizer.max.")));
	ws.floor_warned_mb = d->floor_clamped ? d->floor_mb : 0;

	if (d->old_mb > d->cap_mb && ws.dba_above_cap_warned_mb != d->old_mb &&
		d->action == WALSIZER_ACTION_NONE)
	{
		ereport(WARNING,
				(errmsg("max_wal_size %lld MB is above pg_walsizer's cap of %lld MB",
						(long long) d->old_mb, (long long) d->cap_mb),
				 errdetail("It was set outside pg_walsizer, which does not lower it."),
				 errhint("Raise walsizer.max to let pg_walsizer manage this server.")));
		ws.dba_above_cap_warned_mb = d->old_mb;
	}
}

static WalsizerPolicyState
wsw_policy_state(void)
{
	WalsizerPolicyState state;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	state = walsizer_shared->persistent.policy;
	LWLockRelease(walsizer_shared->lock);
	return state;
}

/*
 * Decide on the measurements and carry the decision out.  Only decisions
 * the policy wants kept advance its state (walsizer_decision_keeps_state),
 * and only once carried out: a change that failed or was postponed
 * consumes none of it, and is decided again (size_owner.c's rule 4).
 */
static void
wsw_decide_and_act(const WalsizerMeasurements *m, int64 now_us)
{
	WalsizerSettings settings;
	WalsizerPolicyState state = wsw_policy_state();
	WalsizerDecision decision;
	WalsizerActContext ctx = walsizer_tracking_act_context(now_us);
	WalsizerActOutcome outcome;

	walsizer_read_policy_settings(&settings, ws.disk_cap_mb);
	walsizer_decide(&settings, m, &state, &decision);
	if (!walsizer_enable)
		return;

	wsw_warn_about_settings(&decision);
	if (!walsizer_decision_keeps_state(m, &decision))
		return;
	outcome = walsizer_act(&decision, m, &ctx);
	if (outcome == WALSIZER_ACT_NOT_DONE)
		return;
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->persistent.policy = decision.state;
	LWLockRelease(walsizer_shared->lock);
	if (outcome == WALSIZER_ACT_WRITTEN && !m->standby)
	{
		/*
		 * WAL measured at the old size (with its extra checkpoints and
		 * full-page images) says little about the new one: measure afresh.
		 * Not on a standby: the WAL it replays is the primary's, whatever
		 * its own size.
		 */
		walsizer_measure_size_changed(&ws.measure);
	}
}

/* What walsizer would do if the window ended now, for status(). */
static void
wsw_plan(const WalsizerMeasurements *m, bool window_just_ended,
		 WalsizerDecision *plan)
{
	WalsizerMeasurements preview = *m;
	WalsizerSettings settings;
	WalsizerPolicyState state = wsw_policy_state();

	preview.window_end = !window_just_ended && preview.window_s > 0;
	walsizer_read_policy_settings(&settings, ws.disk_cap_mb);
	walsizer_decide(&settings, &preview, &state, plan);
	if (!walsizer_enable)
		snprintf(plan->reason, sizeof(plan->reason),
				 "walsizer.enable is off; otherwise: %s", plan->reason);
	else if (walsizer_test_hold_covers(plan->action))
	{
		char		reason[WALSIZER_REASON_LEN];

		snprintf(reason, sizeof(reason),
				 "held by a test (walsizer_test_hold); then: %s", plan->reason);
		strlcpy(plan->reason, reason, sizeof(plan->reason));
	}
	else if (walsizer_act_postponed()[0] != '\0')
	{
		char		reason[WALSIZER_REASON_LEN];

		snprintf(reason, sizeof(reason),
				 "postponed until the configuration is reloaded (%s); then: %s",
				 walsizer_act_postponed(), plan->reason);
		strlcpy(plan->reason, reason, sizeof(plan->reason));
	}
}

/*
 * How long a crash at the worst moment of the current cycle would keep the
 * server down: the WAL of a cycle at the current load (the last complete
 * one; before any, the peak rate over a checkpoint_timeout) and the WAL
 * written during its checkpoint, at most max_wal_size, over the replay
 * rate, and never less than a crash would really have replayed in the
 * last few cycles.  The last cycle, not the heaviest in the horizon: the
 * first cycles after a start are full of full-page images and would
 * overstate it.
 */
static void
wsw_estimate_recovery(const WalsizerMeasurements *m,
					  const WalsizerStatusFigures *figures,
					  WalsizerIterationReport *report)
{
	WalsizerReplayRateSource source;
	uint64		cycle_bytes = figures->last_cycle_bytes;

	if (figures->last_cycle_s <= 0 && m->peak_rate > 0)
		cycle_bytes = (uint64) (m->peak_rate * CheckPointTimeout);
	report->recovery_cycle_bytes = cycle_bytes;
	report->replay_rate = walsizer_replay_rate(&source);
	report->replay_rate_source = source;
	report->estimated_recovery_s =
		walsizer_estimated_recovery_s(max_wal_size_mb,
									  CheckPointCompletionTarget,
									  cycle_bytes,
									  walsizer_recovery_seen_bytes(),
									  report->replay_rate);
}

/* --- The loop ------------------------------------------------------------ */

static bool
wsw_take_check_request(void)
{
	bool		requested;

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	requested = walsizer_shared->check_requested;
	walsizer_shared->check_requested = false;
	LWLockRelease(walsizer_shared->lock);
	return requested;
}

/*
 * One iteration: sample, measure, decide, act, and at a window end start
 * the next window; then publish the figures and the plan.
 */
static void
wsw_iteration(void)
{
	TimestampTz now = GetCurrentTimestamp();
	int64		now_us = walsizer_monotonic_us();
	WalsizerMeasureSettings set;
	WalsizerMeasurements m;
	WalsizerMeasurements ended;
	WalsizerStatusFigures figures;
	WalsizerDecision plan;
	WalsizerIterationReport report;
	bool		window_due;
	bool		window_end;
	bool		alter_system_allowed = walsizer_alter_system_allowed();

	char		source[WALSIZER_SOURCE_LEN];

	memset(&report, 0, sizeof(report));
	wsw_sample(now_us);
	window_due = walsizer_measure_window_due(&ws.measure);
	window_end = wsw_take_check_request() || window_due;
	walsizer_track_size(window_end, now_us, source, sizeof(source));

	wsw_measurements(window_end, &m, &figures);
	m.window_ended_early = window_end && !window_due;
	wsw_decide_and_act(&m, now_us);

	if (window_end)
	{
		if (m.counters_reset)
			ereport(LOG,
					(errmsg("pg_walsizer noticed a reset of the checkpoint statistics"),
					 errdetail("The checkpoint counts of the window that ended are unknown; its decision uses the WAL position and the redo pointer, which no reset changes.")));
		ended = m;
		report.ended = &ended;
		report.ended_fpi = walsizer_measure_window_fpi(&ws.measure);
		walsizer_read_measure_settings(&set);
		walsizer_measure_end_window(&ws.measure, &ended, &set);
		wsw_measurements(false, &m, &figures);

		if (now_us - ws.counters_saved_us >= COUNTERS_SAVE_INTERVAL_S * 1000000LL)
		{
			walsizer_state_save();
			ws.counters_saved_us = now_us;
		}
	}

	wsw_plan(&m, window_end, &plan);
	walsizer_held_wal_note_plan(&ws.held, ws.held_known,
								Min((int64) walsizer_max_mb, ws.disk_cap_without_held_mb),
								plan.cap_source == WALSIZER_CAP_DISK, plan.cap_mb,
								plan.old_mb, plan.needed_mb);
	walsizer_act_note_alter_system(alter_system_allowed);
	report.now = now;
	report.current = &m;
	report.figures = &figures;
	report.plan = &plan;
	/* the window's end, on the monotonic clock, as a time people read */
	report.next_window_at = now + (ws.measure.next_window_at_us - now_us);
	report.window_s = walsizer_window_length_s();
	report.disk_cap_mb = ws.disk_cap_mb;
	report.held_known = ws.held_known;
	report.held = ws.held;
	report.blocked = !alter_system_allowed;
	report.max_wal_size_source = source[0] != '\0' ? source : NULL;
	report.shadowed_mb = walsizer_tracking_shadowed_mb();
	wsw_estimate_recovery(&m, &figures, &report);
	walsizer_publish(&report);

	ws.next_sample_us = now_us + (int64) walsizer_sample_interval_ms * 1000;
}

static void
wsw_detach(int code, Datum arg)
{
	if (walsizer_shared == NULL)
		return;
	/*
	 * A stop on SIGTERM saved the state before exiting (see
	 * wsw_stop_on_request); after an error or a crash, what changed since
	 * the last save is lost.
	 */
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->worker_pid = 0;
	walsizer_shared->worker_latch = NULL;
	LWLockRelease(walsizer_shared->lock);
}

static void
wsw_initialize(void)
{
	TimestampTz now = GetCurrentTimestamp();
	int64		now_us = walsizer_monotonic_us();
	WalsizerSample first;
	WalsizerMeasureSettings set;
	bool		load;

	memset(&ws, 0, sizeof(ws));

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->worker_pid = MyProcPid;
	walsizer_shared->worker_latch = MyLatch;
	walsizer_shared->status.started_at = now;
	load = !walsizer_shared->state_loaded;
	walsizer_shared->state_loaded = true;
	LWLockRelease(walsizer_shared->lock);

	on_shmem_exit(wsw_detach, (Datum) 0);

	if (load)
		walsizer_state_load();
	walsizer_recovery_at_start();
	walsizer_tracking_start();

	ws.was_enabled = walsizer_enable;
	walsizer_read_sample(now_us, &first);
	walsizer_read_measure_settings(&set);
	walsizer_measure_start(&ws.measure, &first, &set);
	wsw_refresh_disk_cap(now_us);
	ws.next_sample_us = now_us;
	ws.counters_saved_us = now_us;

	ereport(LOG,
			(errmsg("pg_walsizer started%s: max_wal_size %d MB, window %.0f s, sample every %d ms%s%s",
					first.standby ? " on a standby" : "",
					max_wal_size_mb, walsizer_window_length_s(),
					walsizer_sample_interval_ms,
					walsizer_enable ? "" : ", disabled",
					walsizer_dry_run ? ", dry run" : "")));
}

static void
wsw_reload_config(void)
{
	WalsizerMeasureSettings set;

	ConfigReloadPending = false;
	walsizer_tracking_before_reload();
	ProcessConfigFile(PGC_SIGHUP);
	walsizer_alter_system_reloaded();
	walsizer_act_note_reload();
	/* a postgresql.conf edit postgresql.auto.conf shadows: the next sample */
	walsizer_tracking_after_reload();
	/* walsizer.disk_fraction may have changed: measure again now */
	ws.disk_measured_us = 0;
	/* a new window length applies from the current window's start */
	walsizer_read_measure_settings(&set);
	walsizer_measure_window_length_changed(&ws.measure, &set);
}

/*
 * SIGTERM comes from the postmaster when the server stops, and from a
 * superuser's pg_terminate_backend() (a routine "terminate every other
 * backend" before maintenance hits the worker too); the worker cannot tell
 * them apart.  It saves its state and exits with code 1: the postmaster
 * starts a worker that exited non-zero again after bgw_restart_time, unless
 * the server is shutting down, and never restarts one that exited with 0.
 * PostgreSQL's own logical replication launcher stops the same way.
 */
static void
wsw_stop_on_request(void)
{
	ereport(LOG,
			(errmsg("pg_walsizer is stopping on a termination request; its state is saved"),
			 errdetail("Unless the server is shutting down, the postmaster starts pg_walsizer again in %d s.",
					   WALSIZER_RESTART_TIME_S)));
	walsizer_recovery_note_clean_stop();
	walsizer_state_save();
	proc_exit(1);
}

void
walsizer_worker_main(Datum main_arg)
{
	MemoryContext iteration_context;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);

	/*
	 * Not die(): it would exit at once, without saving the policy's
	 * counters.  A shutdown request ends the loop below at the next
	 * wake-up, and wsw_stop_on_request() saves them and exits.
	 */
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);

	/*
	 * A query cancel has no query to cancel here.  A routine "cancel every
	 * long-running backend" hits the worker too, and the backends' handler
	 * would raise an ERROR at its next interrupt check (the LOG line of a
	 * change is one), which a background worker turns into an exit without
	 * saving its state: a change already in postgresql.auto.conf would be
	 * missing from the history and the counters.
	 */
	pqsignal(SIGINT, PG_SIG_IGN);
	BackgroundWorkerUnblockSignals();

	/* no database: only the shared catalogs ALTER SYSTEM's checks read */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);

	iteration_context = AllocSetContextCreate(TopMemoryContext,
											  "pg_walsizer iteration",
											  ALLOCSET_DEFAULT_SIZES);
	wsw_initialize();

	for (;;)
	{
		int64		now_us = walsizer_monotonic_us();
		int64		wake_us = Min(ws.next_sample_us,
								  ws.measure.next_window_at_us);
		long		timeout_ms = 0;
		MemoryContext caller_context;

		if (wake_us > now_us)
			timeout_ms = (long) ((wake_us - now_us + 999) / 1000);
		if (timeout_ms > 0)
			(void) WaitLatch(MyLatch,
							 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 timeout_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		if (ShutdownRequestPending)
			break;
		if (ConfigReloadPending)
			wsw_reload_config();

		caller_context = MemoryContextSwitchTo(iteration_context);
		wsw_iteration();
		MemoryContextSwitchTo(caller_context);
		MemoryContextReset(iteration_context);
	}

	wsw_stop_on_request();
}

/* Called from _PG_init() while shared_preload_libraries are processed. */
void
walsizer_register_worker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	/*
	 * A hot standby is sized too (for the WAL it replays), so that it is
	 * ready when promoted; ALTER SYSTEM writes a file, not WAL, and works
	 * there.  A standby with hot_standby = off never reaches a consistent
	 * state for connections, and the worker starts at its promotion.
	 */
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = WALSIZER_RESTART_TIME_S;
	snprintf(worker.bgw_library_name, sizeof(worker.bgw_library_name),
			 "pg_walsizer");
	snprintf(worker.bgw_function_name, sizeof(worker.bgw_function_name),
			 "walsizer_worker_main");
	snprintf(worker.bgw_name, sizeof(worker.bgw_name), "pg_walsizer");
	snprintf(worker.bgw_type, sizeof(worker.bgw_type), "pg_walsizer");
	RegisterBackgroundWorker(&worker);
}
