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
 * in postgresql.auto.conf postpones ours (said once per pending value);
 * any other failure is recorded as "error" once and retried less and less
 * often, never at every sample.
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
#include "recovery_time.h"
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

/* The two ways out of a cap, named for the limit that set it. */
static int
act_capped_hint(const WalsizerDecision *d)
{
	WalsizerReplayRateSource source;
	double		rate = walsizer_replay_rate(&source);

	if (d->cap_source == WALSIZER_CAP_RECOVERY_TIME)
		return errhint("Allow a longer crash recovery (walsizer.max_recovery_time is %d s), or put the data directory on faster storage: crash recovery replays %.0f MB/s (%s).",
					   walsizer_max_recovery_time_s, rate / BYTES_PER_MB,
					   walsizer_replay_rate_source_name(source));
	return errhint("Add space to the WAL volume or raise walsizer.max.");
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
			 d->action == WALSIZER_ACTION_CAPPED ? act_capped_hint(d) : 0));
}

/*
 * A failed change is tried again after RETRY_FIRST_DELAY_S, then after
 * twice as long each time, up to a window (or RETRY_FIRST_DELAY_S when the
 * window is shorter).  A disk emergency or a lowered walsizer.max is
 * decided at every sample, cooldown or not; without the delay a full disk
 * would write a WARNING and an "error" decision per sample and wipe the
 * history within a minute.
 */
#define RETRY_FIRST_DELAY_S 10

/* The change that failed last, until one succeeds. */
typedef struct FailingChange
{
	int			attempts;		/* failed attempts in a row; 0: none */
	int64		retry_at_us;	/* monotonic: no attempt before this */
	char		reported[WALSIZER_REASON_LEN];	/* what failed, as last recorded
												 * (no sizes: a target that
												 * moves is the same failure) */
} FailingChange;

static FailingChange failing;

/* Why the change was last postponed (names the pending value), or "". */
static char postponed_logged[WALSIZER_REASON_LEN];

/*
 * A change failed.  The first failure of a series, or one for another
 * cause (detail), is a WARNING and an "error" decision; a repeat is one
 * LOG line, and those come ever more rarely, as the attempts do.
 */
static void
act_failed(const WalsizerDecision *d, const WalsizerMeasurements *m,
		   const char *reason, const char *detail, int64 now_us,
		   double window_s)
{
	double		limit_s = window_s > RETRY_FIRST_DELAY_S ?
		window_s : RETRY_FIRST_DELAY_S;
	double		delay_s = RETRY_FIRST_DELAY_S;

	for (int i = 0; i < failing.attempts && delay_s < limit_s; i++)
		delay_s *= 2;
	if (delay_s > limit_s)
		delay_s = limit_s;
	failing.attempts++;
	failing.retry_at_us = now_us + (int64) (delay_s * 1000000.0);

	if (failing.attempts > 1 && strcmp(failing.reported, detail) == 0)
	{
		ereport(LOG,
				(errmsg("pg_walsizer still cannot change max_wal_size from %lld MB to %lld MB (attempt %d)",
						(long long) d->old_mb, (long long) d->new_mb,
						failing.attempts),
				 errdetail("%s", detail),
				 errhint("pg_walsizer tries again in %.0f s.", delay_s)));
		return;
	}
	strlcpy(failing.reported, detail, sizeof(failing.reported));
	ereport(WARNING,
			(errmsg("pg_walsizer could not change max_wal_size from %lld MB to %lld MB",
					(long long) d->old_mb, (long long) d->new_mb),
			 errdetail("%s", detail),
			 errhint("pg_walsizer keeps running and tries again in %.0f s, less often while it keeps failing. Check free space and permissions in the data directory.",
					 delay_s)));
	walsizer_record(WALSIZER_ACTION_ERROR, d->old_mb, d->new_mb, m, reason);
}

static void
act_postponed(const WalsizerDecision *d, const char *why)
{
	/* once per value waiting in the file, not at every sample */
	if (strcmp(postponed_logged, why) == 0)
		return;
	strlcpy(postponed_logged, why, sizeof(postponed_logged));
	ereport(LOG,
			(errmsg("pg_walsizer postponed changing max_wal_size to %lld MB",
					(long long) d->new_mb),
			 errdetail("%s.", why),
			 errhint("Reload the configuration to apply that change; pg_walsizer will then adopt it.")));
}

static bool
act_blocked(const WalsizerDecision *d, const WalsizerMeasurements *m)
{
	char		reason[WALSIZER_REASON_LEN];

	/* an adoption is reported each time: the caller asks once per edit */
	if (blocked_reported && d->action != WALSIZER_ACTION_ADOPT)
		return false;
	blocked_reported = true;
	snprintf(reason, sizeof(reason),
			 "ALTER SYSTEM is disabled (allow_alter_system = off); recommends %lld MB: %s",
			 (long long) d->new_mb, d->reason);
	ereport(WARNING,
			(errmsg("pg_walsizer cannot change max_wal_size from %lld MB to %lld MB: ALTER SYSTEM is disabled",
					(long long) d->old_mb, (long long) d->new_mb),
			 errdetail("%s.", d->reason),
			 d->action == WALSIZER_ACTION_ADOPT ?
			 errhint("Remove max_wal_size from postgresql.auto.conf so that the other configuration files apply, or set allow_alter_system = on.") :
			 errhint("Set max_wal_size = '%lldMB' yourself, or set allow_alter_system = on. pg_walsizer keeps measuring and reports its recommendation in walsizer.status().",
					 (long long) d->new_mb)));
	walsizer_record(WALSIZER_ACTION_BLOCKED, d->old_mb, d->new_mb, m, reason);
	return false;
}

