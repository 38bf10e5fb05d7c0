/*-------------------------------------------------------------------------
 *
 * shared_state.c
 *		pg_walsizer's shared memory segment and its state file.
 *
 * One struct behind one LWLock: the worker is the only writer, the SQL
 * functions take the lock shared and copy what they need, so a reader never
 * sees a half-written row.  The persistent part (decision history, the
 * DBA's own size, the policy's counters) is written to a file in the data
 * directory after each decision, through a temporary file and a durable
 * rename, so a crash at any moment leaves either the old or the new file.
 * A missing or damaged file is never fatal: walsizer starts fresh and says
 * so in the log.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/shmem.h"

#include "shared_state.h"

#define WALSIZER_STATE_FILE "pg_walsizer.state"
#define WALSIZER_STATE_TEMP_FILE WALSIZER_STATE_FILE ".tmp"
#define WALSIZER_TRANCHE "pg_walsizer"

WalsizerShared *walsizer_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
wss_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(WalsizerShared)));
	/* the state lock and the lock around changing postgresql.auto.conf */
	RequestNamedLWLockTranche(WALSIZER_TRANCHE, 2);
}

/*
 * Runs in the postmaster at startup and after every crash reinitialization,
 * so the segment starts zeroed and the worker reloads the file.
 */
static void
wss_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	walsizer_shared = ShmemInitStruct("pg_walsizer", sizeof(WalsizerShared),
									  &found);
	if (!found)
	{
		LWLockPadded *locks = GetNamedLWLockTranche(WALSIZER_TRANCHE);

		memset(walsizer_shared, 0, sizeof(WalsizerShared));
		walsizer_shared->lock = &locks[0].lock;
		walsizer_shared->auto_conf_lock = &locks[1].lock;
		walsizer_policy_init_state(&walsizer_shared->persistent.policy);
	}
	LWLockRelease(AddinShmemInitLock);
}

void
walsizer_shmem_install_hooks(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = wss_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = wss_shmem_startup;
}

/* Every SQL function starts here: without preloading there is no state. */
void
walsizer_require_shared(void)
{
	if (walsizer_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_walsizer is not loaded"),
				 errdetail("Its shared memory is created only when the server starts with the library preloaded."),
				 errhint("Add pg_walsizer to \"shared_preload_libraries\" and restart the server.")));
}

static bool state_read_file(void);

/*
 * Read the state file into shared memory, and make it this data
 * directory's.  A file written in another data directory came with a copy
 * of it (a base backup, so every new standby; a restore): its decisions,
 * counters and rates are the other server's and are forgotten, the sizes
 * the copied configuration files hold are kept (see
 * walsizer_state_forget_copied()); the directory is told by its inode
 * number, which a copy does not keep (a file-system snapshot or clone
 * does, and the root of every file system has the same one: such a copy
 * is taken for the directory itself).  A directory that cannot be
 * examined stays unknown (0), and judges no file a copy.  Returns true if a
 * valid file was loaded.  Any problem is reported at LOG and leaves a
 * fresh state.
 */
bool
walsizer_state_load(void)
{
	bool		loaded = state_read_file();
	struct stat st;
	uint64		device = 0;
	uint64		inode = 0;
	bool		copied = false;
	WalsizerPersistent *persistent = &walsizer_shared->persistent;

	if (stat(DataDir, &st) == 0)
	{
		device = (uint64) st.st_dev;
		inode = (uint64) st.st_ino;
	}
	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	if (loaded && inode != 0 && walsizer_state_is_copied(persistent, inode))
	{
		walsizer_state_forget_copied(persistent);
		copied = true;
	}
	persistent->data_directory_device = device;
	persistent->data_directory_inode = inode;
	LWLockRelease(walsizer_shared->lock);

	if (copied)
		ereport(LOG,
				(errmsg("pg_walsizer's state file \"%s\" was written in another data directory: this server starts a history of its own",
						WALSIZER_STATE_FILE),
				 errdetail("A base backup or a restore copies the file with the data directory. The decisions, counters and replay rates in it were the other server's; the sizes the copied configuration files hold are kept: the DBA's %lld MB and, if not 0, pg_walsizer's %lld MB.",
						   (long long) persistent->baseline_mb,
						   (long long) persistent->last_set_mb)));
	return loaded;
}

