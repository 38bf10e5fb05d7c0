/*-------------------------------------------------------------------------
 *
 * size_tracking.c
 *		Carry out what size_owner.c concludes about the server's
 *		max_wal_size: adopt the DBA's value, confirm walsizer's own, or
 *		report one the server did not apply.
 *
 * size_owner.c is the pure state machine; this file gives it the value
 * the server runs and the sizes persisted in the state file, and turns its
 * events into log lines, decision records and a new baseline.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "storage/lwlock.h"

#include "record.h"
#include "shared_state.h"
#include "size_tracking.h"

/*
 * Adopt a max_wal_size walsizer did not write as the DBA's choice: it
 * becomes the baseline and floor, and the cooldown restarts, so walsizer
 * does not immediately undo it.
 */
static void
track_adopted(int64 old_mb, int64 new_mb, const char *how)
{
	char		reason[WALSIZER_REASON_LEN];

	snprintf(reason, sizeof(reason),
			 "max_wal_size was changed to %lld MB %s; it is the new baseline",
			 (long long) new_mb, how);
	ereport(LOG,
			(errmsg("pg_walsizer adopted max_wal_size %lld MB set outside pg_walsizer (was %lld MB)",
					(long long) new_mb, (long long) old_mb),
			 errdetail("pg_walsizer will not shrink below the new value and waits a window before changing it.")));
	walsizer_record_new_baseline(new_mb);
	walsizer_record(WALSIZER_ACTION_ADOPT, old_mb, new_mb, NULL, reason);
}

static void
track_unconfirmed(int64 pending_mb, int64 server_mb)
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
	walsizer_record_pending(0);
	walsizer_record(WALSIZER_ACTION_UNCONFIRMED, server_mb, pending_mb, NULL,
					reason);
}

/*
 * Compare the server's max_wal_size (this process reloads the config like
 * every other) with what walsizer knows, and carry out what it means.
 */
void
walsizer_track_server_size(WalsizerSizeTracker *owner, bool window_end)
{
	int64		server_mb = max_wal_size_mb;
	int64		previous_mb;

	switch (walsizer_owner_observe(owner, server_mb, window_end,
								   &previous_mb))
	{
		case WALSIZER_OWNER_CONFIRMED:
			walsizer_record_confirmed(server_mb);
			ereport(DEBUG1,
					(errmsg("pg_walsizer confirmed the server runs with max_wal_size %lld MB",
							(long long) server_mb)));
			break;
		case WALSIZER_OWNER_ADOPTED:
			track_adopted(previous_mb, server_mb, "outside pg_walsizer");
			break;
		case WALSIZER_OWNER_UNCONFIRMED:
			track_unconfirmed(previous_mb, server_mb);
			break;
		case WALSIZER_OWNER_NOTHING:
		case WALSIZER_OWNER_FIRST_START:
			break;
	}
}

/*
 * At start: is the server's value the one walsizer wrote last (or was about
 * to write when the server stopped)?  Otherwise the DBA changed it while
 * walsizer was not running.
 */
void
walsizer_reconcile_at_start(WalsizerSizeTracker *owner)
{
	WalsizerPersistedSizes persisted;
	int64		server_mb = max_wal_size_mb;
	int64		adopted_from_mb;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	persisted.baseline_mb = walsizer_shared->persistent.baseline_mb;
	persisted.last_set_mb = walsizer_shared->persistent.last_set_mb;
	persisted.intent_mb = walsizer_shared->persistent.intent_mb;
	LWLockRelease(walsizer_shared->lock);

	switch (walsizer_owner_start(owner, server_mb, &persisted,
								 &adopted_from_mb))
	{
		case WALSIZER_OWNER_FIRST_START:
			walsizer_record_sizes(server_mb, RECORD_KEEP, RECORD_KEEP);
			break;
		case WALSIZER_OWNER_ADOPTED:
			track_adopted(adopted_from_mb, server_mb,
						"while pg_walsizer was not running");
			break;
		default:
			if (owner->owner == WALSIZER_OWNER_WALSIZER)
				walsizer_record_sizes(RECORD_KEEP, server_mb, 0);
			break;
	}
}
