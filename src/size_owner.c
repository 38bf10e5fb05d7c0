/*-------------------------------------------------------------------------
 *
 * size_owner.c
 *		The "who set max_wal_size" state machine.
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
 *		-- the server runs a value that is
 *		   neither the running nor X ---------> DBA (adopted)
 *
 * A pending value is one pg_walsizer wrote with ALTER SYSTEM and reloaded.
 * The server may take a moment to run it (every process reloads on its
 * own), so while one is pending the old value is not mistaken for the
 * DBA's.  A value that is neither the running one nor the pending one was
 * set by somebody else: it is adopted, whatever was pending.
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

static void
adopt(WalsizerSizeTracker *t, int64_t server_mb)
{
	t->owner = WALSIZER_OWNER_DBA;
	t->running_mb = server_mb;
	t->pending_mb = 0;
	t->pending_window_ends = 0;
	t->pending_is_dbas = false;
	t->answers_our_choice = false;
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
		return WALSIZER_OWNER_NOTHING;
	}
	*adopted_from_mb = persisted->last_set_mb;
	return WALSIZER_OWNER_ADOPTED;
}

/*
 * Compare the value the server runs with what is known: confirm a pending
 * value, adopt somebody else's, or give up on a pending value after
 * OWNER_PENDING_WINDOW_ENDS window ends.  *previous_mb is the value known
 * before (adopted) or the pending one (confirmed, unconfirmed).
 */
WalsizerOwnerEvent
walsizer_owner_observe(WalsizerSizeTracker *t, int64_t server_mb,
					   bool window_end, int64_t *previous_mb)
{
	*previous_mb = t->running_mb;
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
		adopt(t, server_mb);
		return WALSIZER_OWNER_ADOPTED;
	}
	if (t->pending_mb != 0 && window_end &&
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
 * walsizer is about to try a change (or, in a dry run, to advise one):
 * until a new value is written, forced checkpoints at the old one no
 * longer answer a choice it is standing by.
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
 * walsizer wrote the DBA's new_mb for them (a shadowed postgresql.conf
 * setting it adopted) and reloaded.  The server running it is then
 * neither a change of somebody else's to adopt once more nor walsizer's
 * own growth: the DBA owns it, and forced checkpoints at it answer
 * nothing walsizer chose.
 */
void
walsizer_owner_written_for_dba(WalsizerSizeTracker *t, int64_t new_mb)
{
	t->pending_mb = new_mb;
	t->pending_window_ends = 0;
	t->pending_is_dbas = true;
	t->answers_our_choice = false;
}
