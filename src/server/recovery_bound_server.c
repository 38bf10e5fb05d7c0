/*-------------------------------------------------------------------------
 *
 * recovery_bound_server.c
 *		Measure how fast this server recovers from a crash, and turn
 *		walsizer.max_recovery_time into a cap on max_wal_size: the
 *		server half of recovery_bound.c, whose arithmetic it uses.
 *
 * Crash recovery replays the WAL from the redo pointer of the last
 * completed checkpoint to the end of WAL, and the server accepts no
 * connection until it is done.  While the server runs, the worker keeps
 * that redo pointer (read from pg_control, which holds the last completed
 * checkpoint, not the one in progress) in the state file.  When the next
 * start finds the worker did not stop cleanly, a crash recovery ran: the
 * WAL it replayed is the distance from that redo pointer to the redo
 * pointer of the end-of-recovery checkpoint, and the time the server was
 * unavailable is the time from the postmaster's start to the worker's
 * (which starts once recovery has finished).  Their ratio, in bytes of WAL
 * per second of unavailability, includes the start-up and the
 * end-of-recovery checkpoint: what a DBA waits for, not the replay alone.
 *
 * The last WALSIZER_REPLAY_RATES measurements are kept; a share of the
 * slowest is used (walsizer_conservative_replay_rate()).  Before any, the assumed
 * rate WALSIZER_ASSUMED_REPLAY_RATE_MB_S; walsizer.replay_rate, when set,
 * overrides both.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "storage/lwlock.h"
#include "utils/timestamp.h"

#include "policy.h"
#include "recovery_bound_server.h"
#include "shared_state.h"
#include "size_units.h"
#include "walsizer.h"

/*
 * A recovery that replayed less than this is not measured: its time is
 * mostly the fixed cost of starting up, and the "rate" it gives would be
 * far below what replaying a real cycle of WAL achieves.
 */
#define MIN_MEASURED_REPLAY_BYTES ((uint64) 32 * BYTES_PER_MB)

/* The redo pointer of the last completed checkpoint, from pg_control. */
static XLogRecPtr
completed_checkpoint_redo(void)
{
	bool		crc_ok;
	ControlFileData *control = get_controlfile(".", &crc_ok);
	XLogRecPtr	redo = crc_ok ? control->checkPointCopy.redo : InvalidXLogRecPtr;

	pfree(control);
	return redo;
}

/*
 * At the worker's start, once the state file is loaded: if the previous
 * worker of this data directory did not stop cleanly and the postmaster
 * started afresh, a crash recovery just ran; measure it.  Then note that
 * the worker runs.
 */
void
walsizer_recovery_at_start(void)
{
	XLogRecPtr	redo_now = completed_checkpoint_redo();
	TimestampTz now = GetCurrentTimestamp();
	WalsizerPersistent *p = &walsizer_shared->persistent;
	uint64		before_crash;
	bool		crashed;
	bool		same_postmaster;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	before_crash = p->completed_redo_lsn;
	crashed = !p->stopped_cleanly && before_crash != 0;
	/* a reinitialisation after a crash keeps the postmaster: not timed */
	same_postmaster = p->postmaster_started_at == PgStartTime;
	LWLockRelease(walsizer_shared->lock);

	/*
	 * A standby's recovery ends with its promotion, after however long it
	 * ran as a standby (with the state file of the primary it was copied
	 * from): no crash recovery to time.
	 */
	if (crashed && PromoteIsTriggered())
		crashed = false;
	/*
	 * A worker that starts on a standby starts once it is consistent, and
	 * its recovery goes on while it runs: nothing ended to be timed.
	 */
	if (crashed && RecoveryInProgress())
		crashed = false;

	if (crashed && !same_postmaster && redo_now > before_crash)
	{
		uint64		replayed = redo_now - before_crash;
		double		seconds = (double) (now - PgStartTime) / USECS_PER_SEC;

		if (replayed >= MIN_MEASURED_REPLAY_BYTES && seconds > 0)
		{
			double		rate = (double) replayed / seconds;

			LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
			walsizer_replay_rate_append(p, rate);
			LWLockRelease(walsizer_shared->lock);
			ereport(LOG,
					(errmsg("crash recovery replayed %.0f MB in %.1f s: %.1f MB/s",
							(double) replayed / BYTES_PER_MB, seconds,
							rate / BYTES_PER_MB),
					 errdetail("From the server's start to the end of recovery; pg_walsizer plans with %.1f times the slowest of its last %d measurements.",
							   REPLAY_RATE_PLANNING_SHARE, WALSIZER_REPLAY_RATES)));
		}
		else
			ereport(LOG,
					(errmsg("crash recovery replayed %.0f MB in %.1f s, too little WAL to measure a replay rate",
							(double) replayed / BYTES_PER_MB, seconds)));
	}

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	p->completed_redo_lsn = redo_now;
	p->stopped_cleanly = 0;
	p->postmaster_started_at = PgStartTime;
	LWLockRelease(walsizer_shared->lock);
	walsizer_state_save();
}

