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
 * The DBA's other door is postgresql.conf (or a file it includes): a value
 * set there while postgresql.auto.conf sets max_wal_size too never runs.
 * shadowed_size.c decides what such a value calls for, and this file
 * adopts it through act.c or reports it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "storage/lwlock.h"

#include "act.h"
#include "record.h"
#include "shadowed_size.h"
#include "shared_state.h"
#include "size_tracking.h"
#include "walsizer.h"

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

/* The baseline the DBA's value is compared with, as persisted. */
static int64
baseline_mb_now(void)
{
	int64		baseline_mb;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	baseline_mb = walsizer_shared->persistent.baseline_mb;
	LWLockRelease(walsizer_shared->lock);
	return baseline_mb;
}

/*
 * At start, a value in the configuration files that postgresql.auto.conf
 * shadows and pg_walsizer did not know: edited while the server was down,
 * most likely.  Said once; the worker does not adopt what it did not see
 * change.
 */
static void
shadow_warn(const WalsizerConfigFiles *files)
{
	ereport(WARNING,
			(errmsg("max_wal_size = %lld MB set in \"%s\" line %d is shadowed by postgresql.auto.conf",
					(long long) files->file_mb, files->file_name,
					files->file_line),
			 errdetail("postgresql.auto.conf is read last and sets max_wal_size = %lld MB, which the server runs. pg_walsizer adopts an edit of the other files made while it runs, not one it finds at start.",
					   (long long) files->auto_mb),
			 errhint("To run %lld MB, use ALTER SYSTEM SET max_wal_size, which pg_walsizer adopts; to keep pg_walsizer from going below it, set walsizer.min; to stop pg_walsizer, set walsizer.enable = off and ALTER SYSTEM RESET max_wal_size.",
					 (long long) files->file_mb)));
}

/*
 * The DBA changed a value postgresql.auto.conf shadows: write it for them
 * (or advise it, in a dry run).  False when the write failed and is to be
 * tried again.
 */
static bool
shadow_adopt(const WalsizerConfigFiles *files, WalsizerShadowVerdict verdict,
			 WalsizerSizeTracker *owner, int64 now_us, double window_s)
{
	WalsizerDecision d;

	memset(&d, 0, sizeof(d));
	d.action = WALSIZER_ACTION_ADOPT;
	d.old_mb = max_wal_size_mb;
	d.new_mb = files->file_mb;
	snprintf(d.reason, sizeof(d.reason),
			 "max_wal_size = %lld MB set in %s line %d, shadowed by postgresql.auto.conf; %s",
			 (long long) files->file_mb, files->file_name, files->file_line,
			 verdict == WALSIZER_SHADOW_ADVISE ?
			 "would adopt it as the new baseline" :
			 "adopted as the new baseline");
	return walsizer_act_adopt(&d, owner, now_us, window_s);
}

/*
 * Look at the max_wal_size the configuration files set (read at the last
 * reload) and carry out what a value postgresql.auto.conf shadows calls
 * for.  *seen_mb is the files' value at the last look; at_start marks the
 * worker's first look.  Cheap: it compares values read before, so the
 * worker calls it at every sample, and a failed adoption is retried on
 * act.c's schedule.
 */
void
walsizer_track_config_files(WalsizerSizeTracker *owner,
							const WalsizerConfigFiles *files, bool at_start,
							int64 *seen_mb, int64 now_us, double window_s)
{
	WalsizerShadowLook look;
	WalsizerShadowVerdict verdict;
	bool		carried_out = true;

	look.at_start = at_start;
	look.seen_mb = *seen_mb;
	look.file_mb = files->file_mb;
	look.auto_conf_sets = files->auto_mb != 0;
	look.running_mb = max_wal_size_mb;
	look.baseline_mb = baseline_mb_now();
	look.enabled = walsizer_enable;
	look.dry_run = walsizer_dry_run;

	verdict = walsizer_shadow_decide(&look);
	switch (verdict)
	{
		case WALSIZER_SHADOW_WARN:
			shadow_warn(files);
			break;
		case WALSIZER_SHADOW_ADOPT:
		case WALSIZER_SHADOW_ADVISE:
			carried_out = shadow_adopt(files, verdict, owner, now_us, window_s);
			break;
		case WALSIZER_SHADOW_NOTHING:
		case WALSIZER_SHADOW_WAIT:
			break;
	}
	if (carried_out && walsizer_shadow_remembers(verdict))
		*seen_mb = files->file_mb;
}
