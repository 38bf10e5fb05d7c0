/*-------------------------------------------------------------------------
 *
 * alter_system.c
 *		Write max_wal_size into postgresql.auto.conf and have the server
 *		reload it.
 *
 * ALTER SYSTEM cannot run inside a transaction block, so it cannot go
 * through SPI.  The worker instead builds the statement node itself and
 * hands it to AlterSystemSetConfigFile(), which validates the value, takes
 * the same lock as ALTER SYSTEM and replaces the file atomically.  The node
 * carries only max_wal_size: walsizer never edits anything else.
 *
 * Any error it raises (a full disk, a read-only data directory, ALTER SYSTEM
 * disabled) is caught here and returned as text, so that the worker records
 * it and keeps running instead of exiting and being restarted in a loop.
 *
 * A change happens in two calls: walsizer_alter_system_prepare() takes
 * auto_conf_lock and tells whether a configuration change awaits a reload
 * (config_files.c); walsizer_alter_system_write() writes under the same lock,
 * releases it and signals the reload (or walsizer_alter_system_cancel() releases
 * it).  Between the two the caller saves its intent.  See
 * auto_conf_guard.c for why the lock spans both.
 *
 * The reload is the postmaster's SIGHUP, as pg_reload_conf() sends: it
 * applies every configuration edit not yet reloaded, not only this one,
 * which is why the caller does not write while one awaits
 * (size_owner.c's rule 2) unless the disk guard must.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "postmaster/postmaster.h"
#include "storage/fd.h"
#include "storage/lwlock.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "alter_system.h"
#include "config_files.h"
#include "shared_state.h"
#include "test_hold.h"
#include "walsizer.h"

/*
 * allow_alter_system exists from PostgreSQL 17 on.  Asking for it by name
 * keeps this file free of version checks: older servers do not know the
 * setting, and there ALTER SYSTEM is always allowed.
 */
bool
walsizer_alter_system_allowed(void)
{
	const char *value = GetConfigOption("allow_alter_system", true, false);

	return value == NULL || strcmp(value, "on") == 0;
}

/*
 * Written and signalled, and this process has not reloaded since: the
 * next write waits for that reload, quietly (it is walsizer's own change
 * that is not loaded yet, not the DBA's).
 */
static bool own_write_unloaded = false;

/* This process reloaded the configuration. */
void
walsizer_alter_system_reloaded(void)
{
	own_write_unloaded = false;
}

static AlterSystemStmt *
build_statement(int64 new_mb)
{
	AlterSystemStmt *stmt = makeNode(AlterSystemStmt);
	VariableSetStmt *setstmt = makeNode(VariableSetStmt);
	A_Const    *value = makeNode(A_Const);

	/* a string with its unit, so postgresql.auto.conf reads '1024MB' */
	value->val.sval.type = T_String;
	value->val.sval.sval = psprintf(INT64_FORMAT "MB", new_mb);
	value->location = -1;

	setstmt->kind = VAR_SET_VALUE;
	setstmt->name = pstrdup("max_wal_size");
	setstmt->args = list_make1(value);
	setstmt->is_local = false;

	stmt->setstmt = setstmt;
	return stmt;
}

/*
 * Take auto_conf_lock and tell whether a configuration change awaits a
 * reload (*pending, and why; why is empty when that change is walsizer's
 * own).  The lock stays held, for walsizer_alter_system_write() or
 * walsizer_alter_system_cancel().
 */
void
walsizer_alter_system_prepare(const WalsizerConfigFiles *loaded, bool *pending,
					   char *why, size_t len)
{
	why[0] = '\0';
	LWLockAcquire(walsizer_shared->auto_conf_lock, LW_EXCLUSIVE);
	*pending = walsizer_config_changed(loaded, why, len);
}

/*
 * Whether walsizer's own last write is not loaded yet: until this process
 * has reloaded, it does not know what the server runs, and waits, even to
 * protect the disk (its first write may already do that).
 */
bool
walsizer_alter_system_own_write_unloaded(void)
{
	return own_write_unloaded;
}

/* Give up a prepared change: release the lock. */
void
walsizer_alter_system_cancel(void)
{
	LWLockRelease(walsizer_shared->auto_conf_lock);
}

/*
 * Write max_wal_size = new_mb into postgresql.auto.conf, release the lock,
 * and signal the reload.  Called after walsizer_alter_system_prepare(), with the
 * lock held.  *alter_count is the count of the DBA's ALTER SYSTEM
 * statements the write came after (auto_conf_guard.c).
 */
WalsizerAlterSystemResult
walsizer_alter_system_write(int64 new_mb, uint64 *alter_count, char *errbuf,
					 size_t errlen)
{
	MemoryContext caller_context = CurrentMemoryContext;
	volatile bool written = false;
	AlterSystemStmt *stmt;

	errbuf[0] = '\0';
	walsizer_test_hold_before_write();
	stmt = build_statement(new_mb);

	/* the permission check inside needs catalog access, hence a transaction */
	StartTransactionCommand();
	PG_TRY();
	{
		AlterSystemSetConfigFile(stmt);
		CommitTransactionCommand();
		written = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(caller_context);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		snprintf(errbuf, errlen, "%s", edata->message);
		FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(caller_context);

	/*
	 * Every ALTER SYSTEM of max_wal_size counted so far came before this
	 * write (they take the same lock), which replaced its value.  The abort
	 * of a failed write released every lock already.
	 */
	if (written)
		*alter_count = walsizer_shared->dba_alter_system_count;
	if (LWLockHeldByMe(walsizer_shared->auto_conf_lock))
		LWLockRelease(walsizer_shared->auto_conf_lock);

	if (!written)
		return WALSIZER_ALTER_SYSTEM_FAILED;
	own_write_unloaded = true;

	/* what pg_reload_conf() does */
	if (kill(PostmasterPid, SIGHUP) != 0)
	{
		snprintf(errbuf, errlen, "could not signal the postmaster to reload: %s",
				 strerror(errno));
		return WALSIZER_ALTER_SYSTEM_FAILED;
	}
	return WALSIZER_ALTER_SYSTEM_OK;
}
