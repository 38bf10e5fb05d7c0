/*-------------------------------------------------------------------------
 *
 * sql_rows.c
 *		Rows of the caller's row type, built column by column: the
 *		machinery under the SQL functions of sql_functions.c.
 *
 * A function of 1.5 on returns "record" and takes its columns from the
 * caller's column definition list, which anyone may write; every column is
 * put with its type and checked against the caller's, so a wrong list is a
 * clear error, never a wrong value.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/regproc.h"
#include "utils/timestamp.h"

#include "sql_rows.h"


static void
check_column_type(const RowBuilder *row, Oid type)
{
	Form_pg_attribute column;

	Assert(row->next < row->tupdesc->natts);
	column = TupleDescAttr(row->tupdesc, row->next);
	if (column->atttypid != type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column %d of the result of %s has type %s, the pg_walsizer library returns %s",
						row->next + 1, format_procedure(row->function),
						format_type_be(column->atttypid), format_type_be(type)),
				 errhint(HINT_VIEWS)));
}

void
row_put(RowBuilder *row, Oid type, Datum value)
{
	check_column_type(row, type);
	row->values[row->next] = value;
	row->nulls[row->next] = false;
	row->next++;
}

void
row_put_null(RowBuilder *row, Oid type)
{
	check_column_type(row, type);
	row->nulls[row->next] = true;
	row->next++;
}

void
row_put_bool(RowBuilder *row, bool value)
{
	row_put(row, BOOLOID, BoolGetDatum(value));
}

void
row_put_int32(RowBuilder *row, int32 value)
{
	row_put(row, INT4OID, Int32GetDatum(value));
}

void
row_put_int64(RowBuilder *row, int64 value)
{
	row_put(row, INT8OID, Int64GetDatum(value));
}

void
row_put_float8(RowBuilder *row, double value)
{
	row_put(row, FLOAT8OID, Float8GetDatum(value));
}

void
row_put_timestamp(RowBuilder *row, TimestampTz value)
{
	if (value == 0)
		row_put_null(row, TIMESTAMPTZOID);
	else
		row_put(row, TIMESTAMPTZOID, TimestampTzGetDatum(value));
}

void
row_put_text(RowBuilder *row, const char *value)
{
	row_put(row, TEXTOID, CStringGetTextDatum(value));
}

/* A share of two counts, NULL when there is nothing to divide. */
void
row_put_ratio(RowBuilder *row, double part, double whole)
{
	if (whole <= 0)
		row_put_null(row, FLOAT8OID);
	else
		row_put_float8(row, part / whole);
}

/*
 * The caller's row type, blessed, refused unless its column count is among
 * accepted_columns (of which there are accepted_count, the newest first),
 * with count_hint.  The column types are checked as the row is built
 * (row_put()).
 */
TupleDesc
row_caller_type(FunctionCallInfo fcinfo, const int *accepted_columns,
				int accepted_count, const char *count_hint)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s must be called with a column definition list",
						format_procedure(fcinfo->flinfo->fn_oid)),
				 errhint("Query the views in the schema walsizer, which give the columns.")));
	for (int i = 0; i < accepted_count; i++)
		if (tupdesc->natts == accepted_columns[i])
			return BlessTupleDesc(tupdesc);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
			 errmsg("function returns %d columns, the pg_walsizer library expects %d",
					tupdesc->natts, accepted_columns[0]),
			 errhint("%s", count_hint)));
	return NULL;				/* keep the compiler quiet */
}
