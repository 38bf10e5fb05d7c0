/*-------------------------------------------------------------------------
 *
 * size_owner.c
 *		The model of who owns max_wal_size (see size_owner.h for its rules).
 *
 * The owner of the running value and a pending value, if any:
 *
 *	  DBA or WALSIZER, nothing pending
 *		-- walsizer wrote X ------------------> same owner, X pending
 *	  X pending
 *		-- the server runs X -----------------> WALSIZER (confirmed), or
 *											  DBA when X was the DBA's
 *											  value walsizer wrote for them
 *		-- two window ends, still the old ----> old owner, nothing pending
 *											  (unconfirmed)
 *	  any state
 *		-- a DBA's ALTER SYSTEM was loaded,
 *		   or the server runs a value that is
 *		   neither the running nor X ---------> DBA (adopted)
 *
 * A pending value is one pg_walsizer wrote with ALTER SYSTEM and reloaded.
 * The server may take a moment to run it (every process reloads on its
 * own), so while one is pending the old value is not mistaken for the
 * DBA's.  A DBA's ALTER SYSTEM is adopted even when it set the value that
 * already runs: the DBA chose it, so it becomes the baseline.
 *
 * The other files (postgresql.conf and what it includes) are a second
 * door: once postgresql.auto.conf sets max_wal_size, their value never
 * runs.  An edit of them (their value changed since the last look) is the
 * DBA's intent and is written for them; an edit to the value that already
 * runs only becomes the baseline.  While walsizer.enable is off such an
 * edit waits, and is carried out once it is on again, unless a newer edit
 * or a later ALTER SYSTEM (or any adopted change) has superseded it.  At the
 * worker's start there is no last look: a shadowed value that is neither
 * the running one nor the baseline is only reported, since nothing tells
 * an edit made while the server was down from a value walsizer grew past.
 *
 * Pure C: no PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "size_owner.h"

#include <string.h>

const char *
walsizer_owner_name(WalsizerSizeOwner owner)
{
	return owner == WALSIZER_OWNER_WALSIZER ? "pg_walsizer" : "dba";
}

/*
 * Whether a configuration parameter name is max_wal_size.  The server
 * matches names without regard to ASCII case (ALTER SYSTEM SET
 * "MAX_WAL_SIZE" sets it), and so must everything that looks for it.
 */
bool
walsizer_names_max_wal_size(const char *name)
{
	static const char wanted[] = "max_wal_size";

	if (name == NULL)
		return false;
	for (int i = 0;; i++)
	{
		char		c = name[i];

		if (c >= 'A' && c <= 'Z')
			c = (char) (c - 'A' + 'a');
		if (c != wanted[i])
			return false;
		if (c == '\0')
			return true;
	}
}

/* Whatever the other files said so far is older than what now runs. */
static void
supersede_files(WalsizerSizeTracker *t, const WalsizerOwnerLook *look)
{
	if (look->files_known && t->files_looked)
		t->files_seen_mb = look->file_mb;
	t->files_waiting_mb = 0;
}

static void
adopt(WalsizerSizeTracker *t, const WalsizerOwnerLook *look)
{
	t->owner = WALSIZER_OWNER_DBA;
	t->running_mb = look->server_mb;
	t->baseline_mb = look->server_mb;
	t->pending_mb = 0;
	t->pending_window_ends = 0;
	t->pending_is_dbas = false;
	t->answers_our_choice = false;
	supersede_files(t, look);
}

/*
 * At the worker's start: is the server's value the one walsizer wrote last
 * (or was about to write when the server stopped)?  Otherwise the DBA
 * changed it while walsizer was not running.  *adopted_from_mb is the
 * value walsizer knew before, for an ADOPTED event.
 */
