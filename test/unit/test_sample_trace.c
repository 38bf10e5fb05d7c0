/*-------------------------------------------------------------------------
 *
 * test_sample_trace.c
 *		The advisor's trace: what is written is read back the same, and a
 *		line that is not valid is rejected and named (advisor/sample_trace.c).
 *
 * A trace is the user's file: it may be edited, cut short or come from
 * another version, so every rejection is checked with its message, and a
 * replay that fails says on which line.
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdlib.h>

#include "unit.h"

#include "sample_trace.h"

#define SEGMENT ((uint64_t) 16 * 1024 * 1024)
#define SECOND ((int64_t) 1000000)

/* replays keep the advisor's large state here */
static Advisor adv;

static AdvisorServerFacts
some_facts(void)
{
	AdvisorServerFacts f;

	memset(&f, 0, sizeof(f));
	f.major = 17;
	f.standby = true;
	f.redo_known = false;
	f.segment_bytes = 64 * 1024 * 1024;
	f.block_bytes = 16384;
	f.checkpoint_timeout_s = 123.5;
	f.completion_target = 0.75;
	return f;
}

static WalsizerSample
some_sample(int n)
{
	WalsizerSample s;

	memset(&s, 0, sizeof(s));
	s.at_us = 800000000000000 + n * SECOND;
	/* the largest WAL positions a trace holds: pg_lsn - '0/0' in a bigint */
	s.insert_lsn = (uint64_t) INT64_MAX - 1000 + (uint64_t) n;
	s.redo_lsn = (uint64_t) INT64_MAX - 5000;
	s.timed = 12 + n;
	s.requested = INT64_MAX - 10;
	s.counters_reset_at = -42;
	s.wal_fpi = 99999 + n;
	s.wal_fpi_bytes = 818175 + (uint64_t) n;
	s.wal_stat_bytes = UINT64_MAX;
	s.fpi_bytes_counted = n % 2 == 1;
	s.wal_reset_at = -7;
	s.max_wal_size_mb = 2 + n;
	s.standby = n == 1;
	return s;
}

static void
check_same_sample(const WalsizerSample *a, const WalsizerSample *b)
{
	CHECK_EQ(a->at_us, b->at_us);
	CHECK_UEQ(a->insert_lsn, b->insert_lsn);
	CHECK_UEQ(a->redo_lsn, b->redo_lsn);
	CHECK_EQ(a->timed, b->timed);
	CHECK_EQ(a->requested, b->requested);
	CHECK_EQ(a->counters_reset_at, b->counters_reset_at);
	CHECK_EQ(a->wal_fpi, b->wal_fpi);
	CHECK_UEQ(a->wal_fpi_bytes, b->wal_fpi_bytes);
	CHECK_UEQ(a->wal_stat_bytes, b->wal_stat_bytes);
	CHECK_EQ(a->fpi_bytes_counted, b->fpi_bytes_counted);
	CHECK_EQ(a->wal_reset_at, b->wal_reset_at);
	CHECK_EQ(a->max_wal_size_mb, b->max_wal_size_mb);
	CHECK_EQ(a->standby, b->standby);
}

/* The next line of f, or "" at the end. */
static const char *
read_line(FILE *f, char *line, size_t len)
{
	if (fgets(line, (int) len, f) == NULL)
		line[0] = '\0';
	return line;
}

static void
written_lines_parse_back_the_same(void)
{
	FILE	   *f = tmpfile();
	AdvisorServerFacts facts = some_facts();
	AdvisorWorkingSet ws = {123456789012, 321};
	char		line[1024];
	char		error[256];
	TraceLine	parsed;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	trace_write_server(f, &facts);
	for (int n = 0; n < 2; n++)
	{
		WalsizerSample s = some_sample(n);

		trace_write_sample(f, &s);
	}
	trace_write_working_set(f, &ws);
	rewind(f);

	CHECK_EQ(trace_parse_line(read_line(f, line, sizeof(line)), &parsed,
							  error, sizeof(error)), TRACE_SERVER);
	CHECK_EQ(parsed.kind, TRACE_SERVER);
	CHECK_EQ(parsed.facts.major, 17);
	CHECK(parsed.facts.standby);
	CHECK(!parsed.facts.redo_known);
	CHECK_EQ(parsed.facts.segment_bytes, 64 * 1024 * 1024);
	CHECK_EQ(parsed.facts.block_bytes, 16384);
	CHECK(parsed.facts.checkpoint_timeout_s == 123.5);
	CHECK(parsed.facts.completion_target == 0.75);
	CHECK_STR_CONTAINS(error, "");
	for (int n = 0; n < 2; n++)
	{
		WalsizerSample s = some_sample(n);

		CHECK_EQ(trace_parse_line(read_line(f, line, sizeof(line)), &parsed,
								  error, sizeof(error)), TRACE_SAMPLE);
		check_same_sample(&parsed.sample, &s);
	}
	CHECK_EQ(trace_parse_line(read_line(f, line, sizeof(line)), &parsed,
							  error, sizeof(error)), TRACE_WORKING_SET);
	CHECK_EQ(parsed.working_set.pages, 123456789012);
	CHECK_EQ(parsed.working_set.tables, 321);
	CHECK(*read_line(f, line, sizeof(line)) == '\0');
	fclose(f);
}

