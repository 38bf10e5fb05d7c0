/*-------------------------------------------------------------------------
 *
 * sql_functions.c
 *		The SQL interface: the rows of the views walsizer.status,
 *		walsizer.decisions, walsizer.decision_counts and
 *		walsizer.recommendation (and of the functions of 1.4 and before
 *		they replace), and walsizer.check_now().
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
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/regproc.h"
#include "utils/tuplestore.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "held_wal.h"
#include "policy.h"
#include "recovery_bound_server.h"
#include "sql_rows.h"
#include "shared_state.h"
#include "state_format.h"
#include "walsizer.h"

/*
 * The C entry points.  Up to 1.4 each SQL function had OUT columns and one
 * entry point served every version, telling them apart by the number of
 * columns; they stay for the SQL objects of those versions.  From 1.5 on
 * an entry point is named for the version whose columns it returns (as
 * pg_stat_statements names pg_stat_statements_1_11), behind a function
 * returning "record" whose columns the view gives: a new column is a new
 * entry point and an appended view column, never a dropped function.
 */
PG_FUNCTION_INFO_V1(walsizer_status);	/* status(), 1.0 to 1.4 */
PG_FUNCTION_INFO_V1(walsizer_decisions);	/* decisions(), 1.0 to 1.4 */
PG_FUNCTION_INFO_V1(walsizer_decision_counts);	/* decision_counts(), 1.4 */
PG_FUNCTION_INFO_V1(walsizer_recommend);	/* recommend(), 1.0 to 1.4 */
PG_FUNCTION_INFO_V1(walsizer_status_1_5);	/* the view status, 1.5 */
PG_FUNCTION_INFO_V1(walsizer_status_1_6);	/* the view status */
PG_FUNCTION_INFO_V1(walsizer_decisions_1_5);	/* the view decisions */
PG_FUNCTION_INFO_V1(walsizer_decision_counts_1_5);	/* the view decision_counts */
PG_FUNCTION_INFO_V1(walsizer_recommend_1_5);	/* the view recommendation */
PG_FUNCTION_INFO_V1(walsizer_check_now);

/*
 * The number of columns of each row in each version.  Columns are only
 * ever appended, so an older version's row is the start of a newer one.
 */
#define STATUS_COLUMNS_V1_0 38
#define STATUS_COLUMNS_V1_1 44
#define STATUS_COLUMNS_V1_2 47
#define STATUS_COLUMNS_V1_3 50	/* 1.4 too */
#define STATUS_COLUMNS_V1_5 51
#define STATUS_COLUMNS_V1_6 53
#define STATUS_COLUMNS_MAX STATUS_COLUMNS_V1_6
#define DECISION_COLUMNS_V1_0 11	/* 1.1 and 1.2 too */
#define DECISION_COLUMNS_V1_3 12	/* 1.4 and 1.5 too */
#define DECISION_COLUMNS_V1_5 DECISION_COLUMNS_V1_3
#define DECISION_COLUMNS_MAX DECISION_COLUMNS_V1_5
#define DECISION_COUNT_COLUMNS_V1_4 2	/* 1.5 too */
#define DECISION_COUNT_COLUMNS_V1_5 DECISION_COUNT_COLUMNS_V1_4
#define DECISION_COUNT_COLUMNS_MAX DECISION_COUNT_COLUMNS_V1_5
#define RECOMMEND_COLUMNS_V1_0 7	/* 1.1 too */
#define RECOMMEND_COLUMNS_V1_2 9	/* 1.3 to 1.5 too */
#define RECOMMEND_COLUMNS_V1_5 RECOMMEND_COLUMNS_V1_2
#define RECOMMEND_COLUMNS_MAX RECOMMEND_COLUMNS_V1_5

/*
 * The column counts the entry points of 1.0 to 1.4 accept, the newest
 * first: the SQL objects of an older version, before ALTER EXTENSION
 * UPDATE, get the columns they know.
 */
static const int status_columns_to_1_4[] = {
	STATUS_COLUMNS_V1_3, STATUS_COLUMNS_V1_2, STATUS_COLUMNS_V1_1, STATUS_COLUMNS_V1_0
};
static const int decision_columns_to_1_4[] = {DECISION_COLUMNS_V1_3, DECISION_COLUMNS_V1_0};
static const int decision_count_columns_1_4[] = {DECISION_COUNT_COLUMNS_V1_4};
static const int recommend_columns_to_1_4[] = {RECOMMEND_COLUMNS_V1_2, RECOMMEND_COLUMNS_V1_0};

