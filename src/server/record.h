/*-------------------------------------------------------------------------
 *
 * record.h
 *		Record what pg_walsizer decided and measured, in shared memory and
 *		the state file, for the SQL functions and the next start.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_RECORD_H
#define WALSIZER_RECORD_H

#include "datatype/timestamp.h"

#include "held_wal.h"
#include "measure.h"
#include "policy.h"

/* Leave a persisted size unchanged. */
#define RECORD_KEEP (-1)

extern void walsizer_record(WalsizerAction action, int64 old_mb, int64 new_mb,
							const WalsizerMeasurements *m, const char *reason);
extern void walsizer_record_sizes(int64 baseline_mb, int64 last_set_mb,
								  int64 intent_mb);
extern void walsizer_record_failing(bool failing);
extern void walsizer_record_pending(int64 pending_mb);
extern void walsizer_record_confirmed(int64 confirmed_mb);
extern void walsizer_record_new_baseline(int64 baseline_mb);

/* One iteration's figures for walsizer.status(). */
typedef struct WalsizerIterationReport
{
	TimestampTz now;
	const WalsizerMeasurements *ended;	/* the window that ended, or NULL */
	int64		ended_fpi;		/* its full-page images */
	const WalsizerMeasurements *current;	/* the window in progress */
	const WalsizerStatusFigures *figures;	/* its last cycle, for status() */
	const WalsizerDecision *plan;	/* what a window end now would decide */
	TimestampTz next_window_at;
	double		window_s;
	int64		disk_cap_mb;
	bool		held_known;		/* held was measured */
	WalsizerHeldWal held;		/* WAL slots, wal_keep_size, the archiver hold */
	bool		blocked;		/* ALTER SYSTEM is not allowed */
	double		replay_rate;	/* bytes/s of a crash recovery */
	int			replay_rate_source; /* WalsizerReplayRateSource */
	double		estimated_recovery_s;	/* worst case at the size and load */
	uint64		recovery_cycle_bytes;	/* the cycle that estimate assumes */
	const char *max_wal_size_source;	/* where the running value comes
										 * from, NULL unknown */
	int64		shadowed_mb;	/* the files' value postgresql.auto.conf
								 * shadows, 0 none */
} WalsizerIterationReport;

extern void walsizer_publish(const WalsizerIterationReport *report);

#endif							/* WALSIZER_RECORD_H */
