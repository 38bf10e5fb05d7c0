/*-------------------------------------------------------------------------
 *
 * worker.c
 *		The pg_walsizer background worker: measure, decide, apply, record.
 *
 * The worker wakes every walsizer.sample_interval to read the WAL insert
 * position and the redo pointer (both cheap), and every window (by default
 * one checkpoint_timeout) to compare checkpoint counters.  From those it
 * builds a WalsizerMeasurements for the pure policy (policy.c), applies
 * what the policy decides through ALTER SYSTEM (apply_setting.c), and
 * records the decision in shared memory and the state file
 * (shared_state.c).
 *
 * Only checkpoints started by WAL volume are evidence that max_wal_size is
 * too small.  A CHECKPOINT command, a base backup or CREATE DATABASE also
 * bumps the "requested" counter, so the worker watches the redo pointer:
 * a checkpoint forced by WAL starts only after the insert position entered
 * segment redo_segment + CheckPointSegments - 1, so consecutive redo
 * pointers at least that far apart mark it.  The requested count is
 * capped by the number of such far moves.
 *
 * The worker never fights the DBA: when max_wal_size changes to a value
 * walsizer did not write, it adopts that value as its baseline and floor.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/bgwriter.h"
#include "postmaster/interrupt.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "apply_setting.h"
#include "policy.h"
#include "size_units.h"
#include "shared_state.h"
#include "stats_reader.h"
#include "walsizer.h"

/* WAL positions kept for the peak rate; older ones are thinned out. */
#define HISTORY_POINTS 4096
/*
 * The horizon over which the peak rate is taken: several windows, and at
 * least two checkpoint cycles so that it always holds whole cycles.
 */
#define HORIZON_WINDOWS 4
#define HORIZON_MIN_CYCLES 2
/*
 * The "recent" rate used for projections is taken over the last few
 * seconds: long enough to smooth one busy second, short enough to see a
 * new load coming before its first forced checkpoint.
 */
#define RECENT_SPAN_US (5 * USECS_PER_SEC)
#define RECENT_POINTS 64
#define RECENT_MIN_POINTS 3
#define RECENT_MIN_SPAN_US (2 * USECS_PER_SEC)
/* How often free space on the WAL volume is measured. */
#define DISK_REFRESH_MS 10000
/* A forced checkpoint may start in one window and be counted in the next. */
#define MAX_CARRIED_MOVES 2



typedef struct WalPoint
{
	TimestampTz at;
	XLogRecPtr	lsn;
} WalPoint;

/* A ring of WAL positions, oldest first through wsw_ring_at(). */
typedef struct WalRing
{
	WalPoint   *points;
	int			capacity;
	int			count;
	int			next;
} WalRing;

/* Baselines of the window in progress. */
typedef struct WindowStart
{
	TimestampTz at;
	XLogRecPtr	insert_lsn;
	WalsizerCounters counters;
	int64		far_redo_moves; /* redo moves far enough to be WAL-forced */
	bool		reset_seen;		/* counters were reset during the window */
} WindowStart;

typedef struct WorkerState
{
	WalRing		history;		/* for the peak rate over the horizon */
	WalRing		recent;			/* for the recent rate */
	TimestampTz last_history_at;

	XLogRecPtr	last_redo;
	TimestampTz last_redo_move_at;	/* 0 until a checkpoint was seen */
	int64		forced_since_change;	/* far redo moves since a size change */
	bool		size_is_ours;	/* the size in effect is the last one
								 * walsizer applied */
	int			max_wal_size_at_last_sample;
	XLogRecPtr	insert_lsn;
	uint64		wal_since_redo;

	WalsizerCounters counters;	/* latest reading */
	WindowStart window;
	TimestampTz next_sample_at;
	TimestampTz next_window_at;

	int64		known_mb;		/* the max_wal_size we know the server runs */
	int			pending_windows;	/* window ends since a change was written */

	TimestampTz disk_measured_at;
	int64		disk_cap_mb;
	bool		disk_error_reported;
	bool		blocked_reported;
	bool		was_enabled;	/* walsizer.enable at the previous sample */
	int64		floor_warned_mb;	/* clamped floor last warned about */
	int			dba_above_cap_warned_mb;
} WorkerState;

static WorkerState ws;

static double
window_length_s(void)
{
	return walsizer_interval_s > 0 ? walsizer_interval_s : CheckPointTimeout;
}

static double
seconds_between(TimestampTz start, TimestampTz stop)
{
	return (double) (stop - start) / USECS_PER_SEC;
}

/* --- WAL position rings ------------------------------------------------ */

static void
wsw_ring_init(WalRing *ring, int capacity)
{
	ring->points = MemoryContextAllocZero(TopMemoryContext,
										  sizeof(WalPoint) * capacity);
	ring->capacity = capacity;
	ring->count = 0;
	ring->next = 0;
}

