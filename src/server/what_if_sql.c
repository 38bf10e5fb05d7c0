/*-------------------------------------------------------------------------
 *
 * what_if_sql.c
 *		walsizer.what_if(): for candidate max_wal_size values, what each
 *		would do under the load the worker measured.
 *
 * The table itself is the pure walsizer_what_if() (src/common/what_if.c),
 * which the advisor's --what-if prints too.  This file only gathers its
 * input on the server: the last whole checkpoint cycle as the load, the
 * working set its full-page images show (the worker has no database
 * connection, so no table statistics), the replay rate the recovery bound
 * uses, the policy's cap and recommendation, and the room pg_wal has on
 * its volume; then it turns the caller's sizes into MB as max_wal_size
 * takes them, and the rows into the function's columns.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "funcapi.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "postmaster/bgwriter.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/tuplestore.h"

#include "compat.h"
#include "disk_space.h"
#include "recovery_bound_server.h"
#include "shared_state.h"
#include "size_units.h"
#include "sql_rows.h"
#include "what_if.h"

PG_FUNCTION_INFO_V1(walsizer_what_if_1_7);	/* what_if(), 1.7 */

#define WHAT_IF_COLUMNS_V1_7 14
#define BASIS_LEN (2 * WALSIZER_WHAT_IF_TEXT_LEN)

/*
 * The caller's sizes, in MB: each a max_wal_size value ("2GB", "512MB",
 * "1024", in MB without a unit), at most WALSIZER_WHAT_IF_MAX_ASKED.
 */
static int
asked_sizes(ArrayType *array, int64 *asked_mb)
{
	Datum	   *elems;
	bool	   *nulls;
	int			count;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sizes must be a one-dimensional array")));
	deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &count);
	if (count > WALSIZER_WHAT_IF_MAX_ASKED)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("what_if() takes at most %d sizes, not %d",
						WALSIZER_WHAT_IF_MAX_ASKED, count)));
	for (int i = 0; i < count; i++)
	{
		char	   *value;
		int			mb;
		const char *hint = NULL;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sizes must not contain nulls")));
		value = TextDatumGetCString(elems[i]);
		if (!parse_int(value, &mb, GUC_UNIT_MB, &hint))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid size \"%s\" for what_if()", value),
					 hint ? errhint("%s", _(hint)) :
					 errhint("Give sizes as max_wal_size takes them, such as \"512MB\" or \"2GB\".")));
		if (mb <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("size \"%s\" for what_if() is not positive", value)));
		asked_mb[i] = mb;
	}
	return count;
}

/* What the worker measured that the table needs, copied under the lock. */
typedef struct WhatIfFigures
{
	TimestampTz last_sample_at;
	WalsizerDecision plan;
	double		cycle_s;
	uint64		cycle_bytes;
	uint64		cycle_fpi_bytes;
	double		mid_s;
	uint64		mid_fpi_bytes;
	double		replay_rate;
	int			replay_rate_source;
	bool		held_known;
	uint64		held_bytes;
} WhatIfFigures;

static void
read_figures(WhatIfFigures *f)
{
	const WalsizerStatus *st = &walsizer_shared->status;

	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	f->last_sample_at = st->last_sample_at;
	f->plan = st->plan;
	f->cycle_s = st->last_cycle_s;
	f->cycle_bytes = st->last_cycle_bytes;
	f->cycle_fpi_bytes = st->last_cycle_fpi_bytes;
	f->mid_s = st->last_cycle_mid_s;
	f->mid_fpi_bytes = st->last_cycle_mid_fpi_bytes;
	f->replay_rate = st->replay_rate;
	f->replay_rate_source = st->replay_rate_source;
	f->held_known = st->held_known;
	f->held_bytes = st->held_bytes;
	LWLockRelease(walsizer_shared->lock);
}

/*
 * The load as the model takes it: the last whole checkpoint cycle, its
 * records at their rate and its images over the working set their slowing
 * shows (0 when it does not).
 */
static void
load_from_cycle(const WhatIfFigures *f, WalsizerLoad *load)
{
	uint64		fpi = Min(f->cycle_fpi_bytes, f->cycle_bytes);

	memset(load, 0, sizeof(*load));
	load->cycle_s = f->cycle_s;
	load->fpi_bytes_per_cycle = (double) fpi;
	load->record_bytes_s = (double) (f->cycle_bytes - fpi) / f->cycle_s;
	load->working_set_bytes =
		walsizer_working_set_from_images(f->mid_s, (double) f->mid_fpi_bytes,
										 f->cycle_s, (double) fpi);
}

