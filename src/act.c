/*-------------------------------------------------------------------------
 *
 * act.c
 *		Carry out one of the policy's decisions.
 *
 * A decision that changes the size is written with ALTER SYSTEM and a
 * reload (apply_setting.c), logged, and recorded in the history
 * (record.c).  What can stand in the way is handled here, and never
 * thrown: a dry run records advice instead; allow_alter_system = off is
 * reported once and recorded as "blocked"; a change the DBA has pending
 * in postgresql.auto.conf postpones ours; any other failure is recorded
 * as "error" and retried after the cooldown.
 *
 * The size about to be written is saved in the state file first
 * ("intent"), so that a crash between ALTER SYSTEM and the next state
 * save is not mistaken for the DBA's change at the next start.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/lwlock.h"

#include "act.h"
#include "apply_setting.h"
#include "record.h"
#include "shared_state.h"
#include "size_units.h"
#include "walsizer.h"

/* allow_alter_system = off was reported; again only once it came back */
static bool blocked_reported = false;

static const char *
act_verb(WalsizerAction action)
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

static void
act_log_change(const WalsizerDecision *d, const WalsizerMeasurements *m)
{
	ereport(d->warn ? WARNING : LOG,
			(errmsg("pg_walsizer %s max_wal_size from %lld MB to %lld MB (%s)",
					act_verb(d->action), (long long) d->old_mb,
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
 * thrown; the policy's cooldown limits retries to one per window.  True
 * when the server was told to run the new size.
 */
bool
walsizer_act(const WalsizerDecision *d, const WalsizerMeasurements *m,
			 WalsizerSizeTracker *owner)
{
	char		errbuf[WALSIZER_REASON_LEN];
	char		reason[WALSIZER_REASON_LEN];
	WalsizerApplyResult result;

	if (d->action == WALSIZER_ACTION_NONE)
		return false;

	if (d->new_mb == d->old_mb)
	{
		/* a growth the cap blocks entirely: say so once */
		ereport(WARNING,
				(errmsg("pg_walsizer cannot grow max_wal_size beyond its cap of %lld MB",
						(long long) d->cap_mb),
				 errdetail("The WAL load needs %lld MB; %s.",
						   (long long) d->needed_mb, d->reason),
				 errhint("Add space to the WAL volume or raise walsizer.max.")));
		walsizer_record(d->action, d->old_mb, d->new_mb, m, d->reason);
		return false;
	}

	/* until the change below is applied, the old size is not walsizer's */
	walsizer_owner_attempting(owner);

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
			return false;

		snprintf(reason, sizeof(reason), "dry run (%s): %s",
				 walsizer_action_name(d->action), d->reason);
		ereport(LOG,
				(errmsg("pg_walsizer would change max_wal_size from %lld MB to %lld MB (dry run)",
						(long long) d->old_mb, (long long) d->new_mb),
				 errdetail("%s.", d->reason)));
		walsizer_record(WALSIZER_ACTION_ADVISE, d->old_mb, d->new_mb, m, reason);
		return false;
	}

	/* write the intent first, so a crash mid-change is not taken as the DBA's */
	walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, d->new_mb);
	if (!walsizer_state_save())
	{
		walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, 0);
		snprintf(reason, sizeof(reason),
				 "could not save the state file before changing max_wal_size to %lld MB; not changed",
				 (long long) d->new_mb);
		ereport(WARNING,
				(errmsg("pg_walsizer could not change max_wal_size from %lld MB to %lld MB",
						(long long) d->old_mb, (long long) d->new_mb),
				 errdetail("Its state file could not be saved first, so a crash during the change could not be told from the DBA's own change."),
				 errhint("pg_walsizer keeps running and tries again after the cooldown. Check free space and permissions in the data directory.")));
		walsizer_record(WALSIZER_ACTION_ERROR, d->old_mb, d->new_mb, m, reason);
		return false;
	}

	result = walsizer_apply_max_wal_size(d->new_mb, errbuf, sizeof(errbuf));

	if (result == WALSIZER_APPLY_OK)
	{
		walsizer_owner_written(owner, d->new_mb);
		blocked_reported = false;
		walsizer_record_sizes(RECORD_KEEP, d->new_mb, 0);
		walsizer_record_pending(d->new_mb);
		act_log_change(d, m);
		walsizer_record(d->action, d->old_mb, d->new_mb, m, d->reason);
		return true;
	}

	walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, 0);
	if (result == WALSIZER_APPLY_DEFERRED)
	{
		/* the reload that follows will show up as a change to adopt */
		ereport(LOG,
				(errmsg("pg_walsizer postponed changing max_wal_size to %lld MB",
						(long long) d->new_mb),
				 errdetail("%s.", errbuf),
				 errhint("Reload the configuration to apply that change; pg_walsizer will then adopt it.")));
		walsizer_state_save();
		return false;
	}
	if (result == WALSIZER_APPLY_BLOCKED)
	{
		if (blocked_reported)
		{
			walsizer_state_save();
			return false;
		}
		blocked_reported = true;
		snprintf(reason, sizeof(reason),
				 "ALTER SYSTEM is disabled (allow_alter_system = off); recommends %lld MB: %s",
				 (long long) d->new_mb, d->reason);
		ereport(WARNING,
				(errmsg("pg_walsizer cannot change max_wal_size from %lld MB to %lld MB: ALTER SYSTEM is disabled",
						(long long) d->old_mb, (long long) d->new_mb),
				 errdetail("%s.", d->reason),
				 errhint("Set max_wal_size = '%lldMB' yourself, or set allow_alter_system = on. pg_walsizer keeps measuring and reports its recommendation in walsizer.status().",
						 (long long) d->new_mb)));
		walsizer_record(WALSIZER_ACTION_BLOCKED, d->old_mb, d->new_mb, m, reason);
		return false;
	}

	snprintf(reason, sizeof(reason), "ALTER SYSTEM failed: %s", errbuf);
	ereport(WARNING,
			(errmsg("pg_walsizer could not change max_wal_size from %lld MB to %lld MB",
					(long long) d->old_mb, (long long) d->new_mb),
			 errdetail("ALTER SYSTEM failed: %s", errbuf),
			 errhint("pg_walsizer keeps running and tries again after the cooldown. Check free space and permissions in the data directory.")));
	walsizer_record(WALSIZER_ACTION_ERROR, d->old_mb, d->new_mb, m, reason);
	return false;
}

/*
 * Tell act.c whether ALTER SYSTEM is allowed now, so that it reports
 * "blocked" again should it be switched off again later.
 */
void
walsizer_act_note_alter_system(bool allowed)
{
	if (allowed)
		blocked_reported = false;
}
