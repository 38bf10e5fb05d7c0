/*-------------------------------------------------------------------------
 *
 * act.c
 *		Carry out one of the policy's decisions.
 *
 * A decision that changes the size is written with ALTER SYSTEM and a
 * reload (alter_system.c), logged, and recorded in the history
 * (record.c).  Whether it may be written is size_owner.c's rule
 * (walsizer_owner_may_write); what stands in the way is handled here, and
 * never thrown: a dry run records advice instead; allow_alter_system = off
 * or a max_wal_size given on the command line is reported once and
 * recorded as "blocked"; a configuration change not yet reloaded postpones
 * ours (said once per reason); any other failure is recorded as "error"
 * once and retried less and less often, never at every sample.
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
#include "alter_system.h"
#include "config_files.h"
#include "record.h"
#include "recovery_bound_server.h"
#include "shared_state.h"
#include "size_units.h"
#include "test_hold.h"
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
	walsizer_record_failing(true);

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

/*
 * A configuration change awaits a reload: pg_walsizer's write would reload
 * it on the DBA's behalf (or replace it).  Said once per reason, not at
 * every sample; quiet when it waits for the reload of its own last write.
 */
static void
act_postponed(const WalsizerDecision *d, const char *why)
{
	if (why[0] == '\0' || strcmp(postponed_logged, why) == 0)
		return;
	strlcpy(postponed_logged, why, sizeof(postponed_logged));
	ereport(LOG,
			(errmsg("pg_walsizer postponed changing max_wal_size to %lld MB until the configuration is reloaded",
					(long long) d->new_mb),
			 errdetail("%s; pg_walsizer does not reload the configuration on the DBA's behalf.", why),
			 errhint("Reload the configuration (SELECT pg_reload_conf()) to apply the pending change; pg_walsizer then adopts any new max_wal_size and goes on.")));
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

/*
 * max_wal_size is given on the command line: every write would be
 * ignored.  Said once, and recorded as "blocked" once, until it is not.
 */
static bool outranked_reported = false;

static void
act_outranked(const WalsizerDecision *d, const WalsizerMeasurements *m)
{
	char		reason[WALSIZER_REASON_LEN];

	if (outranked_reported)
		return;
	outranked_reported = true;
	snprintf(reason, sizeof(reason),
			 "max_wal_size is set on the server's command line, which outranks postgresql.auto.conf; recommends %lld MB: %s",
			 (long long) d->new_mb, d->reason);
	ereport(WARNING,
			(errmsg("pg_walsizer cannot change max_wal_size from %lld MB to %lld MB: it is set on the server's command line",
					(long long) d->old_mb, (long long) d->new_mb),
			 errdetail("A value given with \"postgres -c\" or \"pg_ctl -o\" outranks postgresql.auto.conf, so ALTER SYSTEM cannot change it. pg_walsizer stops trying and keeps measuring."),
			 errhint("Remove max_wal_size from the server's command line and restart, or set walsizer.enable = off.")));
	walsizer_record(WALSIZER_ACTION_BLOCKED, d->old_mb, d->new_mb, m, reason);
}

/*
 * A write for the disk guard goes ahead although other configuration
 * changes await a reload: its reload applies them too.  Say which.
 */
static void
act_reload_applies_more(const char *why)
{
	ereport(LOG,
			(errmsg("pg_walsizer's reload to protect the WAL volume also applies configuration changes that were not loaded yet"),
			 errdetail("%s.", why)));
}

/*
 * Change the setting to d->new_mb if size_owner.c's rules let it
 * (walsizer_owner_may_write): otherwise advise (dry run), report (ALTER
 * SYSTEM disabled, the command line outranks it) or postpone (a change
 * awaits a reload); an earlier failure's retry delay postpones it too.
 * Errors are recorded, never thrown.
 */
static WalsizerActOutcome
act_change(const WalsizerDecision *d, const WalsizerMeasurements *m,
		   const WalsizerActContext *ctx)
{
	char		errbuf[WALSIZER_REASON_LEN];
	char		reason[WALSIZER_REASON_LEN];
	char		why[WALSIZER_REASON_LEN];
	WalsizerWriteFacts facts;
	WalsizerWriteVerdict verdict;

	memset(&facts, 0, sizeof(facts));
	facts.enabled = walsizer_enable;
	facts.dry_run = walsizer_dry_run;
	facts.disk_guard = d->action == WALSIZER_ACTION_PROTECT;
	facts.outranked = ctx->loaded ? ctx->loaded->outranked :
		walsizer_max_wal_size_outranked();
	facts.alter_system_allowed = walsizer_alter_system_allowed();
	verdict = walsizer_owner_may_write(&facts);
	if (!facts.outranked)
		outranked_reported = false;
	if (verdict == WALSIZER_WRITE)
	{
		if (failing.attempts > 0 && ctx->now_us < failing.retry_at_us)
			return WALSIZER_ACT_NOT_DONE;
		/* its own last write is not loaded yet: wait quietly for that */
		if (walsizer_alter_system_own_write_unloaded())
			return WALSIZER_ACT_NOT_DONE;
		/* under the lock, so that no DBA's ALTER SYSTEM slips in after it */
		walsizer_alter_system_prepare(ctx->loaded, &facts.config_pending, why,
							   sizeof(why));
		verdict = walsizer_owner_may_write(&facts);
		if (verdict != WALSIZER_WRITE)
			walsizer_alter_system_cancel();
	}

	switch (verdict)
	{
		case WALSIZER_WRITE_DISABLED:
			/* not trying is not failing (status.failing_since) */
			walsizer_record_failing(false);
			return WALSIZER_ACT_NOT_DONE;
		case WALSIZER_WRITE_ADVISE:
			walsizer_record_failing(false);
			walsizer_owner_attempting(ctx->owner);
			act_dry_run(d, m);
			return WALSIZER_ACT_ADVISED;
		case WALSIZER_WRITE_OUTRANKED:
			act_outranked(d, m);
			return WALSIZER_ACT_ADVISED;
		case WALSIZER_WRITE_BLOCKED:
			act_blocked(d, m);
			return WALSIZER_ACT_ADVISED;
		case WALSIZER_WRITE_DEFER:
			act_postponed(d, why);
			return WALSIZER_ACT_NOT_DONE;
		case WALSIZER_WRITE:
			break;
	}
	postponed_logged[0] = '\0';
	if (facts.config_pending && why[0] != '\0')
		act_reload_applies_more(why);

	/* write the intent first, so a crash mid-change is not taken as the DBA's */
	walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, d->new_mb);
	if (!walsizer_state_save())
	{
		walsizer_alter_system_cancel();
		walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, 0);
		snprintf(reason, sizeof(reason),
				 "could not save the state file before changing max_wal_size to %lld MB; not changed",
				 (long long) d->new_mb);
		act_failed(d, m, reason,
				   "Its state file could not be saved first, so a crash during the change could not be told from the DBA's own change.",
				   ctx->now_us, ctx->window_s);
		return WALSIZER_ACT_NOT_DONE;
	}

	if (walsizer_alter_system_write(d->new_mb, ctx->alter_count_seen, errbuf,
							 sizeof(errbuf)) != WALSIZER_ALTER_SYSTEM_OK)
	{
		walsizer_record_sizes(RECORD_KEEP, RECORD_KEEP, 0);
		snprintf(reason, sizeof(reason), "ALTER SYSTEM failed: %s", errbuf);
		act_failed(d, m, reason, reason, ctx->now_us, ctx->window_s);
		return WALSIZER_ACT_NOT_DONE;
	}

	if (failing.attempts > 0)
		ereport(LOG,
				(errmsg("pg_walsizer changed max_wal_size after %d failed attempts",
						failing.attempts)));
	failing.attempts = 0;
	walsizer_record_failing(false);
	blocked_reported = false;
	return WALSIZER_ACT_WRITTEN;
}

