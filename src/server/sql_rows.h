/*-------------------------------------------------------------------------
 *
 * sql_rows.h
 *		Rows of the caller's row type, built column by column.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SQL_ROWS_H
#define WALSIZER_SQL_ROWS_H

#include "fmgr.h"
#include "access/tupdesc.h"
#include "utils/timestamp.h"

/*
 * What to do about a column count the library does not know: for a
 * function of 1.0 to 1.4, whose OUT columns are its version's, bring the
 * SQL objects to the library's version; a function of 1.5 on gets its
 * columns from the caller, and its views give the right ones.
 */
#define HINT_UPDATE "Run ALTER EXTENSION pg_walsizer UPDATE so the SQL objects match the library."
#define HINT_VIEWS "Query the views in the schema walsizer, whose columns match the library."

/*
 * Builds a row column by column, so the order lives in one place.  Each
 * column is put with its type, which must be the caller's: the functions
 * of 1.5 on return "record" and take their columns from the caller's
 * column definition list, which anyone may write.
 */
typedef struct RowBuilder
{
	Datum	   *values;
	bool	   *nulls;
	int			next;
	TupleDesc	tupdesc;
	Oid			function;		/* for messages */
} RowBuilder;

extern void row_put(RowBuilder *row, Oid type, Datum value);
extern void row_put_null(RowBuilder *row, Oid type);
extern void row_put_bool(RowBuilder *row, bool value);
extern void row_put_int32(RowBuilder *row, int32 value);
extern void row_put_int64(RowBuilder *row, int64 value);
extern void row_put_float8(RowBuilder *row, double value);
extern void row_put_timestamp(RowBuilder *row, TimestampTz value);
extern void row_put_text(RowBuilder *row, const char *value);
extern void row_put_ratio(RowBuilder *row, double part, double whole);
extern TupleDesc row_caller_type(FunctionCallInfo fcinfo, const int *accepted_columns, int accepted_count, const char *count_hint);

#endif							/* WALSIZER_SQL_ROWS_H */
