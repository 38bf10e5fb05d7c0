/*-------------------------------------------------------------------------
 *
 * sql_functions.c
 *		The SQL interface: walsizer.status(), walsizer.decisions(),
 *		walsizer.decision_counts(), walsizer.recommend() and
 *		walsizer.check_now().
 *
 * Each function copies what it needs out of shared memory under the lock
 * and builds its result afterwards, so a reader never holds the lock while
 * allocating and never sees a row the worker is halfway through writing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "access/htup_details.h"
#include "access/xlog.h"
#include "postmaster/bgwriter.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "policy.h"
#include "recovery_bound_server.h"
#include "shared_state.h"
#include "state_format.h"
#include "walsizer.h"

PG_FUNCTION_INFO_V1(walsizer_status);
PG_FUNCTION_INFO_V1(walsizer_decisions);
PG_FUNCTION_INFO_V1(walsizer_decision_counts);
PG_FUNCTION_INFO_V1(walsizer_recommend);
PG_FUNCTION_INFO_V1(walsizer_check_now);

/*
 * status() has 38 columns in version 1.0 of the SQL objects, 44 in 1.1, 47
 * in 1.2, 50 in 1.3
 */
#define STATUS_COLUMNS_V1_0 38
#define STATUS_COLUMNS_V1_1 44
#define STATUS_COLUMNS_V1_2 47
#define STATUS_COLUMNS 50
/* decisions() has 11 columns in 1.0 to 1.2, 12 in 1.3 */
#define DECISION_COLUMNS_V1_2 11
#define DECISION_COLUMNS 12
/* decision_counts(), from 1.4 on, has 2 */
#define DECISION_COUNT_COLUMNS 2
/* recommend() has 7 columns in 1.0 and 1.1, 9 from 1.2 on */
#define RECOMMEND_COLUMNS_V1_1 7
#define RECOMMEND_COLUMNS 9

/*
 * The column counts each function's row may have, this version's first:
 * the SQL objects of an older version, before ALTER EXTENSION UPDATE, get
 * the columns they know.
 */
static const int status_columns[] = {
	STATUS_COLUMNS, STATUS_COLUMNS_V1_2, STATUS_COLUMNS_V1_1, STATUS_COLUMNS_V1_0
};
static const int decision_columns[] = {DECISION_COLUMNS, DECISION_COLUMNS_V1_2};
static const int decision_count_columns[] = {DECISION_COUNT_COLUMNS};
static const int recommend_columns[] = {RECOMMEND_COLUMNS, RECOMMEND_COLUMNS_V1_1};

/* Builds a row column by column, so the order lives in one place. */
typedef struct RowBuilder
{
	Datum	   *values;
	bool	   *nulls;
	int			next;
	int			ncolumns;
} RowBuilder;

static void
put(RowBuilder *row, Datum value)
{
	Assert(row->next < row->ncolumns);
	row->values[row->next] = value;
	row->nulls[row->next] = false;
	row->next++;
}

static void
put_null(RowBuilder *row)
{
	Assert(row->next < row->ncolumns);
	row->nulls[row->next] = true;
	row->next++;
}

static void
put_timestamp(RowBuilder *row, TimestampTz value)
{
	if (value == 0)
		put_null(row);
	else
		put(row, TimestampTzGetDatum(value));
}

static void
put_text(RowBuilder *row, const char *value)
{
	put(row, CStringGetTextDatum(value));
}

/* A share of two counts, NULL when there is nothing to divide. */
static void
put_ratio(RowBuilder *row, double part, double whole)
{
	if (whole <= 0)
		put_null(row);
	else
		put(row, Float8GetDatum(part / whole));
}

/*
 * Refuse a row type with a column count not among accepted_columns (of
 * which there are accepted_count, this version's first).
 */
static void
check_column_count(TupleDesc tupdesc, const int *accepted_columns,
				   int accepted_count)
{
	for (int i = 0; i < accepted_count; i++)
		if (tupdesc->natts == accepted_columns[i])
			return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
			 errmsg("function returns %d columns, the pg_walsizer library expects %d",
					tupdesc->natts, accepted_columns[0]),
			 errhint("Run ALTER EXTENSION pg_walsizer UPDATE so the SQL objects match the library.")));
}

/* The caller's row type, blessed, with one of the accepted column counts. */
static TupleDesc
result_tupdesc(FunctionCallInfo fcinfo, const int *accepted_columns,
			   int accepted_count)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	check_column_count(tupdesc, accepted_columns, accepted_count);
	return BlessTupleDesc(tupdesc);
}

