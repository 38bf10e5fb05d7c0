/*-------------------------------------------------------------------------
 *
 * shared_state.h
 *		pg_walsizer's shared memory: what the worker measured and decided,
 *		read by the SQL functions, and its persistence in the data directory.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SHARED_STATE_H
#define WALSIZER_SHARED_STATE_H

#include "datatype/timestamp.h"
#include "storage/latch.h"
#include "storage/lwlock.h"

#include "config_files.h"
#include "policy.h"
#include "state_format.h"

/* Figures the worker publishes after every sample. */
typedef struct WalsizerStatus
{
	TimestampTz started_at;
	TimestampTz last_sample_at;
	TimestampTz last_check_at;
	TimestampTz next_check_at;
	bool		enabled;		/* walsizer.enable, as the worker sees it */
	bool		dry_run;		/* walsizer.dry_run, as the worker sees it */
	double		window_s;		/* configured window length */
	int			sample_interval_ms;

	/* the last complete window */
	double		last_window_s;
	int64		last_timed;
	int64		last_requested;
	int64		last_wal_forced;
	uint64		last_wal_bytes;
	int64		last_fpi;
	bool		last_window_reset;

	/* since the worker started */
	int64		total_timed;
	int64		total_requested;
	int64		total_wal_forced;
	uint64		total_wal_bytes;

	/* the latest sample */
	double		recent_rate;	/* bytes/s */
	double		peak_rate;		/* bytes/s */
	uint64		wal_since_redo_bytes;
	int64		disk_cap_mb;	/* 0 when unknown */
	bool		held_known;		/* held_bytes was measured */
	uint64		held_bytes;		/* WAL held behind the redo pointer */
	int			held_by;		/* WalsizerWalHolder */
	bool		blocked;		/* ALTER SYSTEM is not allowed */
	int64		pending_mb;		/* written, not yet seen applied */
	double		record_rate;	/* bytes/s, recent_rate without images */

	/* the last complete checkpoint cycle (last_cycle_s 0: none yet) */
	double		last_cycle_s;
	uint64		last_cycle_bytes;
	uint64		last_cycle_fpi_bytes;
	bool		last_cycle_timed;
	double		last_cycle_mid_s;	/* a point near its middle, 0 none */
	uint64		last_cycle_mid_fpi_bytes;	/* its images up to there */
	bool		fpi_bytes_measured; /* counted by the server, not estimated */

	/* a crash recovery now, at its worst (recovery_bound_server.c) */
	double		replay_rate;	/* bytes/s of unavailability */
	int			replay_rate_source; /* WalsizerReplayRateSource */
	double		estimated_recovery_s;
	uint64		recovery_cycle_bytes;	/* WAL of the cycle it assumes */

	/* where max_wal_size comes from (config_files.c), as of the last reload */
	char		max_wal_size_source[WALSIZER_SOURCE_LEN];	/* "" unknown */
	int64		shadowed_mb;	/* the other files' value that
								 * postgresql.auto.conf overrides, 0 none */

	/* what the policy would do if the window ended now */
	WalsizerDecision plan;
} WalsizerStatus;

typedef struct WalsizerShared
{
	LWLock	   *lock;			/* protects everything below */

	/*
	 * Held by the worker from its check of postgresql.auto.conf to its
	 * ALTER SYSTEM, and by every ALTER SYSTEM of max_wal_size
	 * (auto_conf_guard.c), so that a DBA's change cannot slip in between
	 * and be overwritten.  Never taken while holding lock.
	 */
	LWLock	   *auto_conf_lock;

	/*
	 * ALTER SYSTEM statements that set or reset max_wal_size, in any
	 * session, since the server started (under auto_conf_lock): the worker
	 * compares it across a reload to know that the DBA chose the value
	 * postgresql.auto.conf holds, even when it is the one already running.
	 */
	uint64		dba_alter_system_count;
	pid_t		worker_pid;		/* 0 while no worker runs */
	Latch	   *worker_latch;	/* set to wake the worker */
	bool		check_requested;	/* walsizer.check_now() was called */
	bool		state_loaded;	/* the state file was read since startup */

	/*
	 * A test's hold (test_hold.c): decisions whose action bit is set are
	 * not carried out, and counted, until the test releases them.
	 */
	uint32		test_held_actions;
	int64		test_held_count[WALSIZER_ACTION_LAST + 1];
	WalsizerStatus status;
	WalsizerPersistent persistent;
} WalsizerShared;

/* NULL unless the library was preloaded. */
extern WalsizerShared *walsizer_shared;

extern void walsizer_shmem_install_hooks(void);
extern void walsizer_require_shared(void);

extern bool walsizer_state_load(void);
extern bool walsizer_state_save(void);

#endif							/* WALSIZER_SHARED_STATE_H */
