/*-------------------------------------------------------------------------
 *
 * fuzz_trace.c
 *		libFuzzer harness: the advisor's trace reader and its whole pipeline
 *		(measurement, policy, recommendation) under any bytes.
 *
 * A trace is the user's file, edited or cut by hand, so the reader must
 * turn any bytes into either an error naming a line or a replay; the
 * replay into a recommendation the report can print.  The promises:
 *	- a rejected trace gives a message; nothing crashes, leaks or reads
 *	  out of bounds (the sanitizers watch);
 *	- an accepted one gives a verdict among the known ones, a recommended
 *	  size of at least 2 MB and at most the cap or the size in effect, and
 *	  finite figures;
 *	- every line the reader accepts, written back by trace_write_*, reads
 *	  back the same.
 *
 *-------------------------------------------------------------------------
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_trace.h"

#define MAX_INPUT_BYTES 8192

static Advisor adv;				/* large: not on the stack */

static bool
accept_expect(const char *line, int line_no, void *arg)
{
	(void) line_no;
	(void) arg;
	return strncmp(line, "expect ", 7) == 0;
}

static void
check_line_round_trip(const char *line)
{
	TraceLine	first;
	TraceLine	again;
	char		error[256];
	char		buf[1024];
	FILE	   *out;

	if (trace_parse_line(line, &first, error, sizeof(error)) == TRACE_ERROR)
	{
		if (error[0] == '\0')
			abort();			/* a rejection always says why */
		return;
	}
	if (first.kind != TRACE_SERVER && first.kind != TRACE_SAMPLE &&
		first.kind != TRACE_WORKING_SET)
		return;
	out = fmemopen(buf, sizeof(buf), "w");
	if (out == NULL)
		return;
	if (first.kind == TRACE_SERVER)
		trace_write_server(out, &first.facts);
	else if (first.kind == TRACE_SAMPLE)
		trace_write_sample(out, &first.sample);
	else
		trace_write_working_set(out, &first.working_set);
	fclose(out);
	if (trace_parse_line(buf, &again, error, sizeof(error)) != first.kind)
		abort();
	if (first.kind == TRACE_SAMPLE &&
		memcmp(&first.sample, &again.sample, sizeof(first.sample)) != 0)
		abort();
	if (first.kind == TRACE_WORKING_SET &&
		(first.working_set.pages != again.working_set.pages ||
		 first.working_set.tables != again.working_set.tables))
		abort();
	if (first.kind == TRACE_SERVER &&
		(first.facts.segment_bytes != again.facts.segment_bytes ||
		 first.facts.block_bytes != again.facts.block_bytes ||
		 first.facts.redo_known != again.facts.redo_known ||
		 first.facts.standby != again.facts.standby))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = malloc(size + 1);
	FILE	   *in;
	AdvisorOptions options;
	AdvisorServerFacts facts;
	Advice		advice;
	char		error[512];
	char	   *line;
	char	   *save;

	/*
	 * A few dozen lines exercise every rule of the reader and several
	 * windows; longer inputs only make each run slower.
	 */
	if (size > MAX_INPUT_BYTES || text == NULL)
	{
		free(text);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';

	in = fmemopen(text, size, "r");
	if (in != NULL)
	{
		advisor_default_options(&options);
		memset(&facts, 0, sizeof(facts));
		if (trace_replay(in, &options, &adv, NULL, accept_expect, NULL,
						 &advice, &facts, error, sizeof(error)))
		{
			if ((int) advice.verdict < ADVISOR_KEEP || advice.verdict > ADVISOR_UNKNOWN)
				abort();
			if (advice.verdict != ADVISOR_UNKNOWN &&
				(advice.recommended_mb < 2 ||
				 (advice.recommended_mb > advice.cap_mb &&
				  advice.recommended_mb > advice.current_mb)))
				abort();
			if (!isfinite(advice.forced_per_hour_now) ||
				!isfinite(advice.forced_per_hour_after) ||
				!isfinite(advice.estimated_recovery_s) ||
				!isfinite(advice.fpi_share) || advice.fpi_share < 0 ||
				advice.fpi_share > 1)
				abort();
		}
		else if (error[0] == '\0')
			abort();
		fclose(in);
	}

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		check_line_round_trip(line);
	free(text);
	return 0;
}