Datum
walsizer_what_if_1_7(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	static const int columns[] = {WHAT_IF_COLUMNS_V1_7};
	int64		asked_mb[WALSIZER_WHAT_IF_MAX_ASKED];
	int64_t		asked[WALSIZER_WHAT_IF_MAX_ASKED];
	int			asked_count = 0;
	WhatIfFigures f;
	WalsizerWhatIfInput in;
	WalsizerWhatIf *w;
	char		basis[BASIS_LEN];
	int64		room_mb;

	walsizer_require_shared();
	(void) row_caller_type(fcinfo, columns, lengthof(columns), HINT_UPDATE);
	if (!PG_ARGISNULL(0))
		asked_count = asked_sizes(PG_GETARG_ARRAYTYPE_P(0), asked_mb);

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("what_if() has no table on a standby"),
				 errdetail("A standby's restartpoints follow its primary's checkpoints, whatever its max_wal_size."),
				 errhint("Run it on the primary.")));

	read_figures(&f);
	if (f.last_sample_at == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_walsizer has not measured anything yet"),
				 errhint("The worker starts once recovery has finished; try again in a moment.")));
	if (!(f.cycle_s > 0))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_walsizer has not measured a whole checkpoint cycle yet"),
				 errdetail("The table is computed from the WAL and the full-page images of one cycle, from one checkpoint's start to the next."),
				 errhint("Try again after the next checkpoint.")));

	memset(&in, 0, sizeof(in));
	load_from_cycle(&f, &in.load);
	in.segment_bytes = wal_segment_size;
	in.checkpoint_timeout_s = CheckPointTimeout;
	in.completion_target = CheckPointCompletionTarget;
	in.replay_bytes_per_s = f.replay_rate;
	in.replay_rate_source =
		walsizer_replay_rate_source_name((WalsizerReplayRateSource) f.replay_rate_source);
	in.cap_mb = f.plan.cap_mb;
	in.cap_source = f.plan.cap_source;
	/* all the room pg_wal has: free space, its files, less the WAL held */
	room_mb = walsizer_measure_disk_cap_mb(1.0, f.held_known ? f.held_bytes : 0,
										   NULL);
	in.wal_room_mb = room_mb;
	in.current_mb = max_wal_size_mb;
	in.recommended_mb = f.plan.new_mb;
	for (int i = 0; i < asked_count; i++)
		asked[i] = asked_mb[i];
	in.asked_mb = asked;
	in.asked_count = asked_count;

	w = palloc(sizeof(WalsizerWhatIf));
	walsizer_what_if(&in, w);
	snprintf(basis, sizeof(basis),
			 "the last checkpoint cycle: %.0f s, %.0f MB of WAL, %.0f MB of it full-page images%s; %s",
			 f.cycle_s, (double) f.cycle_bytes / BYTES_PER_MB,
			 in.load.fpi_bytes_per_cycle / BYTES_PER_MB,
			 in.load.working_set_bytes > 0 ?
			 ", slowing as over a working set (from the images of its two halves)" :
			 ", not slowing measurably (no working set: the table statistics are not the worker's)",
			 w->basis);

	walsizer_init_materialized_srf(fcinfo);
	for (int i = 0; i < w->count; i++)
	{
		const WalsizerWhatIfRow *r = &w->rows[i];
		Datum		values[WHAT_IF_COLUMNS_V1_7];
		bool		nulls[WHAT_IF_COLUMNS_V1_7];
		RowBuilder	row = {values, nulls, 0, rsinfo->setDesc, fcinfo->flinfo->fn_oid};
		char		kind[64];

		walsizer_what_if_kinds_text(r->kinds, kind, sizeof(kind));
		row_put_int64(&row, r->size_mb);
		row_put_text(&row, kind);
		row_put_float8(&row, r->cycle_s);
		row_put_float8(&row, r->checkpoints_per_hour);
		row_put_float8(&row, r->forced_per_hour);
		row_put_float8(&row, r->wal_mb_per_hour);
		if (r->recovery_known)
			row_put_float8(&row, r->recovery_s);
		else
			row_put_null(&row, FLOAT8OID);
		if (w->replay_rate_source)
			row_put_text(&row, w->replay_rate_source);
		else
			row_put_null(&row, TEXTOID);
		row_put_int64(&row, r->peak_pg_wal_mb);
		if (w->wal_room_known)
			row_put_int64(&row, w->wal_room_mb);
		else
			row_put_null(&row, INT8OID);
		if (w->working_set_known)
			row_put_int64(&row, (int64) ceil(in.load.working_set_bytes / BYTES_PER_MB));
		else
			row_put_null(&row, INT8OID);
		row_put_bool(&row, r->allowed);
		if (r->allowed)
			row_put_null(&row, TEXTOID);
		else
			row_put_text(&row, r->why_not);
		row_put_text(&row, basis);
		Assert(row.next == WHAT_IF_COLUMNS_V1_7);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(w);
	return (Datum) 0;
}