static const WalPoint *
wsw_ring_at(const WalRing *ring, int i)
{
	int			oldest = (ring->next - ring->count + ring->capacity) %
		ring->capacity;

	return &ring->points[(oldest + i) % ring->capacity];
}

static void
wsw_ring_push(WalRing *ring, TimestampTz at, XLogRecPtr lsn)
{
	ring->points[ring->next].at = at;
	ring->points[ring->next].lsn = lsn;
	ring->next = (ring->next + 1) % ring->capacity;
	if (ring->count < ring->capacity)
		ring->count++;
}

/* Forget points older than the horizon. */
static void
wsw_ring_trim(WalRing *ring, TimestampTz oldest_kept)
{
	while (ring->count > 2 && wsw_ring_at(ring, 0)->at < oldest_kept)
		ring->count--;
}

/* Start the peak-rate history over, e.g. when the size changed. */
static void
wsw_restart_history(void)
{
	ws.history.count = 0;
	ws.last_history_at = 0;
}

static double
wsw_rate_between(const WalPoint *from, const WalPoint *to)
{
	double		span_s = seconds_between(from->at, to->at);

	if (span_s <= 0 || to->lsn < from->lsn)
		return 0;
	return (double) (to->lsn - from->lsn) / span_s;
}

/*
 * The worst WAL rate over one checkpoint_timeout in the horizon: what a
 * checkpoint cycle has to absorb.  Only whole checkpoint_timeout stretches
 * count, because the WAL right after a checkpoint is inflated by full-page
 * images and a short stretch would overstate the cycle.  Until the history
 * covers one checkpoint_timeout, the average over all of it stands in.
 */
static double
wsw_peak_rate(void)
{
	const WalRing *ring = &ws.history;
	int64		timeout_us = (int64) CheckPointTimeout * USECS_PER_SEC;
	double		peak = 0;
	int			from = 0;

	if (ring->count < 2)
		return 0;
	if (wsw_ring_at(ring, ring->count - 1)->at - wsw_ring_at(ring, 0)->at <
		timeout_us)
		return wsw_rate_between(wsw_ring_at(ring, 0),
								wsw_ring_at(ring, ring->count - 1));

	for (int to = 1; to < ring->count; to++)
	{
		const WalPoint *end = wsw_ring_at(ring, to);

		/* the latest start at least one checkpoint_timeout before the end */
		while (from + 1 < to &&
			   end->at - wsw_ring_at(ring, from + 1)->at >= timeout_us)
			from++;
		if (end->at - wsw_ring_at(ring, from)->at >= timeout_us)
			peak = Max(peak, wsw_rate_between(wsw_ring_at(ring, from), end));
	}
	return peak;
}

/*
 * The recent rate: the higher of the last RECENT_MIN_SPAN and the last
 * RECENT_SPAN.  When a load starts, the longer span still holds idle
 * seconds and would undersize the first change; when it stops, the longer
 * span remembers it a little longer.  Too high a first estimate is cheap
 * (a projected size settles once whole cycles are measured); too low a one
 * lets checkpoints be forced until the cooldown ends.
 */
static bool
wsw_recent_rate(double *rate)
{
	const WalRing *ring = &ws.recent;
	const WalPoint *newest;
	int			longest = 0;
	int			shortest;

	if (ring->count < RECENT_MIN_POINTS)
		return false;
	newest = wsw_ring_at(ring, ring->count - 1);
	while (longest < ring->count - RECENT_MIN_POINTS &&
		   newest->at - wsw_ring_at(ring, longest)->at > RECENT_SPAN_US)
		longest++;
	/* a fraction of a second of WAL says nothing about the next minutes */
	if (newest->at - wsw_ring_at(ring, longest)->at < RECENT_MIN_SPAN_US)
		return false;

	/* the latest point at least RECENT_MIN_SPAN before the newest */
	shortest = longest;
	while (shortest + 1 < ring->count &&
		   newest->at - wsw_ring_at(ring, shortest + 1)->at >= RECENT_MIN_SPAN_US)
		shortest++;

	*rate = Max(wsw_rate_between(wsw_ring_at(ring, longest), newest),
				wsw_rate_between(wsw_ring_at(ring, shortest), newest));
	return true;
}

/* Seconds until the checkpointer's next timed checkpoint, as best we know. */
static double
wsw_seconds_to_timed_checkpoint(TimestampTz now)
{
	double		timeout_s = CheckPointTimeout;
	double		elapsed;

	if (ws.last_redo_move_at == 0)
		return timeout_s;		/* unknown: assume a whole cycle */
	elapsed = seconds_between(ws.last_redo_move_at, now);
	/* skipped (idle) timed checkpoints restart the clock without a move */
	return timeout_s - fmod(Max(elapsed, 0), timeout_s);
}

/* --- Disk ------------------------------------------------------------------ */

