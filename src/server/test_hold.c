/*-------------------------------------------------------------------------
 *
 * test_hold.c
 *		A test's hold on the worker: decisions of the named actions are made
 *		but not carried out until the test releases them.
 *
 * A test that needs the worker in a state when it acts ("a shrink is due
 * but has not happened") must put it there by construction, not by being
 * quicker than the worker: on a loaded machine the worker may shrink
 * twice before the test's next statement.  A hold makes the next step
 * impossible until the test allows it, in the spirit of PostgreSQL 17's
 * injection points.  It is set and released in shared memory by a SQL
 * call, never by a reload: a reload would apply the very DBA change a
 * test checks pg_walsizer's handling of.
 *
 * A held decision is treated as a postponed one (act.c returns
 * WALSIZER_ACT_NOT_DONE): no write, no record, no log line, and none of the
 * policy's state consumed, so the worker decides it again at its next
 * chance, on what it measures then.  Each one held is counted, so that a
 * test can wait for "the worker wants to shrink" rather than sleep.
 *
 * The two functions are not part of the extension's SQL API: a test
 * creates them from the library (test/perl/WalsizerTest.pm, hold_worker()),
 * and, being C functions, only a superuser can.
 *
 *		walsizer_test_hold(actions text) -> void
 *			hold the comma-separated actions ('grow,shrink'); '' releases
 *		walsizer_test_held(action text) -> bigint
 *			decisions of that action held since it was last set
 *
 * Besides the actions, one place can be held: "write", where the worker
 * has checked postgresql.auto.conf under its lock and is about to write
 * it (alter_system.c).  There the worker waits, lock held, until the
 * test releases it, so that a DBA's statement arrives exactly in between;
 * walsizer_test_held('write') counts the arrivals.  A stop request ends
 * the wait, so that a held worker never delays a shutdown.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/builtins.h"
#include "utils/varlena.h"
#include "utils/wait_event.h"

#include "policy.h"
#include "shared_state.h"
#include "test_hold.h"

PG_FUNCTION_INFO_V1(walsizer_test_hold);
PG_FUNCTION_INFO_V1(walsizer_test_held);

/*
 * The held place has the bit (and the count) of WALSIZER_ACTION_NONE,
 * which is never carried out and so never held as an action.
 */
#define TEST_HOLD_WRITE WALSIZER_ACTION_NONE
#define TEST_HOLD_WRITE_NAME "write"

/* How often a held worker looks for its release or a stop request. */
#define TEST_HOLD_POLL_MS 100

/* The action or place named, or an ERROR naming the ones a test may hold. */
static int
test_hold_bit(const char *name)
{
	if (pg_strcasecmp(name, TEST_HOLD_WRITE_NAME) == 0)
		return TEST_HOLD_WRITE;
	for (int a = WALSIZER_ACTION_NONE + 1; a <= WALSIZER_ACTION_LAST; a++)
		if (pg_strcasecmp(name, walsizer_action_name((WalsizerAction) a)) == 0)
			return a;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("\"%s\" is not an action of pg_walsizer", name),
			 errhint("Name actions as walsizer.decisions does, such as grow, shrink, protect, adopt, or the place \"%s\".",
					 TEST_HOLD_WRITE_NAME)));
	return TEST_HOLD_WRITE;		/* keep the compiler quiet */
}

static void
test_hold_require_superuser(void)
{
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to hold pg_walsizer's worker"),
				 errdetail("Only superusers may hold it.")));
}

/*
 * Hold the actions named (and only those); '' releases every hold.  The
 * worker is woken, so that a release takes effect at its next sample.
 */
Datum
walsizer_test_hold(PG_FUNCTION_ARGS)
{
	char	   *list = text_to_cstring(PG_GETARG_TEXT_PP(0));
	List	   *names;
	ListCell   *cell;
	uint32		held = 0;
	Latch	   *latch;

	test_hold_require_superuser();
	walsizer_require_shared();
	/* SplitIdentifierString() cuts the string it is given: keep the list */
	if (!SplitIdentifierString(pstrdup(list), ',', &names))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid list of actions: \"%s\"", list)));
	foreach(cell, names)
		held |= 1u << test_hold_bit((const char *) lfirst(cell));

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	walsizer_shared->test_held_actions = held;
	memset(walsizer_shared->test_held_count, 0,
		   sizeof(walsizer_shared->test_held_count));
	latch = walsizer_shared->worker_latch;
	LWLockRelease(walsizer_shared->lock);
	if (latch != NULL)
		SetLatch(latch);
	PG_RETURN_VOID();
}

/* How many decisions of the action (arrivals at the place) were held. */
Datum
walsizer_test_held(PG_FUNCTION_ARGS)
{
	int			bit = test_hold_bit(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	int64		count;

	walsizer_require_shared();
	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	count = walsizer_shared->test_held_count[bit];
	LWLockRelease(walsizer_shared->lock);
	PG_RETURN_INT64(count);
}

/* Whether a test holds decisions of this action (for status()'s plan). */
bool
walsizer_test_hold_covers(WalsizerAction action)
{
	bool		held;

	if (action == WALSIZER_ACTION_NONE)
		return false;			/* its bit is the place "write" */
	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	held = (walsizer_shared->test_held_actions & (1u << action)) != 0;
	LWLockRelease(walsizer_shared->lock);
	return held;
}

/*
 * The worker is about to carry out a decision of this action: true when a
 * test holds it, which is then counted and must not be carried out.
 */
bool
walsizer_test_hold_takes(WalsizerAction action)
{
	bool		held;

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	held = (walsizer_shared->test_held_actions & (1u << action)) != 0;
	if (held)
		walsizer_shared->test_held_count[action]++;
	LWLockRelease(walsizer_shared->lock);
	return held;
}

/*
 * The worker is about to write postgresql.auto.conf: while a test holds
 * "write", wait here (counted once) until it is released or the server
 * stops.  The caller holds auto_conf_lock, so interrupts are held off and
 * only the latch and the stop flag end the wait.
 */
void
walsizer_test_hold_before_write(void)
{
	bool		counted = false;

	for (;;)
	{
		bool		held;

		LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
		held = (walsizer_shared->test_held_actions & (1u << TEST_HOLD_WRITE)) != 0;
		if (held && !counted)
			walsizer_shared->test_held_count[TEST_HOLD_WRITE]++;
		LWLockRelease(walsizer_shared->lock);
		if (!held || ShutdownRequestPending)
			return;
		counted = true;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 TEST_HOLD_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
