/*-------------------------------------------------------------------------
 *
 * auto_conf_guard.c
 *		Keep a DBA's ALTER SYSTEM of max_wal_size from slipping in between
 *		pg_walsizer's check of postgresql.auto.conf and its own write.
 *
 * Before it writes, the worker checks that postgresql.auto.conf holds no
 * max_wal_size the server has not loaded (a DBA's ALTER SYSTEM awaiting
 * its reload), which its write would silently replace.  ALTER SYSTEM's own
 * lock is taken inside the write and cannot be held around the check, so
 * the worker holds walsizer_shared->auto_conf_lock from the check to the
 * end of its write, and every ALTER SYSTEM that sets or resets
 * max_wal_size, in any session, takes the same lock first through this
 * ProcessUtility hook.  A DBA's statement then either comes before the
 * check, which sees it and postpones walsizer's change, or after the
 * write, and wins.
 *
 * The hook also counts those statements (walsizer_shared->
 * dba_alter_system_count), so that the worker knows, at the next reload,
 * that the DBA chose what postgresql.auto.conf holds: an ALTER SYSTEM to
 * the value that already runs makes it the DBA's too (size_owner.c).
 * Names match as the server matches them, without regard to case.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/parsenodes.h"
#include "storage/lwlock.h"
#include "tcop/utility.h"

#include "auto_conf_guard.h"
#include "shared_state.h"
#include "size_owner.h"

static ProcessUtility_hook_type prev_process_utility_hook = NULL;

/* ALTER SYSTEM SET / RESET max_wal_size, or ALTER SYSTEM RESET ALL */
static bool
changes_max_wal_size(const Node *statement)
{
	const AlterSystemStmt *alter;

	if (statement == NULL || !IsA(statement, AlterSystemStmt))
		return false;
	alter = (const AlterSystemStmt *) statement;
	return alter->setstmt->kind == VAR_RESET_ALL ||
		walsizer_names_max_wal_size(alter->setstmt->name);
}

static void
guard_process_utility(PlannedStmt *pstmt, const char *queryString,
					  bool readOnlyTree, ProcessUtilityContext context,
					  ParamListInfo params, QueryEnvironment *queryEnv,
					  DestReceiver *dest, QueryCompletion *qc)
{
	bool		guarded = walsizer_shared != NULL &&
		changes_max_wal_size(pstmt->utilityStmt);

	/* an error inside releases the lock with the transaction's abort */
	if (guarded)
		LWLockAcquire(walsizer_shared->auto_conf_lock, LW_EXCLUSIVE);
	if (prev_process_utility_hook)
		prev_process_utility_hook(pstmt, queryString, readOnlyTree, context,
								  params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
	if (guarded)
	{
		walsizer_shared->dba_alter_system_count++;
		LWLockRelease(walsizer_shared->auto_conf_lock);
	}
}

/* Called from _PG_init() while shared_preload_libraries are processed. */
void
walsizer_install_auto_conf_guard(void)
{
	prev_process_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = guard_process_utility;
}
