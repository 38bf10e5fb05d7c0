/*-------------------------------------------------------------------------
 *
 * apply_setting.c
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
 * A change happens in two calls: walsizer_apply_prepare() takes
 * auto_conf_lock and checks that no one else's max_wal_size awaits a
 * reload in postgresql.auto.conf; walsizer_apply_write() writes under the
 * same lock, releases it and signals the reload (or
 * walsizer_apply_cancel() releases it).  Between the two the caller saves
 * its intent.  See auto_conf_guard.c for why the lock spans both.
 *
 * The reload is the postmaster's SIGHUP, as pg_reload_conf() sends: like
 * ALTER SYSTEM followed by pg_reload_conf(), it also applies any other
 * configuration edit the DBA has made and not yet reloaded.
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

#include "apply_setting.h"
#include "shared_state.h"
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
 * The max_wal_size postgresql.auto.conf holds right now, in MB; -1 when it
 * holds none or cannot be read.  A value there that the server does not run
 * with is an ALTER SYSTEM (the DBA's, usually) still waiting for a reload:
 * rewriting the file now would silently throw it away.
 */
static int
auto_conf_max_wal_size_mb(void)
{
	FILE	   *file = AllocateFile(PG_AUTOCONF_FILENAME, "r");
	ConfigVariable *head = NULL;
	ConfigVariable *tail = NULL;
	int			result = -1;

	if (file == NULL)
		return -1;
	if (ParseConfigFp(file, PG_AUTOCONF_FILENAME, 0, DEBUG1, &head, &tail))
	{
		for (ConfigVariable *item = head; item != NULL; item = item->next)
		{
			int			mb;

			if (strcmp(item->name, "max_wal_size") == 0 &&
				parse_int(item->value, &mb, GUC_UNIT_MB, NULL))
				result = mb;
		}
	}
	FreeConfigVariables(head);
	FreeFile(file);
	return result;
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
 * Take auto_conf_lock and check that the change may be written now.  Only
 * WALSIZER_APPLY_OK leaves the lock held, for walsizer_apply_write() or
 * walsizer_apply_cancel().
 */
WalsizerApplyResult
walsizer_apply_prepare(char *errbuf, size_t errlen)
{
	int			file_mb;

	errbuf[0] = '\0';
	if (!walsizer_alter_system_allowed())
	{
		snprintf(errbuf, errlen, "ALTER SYSTEM is not allowed on this server");
		return WALSIZER_APPLY_BLOCKED;
	}

	LWLockAcquire(walsizer_shared->auto_conf_lock, LW_EXCLUSIVE);
	file_mb = auto_conf_max_wal_size_mb();
	if (file_mb >= 0 && file_mb != max_wal_size_mb)
	{
		LWLockRelease(walsizer_shared->auto_conf_lock);
		snprintf(errbuf, errlen,
				 "postgresql.auto.conf sets max_wal_size = %d MB, which the server has not loaded yet",
				 file_mb);
		return WALSIZER_APPLY_DEFERRED;
	}
	return WALSIZER_APPLY_OK;
}

/* Give up a prepared change: release the lock. */
void
walsizer_apply_cancel(void)
{
	LWLockRelease(walsizer_shared->auto_conf_lock);
}

/*
 * Write max_wal_size = new_mb into postgresql.auto.conf, release the lock,
 * and signal the reload.  Called after walsizer_apply_prepare() returned
 * WALSIZER_APPLY_OK.
 */
WalsizerApplyResult
walsizer_apply_write(int64 new_mb, char *errbuf, size_t errlen)
{
	MemoryContext caller_context = CurrentMemoryContext;
	volatile bool written = false;
	AlterSystemStmt *stmt;

	errbuf[0] = '\0';
	if (walsizer_debug_apply_delay_ms > 0)
	{
		ereport(LOG,
				(errmsg("pg_walsizer pauses %d ms before writing postgresql.auto.conf (walsizer.debug_apply_delay)",
						walsizer_debug_apply_delay_ms)));
		pg_usleep((long) walsizer_debug_apply_delay_ms * 1000L);
	}

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

	/* the abort of a failed write released every lock already */
	if (LWLockHeldByMe(walsizer_shared->auto_conf_lock))
		LWLockRelease(walsizer_shared->auto_conf_lock);

	if (!written)
		return WALSIZER_APPLY_FAILED;

	/* what pg_reload_conf() does */
	if (kill(PostmasterPid, SIGHUP) != 0)
	{
		snprintf(errbuf, errlen, "could not signal the postmaster to reload: %s",
				 strerror(errno));
		return WALSIZER_APPLY_FAILED;
	}
	return WALSIZER_APPLY_OK;
}