static void
blank_lines_comments_and_other_directives(void)
{
	TraceLine	parsed;
	char		error[256];

	CHECK_EQ(trace_parse_line("", &parsed, error, sizeof(error)), TRACE_BLANK);
	CHECK_EQ(trace_parse_line("  \t \n", &parsed, error, sizeof(error)), TRACE_BLANK);
	CHECK_EQ(trace_parse_line("# sample 1 2 3\n", &parsed, error, sizeof(error)),
			 TRACE_BLANK);
	CHECK_EQ(trace_parse_line("  #server\n", &parsed, error, sizeof(error)),
			 TRACE_BLANK);
	CHECK_EQ(trace_parse_line("expect verdict grow\n", &parsed, error, sizeof(error)),
			 TRACE_OTHER);
	CHECK_EQ(parsed.kind, TRACE_OTHER);
	/* a directive is a whole word */
	CHECK_EQ(trace_parse_line("samples 1 2 3\n", &parsed, error, sizeof(error)),
			 TRACE_OTHER);
	/* tabs and CRLF separate as well as spaces */
	CHECK_EQ(trace_parse_line("working_set\t5\t1\r\n", &parsed, error, sizeof(error)),
			 TRACE_WORKING_SET);
	CHECK_EQ(parsed.working_set.pages, 5);
}

/* trace_parse_line() rejects line, with a message containing message. */
#define CHECK_REJECTED(line, message) \
	do { \
		TraceLine	unit_parsed; \
		char		unit_error[256]; \
		CHECK_EQ(trace_parse_line((line), &unit_parsed, unit_error, \
								  sizeof(unit_error)), TRACE_ERROR); \
		CHECK_EQ(unit_parsed.kind, TRACE_ERROR); \
		CHECK_STR_CONTAINS(unit_error, (message)); \
	} while (0)

#define CHECK_ACCEPTED(line, kind) \
	do { \
		TraceLine	unit_parsed; \
		char		unit_error[256]; \
		CHECK_EQ(trace_parse_line((line), &unit_parsed, unit_error, \
								  sizeof(unit_error)), (kind)); \
	} while (0)

#define GOOD_SERVER \
	"server major=15 standby=0 redo_known=1 segment_bytes=16777216 block_bytes=8192 checkpoint_timeout_s=30 completion_target=0.9"

static void
server_lines_are_checked(void)
{
	CHECK_ACCEPTED(GOOD_SERVER "\n", TRACE_SERVER);
	/* major may be left out: it does not change the advice */
	CHECK_ACCEPTED("server standby=0 redo_known=1 segment_bytes=16777216 block_bytes=8192 checkpoint_timeout_s=30 completion_target=0.9",
				   TRACE_SERVER);
	/* standby may not: a standby is sized by other rules than a primary */
	CHECK_REJECTED("server major=15 redo_known=1 segment_bytes=16777216 block_bytes=8192 checkpoint_timeout_s=30 completion_target=0.9",
				   "\"server\" has no standby");

	CHECK_REJECTED("server major=15 foo=1", "bad or unknown setting \"foo=1\"");
	CHECK_REJECTED("server major", "\"server\" expects key=value, found \"major\"");
	CHECK_REJECTED("server major=abc", "bad or unknown setting \"major=abc\"");
	CHECK_REJECTED("server major=0", "\"major=0\"");
	CHECK_REJECTED("server standby=2", "\"standby=2\"");
	CHECK_REJECTED("server redo_known=yes", "\"redo_known=yes\"");
	/* wal_segment_size is a power of two of at least 1 MB */
	CHECK_REJECTED("server segment_bytes=16000000", "\"segment_bytes=16000000\"");
	CHECK_REJECTED("server segment_bytes=524288", "\"segment_bytes=524288\"");
	CHECK_REJECTED("server block_bytes=512", "\"block_bytes=512\"");
	CHECK_REJECTED("server block_bytes=131072", "\"block_bytes=131072\"");
	CHECK_REJECTED("server checkpoint_timeout_s=0.5", "\"checkpoint_timeout_s=0.5\"");
	CHECK_REJECTED("server checkpoint_timeout_s=nan", "\"checkpoint_timeout_s=nan\"");
	CHECK_REJECTED("server checkpoint_timeout_s=inf", "\"checkpoint_timeout_s=inf\"");
	CHECK_REJECTED("server completion_target=1.5", "\"completion_target=1.5\"");
	CHECK_REJECTED("server completion_target=-0.1", "\"completion_target=-0.1\"");
	CHECK_REJECTED("server completion_target=0.9x", "\"completion_target=0.9x\"");

	/* each setting the advice depends on must be there, once */
	CHECK_REJECTED("server major=15 standby=0 redo_known=1 block_bytes=8192 checkpoint_timeout_s=30 completion_target=0.9",
				   "\"server\" has no segment_bytes");
	CHECK_REJECTED("server major=15 standby=0 redo_known=1 segment_bytes=16777216 checkpoint_timeout_s=30 completion_target=0.9",
				   "\"server\" has no block_bytes");
	CHECK_REJECTED("server major=15 standby=0 redo_known=1 segment_bytes=16777216 block_bytes=8192 completion_target=0.9",
				   "\"server\" has no checkpoint_timeout_s");
	CHECK_REJECTED("server major=15 standby=0 redo_known=1 segment_bytes=16777216 block_bytes=8192 checkpoint_timeout_s=30",
				   "\"server\" has no completion_target");
	CHECK_REJECTED("server major=15 standby=0 segment_bytes=16777216 block_bytes=8192 checkpoint_timeout_s=30 completion_target=0.9",
				   "\"server\" has no redo_known");
	CHECK_REJECTED("server", "\"server\" has no");
	CHECK_REJECTED(GOOD_SERVER " checkpoint_timeout_s=300",
				   "\"server\" gives checkpoint_timeout_s twice");
}

