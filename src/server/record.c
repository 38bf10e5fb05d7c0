/*-------------------------------------------------------------------------
 *
 * record.c
 *		Record what pg_walsizer decided and measured.
 *
 * Three kinds of record, all in shared memory under walsizer_shared->lock
 * (shared_state.c): the decision history and the sizes the next start
 * reconciles with (persistent, saved to the state file), and the figures
 * walsizer.status() shows (published every sample, never saved).  Only the
 * worker writes them; the SQL functions read them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "storage/lwlock.h"
#include "utils/timestamp.h"

#include "record.h"
#include "shared_state.h"
#include "walsizer.h"

/*
 * Append a decision to the history and save the state file.  The decision
 * is recorded with the role of the server it was made on: the one the
 * measurements were taken on when there are some (a promotion may have
 * ended recovery since), else the server's role now.
 */
void
walsizer_record(WalsizerAction action, int64 old_mb, int64 new_mb,
				const WalsizerMeasurements *m, const char *reason)
{
	WalsizerRecord rec;
	bool		standby;

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
		standby = m->standby;
	}
	else
		standby = RecoveryInProgress();
	rec.role = standby ? WALSIZER_ROLE_STANDBY : WALSIZER_ROLE_PRIMARY;
	strlcpy(rec.reason, reason, sizeof(rec.reason));

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_history_append(&walsizer_shared->persistent, &rec);
	LWLockRelease(walsizer_shared->lock);
	walsizer_state_save();
}

/*
 * Set the persisted sizes (RECORD_KEEP leaves one as it is); the caller
 * saves the state file when the change must survive a crash.
 */
void
walsizer_record_sizes(int64 baseline_mb, int64 last_set_mb, int64 intent_mb)
{
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	if (baseline_mb != RECORD_KEEP)
		walsizer_shared->persistent.baseline_mb = baseline_mb;
	if (last_set_mb != RECORD_KEEP)
		walsizer_shared->persistent.last_set_mb = last_set_mb;
	if (intent_mb != RECORD_KEEP)
		walsizer_shared->persistent.intent_mb = intent_mb;
	LWLockRelease(walsizer_shared->lock);
}

/*
 * A change of max_wal_size failed (failing true) or succeeded (false): the
 * time of the first failure since the last success is kept, and saved, so
 * that walsizer.status.failing_since says how long changes have failed
 * even after a restart, however rarely the failures are retried.
 */
void
walsizer_record_failing(bool failing)
{
	bool		changed = false;

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	/* the first failure is saved with the error decision it records */
	if (failing && walsizer_shared->persistent.failing_since == 0)
		walsizer_shared->persistent.failing_since = GetCurrentTimestamp();
	else if (!failing && walsizer_shared->persistent.failing_since != 0)
	{
		walsizer_shared->persistent.failing_since = 0;
		changed = true;
	}
	LWLockRelease(walsizer_shared->lock);
	if (changed)
		walsizer_state_save();
}

/* The value written and reloaded but not yet seen running; 0 for none. */
void
walsizer_record_pending(int64 pending_mb)
{
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->status.pending_mb = pending_mb;
	LWLockRelease(walsizer_shared->lock);
}

/* Mark the latest change to confirmed_mb as seen in effect. */
void
walsizer_record_confirmed(int64 confirmed_mb)
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
}

/*
 * The DBA's value became the baseline: nothing walsizer set is in effect
 * or pending, and the cooldown and the quiet-window count start over so
 * that walsizer does not immediately undo it.
 */
void
walsizer_record_new_baseline(int64 baseline_mb)
{
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->persistent.baseline_mb = baseline_mb;
	walsizer_shared->persistent.last_set_mb = 0;
	walsizer_shared->persistent.intent_mb = 0;
	walsizer_shared->persistent.policy.windows_since_change = 0;
	walsizer_shared->persistent.policy.windows_below_half = 0;
	/* the DBA's value is not walsizer's growth: never "settle" it */
	walsizer_shared->persistent.policy.provisional = 0;
	walsizer_shared->status.pending_mb = 0;
	LWLockRelease(walsizer_shared->lock);
}

/*
 * Publish one iteration's figures for status(): the window that ended, if
 * one did, and the latest sample with the plan, all under one lock so that
 * a reader never sees the new window beside the old schedule.
 */
void
walsizer_publish(const WalsizerIterationReport *r)
{
	WalsizerStatus *st = &walsizer_shared->status;
	const WalsizerMeasurements *window = r->ended;
	const WalsizerMeasurements *m = r->current;

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	if (window)
	{
		st->last_check_at = r->now;
		st->last_window_s = window->window_s;
		st->last_timed = window->timed;
		st->last_requested = window->requested;
		st->last_wal_forced = window->wal_forced;
		st->last_wal_bytes = window->wal_bytes;
		st->last_fpi = r->ended_fpi;
		st->last_window_reset = window->counters_reset;
		if (!window->counters_reset)
		{
			st->total_timed += window->timed;
			st->total_requested += window->requested;
			st->total_wal_forced += window->wal_forced;
		}
		st->total_wal_bytes += window->wal_bytes;
	}
	st->last_sample_at = r->now;
	st->enabled = walsizer_enable;
	st->dry_run = walsizer_dry_run;
	st->next_check_at = r->next_window_at;
	st->window_s = r->window_s;
	st->sample_interval_ms = walsizer_sample_interval_ms;
	st->recent_rate = m->recent_rate_valid ? m->recent_rate : 0;
	st->peak_rate = m->peak_rate;
	st->wal_since_redo_bytes = m->wal_since_redo_bytes;
	st->record_rate = m->recent_rate_valid ? m->recent_record_rate : 0;
	st->last_cycle_s = r->figures->last_cycle_s;
	st->last_cycle_bytes = r->figures->last_cycle_bytes;
	st->last_cycle_fpi_bytes = r->figures->last_cycle_fpi_bytes;
	st->last_cycle_mid_s = r->figures->last_cycle_mid_s;
	st->last_cycle_mid_fpi_bytes = r->figures->last_cycle_mid_fpi_bytes;
	st->last_cycle_timed = r->figures->last_cycle_timed;
	st->fpi_bytes_measured = r->figures->fpi_bytes_measured;
	st->disk_cap_mb = r->disk_cap_mb;
	st->held_known = r->held_known;
	st->held_bytes = r->held.bytes;
	st->held_by = (int) r->held.holder;
	st->blocked = r->blocked;
	st->replay_rate = r->replay_rate;
	st->replay_rate_source = r->replay_rate_source;
	st->estimated_recovery_s = r->estimated_recovery_s;
	st->recovery_cycle_bytes = r->recovery_cycle_bytes;
	strlcpy(st->max_wal_size_source,
			r->max_wal_size_source ? r->max_wal_size_source : "",
			sizeof(st->max_wal_size_source));
	st->shadowed_mb = r->shadowed_mb;
	st->plan = *r->plan;
	LWLockRelease(walsizer_shared->lock);
}
