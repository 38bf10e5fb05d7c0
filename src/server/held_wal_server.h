/*-------------------------------------------------------------------------
 *
 * held_wal_server.h
 *		WAL that replication slots, wal_keep_size and the archiver keep in
 *		pg_wal, read from the server.  The server half of held_wal.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_HELD_WAL_SERVER_H
#define WALSIZER_HELD_WAL_SERVER_H

#include "held_wal.h"

extern bool walsizer_measure_held_wal(WalsizerHeldWal *held);
extern void walsizer_held_wal_note_plan(const WalsizerHeldWal *held, bool held_known,
										int64 cap_without_held_mb, bool cap_is_disk,
										int64 cap_mb, int64 size_mb, int64 needed_mb);

#endif							/* WALSIZER_HELD_WAL_SERVER_H */
