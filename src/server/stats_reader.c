/*-------------------------------------------------------------------------
 *
 * stats_reader.c
 *		The one place that knows where each PostgreSQL major keeps the
 *		checkpoint and WAL counters.
 *
 *		15, 16: PgStat_CheckpointerStats.timed_checkpoints and
 *				requested_checkpoints; that struct has no reset timestamp,
 *				but pg_stat_reset_shared('bgwriter') resets the bgwriter and
 *				checkpointer counters together and stamps the bgwriter's.
 *		17+:	num_timed and num_requested, with their own reset timestamp,
 *				and a standby's restartpoints apart from them
 *				(restartpoints_timed, restartpoints_requested); before 17
 *				the checkpointer counts a standby's restartpoints (even
 *				those it skips for want of a new checkpoint record) as
 *				checkpoints.
 *		18+:	the WAL counters moved into PgStat_WalStats.wal_counters.
 *		19+:	wal_fpi_bytes counts the bytes of full-page images; before,
 *				only their number is known.
 *
 * The statistics are read from the shared snapshot; the cached copy is
 * dropped first so that every call sees current values even though the
 * worker never ends a transaction between reads.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pgstat.h"

#include "stats_reader.h"

void
walsizer_read_counters(WalsizerCounters *counters)
{
	PgStat_CheckpointerStats *checkpointer;
	PgStat_WalStats *wal;

	pgstat_clear_snapshot();

	checkpointer = pgstat_fetch_stat_checkpointer();
#if PG_VERSION_NUM >= 170000
	counters->timed = checkpointer->num_timed;
	counters->requested = checkpointer->num_requested;
	counters->reset_at = checkpointer->stat_reset_timestamp;
	counters->restartpoints_counted = true;
	counters->restartpoints_timed = checkpointer->restartpoints_timed;
	counters->restartpoints_requested = checkpointer->restartpoints_requested;
#else
	counters->restartpoints_counted = false;
	counters->restartpoints_timed = 0;
	counters->restartpoints_requested = 0;
	counters->timed = checkpointer->timed_checkpoints;
	counters->requested = checkpointer->requested_checkpoints;
	counters->reset_at = pgstat_fetch_stat_bgwriter()->stat_reset_timestamp;
#endif

	wal = pgstat_fetch_stat_wal();
#if PG_VERSION_NUM >= 180000
	counters->wal_fpi = wal->wal_counters.wal_fpi;
	counters->wal_bytes = wal->wal_counters.wal_bytes;
#if PG_VERSION_NUM >= 190000
	counters->wal_fpi_bytes = wal->wal_counters.wal_fpi_bytes;
	counters->fpi_bytes_counted = true;
#else
	counters->wal_fpi_bytes = 0;
	counters->fpi_bytes_counted = false;
#endif
#else
	counters->wal_fpi_bytes = 0;
	counters->fpi_bytes_counted = false;
	counters->wal_fpi = wal->wal_fpi;
	counters->wal_bytes = wal->wal_bytes;
#endif
	counters->wal_reset_at = wal->stat_reset_timestamp;
}