/*
 * status()'s columns, in their order: one helper per group.  st is the
 * worker's status, copied out of shared memory under the lock.
 */

/* The settings and the limits, and when the worker checks. */
static void
put_status_settings(RowBuilder *row, const WalsizerStatus *st, pid_t worker_pid)
{
	/* the worker's view, like max_wal_size below: it is what acts */
	if (st->last_sample_at != 0)
	{
		put(row, BoolGetDatum(st->enabled));
		put(row, BoolGetDatum(st->dry_run));
	}
	else
	{
		put(row, BoolGetDatum(walsizer_enable));
		put(row, BoolGetDatum(walsizer_dry_run));
	}
	if (worker_pid != 0)
		put(row, Int32GetDatum(worker_pid));
	else
		put_null(row);
	/* the worker's view: this backend may not have reloaded yet */
	if (st->last_sample_at != 0)
		put(row, Int64GetDatum(st->plan.old_mb));
	else
		put(row, Int64GetDatum(max_wal_size_mb));
	put(row, Int64GetDatum(st->plan.cap_mb));
	put_text(row, walsizer_cap_source_name(st->plan.cap_source));
	put(row, Int64GetDatum(st->plan.floor_mb));
	put(row, Int64GetDatum(st->plan.needed_mb));
	put(row, Float8GetDatum(st->window_s));
	put(row, Int32GetDatum(st->sample_interval_ms));
	put_timestamp(row, st->last_check_at);
	put_timestamp(row, st->next_check_at);
}

/* The last complete window. */
static void
put_status_last_window(RowBuilder *row, const WalsizerStatus *st)
{
	put(row, Int64GetDatum(st->last_timed));
	put(row, Int64GetDatum(st->last_requested));
	put(row, Int64GetDatum(st->last_wal_forced));
	put_ratio(row, st->last_requested, st->last_timed + st->last_requested);
	put(row, Int64GetDatum((int64) st->last_wal_bytes));
	put_ratio(row, st->last_wal_bytes, st->last_window_s);
	put(row, Int64GetDatum(st->last_fpi));
	/* share of WAL volume that full-page images take, at most one page each */
	if (st->last_wal_bytes > 0)
		put(row, Float8GetDatum(Min(1.0, (double) st->last_fpi * BLCKSZ /
									(double) st->last_wal_bytes)));
	else
		put_null(row);
}

/* Since the worker started. */
static void
put_status_totals(RowBuilder *row, const WalsizerStatus *st)
{
	put(row, Int64GetDatum(st->total_timed));
	put(row, Int64GetDatum(st->total_requested));
	put(row, Int64GetDatum(st->total_wal_forced));
	put_ratio(row, st->total_requested, st->total_timed + st->total_requested);
	put(row, Int64GetDatum((int64) st->total_wal_bytes));
}

/* The latest sample. */
static void
put_status_latest_sample(RowBuilder *row, const WalsizerStatus *st)
{
	put(row, Float8GetDatum(st->recent_rate));
	put(row, Float8GetDatum(st->peak_rate));
	put(row, Int64GetDatum((int64) st->wal_since_redo_bytes));
	put(row, Int64GetDatum((int64) st->plan.trigger_bytes));
	put(row, Int64GetDatum((int64) st->plan.projected_bytes));
	put_ratio(row, st->plan.projected_bytes, st->plan.trigger_bytes);
	put(row, BoolGetDatum(st->blocked));
	if (st->pending_mb != 0)
		put(row, Int64GetDatum(st->pending_mb));
	else
		put_null(row);
}

/*
 * The decisions: how many, the latest recorded one (latest, NULL when
 * there is none) and the plan of the latest sample.
 */
static void
put_status_decisions(RowBuilder *row, const WalsizerStatus *st,
					 uint64 decisions_total, const WalsizerRecord *latest)
{
	put(row, Int64GetDatum((int64) decisions_total));
	if (latest != NULL)
	{
		put_text(row, walsizer_action_name(latest->action));
		put_text(row, latest->reason);
	}
	else
	{
		put_null(row);
		put_null(row);
	}
	if (st->last_sample_at != 0)
	{
		put_text(row, walsizer_action_name(st->plan.action));
		put_text(row, st->plan.reason);
	}
	else
	{
		put_null(row);
		put_null(row);
	}
}

/* 1.1: the last checkpoint cycle, images apart */
static void
put_status_last_cycle(RowBuilder *row, const WalsizerStatus *st)
{
	if (st->last_cycle_s > 0)
	{
		put(row, Float8GetDatum(st->last_cycle_s));
		put(row, Int64GetDatum((int64) st->last_cycle_bytes));
		put(row, Int64GetDatum((int64) st->last_cycle_fpi_bytes));
		put(row, BoolGetDatum(st->last_cycle_timed));
	}
	else
	{
		put_null(row);
		put_null(row);
		put_null(row);
		put_null(row);
	}
	put_text(row, st->fpi_bytes_measured ? "measured" : "estimated");
	put(row, Float8GetDatum(st->record_rate));
}

