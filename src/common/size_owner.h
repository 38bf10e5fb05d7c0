/*-------------------------------------------------------------------------
 *
 * size_owner.h
 *		Who owns the max_wal_size the server runs, the DBA or pg_walsizer,
 *		and when pg_walsizer may write one: the one model of the DBA's value.
 *
 * pg_walsizer never fights the DBA.  The DBA sets max_wal_size through
 * postgresql.conf and the files it includes (an HA manager that rewrites
 * them is the DBA too), through ALTER SYSTEM SET or RESET, and, above both,
 * on the postmaster's command line; pg_walsizer writes postgresql.auto.conf.
 * Every one of those reaches this pure module as what the worker saw after
 * a reload (WalsizerOwnerLook) or as the facts around a write it wants to
 * make (WalsizerWriteFacts), and the rules live here only:
 *
 *	 1. The newest DBA intent wins, whichever file or statement carried it.
 *		Edits that land in one reload are ordered as the server orders them:
 *		postgresql.auto.conf over the other files.
 *	 2. pg_walsizer never writes while a DBA change waits for a reload (its
 *		write would reload it on the DBA's behalf, or replace it), and so
 *		never re-adds what a DBA reset.  Only the disk guard goes ahead.
 *	 3. A DBA's value becomes the baseline, which the policy never goes
 *		below; only the disk guard lowers it.
 *	 4. A write that failed or was deferred consumes nothing: the tracker
 *		changes only once a write has been made.
 *	 5. A value given on the command line outranks postgresql.auto.conf:
 *		pg_walsizer says so and stops trying.
 *
 * The worker carries out the events these functions return (logging,
 * recording, persisting the baseline); docs/safety.md has the table of
 * what each DBA action leads to, and test/unit/test_size_owner_model.c
 * checks this module against a reference model written from that table.
 *
 * Pure C: no PostgreSQL headers, no globals, no I/O.
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
	WALSIZER_OWNER_ADOPTED,		/* the DBA changed it: the new baseline */
	WALSIZER_OWNER_UNCONFIRMED	/* the pending value did not take effect */
} WalsizerOwnerEvent;

/* What the max_wal_size of the configuration files calls for. */
typedef enum WalsizerShadowVerdict
{
	WALSIZER_SHADOW_NOTHING,	/* nothing new, or nothing shadowed */
	WALSIZER_SHADOW_WAIT,		/* walsizer.enable is off: look again later */
	WALSIZER_SHADOW_WARN,		/* at start: shadowed and unknown, report it */
	WALSIZER_SHADOW_ADOPT_RUNNING,	/* the DBA wrote the value that runs:
									 * the new baseline, nothing to write */
	WALSIZER_SHADOW_ADOPT,		/* the DBA changed it: write it, baseline */
	WALSIZER_SHADOW_ADVISE		/* the same in a dry run: say so only */
} WalsizerShadowVerdict;

/* What the worker saw of the configuration, as the server loaded it. */
typedef struct WalsizerOwnerLook
{
	int64_t		server_mb;		/* max_wal_size the server runs */
	bool		window_end;		/* a window ended at this look */
	bool		dba_altered;	/* a DBA's ALTER SYSTEM SET or RESET of
								 * max_wal_size was loaded since the
								 * previous look */
	bool		files_known;	/* file_mb and auto_mb hold a read of the
								 * files as the server loaded them */
	int64_t		file_mb;		/* the value that applies among the files
								 * other than postgresql.auto.conf, 0 none */
	int64_t		auto_mb;		/* postgresql.auto.conf's, 0 none; it wins */
	bool		enabled;		/* walsizer.enable */
	bool		dry_run;		/* walsizer.dry_run */
} WalsizerOwnerLook;

typedef struct WalsizerSizeTracker
{
	WalsizerSizeOwner owner;	/* who set running_mb */
	int64_t		running_mb;		/* the value the server is known to run */
	int64_t		baseline_mb;	/* the DBA's latest value: the floor */
	int64_t		pending_mb;		/* written and reloaded, not yet seen
								 * running; 0 when none */
	int			pending_window_ends;	/* window ends waited for it */
	bool		pending_is_dbas;	/* pending_mb is the DBA's value, which
									 * walsizer wrote for them (a shadowed
									 * postgresql.conf setting it adopted):
									 * once it runs, the DBA owns it */

	/*
	 * The other files' value at the last look (0: they set none), and
	 * whether there was one since the worker started.  Only a change of
	 * it is news: an edit.  An edit postgresql.auto.conf shadows waits in
	 * files_waiting_mb until it is written for the DBA (or advised, or
	 * superseded by a newer change); 0 when none waits.
	 */
	int64_t		files_seen_mb;
	int64_t		files_waiting_mb;
	bool		files_looked;

	/*
	 * Checkpoints forced at the running (or pending) size answer
	 * pg_walsizer's own latest choice: it wrote that value in this run and
	 * has not tried to change it since.  After a restart, the DBA's change,
	 * a dry-run advice or an unconfirmed change they answer nothing walsizer
	 * did, and must not cut its cooldown short.
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

/* The facts around a write pg_walsizer wants to make. */
typedef struct WalsizerWriteFacts
{
	bool		enabled;		/* walsizer.enable */
	bool		dry_run;		/* walsizer.dry_run */
	bool		disk_guard;		/* the write protects the WAL volume */
	bool		outranked;		/* max_wal_size comes from a source above
								 * postgresql.auto.conf (the command line) */
	bool		alter_system_allowed;	/* allow_alter_system */
	bool		config_pending; /* a configuration file changed since the
								 * server last loaded it */
} WalsizerWriteFacts;

/* Whether a write may be made, and if not, why. */
typedef enum WalsizerWriteVerdict
{
	WALSIZER_WRITE,				/* write and reload */
	WALSIZER_WRITE_DISABLED,	/* walsizer.enable is off */
	WALSIZER_WRITE_ADVISE,		/* a dry run: advise only */
	WALSIZER_WRITE_OUTRANKED,	/* no write can win: say once, stop */
	WALSIZER_WRITE_BLOCKED,		/* ALTER SYSTEM is disabled */
	WALSIZER_WRITE_DEFER		/* the DBA's change awaits a reload */
} WalsizerWriteVerdict;

extern WalsizerOwnerEvent walsizer_owner_start(WalsizerSizeTracker *t,
											   int64_t server_mb,
											   const WalsizerPersistedSizes *persisted,
											   int64_t *adopted_from_mb);
extern WalsizerOwnerEvent walsizer_owner_observe(WalsizerSizeTracker *t,
												 const WalsizerOwnerLook *look,
												 int64_t *previous_mb);
extern WalsizerShadowVerdict walsizer_owner_look_at_files(WalsizerSizeTracker *t,
														  const WalsizerOwnerLook *look);
extern bool walsizer_owner_change_pending(int64_t auto_now_mb,
										  int64_t auto_loaded_mb,
										  bool file_modified);
extern WalsizerWriteVerdict walsizer_owner_may_write(const WalsizerWriteFacts *facts);
extern void walsizer_owner_attempting(WalsizerSizeTracker *t);
extern void walsizer_owner_written(WalsizerSizeTracker *t, int64_t new_mb);
extern void walsizer_owner_written_for_dba(WalsizerSizeTracker *t,
										   int64_t new_mb);
extern const char *walsizer_owner_name(WalsizerSizeOwner owner);
extern bool walsizer_names_max_wal_size(const char *name);

#endif							/* WALSIZER_SIZE_OWNER_H */