/*
 * walsizer.disk_fraction of the space the WAL could use: what pg_wal holds
 * now plus what its filesystem has free.  statvfs() follows a pg_wal
 * symlink to the volume it points to.  0 means unknown.
 */
static int64
wsw_measure_disk_cap_mb(void)
{
	struct statvfs fs;
	uint64		wal_bytes = 0;
	DIR		   *dir;
	struct dirent *de;

	if (statvfs(XLOGDIR, &fs) != 0)
	{
		if (!ws.disk_error_reported)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("pg_walsizer could not measure free space of \"%s\": %m",
							XLOGDIR),
					 errdetail("Only walsizer.max limits max_wal_size until it can.")));
		ws.disk_error_reported = true;
		return 0;
	}
	ws.disk_error_reported = false;

	dir = AllocateDir(XLOGDIR);
	while ((de = ReadDirExtended(dir, XLOGDIR, LOG)) != NULL)
	{
		char		path[MAXPGPATH];
		struct stat st;

		snprintf(path, sizeof(path), XLOGDIR "/%s", de->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			wal_bytes += st.st_size;
	}
	FreeDir(dir);

	return (int64) (walsizer_disk_fraction *
					((double) fs.f_bavail * fs.f_frsize + wal_bytes) /
					BYTES_PER_MB);
}

/* --- Recording ------------------------------------------------------------ */

static void
wsw_record(WalsizerAction action, int64 old_mb, int64 new_mb,
		   const WalsizerMeasurements *m, const char *reason)
{
	WalsizerRecord rec;

	memset(&rec, 0, sizeof(rec));
	rec.at = GetCurrentTimestamp();
	rec.action = action;
	rec.old_mb = old_mb;
	rec.new_mb = new_mb;
	if (m)
	{
		rec.requested = m->requested;
		rec.timed = m->timed;
		rec.wal_forced = m->wal_forced;
		rec.wal_bytes = m->wal_bytes;
		rec.window_s = m->window_s;
	}
	strlcpy(rec.reason, reason, sizeof(rec.reason));

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_history_append(&walsizer_shared->persistent, &rec);
	LWLockRelease(walsizer_shared->lock);
	walsizer_state_save();
}

static void
wsw_set_persistent_sizes(int64 baseline_mb, int64 last_set_mb, int64 intent_mb)
{
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	if (baseline_mb >= 0)
		walsizer_shared->persistent.baseline_mb = baseline_mb;
	if (last_set_mb >= 0)
		walsizer_shared->persistent.last_set_mb = last_set_mb;
	if (intent_mb >= 0)
		walsizer_shared->persistent.intent_mb = intent_mb;
	LWLockRelease(walsizer_shared->lock);
}

static void
wsw_set_pending(int64 pending_mb)
{
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->status.pending_mb = pending_mb;
	LWLockRelease(walsizer_shared->lock);
	ws.pending_windows = 0;
}

static const char *
wsw_verb(WalsizerAction action)
{
	switch (action)
	{
		case WALSIZER_ACTION_GROW:
		case WALSIZER_ACTION_CAPPED:
			return "grew";
		case WALSIZER_ACTION_SHRINK:
			return "shrank";
		case WALSIZER_ACTION_PROTECT:
			return "lowered";
		default:
			return "changed";
	}
}

/* --- Tracking the server's own value ------------------------------------ */

/*
 * Adopt a max_wal_size walsizer did not write as the DBA's choice: it
 * becomes the baseline and floor, and the cooldown restarts, so walsizer
 * does not immediately undo it.
 */
static void
wsw_adopt(int64 old_mb, int64 new_mb, const char *how)
{
	char		reason[WALSIZER_REASON_LEN];

	snprintf(reason, sizeof(reason),
			 "max_wal_size was changed to %lld MB %s; it is the new baseline",
			 (long long) new_mb, how);
	ereport(LOG,
			(errmsg("pg_walsizer adopted max_wal_size %lld MB set outside pg_walsizer (was %lld MB)",
					(long long) new_mb, (long long) old_mb),
			 errdetail("pg_walsizer will not shrink below the new value and waits a window before changing it.")));

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->persistent.baseline_mb = new_mb;
	walsizer_shared->persistent.last_set_mb = 0;
	walsizer_shared->persistent.intent_mb = 0;
	walsizer_shared->persistent.policy.windows_since_change = 0;
	walsizer_shared->persistent.policy.windows_below_half = 0;
	walsizer_shared->status.pending_mb = 0;
	LWLockRelease(walsizer_shared->lock);

	ws.known_mb = new_mb;
	ws.forced_since_change = 0;
	ws.size_is_ours = false;
	wsw_record(WALSIZER_ACTION_ADOPT, old_mb, new_mb, NULL, reason);
}