/*
 * Carry out one of the policy's decisions: record it, and change the
 * setting (act_change).  The outcome says whether the decision was
 * carried out (written, or advised or reported where no write may be
 * made) or not done at all (failed or postponed), which must consume none
 * of the policy's state.
 */
WalsizerActOutcome
walsizer_act(const WalsizerDecision *d, const WalsizerMeasurements *m,
			 const WalsizerActContext *ctx)
{
	WalsizerActOutcome outcome;

	if (d->action == WALSIZER_ACTION_NONE)
		return WALSIZER_ACT_NONE;
	/* held by a test: decided again, on fresh figures, once released */
	if (walsizer_test_hold_takes(d->action))
		return WALSIZER_ACT_NOT_DONE;

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
		return WALSIZER_ACT_ADVISED;
	}

	outcome = act_change(d, m, ctx);
	if (outcome != WALSIZER_ACT_WRITTEN)
		return outcome;
	walsizer_owner_written(ctx->owner, d->new_mb);
	walsizer_record_sizes(RECORD_KEEP, d->new_mb, 0);
	walsizer_record_pending(d->new_mb);
	act_log_change(d, m);
	walsizer_record(d->action, d->old_mb, d->new_mb, m, d->reason);
	return WALSIZER_ACT_WRITTEN;
}

/*
 * Write the DBA's max_wal_size of d->new_mb for them (an adopt decision:
 * a postgresql.conf setting postgresql.auto.conf shadows), through the
 * same path as walsizer's own changes, so that dry run, a disabled ALTER
 * SYSTEM, a pending reload and failures are handled alike.  Once written
 * it is the DBA's value, not walsizer's: the new baseline and floor, and
 * the cooldown starts over.  WALSIZER_ACT_NOT_DONE when it is to be tried
 * again.
 *
 * The intent act_change() saves is cleared by the new baseline; a crash
 * between the write and that leaves the value counted as walsizer's own,
 * which only a later adoption of the same edit can correct.
 */
WalsizerActOutcome
walsizer_act_adopt(const WalsizerDecision *d, const WalsizerActContext *ctx)
{
	WalsizerActOutcome outcome;

	if (walsizer_test_hold_takes(d->action))
		return WALSIZER_ACT_NOT_DONE;
	outcome = act_change(d, NULL, ctx);
	if (outcome != WALSIZER_ACT_WRITTEN)
		return outcome;
	walsizer_owner_written_for_dba(ctx->owner, d->new_mb);
	walsizer_record_new_baseline(d->new_mb);
	walsizer_record_pending(d->new_mb);
	ereport(LOG,
			(errmsg("pg_walsizer adopted max_wal_size %lld MB from the configuration files (was %lld MB)",
					(long long) d->new_mb, (long long) d->old_mb),
			 errdetail("%s.", d->reason),
			 errhint("pg_walsizer wrote it into postgresql.auto.conf so that the server runs it, and will not shrink below it.")));
	walsizer_record(WALSIZER_ACTION_ADOPT, d->old_mb, d->new_mb, NULL,
					d->reason);
	return WALSIZER_ACT_WRITTEN;
}

/*
 * Why the last change was postponed, while it still is ("" when it was
 * not), for walsizer.status().
 */
const char *
walsizer_act_postponed(void)
{
	return postponed_logged;
}

/*
 * The configuration was reloaded: whatever postponed a change may be
 * gone, and is said again should it come back.
 */
void
walsizer_act_note_reload(void)
{
	postponed_logged[0] = '\0';
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