/* The file into shared memory; true if a valid one was loaded. */
static bool
state_read_file(void)
{
	size_t		max_len = walsizer_state_encoded_size();
	unsigned char *buf;
	size_t		len;
	FILE	   *file;
	WalsizerPersistent *decoded;
	char		why[128];

	file = AllocateFile(WALSIZER_STATE_FILE, PG_BINARY_R);
	if (file == NULL)
	{
		if (errno == ENOENT)
			ereport(LOG,
					(errmsg("pg_walsizer found no state file \"%s\", starting with an empty history",
							WALSIZER_STATE_FILE)));
		else
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("pg_walsizer could not open state file \"%s\", starting with an empty history: %m",
							WALSIZER_STATE_FILE)));
		return false;
	}

	/* one byte more than a valid file can hold, to notice longer files */
	buf = palloc(max_len + 1);
	len = fread(buf, 1, max_len + 1, file);
	if (ferror(file))
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("pg_walsizer could not read state file \"%s\", starting with an empty history: %m",
						WALSIZER_STATE_FILE)));
		FreeFile(file);
		pfree(buf);
		return false;
	}
	FreeFile(file);

	decoded = palloc(sizeof(WalsizerPersistent));
	if (!walsizer_state_decode(buf, len, decoded, why, sizeof(why)))
	{
		ereport(LOG,
				(errmsg("pg_walsizer is ignoring state file \"%s\": %s",
						WALSIZER_STATE_FILE, why),
				 errdetail("The decision history starts empty; max_wal_size is not changed because of this.")));
		pfree(decoded);
		pfree(buf);
		return false;
	}

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->persistent = *decoded;
	LWLockRelease(walsizer_shared->lock);

	ereport(LOG,
			(errmsg("pg_walsizer loaded %d recorded decisions from \"%s\"",
					decoded->history_count, WALSIZER_STATE_FILE)));
	pfree(decoded);
	pfree(buf);
	return true;
}

/*
 * The last save failed.  A full or read-only data directory fails every
 * save until it is fixed: the first failure is a WARNING, the rest DEBUG1,
 * and the first save that works again says so.
 */
static bool save_failing = false;

/*
 * Write the persistent state.  Failures (a full disk, say) are reported
 * once (save_failing): the state stays in shared memory and the next save
 * tries again.  Returns
 * whether the file now holds the state.
 */
bool
walsizer_state_save(void)
{
	size_t		max_len = walsizer_state_encoded_size();
	unsigned char *buf = palloc(max_len);
	size_t		len;
	FILE	   *file;
	int			elevel = save_failing ? DEBUG1 : WARNING;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	len = walsizer_state_encode(&walsizer_shared->persistent, buf, max_len);
	LWLockRelease(walsizer_shared->lock);
	if (len == 0)
	{
		ereport(elevel,
				(errmsg("pg_walsizer could not encode its state"),
				 errdetail("This is a bug in pg_walsizer; the state stays in shared memory.")));
		pfree(buf);
		save_failing = true;
		return false;
	}

	file = AllocateFile(WALSIZER_STATE_TEMP_FILE, PG_BINARY_W);
	if (file == NULL)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("pg_walsizer could not create state file \"%s\": %m",
						WALSIZER_STATE_TEMP_FILE)));
		pfree(buf);
		save_failing = true;
		return false;
	}
	errno = 0;
	if (fwrite(buf, 1, len, file) != len || fflush(file) != 0)
	{
		/* fwrite() may not set errno; a short write means no space */
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("pg_walsizer could not write state file \"%s\": %m",
						WALSIZER_STATE_TEMP_FILE)));
		FreeFile(file);
		unlink(WALSIZER_STATE_TEMP_FILE);
		pfree(buf);
		save_failing = true;
		return false;
	}
	if (FreeFile(file) != 0)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("pg_walsizer could not close state file \"%s\": %m",
						WALSIZER_STATE_TEMP_FILE)));
		unlink(WALSIZER_STATE_TEMP_FILE);
		pfree(buf);
		save_failing = true;
		return false;
	}
	pfree(buf);

	/* fsyncs the new file before, and the directory after, the rename */
	if (durable_rename(WALSIZER_STATE_TEMP_FILE, WALSIZER_STATE_FILE,
					   elevel) != 0)
	{
		unlink(WALSIZER_STATE_TEMP_FILE);
		save_failing = true;
		return false;
	}
	if (save_failing)
		ereport(LOG,
				(errmsg("pg_walsizer saved its state file \"%s\" again",
						WALSIZER_STATE_FILE)));
	save_failing = false;
	return true;
}
