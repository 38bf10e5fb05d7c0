/*-------------------------------------------------------------------------
 *
 * held_wal.h
 *		WAL that pg_wal keeps beyond what max_wal_size governs (replication
 *		slots, wal_keep_size, a failing archiver), and the disk's share of
 *		the WAL volume once that WAL is set aside.
 *
 * Pure: no PostgreSQL headers; src/server/held_wal_server.c reads the
 * positions from the server.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_HELD_WAL_H
#define WALSIZER_HELD_WAL_H

#include <stdbool.h>
#include <stdint.h>

/* What holds WAL behind the redo pointer; status().wal_held_by names it. */
typedef enum WalsizerWalHolder
{
	WALSIZER_HELD_BY_NONE = 0,
	WALSIZER_HELD_BY_SLOT,
	WALSIZER_HELD_BY_WAL_KEEP_SIZE,
	WALSIZER_HELD_BY_ARCHIVER
} WalsizerWalHolder;

/*
 * The oldest WAL position each holder keeps, 0 when it keeps none, and the
 * redo pointer of the last completed checkpoint, before which a checkpoint
 * removes (or recycles) every segment nothing holds.
 */
typedef struct WalsizerHeldPositions
{
	uint64_t	redo_lsn;
	uint64_t	slot_lsn;
	uint64_t	keep_lsn;
	uint64_t	archive_lsn;
} WalsizerHeldPositions;

typedef struct WalsizerHeldWal
{
	uint64_t	bytes;			/* WAL held behind the redo pointer */
	WalsizerWalHolder holder;	/* the one that holds the oldest; NONE
								 * when bytes is 0 */
} WalsizerHeldWal;

extern WalsizerHeldWal walsizer_held_wal(const WalsizerHeldPositions *pos);
extern const char *walsizer_wal_holder_name(WalsizerWalHolder holder);
extern uint64_t walsizer_slot_held_lsn(uint64_t slots_min_lsn, uint64_t position,
									   int64_t max_slot_wal_keep_size_mb);
extern uint64_t walsizer_keep_held_lsn(uint64_t position, int64_t wal_keep_size_mb);
extern int64_t walsizer_disk_share_mb(double disk_fraction, uint64_t free_bytes,
									  uint64_t wal_bytes, uint64_t held_bytes);
extern bool walsizer_held_wal_binds(const WalsizerHeldWal *held,
									int64_t segment_bytes, bool cap_is_disk,
									int64_t cap_mb, int64_t cap_without_held_mb,
									int64_t size_mb, int64_t needed_mb);

#endif							/* WALSIZER_HELD_WAL_H */