/* Mark the latest change to confirmed_mb as seen in effect. */
static void
wsw_confirm(int64 confirmed_mb)
{
	WalsizerRecord *latest;

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	latest = walsizer_history_latest(&walsizer_shared->persistent);
	if (latest && latest->new_mb == confirmed_mb &&
		walsizer_changes_size(latest->action))
		latest->confirmed = 1;
	walsizer_shared->status.pending_mb = 0;
	LWLockRelease(walsizer_shared->lock);
	walsizer_state_save();
	ws.known_mb = confirmed_mb;
	ereport(DEBUG1,
			(errmsg("pg_walsizer confirmed the server runs with max_wal_size %lld MB",
					(long long) confirmed_mb)));
}

/*
 * Compare the server's max_wal_size (this process reloads the config like
 * every other) with what walsizer knows: confirm our own change, or adopt
 * the DBA's.
 */
static void
wsw_track_server_size(bool window_end)
{
	int64		server_mb = max_wal_size_mb;
	int64		pending_mb;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	pending_mb = walsizer_shared->status.pending_mb;
	LWLockRelease(walsizer_shared->lock);

	if (pending_mb != 0 && server_mb == pending_mb)
		wsw_confirm(pending_mb);
	else if (server_mb != ws.known_mb)
		wsw_adopt(ws.known_mb, server_mb, "outside pg_walsizer");
	else if (pending_mb != 0 && window_end && ++ws.pending_windows >= 2)
	{
		char		reason[WALSIZER_REASON_LEN];

		snprintf(reason, sizeof(reason),
				 "wrote max_wal_size = %lld MB, but after reloading the server still runs with %lld MB",
				 (long long) pending_mb, (long long) server_mb);
		ereport(WARNING,
				(errmsg("pg_walsizer: the server did not apply max_wal_size %lld MB",
						(long long) pending_mb),
				 errdetail("It still runs with %lld MB after two windows.",
						   (long long) server_mb),
				 errhint("Check the server log for configuration file errors.")));
		wsw_set_pending(0);
		wsw_record(WALSIZER_ACTION_UNCONFIRMED, server_mb, pending_mb, NULL,
				   reason);
	}
}

/*
 * At start: is the server's value the one walsizer wrote last (or was about
 * to write when the server stopped)?  Otherwise the DBA changed it while
 * walsizer was not running.
 */
static void
wsw_reconcile_at_start(void)
{
	WalsizerPersistent *p = &walsizer_shared->persistent;
	int64		server_mb = max_wal_size_mb;
	int64		last_set_mb;
	int64		intent_mb;
	int64		baseline_mb;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	last_set_mb = p->last_set_mb;
	intent_mb = p->intent_mb;
	baseline_mb = p->baseline_mb;
	LWLockRelease(walsizer_shared->lock);

	ws.known_mb = server_mb;
	if (last_set_mb == 0 && intent_mb == 0)
	{
		if (baseline_mb == 0)
			wsw_set_persistent_sizes(server_mb, -1, -1);
		else if (baseline_mb != server_mb)
			wsw_adopt(baseline_mb, server_mb, "while pg_walsizer was not running");
	}
	else if (server_mb == last_set_mb || server_mb == intent_mb)
		wsw_set_persistent_sizes(-1, server_mb, 0);
	else
		wsw_adopt(last_set_mb, server_mb, "while pg_walsizer was not running");
}

/* --- Acting on a decision ---------------------------------------------- */

static void
wsw_log_change(const WalsizerDecision *d, const WalsizerMeasurements *m)
{
	ereport(d->warn ? WARNING : LOG,
			(errmsg("pg_walsizer %s max_wal_size from %lld MB to %lld MB (%s)",
					wsw_verb(d->action), (long long) d->old_mb,
					(long long) d->new_mb, walsizer_action_name(d->action)),
			 errdetail("%s %.0f s: %lld checkpoints forced by WAL, %lld requested, %lld timed, %llu MB of WAL written; %s.",
					   m->window_end ? "Window of" : "Window so far,",
					   m->window_s, (long long) m->wal_forced,
					   (long long) m->requested, (long long) m->timed,
					   (unsigned long long) (m->wal_bytes / BYTES_PER_MB),
					   d->reason),
			 d->action == WALSIZER_ACTION_CAPPED ?
			 errhint("Add space to the WAL volume or raise walsizer.max.") : 0));
}

/*
 * Carry out a decision: record it, and change the setting unless this is a
 * dry run or ALTER SYSTEM is unavailable.  Errors are recorded, never
 * thrown; the policy's cooldown limits retries to one per window.
 */