WalsizerOwnerEvent
walsizer_owner_start(WalsizerSizeTracker *t, int64_t server_mb,
					 const WalsizerPersistedSizes *persisted,
					 int64_t *adopted_from_mb)
{
	memset(t, 0, sizeof(*t));
	t->running_mb = server_mb;
	t->baseline_mb = server_mb;
	t->owner = WALSIZER_OWNER_DBA;
	*adopted_from_mb = 0;

	if (persisted->last_set_mb == 0 && persisted->intent_mb == 0)
	{
		if (persisted->baseline_mb == 0)
			return WALSIZER_OWNER_FIRST_START;
		if (persisted->baseline_mb == server_mb)
			return WALSIZER_OWNER_NOTHING;
		*adopted_from_mb = persisted->baseline_mb;
		return WALSIZER_OWNER_ADOPTED;
	}
	if (server_mb == persisted->last_set_mb ||
		server_mb == persisted->intent_mb)
	{
		/* ours, but measured in another run: not evidence about it now */
		t->owner = WALSIZER_OWNER_WALSIZER;
		t->baseline_mb = persisted->baseline_mb;
		return WALSIZER_OWNER_NOTHING;
	}
	*adopted_from_mb = persisted->last_set_mb;
	return WALSIZER_OWNER_ADOPTED;
}

/*
 * Compare what the server runs with what is known: adopt a DBA's ALTER
 * SYSTEM or anybody else's change, confirm a pending value, or give up on
 * one after OWNER_PENDING_WINDOW_ENDS window ends.  *previous_mb is the
 * value known before (adopted) or the pending one (confirmed,
 * unconfirmed).
 */
WalsizerOwnerEvent
walsizer_owner_observe(WalsizerSizeTracker *t, const WalsizerOwnerLook *look,
					   int64_t *previous_mb)
{
	int64_t		server_mb = look->server_mb;

	*previous_mb = t->running_mb;
	if (look->dba_altered)
	{
		/* the DBA's statement is newer than anything pending or in the files */
		if (t->owner == WALSIZER_OWNER_DBA && t->pending_mb == 0 &&
			t->running_mb == server_mb && t->baseline_mb == server_mb)
		{
			supersede_files(t, look);
			return WALSIZER_OWNER_NOTHING;
		}
		adopt(t, look);
		return WALSIZER_OWNER_ADOPTED;
	}
	if (t->pending_mb != 0 && server_mb == t->pending_mb)
	{
		*previous_mb = t->pending_mb;
		t->owner = t->pending_is_dbas ? WALSIZER_OWNER_DBA :
			WALSIZER_OWNER_WALSIZER;
		t->running_mb = server_mb;
		t->pending_mb = 0;
		t->pending_window_ends = 0;
		t->pending_is_dbas = false;
		return WALSIZER_OWNER_CONFIRMED;
	}
	if (server_mb != t->running_mb)
	{
		adopt(t, look);
		return WALSIZER_OWNER_ADOPTED;
	}
	if (t->pending_mb != 0 && look->window_end &&
		++t->pending_window_ends >= OWNER_PENDING_WINDOW_ENDS)
	{
		*previous_mb = t->pending_mb;
		t->pending_mb = 0;
		t->pending_window_ends = 0;
		t->pending_is_dbas = false;
		/* the server still runs the old value: walsizer did not choose it */
		t->answers_our_choice = false;
		return WALSIZER_OWNER_UNCONFIRMED;
	}
	return WALSIZER_OWNER_NOTHING;
}

/*
 * What the max_wal_size of the files other than postgresql.auto.conf
 * calls for, after walsizer_owner_observe() at the same look:
 *
 *	  nothing shadowed (no value in the other files, or postgresql.auto.conf
 *	  sets none, so the server runs the files' value)	-> nothing
 *	  first look since the worker started: a value that
 *	  is neither the running one nor the baseline		-> warn once
 *	  unchanged since the last look						-> nothing
 *	  edited to the value that runs						-> the baseline
 *	  walsizer.enable = off								-> wait
 *	  edited: the DBA's intent							-> adopt (advise
 *														   in a dry run)
 *
 * An edit waits until it is written (walsizer_owner_written_for_dba): one
 * whose write failed or was postponed is asked for again at the next
 * look, and while walsizer.enable is off it waits; a newer edit replaces
 * it, and an adopted change of the running value supersedes it.
 */
