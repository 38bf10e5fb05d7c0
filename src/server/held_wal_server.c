/*-------------------------------------------------------------------------
 *
 * held_wal_server.c
 *		Measure the WAL pg_wal keeps behind the last checkpoint's redo
 *		pointer for replication slots, wal_keep_size and the archiver, and
 *		say once when it lowers the disk cap that limits max_wal_size.
 *
 * max_wal_size governs the WAL from the redo pointer on; a checkpoint
 * removes the segments before it, except those KeepLogSeg() keeps for the
 * slots and wal_keep_size and those not yet archived (a .ready file in
 * pg_wal/archive_status).  An inactive slot or a failing archive_command
 * keeps WAL without bound, so the space it takes is not space the disk cap
 * can give max_wal_size (disk_space.c).  held_wal.c does the arithmetic.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xlogrecovery.h"
#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "replication/slot.h"
#include "storage/fd.h"
#include "storage/lwlock.h"
#include "storage/spin.h"

#include "compat.h"
#include "held_wal_server.h"
#include "size_units.h"

#define ARCHIVE_STATUS_DIR XLOGDIR "/archive_status"
#define READY_SUFFIX ".ready"

/* Whether the LOG for the current episode of held WAL binding was given. */
static bool binding_reported = false;

/*
 * The redo pointer of the last completed checkpoint (or restartpoint), as
 * pg_control holds it, read as pg_control_checkpoint() does; 0 if it
 * cannot be read.  Not GetRedoRecPtr(): that moves when a checkpoint
 * starts, before it removes anything.
 */
static XLogRecPtr
completed_redo_lsn(void)
{
	ControlFileData *control;
	bool		crc_ok;
	XLogRecPtr	redo;

	LWLockAcquire(ControlFileLock, LW_SHARED);
	control = get_controlfile(DataDir, &crc_ok);
	LWLockRelease(ControlFileLock);
	redo = crc_ok ? control->checkPointCopy.redo : InvalidXLogRecPtr;
	pfree(control);
	return redo;
}

/*
 * The oldest restart_lsn of the slots, as ReplicationSlotsComputeRequiredLSN()
 * computes it: invalidated slots hold nothing.  0 when no slot holds WAL.
 */
static XLogRecPtr
slots_min_lsn(void)
{
	XLogRecPtr	min_lsn = InvalidXLogRecPtr;

	if (max_replication_slots <= 0 || ReplicationSlotCtl == NULL)
		return InvalidXLogRecPtr;
	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	for (int i = 0; i < max_replication_slots; i++)
	{
		ReplicationSlot *s = &ReplicationSlotCtl->replication_slots[i];
		XLogRecPtr	restart_lsn;
		bool		invalidated;

		if (!s->in_use)
			continue;
		SpinLockAcquire(&s->mutex);
		restart_lsn = s->data.restart_lsn;
		invalidated = walsizer_slot_invalidated(s);
		SpinLockRelease(&s->mutex);
		if (invalidated || XLogRecPtrIsInvalid(restart_lsn))
			continue;
		if (XLogRecPtrIsInvalid(min_lsn) || restart_lsn < min_lsn)
			min_lsn = restart_lsn;
	}
	LWLockRelease(ReplicationSlotControlLock);
	return min_lsn;
}

/*
 * The start of the oldest segment waiting to be archived (a .ready file),
 * 0 when none does or nothing archives here: on a standby only
 * archive_mode = always archives (XLogArchiveCheckDone()).
 */
