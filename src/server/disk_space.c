/*-------------------------------------------------------------------------
 *
 * disk_space.c
 *		Measure the space the WAL could use, for the policy's disk cap.
 *
 * Running out of space in pg_wal is a PANIC, far worse than checkpoints,
 * so pg_walsizer never sizes beyond walsizer.disk_fraction of what pg_wal
 * holds now plus what its filesystem has free.  statvfs() follows a pg_wal
 * symlink to the volume it points to.
 *
 * WAL that replication slots, wal_keep_size or the archiver hold behind
 * the last checkpoint (held_wal_server.c) is in pg_wal whatever
 * max_wal_size is: it is left out of the space, so that the cap falls as
 * a forgotten slot or a failing archive_command fills the volume.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include "access/xlog_internal.h"
#include "storage/fd.h"

#include "disk_space.h"
#include "held_wal.h"
#include "size_units.h"

/* A failure to measure is logged once, until a measurement succeeds. */
static bool disk_error_reported = false;

/*
 * disk_fraction of (free space on the WAL volume + the WAL files in
 * pg_wal - held_bytes of them), in MB; 0 means unknown, and a measured cap
 * is at least 1 (walsizer_disk_share_mb()).  *without_held_mb, when not
 * NULL, gets the same without leaving out the held WAL (0 unknown).
 */
int64
walsizer_measure_disk_cap_mb(double disk_fraction, uint64 held_bytes,
							 int64 *without_held_mb)
{
	struct statvfs fs;
	uint64		wal_bytes = 0;
	DIR		   *dir;
	struct dirent *de;

	if (statvfs(XLOGDIR, &fs) != 0)
	{
		if (!disk_error_reported)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("pg_walsizer could not measure free space of \"%s\": %m",
							XLOGDIR),
					 errdetail("Only walsizer.max limits max_wal_size until it can.")));
		disk_error_reported = true;
		if (without_held_mb != NULL)
			*without_held_mb = 0;
		return 0;
	}
	disk_error_reported = false;

	dir = AllocateDir(XLOGDIR);
	while ((de = ReadDirExtended(dir, XLOGDIR, LOG)) != NULL)
	{
		char		path[MAXPGPATH];
		struct stat st;

		snprintf(path, sizeof(path), XLOGDIR "/%s", de->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			wal_bytes += st.st_size;
	}
	FreeDir(dir);

	if (without_held_mb != NULL)
		*without_held_mb = walsizer_disk_share_mb(disk_fraction,
												  (uint64) fs.f_bavail * fs.f_frsize,
												  wal_bytes, 0);
	return walsizer_disk_share_mb(disk_fraction,
								  (uint64) fs.f_bavail * fs.f_frsize,
								  wal_bytes, held_bytes);
}
