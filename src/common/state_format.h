/*-------------------------------------------------------------------------
 *
 * state_format.h
 *		What pg_walsizer remembers across restarts, and its on-disk form.
 *
 * The state file holds the decision history (each decision with the role,
 * primary or standby, it was made on), the few values the policy must not
 * forget (the DBA's own max_wal_size, what walsizer last wrote)
 * and what measuring crash recovery needs across a crash (the redo pointer
 * last seen, the postmaster's start, whether the worker stopped cleanly,
 * the replay rates measured), and how many decisions of each action were
 * ever made.
 * Encoding and decoding are pure functions over a byte buffer, with no
 * PostgreSQL headers, so that the reader can be fuzzed on its own: the file
 * lives in the data directory, where anything may have happened to it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_STATE_FORMAT_H
#define WALSIZER_STATE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* Number of decisions kept in shared memory and in the state file. */
#define WALSIZER_HISTORY_LEN 64

/* Number of crash recovery replay rates kept: the last few recoveries. */
#define WALSIZER_REPLAY_RATES 4

/*
 * The role of the server a decision was made on.  On a standby the
 * counters count restartpoints and the WAL is the WAL it replays, so the
 * same figures mean something else there; the history keeps the role beside
 * each decision so that, read after a promotion, a standby's decision is
 * not taken for a primary's.  Stored in the state file: only ever append.
 */
typedef enum WalsizerRole
{
	WALSIZER_ROLE_PRIMARY = 0,
	WALSIZER_ROLE_STANDBY = 1
} WalsizerRole;

#define WALSIZER_ROLE_LAST WALSIZER_ROLE_STANDBY

/*
 * The role's name, as walsizer.status() and walsizer.decisions() show it;
 * "unknown" for a value that is no role.
 */
extern const char *walsizer_role_name(int32_t role);

/* One recorded decision. */
typedef struct WalsizerRecord
{
	int64_t		at;				/* TimestampTz */
	int32_t		action;			/* WalsizerAction */
	int32_t		confirmed;		/* server was seen running with new_mb */
	int32_t		role;			/* WalsizerRole the decision was made on */
	int64_t		old_mb;
	int64_t		new_mb;
	int64_t		requested;
	int64_t		timed;
	int64_t		wal_forced;
	uint64_t	wal_bytes;
	double		window_s;
	char		reason[WALSIZER_REASON_LEN];
} WalsizerRecord;

/* Everything persisted.  The history is a ring; see walsizer_history_at(). */
typedef struct WalsizerPersistent
{
	int64_t		baseline_mb;	/* the DBA's own max_wal_size */
	int64_t		last_set_mb;	/* what walsizer last wrote, 0 if nothing */
	int64_t		intent_mb;		/* being written right now, 0 if nothing */
	uint64_t	decisions_total;	/* ever recorded, including overwritten */
	WalsizerPolicyState policy;
	uint64_t	completed_redo_lsn; /* redo pointer of the last completed
									 * checkpoint as last seen while the
									 * server ran; 0 unknown */
	int64_t		postmaster_started_at;	/* TimestampTz the postmaster the
										 * worker last started under started
										 * at (PgStartTime); 0 unknown */
	int32_t		stopped_cleanly;	/* the worker stopped on a shutdown
									 * request; 0 while running */
	int32_t		replay_count;	/* valid entries of replay_rates, <=
								 * WALSIZER_REPLAY_RATES */
	int32_t		replay_next;	/* slot the next measurement goes to */
	/*
	 * Bytes/s of WAL replayed per second of unavailability, the last few
	 * crash recoveries: a ring like the history.
	 */
	double		replay_rates[WALSIZER_REPLAY_RATES];
	int32_t		history_count;	/* valid entries, <= WALSIZER_HISTORY_LEN */
	int32_t		history_next;	/* slot the next record goes to */
	WalsizerRecord history[WALSIZER_HISTORY_LEN];

	/*
	 * Decisions ever recorded, by WalsizerAction ([WALSIZER_ACTION_NONE]
	 * stays 0: no such decision is recorded).  The history forgets; these
	 * only grow, so that a monitoring system can treat them as counters.
	 * Their sum is decisions_total, less the decisions a state file older
	 * than version 4 had already forgotten (see state_format.c).
	 */
	uint64_t	action_totals[WALSIZER_ACTION_LAST + 1];

	/*
	 * TimestampTz of the first failed change of max_wal_size since the last
	 * one that succeeded; 0 when the last change attempted succeeded.  Kept
	 * across restarts, so that an alert on it stays on while the fault
	 * does, however rarely the failures are retried and reported.
	 */
	int64_t		failing_since;

	/*
	 * The data directory the file was written in: its inode number (0
	 * unknown), which a copy of the directory does not keep, and its
	 * device number, for diagnosis only (device numbers can change across
	 * reboots).  A file read in another directory came with a copy of it
	 * (a base backup, a restore): see walsizer_state_forget_copied().
	 */
	uint64_t	data_directory_device;
	uint64_t	data_directory_inode;
} WalsizerPersistent;

/* Size of the buffer walsizer_state_encode() needs. */
extern size_t walsizer_state_encoded_size(void);
extern size_t walsizer_state_encode(const WalsizerPersistent *state,
									unsigned char *buf, size_t buflen);

/*
 * Decode a state file image.  On failure returns false, leaves *state
 * untouched and puts a one-line reason in errbuf.  Never trusts a byte.
 */
extern bool walsizer_state_decode(const unsigned char *buf, size_t len,
								  WalsizerPersistent *state,
								  char *errbuf, size_t errlen);

extern void walsizer_history_append(WalsizerPersistent *state,
									const WalsizerRecord *record);
/* i-th oldest record, 0 <= i < history_count */
extern const WalsizerRecord *walsizer_history_at(const WalsizerPersistent *state,
												 int i);
extern WalsizerRecord *walsizer_history_latest(WalsizerPersistent *state);

/*
 * Whether a state read in the data directory of this inode number was
 * written in another one: false when the file does not say where it was
 * written.
 */
extern bool walsizer_state_is_copied(const WalsizerPersistent *state,
									 uint64_t inode);

/*
 * A state that came with a copy of the data directory (a base backup, so
 * every new standby; a restore) is not this server's: it forgets the other
 * server's decisions, counters, policy state, replay rates, failures and
 * crash-recovery marks, and keeps only what describes the configuration
 * files, which were copied with it: the DBA's baseline and the sizes
 * pg_walsizer last wrote or was writing, so that a copied size stays
 * pg_walsizer's and is not taken for the DBA's.
 */
extern void walsizer_state_forget_copied(WalsizerPersistent *state);

/*
 * Keep a measured replay rate, dropping the oldest of a full ring; a rate
 * that is not a positive finite number is ignored.
 */
extern void walsizer_replay_rate_append(WalsizerPersistent *state,
										double bytes_per_s);

#endif							/* WALSIZER_STATE_FORMAT_H */