/* 1.2: a crash recovery now, at its worst */
static void
put_status_recovery(RowBuilder *row, const WalsizerStatus *st)
{
	if (st->last_sample_at != 0)
	{
		put(row, Float8GetDatum(st->estimated_recovery_s));
		put(row, Float8GetDatum(st->replay_rate));
		put_text(row, walsizer_replay_rate_source_name(st->replay_rate_source));
	}
	else
	{
		put_null(row);
		put_null(row);
		put_null(row);
	}
}

/*
 * 1.3: the server's role, as this backend sees it rather than the
 * worker: it is right without a worker too, and at once after a
 * promotion.  Then where max_wal_size comes from and the value
 * postgresql.auto.conf shadows, as the worker read the configuration
 * files at its last reload: a backend does not parse them.
 */
static void
put_status_role_and_source(RowBuilder *row, const WalsizerStatus *st)
{
	put_text(row, walsizer_role_name(RecoveryInProgress() ?
									 WALSIZER_ROLE_STANDBY :
									 WALSIZER_ROLE_PRIMARY));
	if (st->max_wal_size_source[0] != '\0')
		put_text(row, st->max_wal_size_source);
	else
		put_null(row);
	if (st->shadowed_mb != 0)
		put(row, Int64GetDatum(st->shadowed_mb));
	else
		put_null(row);
}

