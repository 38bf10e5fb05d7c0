/*-------------------------------------------------------------------------
 *
 * size_owner.h
 *		Who set the max_wal_size the server runs: the DBA or pg_walsizer.
 *
 * pg_walsizer never fights the DBA.  To keep that promise it must tell
 * its own changes from everybody else's: a value it wrote and reloaded is
 * "pending" until the server runs it; a running value it did not write is
 * the DBA's, and becomes the baseline.  This pure module is that state
 * machine; the worker feeds it what the server runs and carries out the
 * events it returns (logging, recording, persisting the baseline).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SIZE_OWNER_H
#define WALSIZER_SIZE_OWNER_H

#include <stdbool.h>
#include <stdint.h>

/* Who set the value the server runs. */
typedef enum WalsizerSizeOwner
{
	WALSIZER_OWNER_DBA,			/* set outside pg_walsizer: the baseline */
	WALSIZER_OWNER_WALSIZER		/* written by pg_walsizer and seen running */
} WalsizerSizeOwner;

/* What an observation of the server's value means. */
typedef enum WalsizerOwnerEvent
{
	WALSIZER_OWNER_NOTHING,		/* as known */
	WALSIZER_OWNER_FIRST_START, /* nothing persisted: the value is the baseline */
	WALSIZER_OWNER_CONFIRMED,	/* the pending value now runs */
	WALSIZER_OWNER_ADOPTED,		/* somebody else changed it: the DBA's */
	WALSIZER_OWNER_UNCONFIRMED	/* the pending value did not take effect */
} WalsizerOwnerEvent;

typedef struct WalsizerSizeTracker
{
	WalsizerSizeOwner owner;	/* who set running_mb */
	int64_t		running_mb;		/* the value the server is known to run */
	int64_t		pending_mb;		/* written and reloaded, not yet seen
								 * running; 0 when none */
	int			pending_window_ends;	/* window ends waited for it */
	bool		pending_is_dbas;	/* pending_mb is the DBA's value, which
									 * walsizer wrote for them (a shadowed
									 * postgresql.conf setting it adopted):
									 * once it runs, the DBA owns it */

	/*
	 * Checkpoints forced at the running (or pending) size answer
	 * pg_walsizer's own latest choice: it wrote that value in this run and
	 * has not tried to change it since.  After a restart, the DBA's change,
	 * a dry-run advice or a failed change they answer nothing walsizer did,
	 * and must not cut its cooldown short.
	 */
	bool		answers_our_choice;
} WalsizerSizeTracker;

/* Window ends to wait for a written value before calling it unconfirmed. */
#define OWNER_PENDING_WINDOW_ENDS 2

/*
 * The sizes persisted in the state file, as of the last run: the DBA's
 * baseline (0 if none yet), the last size walsizer applied (0 if the
 * running one was the DBA's) and one it was about to write when it
 * stopped (0 if none).
 */
typedef struct WalsizerPersistedSizes
{
	int64_t		baseline_mb;
	int64_t		last_set_mb;
	int64_t		intent_mb;
} WalsizerPersistedSizes;

extern WalsizerOwnerEvent walsizer_owner_start(WalsizerSizeTracker *t,
											   int64_t server_mb,
											   const WalsizerPersistedSizes *persisted,
											   int64_t *adopted_from_mb);
extern WalsizerOwnerEvent walsizer_owner_observe(WalsizerSizeTracker *t,
												 int64_t server_mb,
												 bool window_end,
												 int64_t *previous_mb);
extern void walsizer_owner_attempting(WalsizerSizeTracker *t);
extern void walsizer_owner_written(WalsizerSizeTracker *t, int64_t new_mb);
extern void walsizer_owner_written_for_dba(WalsizerSizeTracker *t,
										   int64_t new_mb);
extern const char *walsizer_owner_name(WalsizerSizeOwner owner);

#endif							/* WALSIZER_SIZE_OWNER_H */