#define GOOD_SAMPLE "sample 1000000 167772160 150994944 3 4 0 100 0 167772160 0 0 64"

static void
sample_lines_are_checked(void)
{
	CHECK_ACCEPTED(GOOD_SAMPLE "\n", TRACE_SAMPLE);

	CHECK_REJECTED("sample 1000000 167772160 150994944 3 4 0 100 0 167772160 0 0",
				   "\"sample\" has 11 fields, expected 12 or 13");
	CHECK_REJECTED("sample", "\"sample\" has 0 fields, expected 12 or 13");
	CHECK_REJECTED(GOOD_SAMPLE " 1 1", "\"sample\" has more than 13 fields");
	/* the thirteenth, the role, is 0 (a primary) or 1 (a standby) */
	{
		TraceLine	parsed;
		char		error[256];

		CHECK_EQ(trace_parse_line(GOOD_SAMPLE " 1", &parsed, error, sizeof(error)),
				 TRACE_SAMPLE);
		CHECK(parsed.sample.standby);
		CHECK(parsed.sample_role_given);
		CHECK_EQ(trace_parse_line(GOOD_SAMPLE " 0", &parsed, error, sizeof(error)),
				 TRACE_SAMPLE);
		CHECK(!parsed.sample.standby);
		CHECK(parsed.sample_role_given);
		CHECK_EQ(trace_parse_line(GOOD_SAMPLE, &parsed, error, sizeof(error)),
				 TRACE_SAMPLE);
		CHECK(!parsed.sample_role_given);
	}
	CHECK_REJECTED(GOOD_SAMPLE " 2", "not a valid number");
	CHECK_REJECTED(GOOD_SAMPLE " yes", "not a valid number");

	/* not a number, or not a whole one */
	CHECK_REJECTED("sample 1000000 167772160 150994944 three 4 0 100 0 167772160 0 0 64",
				   "not a valid number");
	CHECK_REJECTED("sample 1000000 167772160 150994944 3 4 0 100 0 167772160 0 0 64.5",
				   "not a valid number");
	CHECK_REJECTED("sample 1000000 167772160x 150994944 3 4 0 100 0 167772160 0 0 64",
				   "not a valid number");
	/* out of range */
	CHECK_REJECTED("sample 1000000 18446744073709551616 150994944 3 4 0 100 0 167772160 0 0 64",
				   "not a valid number");
	CHECK_REJECTED("sample 9223372036854775808 167772160 150994944 3 4 0 100 0 167772160 0 0 64",
				   "not a valid number");
	/*
	 * Times and WAL positions beyond what a server shows, which the
	 * measurement's arithmetic could overflow on: microseconds since 1970
	 * before the year 10000, positions up to INT64_MAX.
	 */
	CHECK_REJECTED("sample -1 167772160 150994944 3 4 0 100 0 167772160 0 0 64",
				   "\"sample\": time out of range: \"-1\" (microseconds since 1970, before the year 10000)");
	CHECK_REJECTED("sample 253402300800000000 167772160 150994944 3 4 0 100 0 167772160 0 0 64",
				   "\"sample\": time out of range: \"253402300800000000\"");
	CHECK_REJECTED("sample 9223372036854775807 167772160 150994944 3 4 0 100 0 167772160 0 0 64",
				   "\"sample\": time out of range: \"9223372036854775807\"");
	CHECK_ACCEPTED("sample 253402300799999999 167772160 150994944 3 4 0 100 0 167772160 0 0 64",
				   TRACE_SAMPLE);
	CHECK_ACCEPTED("sample 0 167772160 150994944 3 4 0 100 0 167772160 0 0 64",
				   TRACE_SAMPLE);
	CHECK_REJECTED("sample 1000000 9223372036854775808 150994944 3 4 0 100 0 167772160 0 0 64",
				   "\"sample\": WAL position out of range: \"9223372036854775808\" (at most 9223372036854775807)");
	CHECK_REJECTED("sample 1000000 18446744073709551615 150994944 3 4 0 100 0 167772160 0 0 64",
				   "\"sample\": WAL position out of range: \"18446744073709551615\"");
	CHECK_REJECTED("sample 1000000 9223372036854775807 9223372036854775808 3 4 0 100 0 167772160 0 0 64",
				   "\"sample\": redo pointer out of range: \"9223372036854775808\" (at most 9223372036854775807)");
	CHECK_ACCEPTED("sample 1000000 9223372036854775807 9223372036854775807 3 4 0 100 0 167772160 0 0 64",
				   TRACE_SAMPLE);
	/* negative where nothing can be */
	CHECK_REJECTED("sample 1000000 -167772160 150994944 3 4 0 100 0 167772160 0 0 64",
				   "not a valid number");
	CHECK_REJECTED("sample 1000000 167772160 150994944 -3 4 0 100 0 167772160 0 0 64",
				   "not a valid number");
	CHECK_REJECTED("sample 1000000 167772160 150994944 3 -4 0 100 0 167772160 0 0 64",
				   "not a valid number");
	CHECK_REJECTED("sample 1000000 167772160 150994944 3 4 0 -100 0 167772160 0 0 64",
				   "not a valid number");
	CHECK_REJECTED("sample 1000000 167772160 150994944 3 4 0 100 -1 167772160 0 0 64",
				   "not a valid number");
	CHECK_REJECTED("sample 1000000 167772160 150994944 3 4 0 100 0 -167772160 0 0 64",
				   "not a valid number");
	/* reset stamps may be anything */
	CHECK_ACCEPTED("sample 1000000 167772160 150994944 3 4 -5 100 0 167772160 0 -6 64",
				   TRACE_SAMPLE);
	/* a flag is 0 or 1; a size at least max_wal_size's minimum of 2 MB */
	CHECK_REJECTED("sample 1000000 167772160 150994944 3 4 0 100 0 167772160 2 0 64",
				   "not a valid number");
	CHECK_REJECTED("sample 1000000 167772160 150994944 3 4 0 100 0 167772160 0 0 1",
				   "not a valid number");
	CHECK_ACCEPTED("sample 1000000 167772160 150994944 3 4 0 100 0 167772160 1 0 2",
				   TRACE_SAMPLE);

	/* the redo pointer is never past the insert position */
	CHECK_REJECTED("sample 1000000 167772160 167772161 3 4 0 100 0 167772160 0 0 64",
				   "the redo pointer is past the insert position");
	CHECK_ACCEPTED("sample 1000000 167772160 167772160 3 4 0 100 0 167772160 0 0 64",
				   TRACE_SAMPLE);
	/* unknown (0), as a server without pg_control_checkpoint() shows it */
	CHECK_ACCEPTED("sample 1000000 167772160 0 3 4 0 100 0 167772160 0 0 64",
				   TRACE_SAMPLE);
}