static void
wsw_act(const WalsizerDecision *d, const WalsizerMeasurements *m)
{
	char		errbuf[WALSIZER_REASON_LEN];
	char		reason[WALSIZER_REASON_LEN];
	WalsizerApplyResult result;

	if (d->action == WALSIZER_ACTION_NONE)
		return;

	if (d->new_mb == d->old_mb)
	{
		/* a growth the cap blocks entirely: say so once */
		ereport(WARNING,
				(errmsg("pg_walsizer cannot grow max_wal_size beyond its cap of %lld MB",
						(long long) d->cap_mb),
				 errdetail("The WAL load needs %lld MB; %s.",
						   (long long) d->needed_mb, d->reason),
				 errhint("Add space to the WAL volume or raise walsizer.max.")));
		wsw_record(d->action, d->old_mb, d->new_mb, m, d->reason);
		return;
	}

	/* until the change below is applied, the old size is not walsizer's */
	ws.size_is_ours = false;

	if (walsizer_dry_run)
	{
		WalsizerRecord *latest;
		bool		repeated;

		/* while the advice stays the same, one row says it */
		LWLockAcquire(walsizer_shared->lock, LW_SHARED);
		latest = walsizer_history_latest(&walsizer_shared->persistent);
		repeated = latest && latest->action == WALSIZER_ACTION_ADVISE &&
			latest->new_mb == d->new_mb;
		LWLockRelease(walsizer_shared->lock);
		if (repeated)
			return;

		snprintf(reason, sizeof(reason), "dry run (%s): %s",
				 walsizer_action_name(d->action), d->reason);
		ereport(LOG,
				(errmsg("pg_walsizer would change max_wal_size from %lld MB to %lld MB (dry run)",
						(long long) d->old_mb, (long long) d->new_mb),
				 errdetail("%s.", d->reason)));
		wsw_record(WALSIZER_ACTION_ADVISE, d->old_mb, d->new_mb, m, reason);
		return;
	}

	/* write the intent first, so a crash mid-change is not taken as the DBA's */
	wsw_set_persistent_sizes(-1, -1, d->new_mb);
	if (!walsizer_state_save())
	{
		wsw_set_persistent_sizes(-1, -1, 0);
		snprintf(reason, sizeof(reason),
				 "could not save the state file before changing max_wal_size to %lld MB; not changed",
				 (long long) d->new_mb);
		ereport(WARNING,
				(errmsg("pg_walsizer could not change max_wal_size from %lld MB to %lld MB",
						(long long) d->old_mb, (long long) d->new_mb),
				 errdetail("Its state file could not be saved first, so a crash during the change could not be told from the DBA's own change."),
				 errhint("pg_walsizer keeps running and tries again after the cooldown. Check free space and permissions in the data directory.")));
		wsw_record(WALSIZER_ACTION_ERROR, d->old_mb, d->new_mb, m, reason);
		return;
	}

	result = walsizer_apply_max_wal_size(d->new_mb, errbuf, sizeof(errbuf));

	if (result == WALSIZER_APPLY_OK)
	{
		/*
		 * WAL measured at the old size (with its extra checkpoints and
		 * full-page images) says little about the new one: measure afresh.
		 */
		wsw_restart_history();
		ws.forced_since_change = 0;
		ws.size_is_ours = true;
		ws.blocked_reported = false;
		wsw_set_persistent_sizes(-1, d->new_mb, 0);
		wsw_set_pending(d->new_mb);
		wsw_log_change(d, m);
		wsw_record(d->action, d->old_mb, d->new_mb, m, d->reason);
		return;
	}

	wsw_set_persistent_sizes(-1, -1, 0);
	if (result == WALSIZER_APPLY_DEFERRED)
	{
		/* the reload that follows will show up as a change to adopt */
		ereport(LOG,
				(errmsg("pg_walsizer postponed changing max_wal_size to %lld MB",
						(long long) d->new_mb),
				 errdetail("%s.", errbuf),
				 errhint("Reload the configuration to apply that change; pg_walsizer will then adopt it.")));
		walsizer_state_save();
		return;
	}
	if (result == WALSIZER_APPLY_BLOCKED)
	{
		if (ws.blocked_reported)
		{
			walsizer_state_save();
			return;
		}
		ws.blocked_reported = true;
		snprintf(reason, sizeof(reason),
				 "ALTER SYSTEM is disabled (allow_alter_system = off); recommends %lld MB: %s",
				 (long long) d->new_mb, d->reason);
		ereport(WARNING,
				(errmsg("pg_walsizer cannot change max_wal_size from %lld MB to %lld MB: ALTER SYSTEM is disabled",
						(long long) d->old_mb, (long long) d->new_mb),
				 errdetail("%s.", d->reason),
				 errhint("Set max_wal_size = '%lldMB' yourself, or set allow_alter_system = on. pg_walsizer keeps measuring and reports its recommendation in walsizer.status().",
						 (long long) d->new_mb)));
		wsw_record(WALSIZER_ACTION_BLOCKED, d->old_mb, d->new_mb, m, reason);
		return;
	}

	snprintf(reason, sizeof(reason), "ALTER SYSTEM failed: %s", errbuf);
	ereport(WARNING,
			(errmsg("pg_walsizer could not change max_wal_size from %lld MB to %lld MB",
					(long long) d->old_mb, (long long) d->new_mb),
			 errdetail("ALTER SYSTEM failed: %s", errbuf),
			 errhint("pg_walsizer keeps running and tries again after the cooldown. Check free space and permissions in the data directory.")));
	wsw_record(WALSIZER_ACTION_ERROR, d->old_mb, d->new_mb, m, reason);
}

