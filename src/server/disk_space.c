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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include "access/xlog_internal.h"
#include "storage/fd.h"

#include "disk_space.h"
#include "size_units.h"

/* A failure to measure is logged once, until a measurement succeeds. */
static bool disk_error_reported = false;

/*
 * disk_fraction of (free space on the WAL volume + the WAL files in
 * pg_wal), in MB; 0 means unknown.
 */
int64
walsizer_measure_disk_cap_mb(double disk_fraction)
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

	return (int64) (disk_fraction *
					((double) fs.f_bavail * fs.f_frsize + wal_bytes) /
					BYTES_PER_MB);
}
