/*-------------------------------------------------------------------------
 *
 * held_wal.c
 *		The arithmetic of held WAL: how much of pg_wal max_wal_size does not
 *		govern, who holds it, and what is left of the WAL volume for
 *		max_wal_size.
 *
 * A checkpoint removes the segments before its redo pointer, except those
 * a replication slot (up to max_slot_wal_keep_size), wal_keep_size or the
 * archiver (a segment not yet archived) still needs: PostgreSQL's
 * KeepLogSeg() and XLogArchiveCheckDone().  Whatever they keep stays in
 * pg_wal however small max_wal_size is, so it is not space max_wal_size
 * can have.
 *
 * Pure: no PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include <stddef.h>

#include "held_wal.h"
#include "size_units.h"

/*
 * WAL held behind the redo pointer: from the oldest position any holder
 * keeps to the redo pointer.  On a tie the first holder in the order slot,
 * wal_keep_size, archiver is named.  A holder at or after the redo pointer
 * holds nothing a checkpoint would remove.
 */
WalsizerHeldWal
walsizer_held_wal(const WalsizerHeldPositions *pos)
{
	WalsizerHeldWal held = {0, WALSIZER_HELD_BY_NONE};
	const uint64_t lsns[] = {pos->slot_lsn, pos->keep_lsn, pos->archive_lsn};
	const WalsizerWalHolder holders[] = {
		WALSIZER_HELD_BY_SLOT, WALSIZER_HELD_BY_WAL_KEEP_SIZE,
		WALSIZER_HELD_BY_ARCHIVER
	};

	for (int i = 0; i < 3; i++)
	{
		if (lsns[i] == 0 || lsns[i] >= pos->redo_lsn)
			continue;
		if (pos->redo_lsn - lsns[i] > held.bytes)
		{
			held.bytes = pos->redo_lsn - lsns[i];
			held.holder = holders[i];
		}
	}
	return held;
}

/* status().wal_held_by: NULL when nothing holds WAL. */
const char *
walsizer_wal_holder_name(WalsizerWalHolder holder)
{
	switch (holder)
	{
		case WALSIZER_HELD_BY_SLOT:
			return "slot";
		case WALSIZER_HELD_BY_WAL_KEEP_SIZE:
			return "wal_keep_size";
		case WALSIZER_HELD_BY_ARCHIVER:
			return "archiver";
		case WALSIZER_HELD_BY_NONE:
			break;
	}
	return NULL;
}

/*
 * The oldest position the slots keep (slots_min_lsn, 0 none) once
 * max_slot_wal_keep_size (-1: unlimited) is applied: a checkpoint
 * invalidates a slot that needs more WAL than that behind the current
 * position, so no slot holds WAL older than position minus that.
 */
uint64_t
walsizer_slot_held_lsn(uint64_t slots_min_lsn, uint64_t position,
					   int64_t max_slot_wal_keep_size_mb)
{
	uint64_t	limit_bytes;

	if (slots_min_lsn == 0 || max_slot_wal_keep_size_mb < 0)
		return slots_min_lsn;
	limit_bytes = (uint64_t) max_slot_wal_keep_size_mb * BYTES_PER_MB;
	if (position > limit_bytes && position - limit_bytes > slots_min_lsn)
		return position - limit_bytes;
	return slots_min_lsn;
}

/*
 * The oldest position wal_keep_size keeps, 0 when it is 0.  Early in a
 * cluster's life it keeps everything: position 1, the oldest there is.
 */
uint64_t
walsizer_keep_held_lsn(uint64_t position, int64_t wal_keep_size_mb)
{
	uint64_t	keep_bytes;

	if (wal_keep_size_mb <= 0 || position == 0)
		return 0;
	keep_bytes = (uint64_t) wal_keep_size_mb * BYTES_PER_MB;
	return position > keep_bytes ? position - keep_bytes : 1;
}

/*
 * disk_fraction of the space max_wal_size can have on the WAL volume, in
 * MB: its free space plus the WAL files in pg_wal, less the held WAL in
 * them (at most all of them).  At least 1: a measured share is never 0,
 * which means unknown to the policy (walsizer_disk_cap_mb()), and the
 * policy rounds any share up to max_wal_size's own minimum.
 */
int64_t
walsizer_disk_share_mb(double disk_fraction, uint64_t free_bytes,
					   uint64_t wal_bytes, uint64_t held_bytes)
{
	uint64_t	usable_wal = held_bytes < wal_bytes ? wal_bytes - held_bytes : 0;
	double		share_mb;

	share_mb = disk_fraction * ((double) free_bytes + (double) usable_wal) /
		BYTES_PER_MB;
	if (!(share_mb >= 1.0))
		return 1;
	if (share_mb > (double) INT64_MAX / 2)
		return INT64_MAX / 2;
	return (int64_t) share_mb;
}

/*
 * Whether the held WAL binds the cap, so that the DBA is told (once): the
 * disk's share is the cap, it would be at least a segment higher without
 * the held WAL (cap_without_held_mb: the share were nothing held, or
 * walsizer.max if lower), at least a segment is held, and the cap limits
 * the size: it runs at the cap or above, or the load needs more.
 */
bool
walsizer_held_wal_binds(const WalsizerHeldWal *held, int64_t segment_bytes,
						bool cap_is_disk, int64_t cap_mb,
						int64_t cap_without_held_mb, int64_t size_mb,
						int64_t needed_mb)
{
	return held->holder != WALSIZER_HELD_BY_NONE &&
		segment_bytes > 0 && held->bytes >= (uint64_t) segment_bytes &&
		cap_is_disk &&
		cap_without_held_mb >= cap_mb + walsizer_segment_mb(segment_bytes) &&
		(size_mb >= cap_mb || needed_mb > cap_mb);
}