static bool
act_dry_run(const WalsizerDecision *d, const WalsizerMeasurements *m)
{
	char		reason[WALSIZER_REASON_LEN];
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

/* How far act_change() got. */
typedef enum ActOutcome
{
	ACT_WRITTEN,				/* written and reloaded */
	ACT_NOT_WRITTEN,			/* advised, blocked or postponed, and said so */
	ACT_FAILED					/* failed, or waiting to retry: try again */
} ActOutcome;

/*
 * Change the setting to d->new_mb unless this is a dry run, ALTER SYSTEM
 * is unavailable, someone else's change awaits a reload, or an earlier
 * failure's retry delay has not passed; each of those is reported and
 * recorded here.  Errors are recorded, never thrown.  now_us is the
 * monotonic time, window_s the window length.
 */
static ActOutcome
act_change(const WalsizerDecision *d, const WalsizerMeasurements *m,
		   WalsizerSizeTracker *owner, int64 now_us, double window_s)
{
	char		errbuf[WALSIZER_REASON_LEN];
	char		reason[WALSIZER_REASON_LEN];
	WalsizerApplyResult result;

	if (walsizer_dry_run)
	{
		walsizer_owner_attempting(owner);
		act_dry_run(d, m);
		return ACT_NOT_WRITTEN;
	}
	if (failing.attempts > 0 && now_us < failing.retry_at_us)
		return ACT_FAILED;

	result = walsizer_apply_prepare(errbuf, sizeof(errbuf));
	if (result == WALSIZER_APPLY_BLOCKED)
	{
		act_blocked(d, m);
		return ACT_NOT_WRITTEN;
	}
	if (result == WALSIZER_APPLY_DEFERRED)
	{
		/* the reload that follows will show up as a change to adopt */
		act_postponed(d, errbuf);
		return ACT_NOT_WRITTEN;
	}
	postponed_logged[0] = '\0';

	/* until the change below is applied, the old size is not walsizer's */
	walsizer_owner_attempting(owner);

	/* write the intent first, so a crash mid-change is not taken as the DBA's */
	walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, d->new_mb);
	if (!walsizer_state_save())
	{
		walsizer_apply_cancel();
		walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, 0);
		snprintf(reason, sizeof(reason),
				 "could not save the state file before changing max_wal_size to %lld MB; not changed",
				 (long long) d->new_mb);
		act_failed(d, m, reason,
				   "Its state file could not be saved first, so a crash during the change could not be told from the DBA's own change.",
				   now_us, window_s);
		return ACT_FAILED;
	}

	result = walsizer_apply_write(d->new_mb, errbuf, sizeof(errbuf));
	if (result != WALSIZER_APPLY_OK)
	{
		walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, 0);
		snprintf(reason, sizeof(reason), "ALTER SYSTEM failed: %s", errbuf);
		act_failed(d, m, reason, reason, now_us, window_s);
		return ACT_FAILED;
	}

	if (failing.attempts > 0)
		ereport(LOG,
				(errmsg("pg_walsizer changed max_wal_size after %d failed attempts",
						failing.attempts)));
	failing.attempts = 0;
	blocked_reported = false;
	return ACT_WRITTEN;
}

/*
 * Carry out one of the policy's decisions: record it, and change the
 * setting (act_change).  True when the server was told to run the new
 * size.
 */
bool
walsizer_act(const WalsizerDecision *d, const WalsizerMeasurements *m,
			 WalsizerSizeTracker *owner, int64 now_us, double window_s)
{
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
				 act_capped_hint(d)));
		walsizer_record(d->action, d->old_mb, d->new_mb, m, d->reason);
		return false;
	}

	if (act_change(d, m, owner, now_us, window_s) != ACT_WRITTEN)
		return false;
	walsizer_owner_written(owner, d->new_mb);
	walsizer_record_sizes(RECORD_KEEP, d->new_mb, 0);
	walsizer_record_pending(d->new_mb);
	act_log_change(d, m);
	walsizer_record(d->action, d->old_mb, d->new_mb, m, d->reason);
	return true;
}

/*
 * Write the DBA's max_wal_size of d->new_mb for them (an adopt decision:
 * a postgresql.conf setting postgresql.auto.conf shadows), through the
 * same path as walsizer's own changes, so that dry run, a disabled ALTER
 * SYSTEM and failures are handled alike.  Once written it is the DBA's
 * value, not walsizer's: the new baseline and floor, and the cooldown
 * starts over.  False only when it failed and should be tried again.
 *
 * The intent act_change() saves is cleared by the new baseline; a crash
 * between the write and that leaves the value counted as walsizer's own,
 * which only a later adoption of the same edit can correct.
 */
bool
walsizer_act_adopt(const WalsizerDecision *d, WalsizerSizeTracker *owner,
				   int64 now_us, double window_s)
{
	switch (act_change(d, NULL, owner, now_us, window_s))
	{
		case ACT_FAILED:
			return false;
		case ACT_NOT_WRITTEN:
			return true;
		case ACT_WRITTEN:
			break;
	}
	walsizer_owner_written_for_dba(owner, d->new_mb);
	walsizer_record_new_baseline(d->new_mb);
	walsizer_record_pending(d->new_mb);
	ereport(LOG,
			(errmsg("pg_walsizer adopted max_wal_size %lld MB from the configuration files (was %lld MB)",
					(long long) d->new_mb, (long long) d->old_mb),
			 errdetail("%s.", d->reason),
			 errhint("pg_walsizer wrote it into postgresql.auto.conf so that the server runs it, and will not shrink below it.")));
	walsizer_record(WALSIZER_ACTION_ADOPT, d->old_mb, d->new_mb, NULL,
					d->reason);
	return true;
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