/* --- Measuring ----------------------------------------------------------- */

static void
wsw_settings(WalsizerSettings *s)
{
	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	s->baseline_mb = walsizer_shared->persistent.baseline_mb;
	LWLockRelease(walsizer_shared->lock);

	s->current_mb = max_wal_size_mb;
	s->segment_bytes = wal_segment_size;
	s->checkpoint_timeout_s = CheckPointTimeout;
	s->completion_target = CheckPointCompletionTarget;
	s->threshold = walsizer_threshold;
	s->ratio = walsizer_ratio;
	s->headroom = walsizer_headroom;
	s->max_mb = walsizer_max_mb;
	s->min_mb = walsizer_min_mb;
	s->disk_cap_mb = ws.disk_cap_mb;
	s->shrink_after = walsizer_shrink_after;
	s->cooldown = walsizer_cooldown;
}

static bool
wsw_counters_reset(const WalsizerCounters *before, const WalsizerCounters *after)
{
	return after->timed < before->timed ||
		after->requested < before->requested ||
		after->reset_at != before->reset_at;
}

/*
 * Read the WAL position, the redo pointer and the counters; note redo
 * pointer moves far enough apart to have been forced by WAL.
 */
static void
wsw_sample(TimestampTz now)
{
	XLogRecPtr	insert_lsn = GetXLogInsertRecPtr();
	XLogRecPtr	redo = GetRedoRecPtr();
	double		horizon_s = Max(HORIZON_WINDOWS * window_length_s(),
								HORIZON_MIN_CYCLES * (double) CheckPointTimeout);
	int64		history_step_us;
	WalsizerCounters counters;

	if (redo != ws.last_redo)
	{
		if (ws.last_redo != InvalidXLogRecPtr && redo > ws.last_redo)
		{
			XLogSegNo	old_segment;
			XLogSegNo	new_segment;
			int64		checkpoint_segments =
				walsizer_checkpoint_segments(ws.max_wal_size_at_last_sample,
											 wal_segment_size,
											 CheckPointCompletionTarget);

			XLByteToSeg(ws.last_redo, old_segment, wal_segment_size);
			XLByteToSeg(redo, new_segment, wal_segment_size);
			if (new_segment >= old_segment + Max(checkpoint_segments - 1, 1))
			{
				ws.window.far_redo_moves++;
				ws.forced_since_change++;
			}
			ws.last_redo_move_at = now;
		}
		ws.last_redo = redo;
	}
	ws.max_wal_size_at_last_sample = max_wal_size_mb;
	ws.insert_lsn = insert_lsn;
	ws.wal_since_redo = insert_lsn > redo ? insert_lsn - redo : 0;

	wsw_ring_push(&ws.recent, now, insert_lsn);
	history_step_us = Max((int64) walsizer_sample_interval_ms * 1000,
						  (int64) (horizon_s * USECS_PER_SEC / HISTORY_POINTS));
	if (now - ws.last_history_at >= history_step_us || ws.history.count == 0)
	{
		wsw_ring_push(&ws.history, now, insert_lsn);
		ws.last_history_at = now;
	}
	wsw_ring_trim(&ws.history, now - (int64) (horizon_s * USECS_PER_SEC));

	walsizer_read_counters(&counters);
	if (wsw_counters_reset(&ws.counters, &counters))
		ws.window.reset_seen = true;
	ws.counters = counters;

	if (ws.disk_measured_at == 0 ||
		now - ws.disk_measured_at >= DISK_REFRESH_MS * 1000)
	{
		ws.disk_cap_mb = wsw_measure_disk_cap_mb();
		ws.disk_measured_at = now;
	}
}

/*
 * The measurements of the window in progress, as if it ended now.  With
 * window_end false only the sample-level fields matter to the policy.
 */
static void
wsw_measurements(TimestampTz now, bool window_end, WalsizerMeasurements *m)
{
	const WindowStart *w = &ws.window;

	memset(m, 0, sizeof(*m));
	m->window_end = window_end;
	m->counters_reset = w->reset_seen;
	m->window_s = seconds_between(w->at, now);
	if (!w->reset_seen)
	{
		m->timed = ws.counters.timed - w->counters.timed;
		m->requested = ws.counters.requested - w->counters.requested;
		m->wal_forced = Min(m->requested, w->far_redo_moves);
	}
	m->wal_bytes = ws.insert_lsn > w->insert_lsn ?
		ws.insert_lsn - w->insert_lsn : 0;

	m->wal_since_redo_bytes = ws.wal_since_redo;
	m->recent_rate_valid = wsw_recent_rate(&m->recent_rate);
	m->peak_rate = wsw_peak_rate();
	m->peak_covers_cycle = ws.history.count >= 2 &&
		wsw_ring_at(&ws.history, ws.history.count - 1)->at -
		wsw_ring_at(&ws.history, 0)->at >=
		(int64) CheckPointTimeout * USECS_PER_SEC;
	m->seconds_to_timed_checkpoint = wsw_seconds_to_timed_checkpoint(now);
	/*
	 * Checkpoints forced at a size walsizer chose show that choice was too
	 * small, which may cut the cooldown short.  After an advice (dry run),
	 * a failed ALTER SYSTEM or the DBA's own change the old size is still
	 * in effect and goes on forcing them: that must not bypass the
	 * cooldown, or every sample would decide again.
	 */
	m->wal_forced_since_change = ws.size_is_ours ? ws.forced_since_change : 0;
}

