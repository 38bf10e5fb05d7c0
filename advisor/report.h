/*-------------------------------------------------------------------------
 *
 * report.h
 *		What pg_walsizer_advisor prints: a line per window, the
 *		recommendation in words, the fleet table and the JSON document.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_REPORT_H
#define WALSIZER_REPORT_H

#include <stdio.h>

#include "advice.h"

/* One server's result, as the report needs it. */
typedef struct ReportRow
{
	const char *label;			/* host:port/dbname, or the trace's name */
	const AdvisorServerFacts *facts;
	const Advice *advice;
	bool		partial;		/* the connection was lost before the end */
	bool		interrupted;	/* the user stopped the run early */
	const char *note;			/* why it is partial, or NULL */
} ReportRow;

extern void report_window(FILE *out, const char *label, const AdvisorWindow *w);
extern void report_text(FILE *out, const ReportRow *row);
extern void report_table(FILE *out, const ReportRow *rows, int count);
extern void report_json(FILE *out, const ReportRow *rows, int count);
extern void report_apply_command(char *buf, size_t len, int64_t size_mb);

#endif							/* WALSIZER_REPORT_H */