/*
 * A word too long for the reader's buffer is rejected, not cut: cut, the
 * digits of a value could pass for another value.
 */
static void
an_over_long_word_is_not_cut_to_a_valid_one(void)
{
	char		line[512];
	char		zeros[101];

	memset(zeros, '0', 100);
	zeros[100] = '\0';
	snprintf(line, sizeof(line),
			 "sample 1000000 167772160 150994944 3 4 0 %s1x 0 167772160 0 0 64",
			 zeros);
	CHECK_REJECTED(line, "not a valid number");
	/* even one that would be a number: no writer makes one that long */
	snprintf(line, sizeof(line),
			 "sample 1000000 167772160 150994944 3 4 0 %s1 0 167772160 0 0 64",
			 zeros);
	CHECK_REJECTED(line, "not a valid number");
	snprintf(line, sizeof(line), "working_set %s7x 1", zeros);
	CHECK_REJECTED(line, "\"working_set\" expects PAGES TABLES");
	/* cut, this would be completion_target=0.000... */
	snprintf(line, sizeof(line), "server completion_target=0.%s%sx", zeros, zeros);
	CHECK_REJECTED(line, "\"server\": bad or unknown setting of more than 127 characters");
	/* a comment may be as long as a line */
	snprintf(line, sizeof(line), "#%s%s", zeros, zeros);
	CHECK_ACCEPTED(line, TRACE_BLANK);
}