/*
 * The most WAL a crash would have replayed (insert position less the redo
 * pointer of the last completed checkpoint) at any sample of each of the
 * last SEEN_CYCLES checkpoint cycles, and of the one in progress: the
 * worst case the estimate must not fall below.  In process memory; a new
 * worker starts from nothing.
 */
#define SEEN_CYCLES 4
static uint64 seen_peaks[SEEN_CYCLES];
static int	seen_next;
static uint64 seen_in_cycle;

/*
 * At every sample: keep the redo pointer a crash would replay from in the
 * state file (it moves once per checkpoint, and so does the save), and the
 * WAL a crash would replay now.
 */
void
walsizer_recovery_track_checkpoint(void)
{
	XLogRecPtr	redo = completed_checkpoint_redo();
	/* a standby's crash replays from its last restartpoint to what it has */
	XLogRecPtr	insert = RecoveryInProgress() ?
		GetXLogReplayRecPtr(NULL) : GetXLogInsertRecPtr();
	bool		moved;

	if (redo == InvalidXLogRecPtr)
		return;
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	moved = walsizer_shared->persistent.completed_redo_lsn != redo;
	walsizer_shared->persistent.completed_redo_lsn = redo;
	LWLockRelease(walsizer_shared->lock);

	/* a checkpoint completed: the cycle's worst moment was just before */
	if (moved && seen_in_cycle > 0)
	{
		seen_peaks[seen_next] = seen_in_cycle;
		seen_next = (seen_next + 1) % SEEN_CYCLES;
		seen_in_cycle = 0;
	}
	if (insert > redo && insert - redo > seen_in_cycle)
		seen_in_cycle = insert - redo;

	if (moved)
		walsizer_state_save();
}

/* The most WAL a crash would have replayed in the last few cycles. */
uint64
walsizer_recovery_seen_bytes(void)
{
	uint64		most = seen_in_cycle;

	for (int i = 0; i < SEEN_CYCLES; i++)
		if (seen_peaks[i] > most)
			most = seen_peaks[i];
	return most;
}

/* The worker stops on a shutdown request; the caller saves the state. */
void
walsizer_recovery_note_clean_stop(void)
{
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->persistent.stopped_cleanly = 1;
	LWLockRelease(walsizer_shared->lock);
}

/* The replay rate in use, in bytes per second of unavailability. */
double
walsizer_replay_rate(WalsizerReplayRateSource *source)
{
	double		measured;

	if (walsizer_replay_rate_mb_s > 0)
	{
		*source = WALSIZER_REPLAY_SETTING;
		return (double) walsizer_replay_rate_mb_s * BYTES_PER_MB;
	}
	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	measured = walsizer_conservative_replay_rate(walsizer_shared->persistent.replay_rates,
												 walsizer_shared->persistent.replay_count);
	LWLockRelease(walsizer_shared->lock);
	if (measured > 0)
	{
		*source = WALSIZER_REPLAY_MEASURED;
		return measured;
	}
	*source = WALSIZER_REPLAY_ASSUMED;
	return (double) WALSIZER_ASSUMED_REPLAY_RATE_MB_S * BYTES_PER_MB;
}

const char *
walsizer_replay_rate_source_name(WalsizerReplayRateSource source)
{
	switch (source)
	{
		case WALSIZER_REPLAY_MEASURED:
			return "measured";
		case WALSIZER_REPLAY_SETTING:
			return "setting";
		case WALSIZER_REPLAY_ASSUMED:
			break;
	}
	return "assumed";
}

/* The cap walsizer.max_recovery_time puts on max_wal_size; 0 for none. */
int64
walsizer_recovery_cap_mb_now(void)
{
	WalsizerReplayRateSource source;

	if (walsizer_max_recovery_time_s <= 0)
		return 0;
	return walsizer_recovery_cap_mb((double) walsizer_max_recovery_time_s,
									walsizer_replay_rate(&source));
}