static void
wsw_start_window(TimestampTz now, int64 carried_moves)
{
	ws.window.at = now;
	ws.window.insert_lsn = ws.insert_lsn;
	ws.window.counters = ws.counters;
	ws.window.far_redo_moves = Min(carried_moves, MAX_CARRIED_MOVES);
	ws.window.reset_seen = false;
	ws.next_window_at = now + (int64) (window_length_s() * USECS_PER_SEC);
}

/* --- Publishing -------------------------------------------------------- */

/* Full-page images written in the window in progress, 0 after a reset. */
static int64
wsw_window_fpi(void)
{
	if (ws.counters.wal_reset_at == ws.window.counters.wal_reset_at &&
		ws.counters.wal_fpi >= ws.window.counters.wal_fpi)
		return ws.counters.wal_fpi - ws.window.counters.wal_fpi;
	return 0;
}

/*
 * Publish one iteration's figures for status(): the window that ended, if
 * one did, and the latest sample with the plan, all under one lock so that
 * a reader never sees the new window beside the old schedule.
 */
static void
wsw_publish(TimestampTz now, const WalsizerMeasurements *window,
			int64 window_fpi, const WalsizerMeasurements *m,
			const WalsizerDecision *plan)
{
	WalsizerStatus *st = &walsizer_shared->status;
	bool		blocked = !walsizer_alter_system_allowed();

	if (!blocked)
		ws.blocked_reported = false;	/* report again if it comes back */

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	if (window)
	{
		st->last_check_at = now;
		st->last_window_s = window->window_s;
		st->last_timed = window->timed;
		st->last_requested = window->requested;
		st->last_wal_forced = window->wal_forced;
		st->last_wal_bytes = window->wal_bytes;
		st->last_fpi = window_fpi;
		st->last_window_reset = window->counters_reset;
		if (!window->counters_reset)
		{
			st->total_timed += window->timed;
			st->total_requested += window->requested;
			st->total_wal_forced += window->wal_forced;
		}
		st->total_wal_bytes += window->wal_bytes;
	}
	st->last_sample_at = now;
	st->enabled = walsizer_enable;
	st->dry_run = walsizer_dry_run;
	st->next_check_at = ws.next_window_at;
	st->window_s = window_length_s();
	st->sample_interval_ms = walsizer_sample_interval_ms;
	st->recent_rate = m->recent_rate_valid ? m->recent_rate : 0;
	st->peak_rate = m->peak_rate;
	st->wal_since_redo_bytes = ws.wal_since_redo;
	st->disk_cap_mb = ws.disk_cap_mb;
	st->blocked = blocked;
	st->plan = *plan;
	LWLockRelease(walsizer_shared->lock);
}

/* --- The loop ------------------------------------------------------------ */

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

/*
 * When walsizer is switched on, what happened while it was off (a bulk load
 * the DBA ran with walsizer disabled, say) is not evidence: measure afresh.
 */
static void
wsw_forget_load(TimestampTz now)
{
	wsw_restart_history();
	ws.recent.count = 0;
	ws.forced_since_change = 0;
	wsw_start_window(now, 0);
}