static void
working_set_lines_are_checked(void)
{
	TraceLine	parsed;
	char		error[256];

	CHECK_EQ(trace_parse_line("working_set 0 0", &parsed, error, sizeof(error)),
			 TRACE_WORKING_SET);
	CHECK_EQ(parsed.working_set.pages, 0);
	CHECK_EQ(parsed.working_set.tables, 0);
	CHECK_REJECTED("working_set", "\"working_set\" expects PAGES TABLES");
	CHECK_REJECTED("working_set 5", "\"working_set\" expects PAGES TABLES");
	CHECK_REJECTED("working_set 5 1 1", "\"working_set\" expects PAGES TABLES");
	CHECK_REJECTED("working_set -5 1", "\"working_set\" expects PAGES TABLES");
	CHECK_REJECTED("working_set 5 -1", "\"working_set\" expects PAGES TABLES");
	CHECK_REJECTED("working_set 5 2147483648", "\"working_set\" expects PAGES TABLES");
	CHECK_REJECTED("working_set five 1", "\"working_set\" expects PAGES TABLES");
}

/* --- trace_replay ------------------------------------------------------------ */

typedef struct ReplaySeen
{
	int			windows;
	int			others;
	int			other_line_no;
	char		other_line[128];
	bool		accept_others;
} ReplaySeen;

static void
on_window(const AdvisorWindow *window, void *arg)
{
	(void) window;
	((ReplaySeen *) arg)->windows++;
}

static bool
on_other(const char *line, int line_no, void *arg)
{
	ReplaySeen *seen = arg;

	seen->others++;
	seen->other_line_no = line_no;
	snprintf(seen->other_line, sizeof(seen->other_line), "%s", line);
	return seen->accept_others;
}

/* A file holding text, read from its start. */
static FILE *
file_of(const char *text)
{
	FILE	   *f = tmpfile();

	if (f == NULL)
		return NULL;
	fputs(text, f);
	rewind(f);
	return f;
}

/*
 * Replay text: true when it replays, else false with the message in
 * error.
 */
static bool
replay_text(const char *text, TraceOtherFn other, ReplaySeen *seen,
			Advice *advice, char *error, size_t error_len)
{
	FILE	   *f = file_of(text);
	AdvisorOptions options;
	AdvisorServerFacts facts;
	bool		ok;

	CHECK(f != NULL);
	if (f == NULL)
		return false;
	advisor_default_options(&options);
	memset(seen, 0, sizeof(*seen));
	seen->accept_others = true;
	error[0] = '\0';
	ok = trace_replay(f, &options, &adv, on_window, other, seen, advice,
					  &facts, error, error_len);
	fclose(f);
	return ok;
}

#define CHECK_REPLAY_FAILS(text, other, message) \
	do { \
		ReplaySeen	unit_seen; \
		Advice		unit_advice; \
		char		unit_error[256]; \
		CHECK(!replay_text((text), (other), &unit_seen, &unit_advice, \
						   unit_error, sizeof(unit_error))); \
		CHECK_STR_CONTAINS(unit_error, (message)); \
	} while (0)

#define SAMPLE_AT(s) "sample " #s "000000 167772160 150994944 3 4 0 100 0 167772160 0 0 64\n"

static void
a_written_trace_replays(void)
{
	FILE	   *f = tmpfile();
	AdvisorServerFacts facts = some_facts();
	AdvisorServerFacts replayed;
	AdvisorOptions options;
	AdvisorWorkingSet ws = {100, 2};
	WalsizerSample s;
	ReplaySeen	seen;
	Advice		advice;
	char		error[256];

	CHECK(f != NULL);
	if (f == NULL)
		return;
	facts.redo_known = true;
	facts.segment_bytes = (int64_t) SEGMENT;
	facts.checkpoint_timeout_s = 30;
	trace_write_server(f, &facts);
	memset(&s, 0, sizeof(s));
	s.at_us = 1000 * SECOND;
	s.insert_lsn = s.redo_lsn = 10 * SEGMENT;
	s.max_wal_size_mb = 1024;
	for (int i = 0; i <= 65; i++)
	{
		trace_write_sample(f, &s);
		s.at_us += SECOND;
		s.insert_lsn += 1024 * 1024;
		s.wal_stat_bytes += 1024 * 1024;
	}
	trace_write_working_set(f, &ws);
	fputs("expect something\n", f);
	rewind(f);

	advisor_default_options(&options);
	memset(&seen, 0, sizeof(seen));
	seen.accept_others = true;
	CHECK(trace_replay(f, &options, &adv, on_window, on_other, &seen, &advice,
					   &replayed, error, sizeof(error)));
	fclose(f);
	CHECK_STR_CONTAINS(error, "");
	CHECK(replayed.checkpoint_timeout_s == 30);
	CHECK(replayed.completion_target == 0.75);
	CHECK_EQ(replayed.block_bytes, 16384);
	/* windows of checkpoint_timeout: at 30 s, 60 s, and the last 5 s */
	CHECK_EQ(seen.windows, 3);
	CHECK_EQ(seen.others, 1);
	CHECK_EQ(seen.other_line_no, 69);
	CHECK_STR_CONTAINS(seen.other_line, "expect something");
	CHECK_EQ(adv.samples, 66);
	CHECK_UEQ(advice.wal_bytes, 65 * 1024 * 1024ULL);
	CHECK_EQ(advice.current_mb, 1024);
	CHECK(advice.verdict != ADVISOR_UNKNOWN);
}