/*
 * status()'s columns, in their order: one helper per group.  st is the
 * worker's status, copied out of shared memory under the lock.
 */

/*
 * Whether a figure the worker has not measured yet (before its first
 * sample) is NULL: from 1.5 on; the functions of 1.4 and before keep their
 * 0.
 */
static bool
unmeasured(const RowBuilder *row, const WalsizerStatus *st)
{
	return st->last_sample_at == 0 && row->tupdesc->natts >= STATUS_COLUMNS_V1_5;
}

/* The settings and the limits, and when the worker checks. */
static void
put_status_settings(RowBuilder *row, const WalsizerStatus *st, pid_t worker_pid)
{
	/* the worker's view, like max_wal_size below: it is what acts */
	if (st->last_sample_at != 0)
	{
		row_put_bool(row, st->enabled);
		row_put_bool(row, st->dry_run);
	}
	else
	{
		row_put_bool(row, walsizer_enable);
		row_put_bool(row, walsizer_dry_run);
	}
	if (worker_pid != 0)
		row_put_int32(row, worker_pid);
	else
		row_put_null(row, INT4OID);
	/* the worker's view: this backend may not have reloaded yet */
	if (st->last_sample_at != 0)
		row_put_int64(row, st->plan.old_mb);
	else
		row_put_int64(row, max_wal_size_mb);
	if (unmeasured(row, st))
	{
		row_put_null(row, INT8OID);
		row_put_null(row, TEXTOID);
		row_put_null(row, INT8OID);
		row_put_null(row, INT8OID);
	}
	else
	{
		row_put_int64(row, st->plan.cap_mb);
		row_put_text(row, walsizer_cap_source_name(st->plan.cap_source));
		row_put_int64(row, st->plan.floor_mb);
		row_put_int64(row, st->plan.needed_mb);
	}
	row_put_float8(row, st->window_s);
	row_put_int32(row, st->sample_interval_ms);
	row_put_timestamp(row, st->last_check_at);
	row_put_timestamp(row, st->next_check_at);
}

/* The last complete window. */
static void
put_status_last_window(RowBuilder *row, const WalsizerStatus *st)
{
	row_put_int64(row, st->last_timed);
	row_put_int64(row, st->last_requested);
	row_put_int64(row, st->last_wal_forced);
	row_put_ratio(row, st->last_requested, st->last_timed + st->last_requested);
	row_put_int64(row, (int64) st->last_wal_bytes);
	row_put_ratio(row, st->last_wal_bytes, st->last_window_s);
	row_put_int64(row, st->last_fpi);
	/* share of WAL volume that full-page images take, at most one page each */
	if (st->last_wal_bytes > 0)
		row_put_float8(row, (Min(1.0, (double) st->last_fpi * BLCKSZ /
									(double) st->last_wal_bytes)));
	else
		row_put_null(row, FLOAT8OID);
}

/* Since the worker started. */
static void
put_status_totals(RowBuilder *row, const WalsizerStatus *st)
{
	row_put_int64(row, st->total_timed);
	row_put_int64(row, st->total_requested);
	row_put_int64(row, st->total_wal_forced);
	row_put_ratio(row, st->total_requested, st->total_timed + st->total_requested);
	row_put_int64(row, (int64) st->total_wal_bytes);
}

/* The latest sample. */
static void
put_status_latest_sample(RowBuilder *row, const WalsizerStatus *st)
{
	if (unmeasured(row, st))
	{
		row_put_null(row, FLOAT8OID);
		row_put_null(row, FLOAT8OID);
		row_put_null(row, INT8OID);
		row_put_null(row, INT8OID);
		row_put_null(row, INT8OID);
		row_put_null(row, FLOAT8OID);
	}
	else
	{
		row_put_float8(row, st->recent_rate);
		row_put_float8(row, st->peak_rate);
		row_put_int64(row, (int64) st->wal_since_redo_bytes);
		row_put_int64(row, (int64) st->plan.trigger_bytes);
		row_put_int64(row, (int64) st->plan.projected_bytes);
		row_put_ratio(row, st->plan.projected_bytes, st->plan.trigger_bytes);
	}
	row_put_bool(row, st->blocked);
	if (st->pending_mb != 0)
		row_put_int64(row, st->pending_mb);
	else
		row_put_null(row, INT8OID);
}