WalsizerShadowVerdict
walsizer_owner_look_at_files(WalsizerSizeTracker *t,
							 const WalsizerOwnerLook *look)
{
	bool		first = !t->files_looked;

	if (!look->files_known)
		return WALSIZER_SHADOW_NOTHING;
	t->files_looked = true;
	if (look->file_mb <= 0 || look->auto_mb == 0)
	{
		t->files_seen_mb = look->file_mb;
		t->files_waiting_mb = 0;
		return WALSIZER_SHADOW_NOTHING;
	}
	if (first)
	{
		t->files_seen_mb = look->file_mb;
		return look->enabled && look->file_mb != look->server_mb &&
			look->file_mb != t->baseline_mb ?
			WALSIZER_SHADOW_WARN : WALSIZER_SHADOW_NOTHING;
	}
	if (look->file_mb != t->files_seen_mb)
	{
		/* an edit: the DBA's newest intent */
		t->files_seen_mb = look->file_mb;
		t->files_waiting_mb = look->file_mb;
		if (look->file_mb == look->server_mb)
		{
			t->files_waiting_mb = 0;
			if (t->owner == WALSIZER_OWNER_DBA && t->baseline_mb == look->file_mb)
				return WALSIZER_SHADOW_NOTHING;
			t->owner = WALSIZER_OWNER_DBA;
			t->baseline_mb = look->file_mb;
			t->answers_our_choice = false;
			return WALSIZER_SHADOW_ADOPT_RUNNING;
		}
	}
	if (t->files_waiting_mb == 0)
		return WALSIZER_SHADOW_NOTHING;
	if (!look->enabled)
		return WALSIZER_SHADOW_WAIT;
	if (look->dry_run)
	{
		t->files_waiting_mb = 0;
		return WALSIZER_SHADOW_ADVISE;
	}
	return WALSIZER_SHADOW_ADOPT;
}

/*
 * Whether a configuration change awaits a reload (WalsizerWriteFacts'
 * config_pending): postgresql.auto.conf holds another max_wal_size than
 * the server loaded, or none where it loaded one (a DBA's ALTER SYSTEM
 * SET or RESET not yet reloaded: 0 is "none", a value of its own), or a
 * configuration file was modified after the last load.
 */
bool
walsizer_owner_change_pending(int64_t auto_now_mb, int64_t auto_loaded_mb,
							  bool file_modified)
{
	return auto_now_mb != auto_loaded_mb || file_modified;
}

/*
 * May pg_walsizer write now?  In this order: not when it is off; only
 * advise in a dry run; not when no write can win (the command line) or
 * ALTER SYSTEM is disabled; and not while a configuration change awaits a
 * reload, unless the write protects the WAL volume.
 */
WalsizerWriteVerdict
walsizer_owner_may_write(const WalsizerWriteFacts *facts)
{
	if (!facts->enabled)
		return WALSIZER_WRITE_DISABLED;
	if (facts->dry_run)
		return WALSIZER_WRITE_ADVISE;
	if (facts->outranked)
		return WALSIZER_WRITE_OUTRANKED;
	if (!facts->alter_system_allowed)
		return WALSIZER_WRITE_BLOCKED;
	if (facts->config_pending && !facts->disk_guard)
		return WALSIZER_WRITE_DEFER;
	return WALSIZER_WRITE;
}

/*
 * walsizer advises a change in a dry run: forced checkpoints at the
 * running size no longer answer a choice it is standing by.
 */
void
walsizer_owner_attempting(WalsizerSizeTracker *t)
{
	t->answers_our_choice = false;
}

/* walsizer wrote new_mb with ALTER SYSTEM and reloaded. */
void
walsizer_owner_written(WalsizerSizeTracker *t, int64_t new_mb)
{
	t->pending_mb = new_mb;
	t->pending_window_ends = 0;
	t->pending_is_dbas = false;
	t->answers_our_choice = true;
}

/*
 * walsizer wrote the DBA's new_mb for them (a shadowed edit of the other
 * files it adopted) and reloaded.  The server running it is then neither
 * a change of somebody else's to adopt once more nor walsizer's own
 * growth: the DBA owns it, it is the baseline, and forced checkpoints at
 * it answer nothing walsizer chose.
 */
void
walsizer_owner_written_for_dba(WalsizerSizeTracker *t, int64_t new_mb)
{
	t->pending_mb = new_mb;
	t->pending_window_ends = 0;
	t->pending_is_dbas = true;
	t->baseline_mb = new_mb;
	t->files_waiting_mb = 0;
	t->answers_our_choice = false;
}