static void
wsw_iteration(void)
{
	TimestampTz now = GetCurrentTimestamp();
	WalsizerSettings settings;
	WalsizerMeasurements m;
	WalsizerDecision decision;
	WalsizerPolicyState policy_state;
	bool		check_requested;
	bool		window_end;
	WalsizerMeasurements ended;
	int64		ended_fpi = 0;

	wsw_sample(now);
	if (walsizer_enable && !ws.was_enabled)
		wsw_forget_load(now);
	ws.was_enabled = walsizer_enable;

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	check_requested = walsizer_shared->check_requested;
	walsizer_shared->check_requested = false;
	policy_state = walsizer_shared->persistent.policy;
	LWLockRelease(walsizer_shared->lock);

	window_end = check_requested || now >= ws.next_window_at;
	wsw_track_server_size(window_end);

	wsw_settings(&settings);
	wsw_measurements(now, window_end, &m);
	walsizer_decide(&settings, &m, &policy_state, &decision);

	if (walsizer_enable)
	{
		wsw_warn_about_settings(&decision);
		if (window_end || walsizer_changes_size(decision.action) ||
			decision.action == WALSIZER_ACTION_CAPPED)
		{
			LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
			walsizer_shared->persistent.policy = decision.state;
			LWLockRelease(walsizer_shared->lock);
			wsw_act(&decision, &m);
		}
	}

	if (window_end)
	{
		if (m.counters_reset)
			ereport(LOG,
					(errmsg("pg_walsizer noticed a reset of the checkpoint statistics"),
					 errdetail("The window that ended is not used for a decision.")));
		ended = m;
		ended_fpi = wsw_window_fpi();
		wsw_start_window(now, Max(ws.window.far_redo_moves - m.wal_forced, 0));
		wsw_measurements(now, false, &m);
	}

	/* what walsizer would do if the window ended now, for status() */
	{
		WalsizerMeasurements preview = m;
		WalsizerDecision plan;

		LWLockAcquire(walsizer_shared->lock, LW_SHARED);
		policy_state = walsizer_shared->persistent.policy;
		LWLockRelease(walsizer_shared->lock);
		preview.window_end = !window_end && preview.window_s > 0;
		wsw_settings(&settings);
		walsizer_decide(&settings, &preview, &policy_state, &plan);
		if (!walsizer_enable)
			snprintf(plan.reason, sizeof(plan.reason),
					 "walsizer.enable is off; otherwise: %s",
					 plan.reason);
		wsw_publish(now, window_end ? &ended : NULL, ended_fpi, &m, &plan);
	}

	ws.next_sample_at = now + (int64) walsizer_sample_interval_ms * 1000;
}

static void
wsw_detach(int code, Datum arg)
{
	if (walsizer_shared == NULL)
		return;
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->worker_pid = 0;
	walsizer_shared->worker_latch = NULL;
	LWLockRelease(walsizer_shared->lock);
	/* a clean stop keeps the policy's counters; a crash loses a window */
	if (code == 0)
		walsizer_state_save();
}

static void
wsw_initialize(void)
{
	TimestampTz now = GetCurrentTimestamp();
	bool		load;

	memset(&ws, 0, sizeof(ws));
	wsw_ring_init(&ws.history, HISTORY_POINTS);
	wsw_ring_init(&ws.recent, RECENT_POINTS);

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
	wsw_reconcile_at_start();

	ws.last_redo = GetRedoRecPtr();
	ws.max_wal_size_at_last_sample = max_wal_size_mb;
	ws.was_enabled = walsizer_enable;
	wsw_sample(now);
	wsw_start_window(now, 0);
	ws.next_sample_at = now;

	ereport(LOG,
			(errmsg("pg_walsizer started: max_wal_size %d MB, window %.0f s, sample every %d ms%s%s",
					max_wal_size_mb, window_length_s(),
					walsizer_sample_interval_ms,
					walsizer_enable ? "" : ", disabled",
					walsizer_dry_run ? ", dry run" : "")));
}

void
walsizer_worker_main(Datum main_arg)
{
	MemoryContext iteration_context;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	/* no database: only the shared catalogs ALTER SYSTEM's checks read */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);

	iteration_context = AllocSetContextCreate(TopMemoryContext,
											  "pg_walsizer iteration",
											  ALLOCSET_DEFAULT_SIZES);
	wsw_initialize();

	for (;;)
	{
		TimestampTz now = GetCurrentTimestamp();
		TimestampTz wake_at = Min(ws.next_sample_at, ws.next_window_at);
		long		timeout_ms = 0;
		MemoryContext caller_context;

		if (wake_at > now)
			timeout_ms = (long) ((wake_at - now + 999) / 1000);
		if (timeout_ms > 0)
			(void) WaitLatch(MyLatch,
							 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 timeout_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			/* walsizer.disk_fraction may have changed: measure again now */
			ws.disk_measured_at = 0;
			/* a new window length applies from the current window's start */
			ws.next_window_at = ws.window.at +
				(int64) (window_length_s() * USECS_PER_SEC);
		}

		caller_context = MemoryContextSwitchTo(iteration_context);
		wsw_iteration();
		MemoryContextSwitchTo(caller_context);
		MemoryContextReset(iteration_context);
	}
}

/* Called from _PG_init() while shared_preload_libraries are processed. */
void
walsizer_register_worker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	/* standbys cannot run ALTER SYSTEM's effects anyway: start at promotion */
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, sizeof(worker.bgw_library_name),
			 "pg_walsizer");
	snprintf(worker.bgw_function_name, sizeof(worker.bgw_function_name),
			 "walsizer_worker_main");
	snprintf(worker.bgw_name, sizeof(worker.bgw_name), "pg_walsizer");
	snprintf(worker.bgw_type, sizeof(worker.bgw_type), "pg_walsizer");
	RegisterBackgroundWorker(&worker);
}
