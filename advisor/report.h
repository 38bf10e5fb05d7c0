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
#include <time.h>

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
	bool		sampled;		/* a first sample was taken */
	const char *error;			/* why it was not measured at all (one
								 * line, no password), or NULL */
} ReportRow;

extern void report_window(FILE *out, const char *label, const AdvisorWindow *w);
extern void report_text(FILE *out, const ReportRow *row);
extern void report_table(FILE *out, const ReportRow *rows, int count);
/*
 * One JSON document: the advisor's version, when it was made (at), and a
 * row per server with the SQL API's names (walsizer.recommendation's
 * action and columns); a figure that is not known is null.
 */
extern void report_json(FILE *out, const ReportRow *rows, int count,
						time_t at);
/* The action walsizer.recommendation would name for verdict, or NULL. */
extern const char *report_action_name(AdvisorVerdict verdict);
extern void report_apply_command(char *buf, size_t len, int64_t size_mb);
/* The same size as a Patroni command and a CloudNativePG Cluster field. */
extern void report_patroni_command(char *buf, size_t len, int64_t size_mb);
extern void report_cloudnativepg_snippet(char *buf, size_t len, int64_t size_mb);

#endif							/* WALSIZER_REPORT_H */