/*
 * The decisions: how many, the latest recorded one (latest, NULL when
 * there is none) and the plan of the latest sample.
 */
static void
put_status_decisions(RowBuilder *row, const WalsizerStatus *st,
					 uint64 decisions_total, const WalsizerRecord *latest)
{
	row_put_int64(row, (int64) decisions_total);
	if (latest != NULL)
	{
		row_put_text(row, walsizer_action_name(latest->action));
		row_put_text(row, latest->reason);
	}
	else
	{
		row_put_null(row, TEXTOID);
		row_put_null(row, TEXTOID);
	}
	if (st->last_sample_at != 0)
	{
		row_put_text(row, walsizer_action_name(st->plan.action));
		row_put_text(row, st->plan.reason);
	}
	else
	{
		row_put_null(row, TEXTOID);
		row_put_null(row, TEXTOID);
	}
}

/* 1.1: the last checkpoint cycle, images apart */
static void
put_status_last_cycle(RowBuilder *row, const WalsizerStatus *st)
{
	if (st->last_cycle_s > 0)
	{
		row_put_float8(row, st->last_cycle_s);
		row_put_int64(row, (int64) st->last_cycle_bytes);
		row_put_int64(row, (int64) st->last_cycle_fpi_bytes);
		row_put_bool(row, st->last_cycle_timed);
	}
	else
	{
		row_put_null(row, FLOAT8OID);
		row_put_null(row, INT8OID);
		row_put_null(row, INT8OID);
		row_put_null(row, BOOLOID);
	}
	if (unmeasured(row, st))
	{
		row_put_null(row, TEXTOID);
		row_put_null(row, FLOAT8OID);
	}
	else
	{
		row_put_text(row, st->fpi_bytes_measured ? "measured" : "estimated");
		row_put_float8(row, st->record_rate);
	}
}