static XLogRecPtr
oldest_ready_lsn(void)
{
	DIR		   *dir;
	struct dirent *de;
	XLogSegNo	oldest = 0;
	bool		found = false;
	XLogRecPtr	lsn;

	if (!XLogArchivingActive() ||
		(RecoveryInProgress() && !XLogArchivingAlways()))
		return InvalidXLogRecPtr;

	dir = AllocateDir(ARCHIVE_STATUS_DIR);
	while ((de = ReadDirExtended(dir, ARCHIVE_STATUS_DIR, LOG)) != NULL)
	{
		TimeLineID	tli;
		XLogSegNo	segno;

		/* segments only: not the .history and .backup files */
		if (strlen(de->d_name) != XLOG_FNAME_LEN + strlen(READY_SUFFIX) ||
			strcmp(de->d_name + XLOG_FNAME_LEN, READY_SUFFIX) != 0 ||
			strspn(de->d_name, "0123456789ABCDEF") != XLOG_FNAME_LEN)
			continue;
		XLogFromFileName(de->d_name, &tli, &segno, wal_segment_size);
		if (!found || segno < oldest)
			oldest = segno;
		found = true;
	}
	FreeDir(dir);
	if (!found)
		return InvalidXLogRecPtr;
	XLogSegNoOffsetToRecPtr(oldest, 0, wal_segment_size, lsn);
	/* 0 is "none" to held_wal.c; segment 0 is never written anyway */
	return lsn == InvalidXLogRecPtr ? 1 : lsn;
}

/*
 * The WAL held behind the last checkpoint's redo pointer, and by whom.
 * False (nothing held) when pg_control could not be read.
 */
bool
walsizer_measure_held_wal(WalsizerHeldWal *held)
{
	WalsizerHeldPositions pos;
	XLogRecPtr	position;

	held->bytes = 0;
	held->holder = WALSIZER_HELD_BY_NONE;
	pos.redo_lsn = completed_redo_lsn();
	if (XLogRecPtrIsInvalid(pos.redo_lsn))
		return false;
	/* KeepLogSeg() counts back from the checkpoint, about here */
	position = RecoveryInProgress() ? GetXLogReplayRecPtr(NULL) :
		GetFlushRecPtr(NULL);
	pos.slot_lsn = walsizer_slot_held_lsn(slots_min_lsn(), position,
										  max_slot_wal_keep_size_mb);
	pos.keep_lsn = walsizer_keep_held_lsn(position, wal_keep_size_mb);
	pos.archive_lsn = oldest_ready_lsn();
	*held = walsizer_held_wal(&pos);
	return true;
}

/*
 * Say once, when it starts, that held WAL lowers the disk cap and that the
 * lowered cap limits max_wal_size (walsizer_held_wal_binds()), and what to
 * look at; again only after an iteration where it did not.  Every cycle
 * would flood the log for as long as a slot is forgotten.  held_known is
 * false until the held WAL was measured; cap_without_held_mb is the cap
 * were nothing held.
 */
void
walsizer_held_wal_note_plan(const WalsizerHeldWal *held, bool held_known,
							int64 cap_without_held_mb, bool cap_is_disk,
							int64 cap_mb, int64 size_mb, int64 needed_mb)
{
	const char *hint = NULL;

	if (!held_known ||
		!walsizer_held_wal_binds(held, wal_segment_size, cap_is_disk, cap_mb,
								 cap_without_held_mb, size_mb, needed_mb))
	{
		binding_reported = false;
		return;
	}
	if (binding_reported)
		return;
	binding_reported = true;

	switch (held->holder)
	{
		case WALSIZER_HELD_BY_SLOT:
			hint = "Set max_slot_wal_keep_size to bound the WAL replication slots keep, or drop the slots nobody uses (see pg_replication_slots).";
			break;
		case WALSIZER_HELD_BY_WAL_KEEP_SIZE:
			hint = "Lower wal_keep_size if standbys do not need that much WAL.";
			break;
		case WALSIZER_HELD_BY_ARCHIVER:
			hint = "WAL not yet archived stays in pg_wal: check archive_command or archive_library and pg_stat_archiver.";
			break;
		case WALSIZER_HELD_BY_NONE:
			return;
	}
	ereport(LOG,
			(errmsg("pg_walsizer: WAL kept for %s lowers the cap of max_wal_size to %lld MB",
					held->holder == WALSIZER_HELD_BY_SLOT ? "replication slots" :
					held->holder == WALSIZER_HELD_BY_WAL_KEEP_SIZE ? "wal_keep_size" :
					"archiving",
					(long long) cap_mb),
			 errdetail("pg_wal keeps %lld MB of WAL behind the last checkpoint; without it the cap would be %lld MB.",
					   (long long) (held->bytes / BYTES_PER_MB),
					   (long long) cap_without_held_mb),
			 errhint("%s", hint)));
}