static void
replay_names_the_line_that_fails(void)
{
	CHECK_REPLAY_FAILS(GOOD_SERVER "\n# fine\n" SAMPLE_AT(1) "sample 1 2\n",
					   on_other, "line 4: \"sample\" has 2 fields, expected 12");
	CHECK_REPLAY_FAILS("\nserver major=15\n", on_other,
					   "line 2: \"server\" has no segment_bytes");
}

static void
replay_rejects_a_trace_out_of_order(void)
{
	CHECK_REPLAY_FAILS(SAMPLE_AT(1) GOOD_SERVER "\n", on_other,
					   "line 1: a sample before the \"server\" line");
	CHECK_REPLAY_FAILS(GOOD_SERVER "\n" SAMPLE_AT(1) GOOD_SERVER "\n", on_other,
					   "line 3: a second \"server\" line");
	CHECK_REPLAY_FAILS(GOOD_SERVER "\n" SAMPLE_AT(2) SAMPLE_AT(3) SAMPLE_AT(1),
					   on_other, "line 4: samples are not in time order");
	CHECK_REPLAY_FAILS(GOOD_SERVER "\n" SAMPLE_AT(2) SAMPLE_AT(2), on_other,
					   "line 3: samples are not in time order");
}

static void
replay_rejects_a_trace_without_samples(void)
{
	CHECK_REPLAY_FAILS("", on_other, "the trace has no samples");
	CHECK_REPLAY_FAILS(GOOD_SERVER "\nworking_set 1 1\n", on_other,
					   "the trace has no samples");
}

static void
replay_leaves_other_directives_to_the_caller(void)
{
	ReplaySeen	seen;
	Advice		advice;
	char		error[256];

	CHECK_REPLAY_FAILS(GOOD_SERVER "\n" SAMPLE_AT(1) "expect verdict grow\n", NULL,
					   "line 3: unknown directive");

	/* the caller may refuse one too */
	{
		FILE	   *f = file_of(GOOD_SERVER "\n" SAMPLE_AT(1) "\nbogus 1\n");
		AdvisorOptions options;
		AdvisorServerFacts facts;

		CHECK(f != NULL);
		if (f == NULL)
			return;
		advisor_default_options(&options);
		memset(&seen, 0, sizeof(seen));
		seen.accept_others = false;
		CHECK(!trace_replay(f, &options, &adv, on_window, on_other, &seen,
							&advice, &facts, error, sizeof(error)));
		fclose(f);
		CHECK_STR_CONTAINS(error, "line 4: unknown directive");
		CHECK_EQ(seen.others, 1);
		CHECK_EQ(seen.other_line_no, 4);
	}

	/* one sample replays, and measures too little to advise */
	CHECK(replay_text(GOOD_SERVER "\n" SAMPLE_AT(1) "expect verdict unknown\n",
					  on_other, &seen, &advice, error, sizeof(error)));
	CHECK_EQ(seen.others, 1);
	CHECK_EQ(seen.windows, 0);
	CHECK_EQ(advice.verdict, ADVISOR_UNKNOWN);
}

/*
 * Lines up to 1023 characters are read, newline or not; a longer one is
 * rejected and named, not read in pieces.
 */
static void
replay_rejects_an_over_long_line(void)
{
	static char text[4096];
	ReplaySeen	seen;
	Advice		advice;
	char		error[256];
	size_t		used;

	/* a comment of exactly 1023 characters, then its newline */
	used = (size_t) snprintf(text, sizeof(text), "%s\n#", GOOD_SERVER);
	memset(text + used, 'c', 1022);
	used += 1022;
	used += (size_t) snprintf(text + used, sizeof(text) - used, "\n%s", SAMPLE_AT(1));
	CHECK(replay_text(text, on_other, &seen, &advice, error, sizeof(error)));
	CHECK_STR_CONTAINS(error, "");

	/* one more character */
	used = (size_t) snprintf(text, sizeof(text), "%s\n#", GOOD_SERVER);
	memset(text + used, 'c', 1023);
	used += 1023;
	snprintf(text + used, sizeof(text) - used, "\n%s", SAMPLE_AT(1));
	CHECK_REPLAY_FAILS(text, on_other, "line 2 is longer than 1023 characters");

	/* the last line, 1023 characters without a newline */
	used = (size_t) snprintf(text, sizeof(text), "%s\n%s#", GOOD_SERVER, SAMPLE_AT(1));
	memset(text + used, 'c', 1022);
	text[used + 1022] = '\0';
	CHECK(replay_text(text, on_other, &seen, &advice, error, sizeof(error)));
	CHECK_STR_CONTAINS(error, "");
	/* and 1024 */
	used = (size_t) snprintf(text, sizeof(text), "%s\n%s#", GOOD_SERVER, SAMPLE_AT(1));
	memset(text + used, 'c', 1023);
	text[used + 1023] = '\0';
	CHECK_REPLAY_FAILS(text, on_other, "line 3 is longer than 1023 characters");
}