/* 1.2: a crash recovery now, at its worst */
static void
put_status_recovery(RowBuilder *row, const WalsizerStatus *st)
{
	if (st->last_sample_at != 0)
	{
		row_put_float8(row, st->estimated_recovery_s);
		row_put_float8(row, st->replay_rate);
		row_put_text(row, walsizer_replay_rate_source_name(st->replay_rate_source));
	}
	else
	{
		row_put_null(row, FLOAT8OID);
		row_put_null(row, FLOAT8OID);
		row_put_null(row, TEXTOID);
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
	row_put_text(row, walsizer_role_name(RecoveryInProgress() ?
									 WALSIZER_ROLE_STANDBY :
									 WALSIZER_ROLE_PRIMARY));
	if (st->max_wal_size_source[0] != '\0')
		row_put_text(row, st->max_wal_size_source);
	else
		row_put_null(row, TEXTOID);
	if (st->shadowed_mb != 0)
		row_put_int64(row, st->shadowed_mb);
	else
		row_put_null(row, INT8OID);
}

/*
 * 1.6: the WAL replication slots, wal_keep_size and the archiver hold
 * behind the redo pointer, which the disk cap leaves out of the WAL
 * volume, and which of them holds the oldest; NULL before the worker
 * measured it, and the holder NULL when nothing is held.
 */
static void
put_status_held_wal(RowBuilder *row, const WalsizerStatus *st)
{
	const char *holder = walsizer_wal_holder_name((WalsizerWalHolder) st->held_by);

	if (st->last_sample_at != 0 && st->held_known)
		row_put_int64(row, (int64) st->held_bytes);
	else
		row_put_null(row, INT8OID);
	if (st->last_sample_at != 0 && st->held_known && holder != NULL)
		row_put_text(row, holder);
	else
		row_put_null(row, TEXTOID);
}

/*
 * status()'s row, with as many columns as the caller's row type has (one
 * of the counts accepted_columns lists).
 */
static Datum
status_row(FunctionCallInfo fcinfo, const int *accepted_columns,
		   int accepted_count, const char *count_hint)
{
	TupleDesc	tupdesc;
	Datum		values[STATUS_COLUMNS_MAX];
	bool		nulls[STATUS_COLUMNS_MAX];
	RowBuilder	row = {values, nulls, 0, NULL, fcinfo->flinfo->fn_oid};
	WalsizerStatus st;
	pid_t		worker_pid;
	uint64		decisions_total;
	TimestampTz failing_since;
	WalsizerRecord latest;
	bool		has_latest;

	walsizer_require_shared();
	tupdesc = row_caller_type(fcinfo, accepted_columns, accepted_count, count_hint);
	row.tupdesc = tupdesc;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	st = walsizer_shared->status;
	worker_pid = walsizer_shared->worker_pid;
	decisions_total = walsizer_shared->persistent.decisions_total;
	failing_since = walsizer_shared->persistent.failing_since;
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
	if (tupdesc->natts >= STATUS_COLUMNS_V1_3)
	{
		put_status_role_and_source(&row, &st);
		Assert(row.next == STATUS_COLUMNS_V1_3);
	}
	/* 1.5: since when changes of max_wal_size have failed; NULL: they do not */
	if (tupdesc->natts >= STATUS_COLUMNS_V1_5)
	{
		row_put_timestamp(&row, failing_since);
		Assert(row.next == STATUS_COLUMNS_V1_5);
	}
	if (tupdesc->natts >= STATUS_COLUMNS_V1_6)
	{
		put_status_held_wal(&row, &st);
		Assert(row.next == STATUS_COLUMNS_V1_6);
	}
	Assert(row.next == tupdesc->natts);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
walsizer_status(PG_FUNCTION_ARGS)
{
	return status_row(fcinfo, status_columns_to_1_4,
					  lengthof(status_columns_to_1_4), HINT_UPDATE);
}

Datum
walsizer_status_1_5(PG_FUNCTION_ARGS)
{
	static const int columns[] = {STATUS_COLUMNS_V1_5};

	return status_row(fcinfo, columns, lengthof(columns), HINT_VIEWS);
}

Datum
walsizer_status_1_6(PG_FUNCTION_ARGS)
{
	static const int columns[] = {STATUS_COLUMNS_V1_6};

	return status_row(fcinfo, columns, lengthof(columns), HINT_VIEWS);
}

/* decisions()'s rows, with as many columns as the caller's row type has. */
static Datum
decision_rows(FunctionCallInfo fcinfo, const int *accepted_columns,
			  int accepted_count, const char *count_hint)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TupleDesc	tupdesc;
	WalsizerPersistent *copy;

	walsizer_require_shared();
	tupdesc = row_caller_type(fcinfo, accepted_columns, accepted_count, count_hint);
	walsizer_init_materialized_srf(fcinfo);

	copy = palloc(sizeof(WalsizerPersistent));
	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	memcpy(copy, &walsizer_shared->persistent, sizeof(WalsizerPersistent));
	LWLockRelease(walsizer_shared->lock);

	for (int i = 0; i < copy->history_count; i++)
	{
		const WalsizerRecord *rec = walsizer_history_at(copy, i);
		Datum		values[DECISION_COLUMNS_MAX];
		bool		nulls[DECISION_COLUMNS_MAX];
		RowBuilder	row = {values, nulls, 0, tupdesc, fcinfo->flinfo->fn_oid};

		row_put_timestamp(&row, rec->at);
		row_put_text(&row, walsizer_action_name(rec->action));
		row_put_int64(&row, rec->old_mb);
		row_put_int64(&row, rec->new_mb);
		row_put_int64(&row, rec->requested);
		row_put_int64(&row, rec->timed);
		row_put_int64(&row, rec->wal_forced);
		row_put_int64(&row, (int64) rec->wal_bytes);
		row_put_float8(&row, rec->window_s);
		if (walsizer_changes_size(rec->action))
			row_put_bool(&row, rec->confirmed != 0);
		else
			row_put_null(&row, BOOLOID);
		row_put_text(&row, rec->reason);
		Assert(row.next == DECISION_COLUMNS_V1_0);
		/* 1.3: the role of the server the decision was made on */
		if (tupdesc->natts >= DECISION_COLUMNS_V1_3)
		{
			row_put_text(&row, walsizer_role_name(rec->role));
			Assert(row.next == DECISION_COLUMNS_V1_3);
		}
		Assert(row.next == tupdesc->natts);

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(copy);
	return (Datum) 0;
}

Datum
walsizer_decisions(PG_FUNCTION_ARGS)
{
	return decision_rows(fcinfo, decision_columns_to_1_4,
						 lengthof(decision_columns_to_1_4), HINT_UPDATE);
}

Datum
walsizer_decisions_1_5(PG_FUNCTION_ARGS)
{
	static const int columns[] = {DECISION_COLUMNS_V1_5};

	return decision_rows(fcinfo, columns, lengthof(columns), HINT_VIEWS);
}

/*
 * The decisions ever made, by action: one row per action, those never
 * taken included, so that a monitoring system sees every series from the
 * start and a total only ever grows.  decisions() cannot serve for this:
 * it keeps the last WALSIZER_HISTORY_LEN decisions only, and its count of
 * an action falls as older ones are overwritten.
 */
static Datum
decision_count_rows(FunctionCallInfo fcinfo, const int *accepted_columns,
					int accepted_count, const char *count_hint)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TupleDesc	tupdesc;
	uint64		totals[WALSIZER_ACTION_LAST + 1];

	walsizer_require_shared();
	tupdesc = row_caller_type(fcinfo, accepted_columns, accepted_count, count_hint);
	walsizer_init_materialized_srf(fcinfo);

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	memcpy(totals, walsizer_shared->persistent.action_totals, sizeof(totals));
	LWLockRelease(walsizer_shared->lock);

	for (int action = WALSIZER_ACTION_NONE + 1; action <= WALSIZER_ACTION_LAST;
		 action++)
	{
		Datum		values[DECISION_COUNT_COLUMNS_MAX];
		bool		nulls[DECISION_COUNT_COLUMNS_MAX];
		RowBuilder	row = {values, nulls, 0, tupdesc, fcinfo->flinfo->fn_oid};

		row_put_text(&row, walsizer_action_name((WalsizerAction) action));
		row_put_int64(&row, (int64) totals[action]);
		Assert(row.next == tupdesc->natts);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

Datum
walsizer_decision_counts(PG_FUNCTION_ARGS)
{
	return decision_count_rows(fcinfo, decision_count_columns_1_4,
							   lengthof(decision_count_columns_1_4), HINT_UPDATE);
}

Datum
walsizer_decision_counts_1_5(PG_FUNCTION_ARGS)
{
	static const int columns[] = {DECISION_COUNT_COLUMNS_V1_5};

	return decision_count_rows(fcinfo, columns, lengthof(columns), HINT_VIEWS);
}

/* recommend()'s row, with as many columns as the caller's row type has. */
static Datum
recommendation_row(FunctionCallInfo fcinfo, const int *accepted_columns,
				   int accepted_count, const char *count_hint)
{
	TupleDesc	tupdesc;
	Datum		values[RECOMMEND_COLUMNS_MAX];
	bool		nulls[RECOMMEND_COLUMNS_MAX];
	RowBuilder	row = {values, nulls, 0, NULL, fcinfo->flinfo->fn_oid};
	WalsizerDecision plan;
	TimestampTz last_sample_at;
	uint64		cycle_bytes;
	double		replay_rate;

	walsizer_require_shared();
	tupdesc = row_caller_type(fcinfo, accepted_columns, accepted_count, count_hint);
	row.tupdesc = tupdesc;

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

	row_put_text(&row, walsizer_action_name(plan.action));
	row_put_int64(&row, plan.old_mb);
	row_put_int64(&row, plan.new_mb);
	row_put_int64(&row, plan.needed_mb);
	row_put_int64(&row, plan.cap_mb);
	row_put_int64(&row, plan.floor_mb);
	row_put_text(&row, plan.reason);
	Assert(row.next == RECOMMEND_COLUMNS_V1_0);

	/* 1.2: which limit the cap is, and the crash recovery the advice costs */
	if (tupdesc->natts >= RECOMMEND_COLUMNS_V1_2)
	{
		row_put_text(&row, walsizer_cap_source_name(plan.cap_source));
		row_put_float8(&row, walsizer_estimated_recovery_s(plan.new_mb,
													   CheckPointCompletionTarget,
													   cycle_bytes,
													   0,	/* at another size */
													   replay_rate));
		Assert(row.next == RECOMMEND_COLUMNS_V1_2);
	}
	Assert(row.next == tupdesc->natts);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
walsizer_recommend(PG_FUNCTION_ARGS)
{
	return recommendation_row(fcinfo, recommend_columns_to_1_4,
							  lengthof(recommend_columns_to_1_4), HINT_UPDATE);
}

Datum
walsizer_recommend_1_5(PG_FUNCTION_ARGS)
{
	static const int columns[] = {RECOMMEND_COLUMNS_V1_5};

	return recommendation_row(fcinfo, columns, lengthof(columns), HINT_VIEWS);
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
