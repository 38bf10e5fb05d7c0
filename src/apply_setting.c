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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "access/xact.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "postmaster/postmaster.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "apply_setting.h"

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

WalsizerApplyResult
walsizer_apply_max_wal_size(int64 new_mb, char *errbuf, size_t errlen)
{
	MemoryContext caller_context = CurrentMemoryContext;
	volatile bool written = false;
	AlterSystemStmt *stmt;

	errbuf[0] = '\0';
	if (!walsizer_alter_system_allowed())
	{
		snprintf(errbuf, errlen, "ALTER SYSTEM is not allowed on this server");
		return WALSIZER_APPLY_BLOCKED;
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