/*
 * Hostile traces (test/fuzz/corpus/fuzz_trace/time_out_of_range and
 * lsn_out_of_range): a time whose window end overflows int64_t, and a WAL
 * position beyond any server's, are rejected and named; a WAL position in
 * range that jumps by exabytes in a microsecond replays, with figures
 * that stay in range (under UBSan: no overflow, no conversion out of
 * range).
 */
static void
replay_rejects_times_and_positions_out_of_range(void)
{
	ReplaySeen	seen;
	Advice		advice;
	char		error[256];

	CHECK_REPLAY_FAILS(GOOD_SERVER "\n"
					   "sample 9223372036854775000 167772160 150994944 3 4 0 100 0 167772160 0 0 64\n"
					   "sample 9223372036854775807 167772161 150994944 3 4 0 100 0 167772160 0 0 64\n",
					   on_other, "line 2: \"sample\": time out of range: \"9223372036854775000\"");
	CHECK_REPLAY_FAILS(GOOD_SERVER "\n"
					   "sample 1000000 0 0 3 4 0 100 0 0 0 0 64\n"
					   "sample 1000001 18446744073709551615 0 3 4 0 100 0 0 0 0 64\n",
					   on_other, "line 3: \"sample\": WAL position out of range: \"18446744073709551615\"");

	CHECK(replay_text(GOOD_SERVER "\n"
					  "sample 1000000 0 0 3 4 0 100 0 0 0 0 64\n"
					  "sample 1000001 9223372036854775807 0 3 4 0 100 0 0 0 0 64\n"
					  "sample 1000002 9223372036854775807 0 3 4 0 100 0 0 0 0 64\n",
					  on_other, &seen, &advice, error, sizeof(error)));
	CHECK_STR_CONTAINS(error, "");
	CHECK(advice.cycle_bytes <= (uint64_t) 1e18);
	CHECK(advice.recommended_mb >= 2 && advice.recommended_mb <= 4096);
}

/*
 * A standby at 64 MB replaying 16 MB/s, the primary's checkpoints every
 * 2 s: each restartpoint is requested by WAL volume, 32 MB on from the
 * last (CheckPointSegments is 2).  Written with the role on the "server"
 * line only (role_field < 0) or in each sample.
 */
static void
write_restartpoint_trace(FILE *f, int server_standby, int role_field, int seconds)
{
	const uint64_t base = 100 * SEGMENT;

	fprintf(f, "server major=15 standby=%d redo_known=1 segment_bytes=%" PRIu64
			" block_bytes=8192 checkpoint_timeout_s=30 completion_target=0.9\n",
			server_standby, SEGMENT);
	for (int i = 0; i <= seconds; i++)
	{
		uint64_t	insert = base + (uint64_t) i * SEGMENT;
		uint64_t	redo = base + (uint64_t) (i / 2) * 2 * SEGMENT;

		fprintf(f, "sample %" PRId64 " %" PRIu64 " %" PRIu64 " 0 %d 0 0 0 %" PRIu64
				" 0 0 64", 1000000 * SECOND + i * SECOND, insert, redo, 100 + i / 2,
				insert - base);
		if (role_field >= 0)
			fprintf(f, " %d", role_field);
		fputc('\n', f);
	}
	rewind(f);
}

static bool
replay_restartpoints(int server_standby, int role_field, int seconds,
					 Advice *advice)
{
	FILE	   *f = tmpfile();
	AdvisorOptions options;
	AdvisorServerFacts facts;
	ReplaySeen	seen;
	char		error[256];
	bool		ok;

	CHECK(f != NULL);
	if (f == NULL)
		return false;
	write_restartpoint_trace(f, server_standby, role_field, seconds);
	advisor_default_options(&options);
	memset(&seen, 0, sizeof(seen));
	ok = trace_replay(f, &options, &adv, on_window, NULL, &seen, advice,
					  &facts, error, sizeof(error));
	fclose(f);
	CHECK_STR_CONTAINS(error, "");
	return ok;
}

/*
 * The same samples, from a primary and from a standby: the primary's
 * checkpoints forced by WAL grow it; the standby's restartpoints, which
 * only follow the primary's checkpoints, do not (the policy's standby
 * rules): it is sized by the WAL it replays over whole
 * checkpoint_timeouts, and before it has one it is not grown.
 */
