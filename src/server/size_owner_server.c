/*-------------------------------------------------------------------------
 *
 * size_owner_server.c
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
 * size_owner.c decides what such a value calls for too, and this file
 * adopts it through act.c or reports it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "storage/lwlock.h"

#include "act.h"
#include "record.h"
#include "server_sample.h"
#include "shared_state.h"
#include "size_owner_server.h"
#include "walsizer.h"

/* What is known of the DBA's value; only the worker has one. */
typedef struct SizeTracking
{
	WalsizerSizeTracker owner;	/* who set the size the server runs */

	/* max_wal_size in the configuration files, read at each reload */
	WalsizerConfigFiles files;
	bool		files_read;		/* files holds a successful read */

	/* the DBA's ALTER SYSTEM count (auto_conf_guard.c) at the last reload */
	uint64		alter_count_loaded;
	uint64		alter_count_seen;	/* ... at the last look, or replaced
									 * by walsizer's own write */
} SizeTracking;

static SizeTracking tracking;

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

/* What walsizer_owner_observe() concluded, carried out. */
static void
track_server_size(WalsizerSizeTracker *owner, const WalsizerOwnerLook *look)
{
	int64		server_mb = look->server_mb;
	int64		previous_mb;

	switch (walsizer_owner_observe(owner, look, &previous_mb))
	{
		case WALSIZER_OWNER_CONFIRMED:
			walsizer_record_confirmed(server_mb);
			ereport(DEBUG1,
					(errmsg("pg_walsizer confirmed the server runs with max_wal_size %lld MB",
							(long long) server_mb)));
			break;
		case WALSIZER_OWNER_ADOPTED:
			track_adopted(previous_mb, server_mb,
						  look->dba_altered ? "with ALTER SYSTEM" :
						  "outside pg_walsizer");
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
static void
reconcile_at_start(WalsizerSizeTracker *owner)
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
 * (or advise it, in a dry run).  One that fails or is postponed is not
 * remembered (size_owner.c), so the next look asks for it again.
 */
static void
shadow_adopt(const WalsizerConfigFiles *files, WalsizerShadowVerdict verdict,
			 const WalsizerActContext *ctx)
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
	(void) walsizer_act_adopt(&d, ctx);
}

/*
 * The DBA wrote the value the server runs into the files: it is theirs
 * now, the baseline, though nothing needs writing.
 */
static void
shadow_adopt_running(const WalsizerConfigFiles *files)
{
	char		reason[WALSIZER_REASON_LEN];

	snprintf(reason, sizeof(reason),
			 "max_wal_size = %lld MB set in %s line %d is the value the server runs; adopted as the new baseline",
			 (long long) files->file_mb, files->file_name, files->file_line);
	ereport(LOG,
			(errmsg("pg_walsizer adopted max_wal_size %lld MB as the DBA's: \"%s\" line %d sets the value the server runs",
					(long long) files->file_mb, files->file_name,
					files->file_line),
			 errdetail("pg_walsizer will not shrink below it.")));
	walsizer_record_new_baseline(files->file_mb);
	walsizer_record(WALSIZER_ACTION_ADOPT, files->file_mb, files->file_mb,
					NULL, reason);
}

/*
 * One look at max_wal_size: what the server runs (adopt a DBA's value,
 * confirm walsizer's own, report one the server did not apply), then what
 * the files other than postgresql.auto.conf set (adopt or report an edit
 * postgresql.auto.conf shadows).  Cheap: it compares values read before,
 * so the worker calls it at every sample, and a failed or postponed
 * adoption is asked for again at the next one, on act.c's schedule.
 * Then says where the running value comes from, into source ("" until
 * the files could be read).
 */
void
walsizer_track_size(bool window_end, int64 now_us, char *source, size_t len)
{
	WalsizerOwnerLook look;
	WalsizerActContext ctx = walsizer_tracking_act_context(now_us);
	WalsizerShadowVerdict verdict;

	memset(&look, 0, sizeof(look));
	look.server_mb = max_wal_size_mb;
	look.window_end = window_end;
	look.dba_altered = tracking.alter_count_loaded != tracking.alter_count_seen;
	tracking.alter_count_seen = tracking.alter_count_loaded;
	look.files_known = tracking.files_read;
	look.file_mb = tracking.files.file_mb;
	look.auto_mb = tracking.files.auto_mb;
	look.enabled = walsizer_enable;
	look.dry_run = walsizer_dry_run;

	track_server_size(&tracking.owner, &look);
	verdict = walsizer_owner_look_at_files(&tracking.owner, &look);
	switch (verdict)
	{
		case WALSIZER_SHADOW_WARN:
			shadow_warn(&tracking.files);
			break;
		case WALSIZER_SHADOW_ADOPT_RUNNING:
			shadow_adopt_running(&tracking.files);
			break;
		case WALSIZER_SHADOW_ADOPT:
		case WALSIZER_SHADOW_ADVISE:
			shadow_adopt(&tracking.files, verdict, &ctx);
			break;
		case WALSIZER_SHADOW_NOTHING:
		case WALSIZER_SHADOW_WAIT:
			break;
	}

	source[0] = '\0';
	if (tracking.files_read)
		walsizer_max_wal_size_source(&tracking.files, &tracking.owner,
									 source, len);
}

/* The DBA's ALTER SYSTEM statements of max_wal_size so far. */
static uint64
dba_alter_system_count(void)
{
	uint64		count;

	LWLockAcquire(walsizer_shared->auto_conf_lock, LW_SHARED);
	count = walsizer_shared->dba_alter_system_count;
	LWLockRelease(walsizer_shared->auto_conf_lock);
	return count;
}

/*
 * Read max_wal_size from the configuration files, as the server just did.
 * A parse error leaves the previous read: the server ignored such a
 * reload too.
 */
static void
read_config_files(void)
{
	if (walsizer_read_config_files(&tracking.files))
		tracking.files_read = true;
}

/* At the worker's start, before its first look. */
void
walsizer_tracking_start(void)
{
	memset(&tracking, 0, sizeof(tracking));
	reconcile_at_start(&tracking.owner);
	tracking.alter_count_loaded = tracking.alter_count_seen =
		dba_alter_system_count();
	read_config_files();
}

/*
 * Just before this process reloads the configuration: the DBA's ALTER
 * SYSTEM statements counted now are in what it loads.  (Read before: one
 * that comes during the reload may not be, and is taken in at the next.)
 */
void
walsizer_tracking_before_reload(void)
{
	tracking.alter_count_loaded = dba_alter_system_count();
}

/* Just after it reloaded: read the files as the server did. */
void
walsizer_tracking_after_reload(void)
{
	read_config_files();
}

/* What act.c needs to carry out a decision now. */
WalsizerActContext
walsizer_tracking_act_context(int64 now_us)
{
	WalsizerActContext ctx;

	ctx.owner = &tracking.owner;
	ctx.loaded = tracking.files_read ? &tracking.files : NULL;
	ctx.alter_count_seen = &tracking.alter_count_seen;
	ctx.now_us = now_us;
	ctx.window_s = walsizer_window_length_s();
	return ctx;
}

/* Who set the size the server runs. */
const WalsizerSizeTracker *
walsizer_tracking_owner(void)
{
	return &tracking.owner;
}

/* The value the other files set and postgresql.auto.conf overrides, or 0. */
int64
walsizer_tracking_shadowed_mb(void)
{
	return tracking.files_read ? walsizer_shadowed_mb(&tracking.files) : 0;
}
