/*-------------------------------------------------------------------------
 *
 * sample_trace.h
 *		The advisor's trace: a server's facts and its samples, one per
 *		line, as pg_walsizer_advisor --record writes them and --replay and
 *		the simulator read them.
 *
 *	# any comment
 *	server major=15 standby=0 redo_known=1 segment_bytes=16777216
 *	       block_bytes=8192 checkpoint_timeout_s=30 completion_target=0.9
 *	sample AT_US INSERT_LSN REDO_LSN TIMED REQUESTED COUNTERS_RESET_AT
 *	       WAL_FPI WAL_FPI_BYTES WAL_STAT_BYTES FPI_BYTES_COUNTED
 *	       WAL_RESET_AT MAX_WAL_SIZE_MB [STANDBY]
 *	working_set PAGES TABLES
 *
 * (each directive on one line).  "server" comes first, then the samples in
 * time order, each with its role (1 in recovery, 0 not: a promotion shows;
 * without it, the "server" line's); "working_set", what the tables changed during the run allow,
 * comes last.  Other directives are left to the reader (the simulator's
 * "expect" lines).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SAMPLE_TRACE_H
#define WALSIZER_SAMPLE_TRACE_H

#include <stddef.h>
#include <stdio.h>

#include "advice.h"

typedef enum TraceLineKind
{
	TRACE_BLANK,				/* empty or a comment */
	TRACE_SERVER,
	TRACE_SAMPLE,
	TRACE_WORKING_SET,
	TRACE_OTHER,				/* a directive this format does not know */
	TRACE_ERROR
} TraceLineKind;

typedef struct TraceLine
{
	TraceLineKind kind;
	AdvisorServerFacts facts;	/* TRACE_SERVER */
	WalsizerSample sample;		/* TRACE_SAMPLE */
	bool		sample_role_given;	/* it said standby; else the server's */
	AdvisorWorkingSet working_set;	/* TRACE_WORKING_SET */
} TraceLine;

extern TraceLineKind trace_parse_line(const char *line, TraceLine *out,
									  char *error, size_t error_len);
extern void trace_write_server(FILE *out, const AdvisorServerFacts *facts);
extern void trace_write_sample(FILE *out, const WalsizerSample *sample);
extern void trace_write_working_set(FILE *out, const AdvisorWorkingSet *ws);

/* Called for each window the replay ends, and for each TRACE_OTHER line. */
typedef void (*TraceWindowFn) (const AdvisorWindow *window, void *arg);
typedef bool (*TraceOtherFn) (const char *line, int line_no, void *arg);

/*
 * Replay a whole trace through the advisor's pipeline into *advice.
 * Returns false with a message naming the line when the trace is not
 * valid; adv is the caller's (it is large).
 */
extern bool trace_replay(FILE *in, const AdvisorOptions *options,
						 Advisor *adv, TraceWindowFn on_window,
						 TraceOtherFn on_other, void *arg,
						 Advice *advice, AdvisorServerFacts *facts,
						 char *error, size_t error_len);

#endif							/* WALSIZER_SAMPLE_TRACE_H */