static void
a_standby_is_sized_by_the_wal_it_replays(void)
{
	Advice		primary;
	Advice		standby;

	/* 20 s: less than a whole checkpoint_timeout of replayed WAL */
	CHECK(replay_restartpoints(0, -1, 20, &primary));
	CHECK_EQ(primary.verdict, ADVISOR_GROW);
	CHECK(primary.wal_forced > 0);
	CHECK_STR_CONTAINS(primary.reason, "forced by WAL");
	CHECK(replay_restartpoints(1, -1, 20, &standby));
	CHECK_EQ(standby.verdict, ADVISOR_KEEP);
	CHECK_EQ(standby.recommended_mb, 64);
	CHECK(strstr(standby.reason, "forced") == NULL);
	CHECK_STR_CONTAINS(standby.basis, "standby: no whole 30 s checkpoint_timeout of replayed WAL");
	CHECK(!standby.cycle_predicted);

	/* 70 s: two whole checkpoint_timeouts, 480 MB of replayed WAL in each */
	CHECK(replay_restartpoints(1, -1, 70, &standby));
	CHECK_EQ(standby.verdict, ADVISOR_GROW);
	CHECK_STR_CONTAINS(standby.reason, "standby: it replays up to 480 MB of WAL per checkpoint_timeout");
	CHECK_STR_CONTAINS(standby.basis, "standby: the WAL it replays over whole 30 s checkpoint_timeouts, at most 480 MB");
	CHECK(!standby.cycle_predicted);
	CHECK_UEQ(standby.cycle_bytes, 480 * 1024 * 1024ULL);
}

/* Each sample's own role wins over the "server" line's. */
static void
a_sample_says_its_role(void)
{
	Advice		advice;

	CHECK(replay_restartpoints(0, 1, 20, &advice));
	CHECK_EQ(advice.verdict, ADVISOR_KEEP);
	CHECK_STR_CONTAINS(advice.basis, "standby: no whole 30 s checkpoint_timeout");
	CHECK(replay_restartpoints(1, 0, 20, &advice));
	CHECK_EQ(advice.verdict, ADVISOR_GROW);
	CHECK_STR_CONTAINS(advice.reason, "forced by WAL");
}

/*
 * Promoted after 20 s: the window in progress ends there, what described
 * the restartpoints is forgotten (walsizer_measure_role_changed(), as in
 * the worker), and the run is sized as a primary's: the checkpoints WAL
 * forces after the promotion grow it.
 */
static void
a_promotion_during_the_run(void)
{
	FILE	   *f = tmpfile();
	FILE	   *second = tmpfile();
	AdvisorOptions options;
	AdvisorServerFacts facts;
	ReplaySeen	seen;
	Advice		advice;
	char		error[256];
	char		line[512];

	CHECK(f != NULL && second != NULL);
	if (f == NULL || second == NULL)
		return;
	/* the restartpoint trace's samples, standby for 20 s, then primary */
	write_restartpoint_trace(second, 1, 1, 60);
	for (int n = 0; fgets(line, sizeof(line), second); n++)
	{
		/* lines 1 to 21 are the server line and samples 0 to 20 */
		if (n > 21)
			line[strlen(line) - 2] = '0';
		fputs(line, f);
	}
	fclose(second);
	rewind(f);
	advisor_default_options(&options);
	memset(&seen, 0, sizeof(seen));
	CHECK(trace_replay(f, &options, &adv, on_window, NULL, &seen, &advice,
					   &facts, error, sizeof(error)));
	fclose(f);
	CHECK_STR_CONTAINS(error, "");
	CHECK(facts.standby);
	CHECK(!adv.facts.standby);
	/* at the promotion (21 s), at 51 s, and the last 9 s */
	CHECK_EQ(seen.windows, 3);
	CHECK_EQ(advice.verdict, ADVISOR_GROW);
	CHECK_STR_CONTAINS(advice.reason, "forced by WAL");
}

int
main(void)
{
	const char *suite = "sample_trace";

	RUN_TEST(suite, written_lines_parse_back_the_same);
	RUN_TEST(suite, blank_lines_comments_and_other_directives);
	RUN_TEST(suite, server_lines_are_checked);
	RUN_TEST(suite, sample_lines_are_checked);
	RUN_TEST(suite, an_over_long_word_is_not_cut_to_a_valid_one);
	RUN_TEST(suite, working_set_lines_are_checked);
	RUN_TEST(suite, a_written_trace_replays);
	RUN_TEST(suite, replay_names_the_line_that_fails);
	RUN_TEST(suite, replay_rejects_a_trace_out_of_order);
	RUN_TEST(suite, replay_rejects_a_trace_without_samples);
	RUN_TEST(suite, replay_leaves_other_directives_to_the_caller);
	RUN_TEST(suite, replay_rejects_an_over_long_line);
	RUN_TEST(suite, replay_rejects_times_and_positions_out_of_range);
	RUN_TEST(suite, a_standby_is_sized_by_the_wal_it_replays);
	RUN_TEST(suite, a_sample_says_its_role);
	RUN_TEST(suite, a_promotion_during_the_run);
	return unit_exit_status();
}
