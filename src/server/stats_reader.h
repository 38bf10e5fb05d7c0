/*-------------------------------------------------------------------------
 *
 * stats_reader.h
 *		Read the server's checkpoint and WAL statistics, whatever the major.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_STATS_READER_H
#define WALSIZER_STATS_READER_H

#include "datatype/timestamp.h"

typedef struct WalsizerCounters
{
	int64		timed;			/* timed checkpoints (incl. skipped ones) */
	int64		requested;		/* requested checkpoints, for any reason */
	TimestampTz reset_at;		/* when the counters were last reset */
	bool		restartpoints_counted;	/* 17+: restartpoints have counters
										 * of their own (below); before,
										 * a standby's restartpoints count
										 * in timed and requested */
	int64		restartpoints_timed;	/* timed restartpoints (17+) */
	int64		restartpoints_requested;	/* requested ones (17+) */
	int64		wal_fpi;		/* full-page images written */
	uint64		wal_fpi_bytes;	/* their bytes (19+), else 0 */
	bool		fpi_bytes_counted;	/* wal_fpi_bytes is counted */
	uint64		wal_bytes;		/* WAL bytes, as pg_stat_wal counts them */
	TimestampTz wal_reset_at;	/* when the WAL counters were last reset */
} WalsizerCounters;

extern void walsizer_read_counters(WalsizerCounters *counters);

#endif							/* WALSIZER_STATS_READER_H */