Datum
walsizer_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[STATUS_COLUMNS];
	bool		nulls[STATUS_COLUMNS];
	RowBuilder	row = {values, nulls, 0, STATUS_COLUMNS};
	WalsizerStatus st;
	pid_t		worker_pid;
	uint64		decisions_total;
	WalsizerRecord latest;
	bool		has_latest;

	walsizer_require_shared();
	tupdesc = result_tupdesc(fcinfo, status_columns, lengthof(status_columns));

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	st = walsizer_shared->status;
	worker_pid = walsizer_shared->worker_pid;
	decisions_total = walsizer_shared->persistent.decisions_total;
	has_latest = walsizer_shared->persistent.history_count > 0;
	if (has_latest)
		latest = *walsizer_history_latest(&walsizer_shared->persistent);
	LWLockRelease(walsizer_shared->lock);

	put_status_settings(&row, &st, worker_pid);
	put_status_last_window(&row, &st);
	put_status_totals(&row, &st);
	put_status_latest_sample(&row, &st);
	put_status_decisions(&row, &st, decisions_total,
						 has_latest ? &latest : NULL);
	Assert(row.next == STATUS_COLUMNS_V1_0);

	if (tupdesc->natts >= STATUS_COLUMNS_V1_1)
	{
		put_status_last_cycle(&row, &st);
		Assert(row.next == STATUS_COLUMNS_V1_1);
	}
	if (tupdesc->natts >= STATUS_COLUMNS_V1_2)
	{
		put_status_recovery(&row, &st);
		Assert(row.next == STATUS_COLUMNS_V1_2);
	}
	if (tupdesc->natts == STATUS_COLUMNS)
	{
		put_status_role_and_source(&row, &st);
		Assert(row.next == STATUS_COLUMNS);
	}

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
walsizer_decisions(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WalsizerPersistent *copy;

	walsizer_require_shared();
	walsizer_init_materialized_srf(fcinfo);
	check_column_count(rsinfo->setDesc, decision_columns,
					   lengthof(decision_columns));

	copy = palloc(sizeof(WalsizerPersistent));
	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	memcpy(copy, &walsizer_shared->persistent, sizeof(WalsizerPersistent));
	LWLockRelease(walsizer_shared->lock);

	for (int i = 0; i < copy->history_count; i++)
	{
		const WalsizerRecord *rec = walsizer_history_at(copy, i);
		Datum		values[DECISION_COLUMNS];
		bool		nulls[DECISION_COLUMNS];
		RowBuilder	row = {values, nulls, 0, DECISION_COLUMNS};

		put(&row, TimestampTzGetDatum(rec->at));
		put_text(&row, walsizer_action_name(rec->action));
		put(&row, Int64GetDatum(rec->old_mb));
		put(&row, Int64GetDatum(rec->new_mb));
		put(&row, Int64GetDatum(rec->requested));
		put(&row, Int64GetDatum(rec->timed));
		put(&row, Int64GetDatum(rec->wal_forced));
		put(&row, Int64GetDatum((int64) rec->wal_bytes));
		put(&row, Float8GetDatum(rec->window_s));
		if (walsizer_changes_size(rec->action))
			put(&row, BoolGetDatum(rec->confirmed != 0));
		else
			put_null(&row);
		put_text(&row, rec->reason);
		Assert(row.next == DECISION_COLUMNS_V1_2);
		/* 1.3: the role of the server the decision was made on */
		if (rsinfo->setDesc->natts == DECISION_COLUMNS)
		{
			put_text(&row, walsizer_role_name(rec->role));
			Assert(row.next == DECISION_COLUMNS);
		}

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(copy);
	return (Datum) 0;
}

/*
 * The decisions ever made, by action: one row per action, those never
 * taken included, so that a monitoring system sees every series from the
 * start and a total only ever grows.  decisions() cannot serve for this:
 * it keeps the last WALSIZER_HISTORY_LEN decisions only, and its count of
 * an action falls as older ones are overwritten.
 */
Datum
walsizer_decision_counts(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	uint64		totals[WALSIZER_ACTION_LAST + 1];

	walsizer_require_shared();
	walsizer_init_materialized_srf(fcinfo);
	check_column_count(rsinfo->setDesc, decision_count_columns,
					   lengthof(decision_count_columns));

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	memcpy(totals, walsizer_shared->persistent.action_totals, sizeof(totals));
	LWLockRelease(walsizer_shared->lock);

	for (int action = WALSIZER_ACTION_NONE + 1; action <= WALSIZER_ACTION_LAST;
		 action++)
	{
		Datum		values[DECISION_COUNT_COLUMNS];
		bool		nulls[DECISION_COUNT_COLUMNS];
		RowBuilder	row = {values, nulls, 0, DECISION_COUNT_COLUMNS};

		put_text(&row, walsizer_action_name((WalsizerAction) action));
		put(&row, Int64GetDatum((int64) totals[action]));
		Assert(row.next == DECISION_COUNT_COLUMNS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

Datum
walsizer_recommend(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[RECOMMEND_COLUMNS];
	bool		nulls[RECOMMEND_COLUMNS];
	RowBuilder	row = {values, nulls, 0, RECOMMEND_COLUMNS};
	WalsizerDecision plan;
	TimestampTz last_sample_at;
	uint64		cycle_bytes;
	double		replay_rate;

	walsizer_require_shared();
	tupdesc = result_tupdesc(fcinfo, recommend_columns,
							 lengthof(recommend_columns));

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	plan = walsizer_shared->status.plan;
	last_sample_at = walsizer_shared->status.last_sample_at;
	cycle_bytes = walsizer_shared->status.recovery_cycle_bytes;
	replay_rate = walsizer_shared->status.replay_rate;
	LWLockRelease(walsizer_shared->lock);

	if (last_sample_at == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_walsizer has not measured anything yet"),
				 errhint("The worker starts once recovery has finished; try again in a moment.")));

	put_text(&row, walsizer_action_name(plan.action));
	put(&row, Int64GetDatum(plan.old_mb));
	put(&row, Int64GetDatum(plan.new_mb));
	put(&row, Int64GetDatum(plan.needed_mb));
	put(&row, Int64GetDatum(plan.cap_mb));
	put(&row, Int64GetDatum(plan.floor_mb));
	put_text(&row, plan.reason);
	Assert(row.next == RECOMMEND_COLUMNS_V1_1);

	/* 1.2: which limit the cap is, and the crash recovery the advice costs */
	if (tupdesc->natts == RECOMMEND_COLUMNS)
	{
		put_text(&row, walsizer_cap_source_name(plan.cap_source));
		put(&row, Float8GetDatum(walsizer_estimated_recovery_s(plan.new_mb,
															   CheckPointCompletionTarget,
															   cycle_bytes,
															   0,	/* at another size */
															   replay_rate)));
		Assert(row.next == RECOMMEND_COLUMNS);
	}

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* Ask the worker to end its window now.  False when no worker runs. */
Datum
walsizer_check_now(PG_FUNCTION_ARGS)
{
	Latch	   *latch;

	walsizer_require_shared();

	LWLockAcquire(walsizer_shared->lock, LW_EXCLUSIVE);
	latch = walsizer_shared->worker_latch;
	if (latch != NULL)
		walsizer_shared->check_requested = true;
	LWLockRelease(walsizer_shared->lock);

	if (latch == NULL)
		PG_RETURN_BOOL(false);
	SetLatch(latch);
	PG_RETURN_BOOL(true);
}
