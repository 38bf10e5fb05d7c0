/*-------------------------------------------------------------------------
 *
 * sample_trace.c
 *		Write and read the advisor's traces (see sample_trace.h), and
 *		replay one through the advisor's pipeline.
 *
 * A trace is the user's: it may be edited, cut or come from another
 * version, so every field is checked and a bad line is named, never
 * guessed at.
 *
 *-------------------------------------------------------------------------
 */
#include "sample_trace.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * A sample's fields; the last, its role, is not in traces written before
 * it was recorded, whose samples take the "server" line's.
 */
#define SAMPLE_FIELDS 13
#define SAMPLE_FIELDS_WITHOUT_ROLE 12
/*
 * The range of a sample's time: microseconds since 1970, before the year
 * 10000.  Far above any clock, and far enough below INT64_MAX that the
 * measurement's windows and horizons, added to it, cannot overflow.
 */
#define LAST_SAMPLE_AT_US INT64_C(253402300799999999)
/*
 * The range of a WAL position: what pg_lsn - '0/0' gives as a bigint,
 * which is how the advisor reads one.
 */
#define LAST_LSN ((uint64_t) INT64_MAX)
/* a line holds at most TRACE_LINE_MAX - 1 characters and its newline:
 * more than any line the writer makes */
#define TRACE_LINE_MAX 1024
/* the settings of a "server" line the advice depends on */
#define SERVER_MAJOR 0x01
#define SERVER_STANDBY 0x02
#define SERVER_REDO_KNOWN 0x04
#define SERVER_SEGMENT_BYTES 0x08
#define SERVER_BLOCK_BYTES 0x10
#define SERVER_TIMEOUT 0x20
#define SERVER_COMPLETION_TARGET 0x40

static TraceLineKind fail(char *error, size_t error_len, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

static TraceLineKind
fail(char *error, size_t error_len, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	vsnprintf(error, error_len, fmt, args);
	va_end(args);
	return TRACE_ERROR;
}

/*
 * The next whitespace-separated word of *p, or NULL at the end.  A word
 * too long for word_len comes back empty, which no directive, setting or
 * field accepts: cut short, its digits could pass for another value.
 */
static const char *
next_word(const char **p, char *word, size_t word_len)
{
	size_t		n = 0;
	bool		too_long = false;

	while (**p && isspace((unsigned char) **p))
		(*p)++;
	if (**p == '\0')
		return NULL;
	while (**p && !isspace((unsigned char) **p))
	{
		if (n + 1 < word_len)
			word[n++] = **p;
		else
			too_long = true;
		(*p)++;
	}
	word[too_long ? 0 : n] = '\0';
	return word;
}

static bool
parse_int64(const char *text, int64_t *value)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0')
		return false;
	*value = (int64_t) v;
	return true;
}

static bool
parse_uint64(const char *text, uint64_t *value)
{
	char	   *end;
	unsigned long long v;

	if (text[0] == '-')
		return false;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0')
		return false;
	*value = (uint64_t) v;
	return true;
}

static bool
parse_double(const char *text, double *value)
{
	char	   *end;

	errno = 0;
	*value = strtod(text, &end);
	return errno == 0 && end != text && *end == '\0' && isfinite(*value);
}

static TraceLineKind
parse_server(const char *p, TraceLine *out, char *error, size_t error_len)
{
	AdvisorServerFacts *f = &out->facts;
	char		word[128];
	int			seen = 0;
	static const struct
	{
		int			bit;
		const char *name;
	}			required[] = {
		{SERVER_SEGMENT_BYTES, "segment_bytes"},
		{SERVER_BLOCK_BYTES, "block_bytes"},
		{SERVER_TIMEOUT, "checkpoint_timeout_s"},
		{SERVER_COMPLETION_TARGET, "completion_target"},
		{SERVER_REDO_KNOWN, "redo_known"},
		/* a standby is sized by other rules than a primary */
		{SERVER_STANDBY, "standby"},
	};

	memset(f, 0, sizeof(*f));
	while (next_word(&p, word, sizeof(word)))
	{
		char	   *eq = strchr(word, '=');
		int64_t		i;
		double		d;
		int			bit;

		if (word[0] == '\0')
			return fail(error, error_len,
						"\"server\": bad or unknown setting of more than %d characters",
						(int) sizeof(word) - 1);
		if (eq == NULL)
			return fail(error, error_len, "\"server\" expects key=value, found \"%s\"", word);
		*eq = '\0';
		if (strcmp(word, "major") == 0 && parse_int64(eq + 1, &i) && i > 0 && i < 1000)
		{
			f->major = (int) i;
			bit = SERVER_MAJOR;
		}
		else if (strcmp(word, "standby") == 0 && parse_int64(eq + 1, &i) && (i == 0 || i == 1))
		{
			f->standby = i == 1;
			bit = SERVER_STANDBY;
		}
		else if (strcmp(word, "redo_known") == 0 && parse_int64(eq + 1, &i) && (i == 0 || i == 1))
		{
			f->redo_known = i == 1;
			bit = SERVER_REDO_KNOWN;
		}
		else if (strcmp(word, "segment_bytes") == 0 && parse_int64(eq + 1, &i) &&
				 i >= 1024 * 1024 && (i & (i - 1)) == 0)
		{
			f->segment_bytes = i;
			bit = SERVER_SEGMENT_BYTES;
		}
		else if (strcmp(word, "block_bytes") == 0 && parse_int64(eq + 1, &i) &&
				 i >= 1024 && i <= 65536)
		{
			f->block_bytes = i;
			bit = SERVER_BLOCK_BYTES;
		}
		else if (strcmp(word, "checkpoint_timeout_s") == 0 && parse_double(eq + 1, &d) &&
				 d >= 1 && d <= 86400)
		{
			f->checkpoint_timeout_s = d;
			bit = SERVER_TIMEOUT;
		}
		else if (strcmp(word, "completion_target") == 0 && parse_double(eq + 1, &d) &&
				 d >= 0 && d <= 1)
		{
			f->completion_target = d;
			bit = SERVER_COMPLETION_TARGET;
		}
		else
			return fail(error, error_len, "\"server\": bad or unknown setting \"%s=%s\"",
						word, eq + 1);
		if (seen & bit)
			return fail(error, error_len, "\"server\" gives %s twice", word);
		seen |= bit;
	}
	/* a setting left out would be 0, and change the advice unseen */
	for (size_t r = 0; r < sizeof(required) / sizeof(required[0]); r++)
		if (!(seen & required[r].bit))
			return fail(error, error_len, "\"server\" has no %s", required[r].name);
	return TRACE_SERVER;
}

static TraceLineKind
parse_sample(const char *p, TraceLine *out, char *error, size_t error_len)
{
	WalsizerSample *s = &out->sample;
	char		word[64];
	char		fields[SAMPLE_FIELDS][64];
	int			n = 0;
	int64_t		counted;
	int64_t		standby = 0;

	while (next_word(&p, word, sizeof(word)))
	{
		if (n == SAMPLE_FIELDS)
			return fail(error, error_len, "\"sample\" has more than %d fields", SAMPLE_FIELDS);
		strcpy(fields[n++], word);
	}
	if (n != SAMPLE_FIELDS && n != SAMPLE_FIELDS_WITHOUT_ROLE)
		return fail(error, error_len, "\"sample\" has %d fields, expected %d or %d",
					n, SAMPLE_FIELDS_WITHOUT_ROLE, SAMPLE_FIELDS);

	memset(s, 0, sizeof(*s));
	if (!parse_int64(fields[0], &s->at_us) ||
		!parse_uint64(fields[1], &s->insert_lsn) ||
		!parse_uint64(fields[2], &s->redo_lsn) ||
		!parse_int64(fields[3], &s->timed) || s->timed < 0 ||
		!parse_int64(fields[4], &s->requested) || s->requested < 0 ||
		!parse_int64(fields[5], &s->counters_reset_at) ||
		!parse_int64(fields[6], &s->wal_fpi) || s->wal_fpi < 0 ||
		!parse_uint64(fields[7], &s->wal_fpi_bytes) ||
		!parse_uint64(fields[8], &s->wal_stat_bytes) ||
		!parse_int64(fields[9], &counted) || (counted != 0 && counted != 1) ||
		!parse_int64(fields[10], &s->wal_reset_at) ||
		!parse_int64(fields[11], &s->max_wal_size_mb) || s->max_wal_size_mb < 2 ||
		(n == SAMPLE_FIELDS &&
		 (!parse_int64(fields[12], &standby) || (standby != 0 && standby != 1))))
		return fail(error, error_len, "\"sample\" has a field that is not a valid number");
	s->fpi_bytes_counted = counted == 1;
	s->standby = standby == 1;
	out->sample_role_given = n == SAMPLE_FIELDS;
	if (s->at_us < 0 || s->at_us > LAST_SAMPLE_AT_US)
		return fail(error, error_len,
					"\"sample\": time out of range: \"%s\" (microseconds since 1970, before the year 10000)",
					fields[0]);
	if (s->insert_lsn > LAST_LSN)
		return fail(error, error_len,
					"\"sample\": WAL position out of range: \"%s\" (at most %" PRIu64 ")",
					fields[1], LAST_LSN);
	if (s->redo_lsn > LAST_LSN)
		return fail(error, error_len,
					"\"sample\": redo pointer out of range: \"%s\" (at most %" PRIu64 ")",
					fields[2], LAST_LSN);
	if (s->redo_lsn > s->insert_lsn)
		return fail(error, error_len, "\"sample\": the redo pointer is past the insert position");
	return TRACE_SAMPLE;
}

static TraceLineKind
parse_working_set(const char *p, TraceLine *out, char *error, size_t error_len)
{
	char		pages[64];
	char		tables[64];
	char		extra[64];
	int64_t		n;
	int64_t		t;

	if (!next_word(&p, pages, sizeof(pages)) || !next_word(&p, tables, sizeof(tables)) ||
		next_word(&p, extra, sizeof(extra)) ||
		!parse_int64(pages, &n) || n < 0 || !parse_int64(tables, &t) || t < 0 || t > INT32_MAX)
		return fail(error, error_len, "\"working_set\" expects PAGES TABLES");
	out->working_set.pages = n;
	out->working_set.tables = (int) t;
	return TRACE_WORKING_SET;
}

TraceLineKind
trace_parse_line(const char *line, TraceLine *out, char *error, size_t error_len)
{
	const char *p = line;
	char		word[64];

	memset(out, 0, sizeof(*out));
	error[0] = '\0';
	while (isspace((unsigned char) *p))
		p++;
	/* a comment, however long its first word */
	if (*p == '#' || !next_word(&p, word, sizeof(word)))
		return out->kind = TRACE_BLANK;
	if (strcmp(word, "server") == 0)
		out->kind = parse_server(p, out, error, error_len);
	else if (strcmp(word, "sample") == 0)
		out->kind = parse_sample(p, out, error, error_len);
	else if (strcmp(word, "working_set") == 0)
		out->kind = parse_working_set(p, out, error, error_len);
	else
		out->kind = TRACE_OTHER;
	return out->kind;
}

void
trace_write_server(FILE *out, const AdvisorServerFacts *f)
{
	fputs("server", out);
	/* 0: a trace that did not say, which is how it is written back */
	if (f->major > 0)
		fprintf(out, " major=%d", f->major);
	fprintf(out,
			" standby=%d redo_known=%d segment_bytes=%" PRId64
			" block_bytes=%" PRId64 " checkpoint_timeout_s=%g completion_target=%g\n",
			f->standby ? 1 : 0, f->redo_known ? 1 : 0,
			f->segment_bytes, f->block_bytes, f->checkpoint_timeout_s,
			f->completion_target);
}

void
trace_write_sample(FILE *out, const WalsizerSample *s)
{
	fprintf(out,
			"sample %" PRId64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64
			" %" PRId64 " %" PRId64 " %" PRIu64 " %" PRIu64 " %d %" PRId64
			" %" PRId64 " %d\n",
			s->at_us, s->insert_lsn, s->redo_lsn, s->timed, s->requested,
			s->counters_reset_at, s->wal_fpi, s->wal_fpi_bytes,
			s->wal_stat_bytes, s->fpi_bytes_counted ? 1 : 0, s->wal_reset_at,
			s->max_wal_size_mb, s->standby ? 1 : 0);
}

void
trace_write_working_set(FILE *out, const AdvisorWorkingSet *ws)
{
	fprintf(out, "working_set %" PRId64 " %d\n", ws->pages, ws->tables);
}

bool
trace_replay(FILE *in, const AdvisorOptions *options, Advisor *adv,
			 TraceWindowFn on_window, TraceOtherFn on_other, void *arg,
			 Advice *advice, AdvisorServerFacts *facts,
			 char *error, size_t error_len)
{
	char		line[TRACE_LINE_MAX + 1];
	char		why[256];
	TraceLine	parsed;
	AdvisorWindow window;
	AdvisorWorkingSet ws = {0, 0};
	bool		have_server = false;
	bool		started = false;
	int			line_no = 0;

	while (fgets(line, sizeof(line), in))
	{
		line_no++;
		if (strchr(line, '\n') == NULL && !feof(in))
		{
			snprintf(error, error_len, "line %d is longer than %d characters",
					 line_no, TRACE_LINE_MAX - 1);
			return false;
		}
		switch (trace_parse_line(line, &parsed, why, sizeof(why)))
		{
			case TRACE_BLANK:
				break;
			case TRACE_ERROR:
				snprintf(error, error_len, "line %d: %s", line_no, why);
				return false;
			case TRACE_OTHER:
				if (on_other == NULL || !on_other(line, line_no, arg))
				{
					snprintf(error, error_len, "line %d: unknown directive", line_no);
					return false;
				}
				break;
			case TRACE_SERVER:
				if (have_server)
				{
					snprintf(error, error_len, "line %d: a second \"server\" line", line_no);
					return false;
				}
				*facts = parsed.facts;
				have_server = true;
				break;
			case TRACE_SAMPLE:
				if (!have_server)
				{
					snprintf(error, error_len, "line %d: a sample before the \"server\" line", line_no);
					return false;
				}
				if (!parsed.sample_role_given)
					parsed.sample.standby = facts->standby;
				if (!started)
				{
					advisor_start(adv, facts, options, &parsed.sample);
					started = true;
				}
				else if (parsed.sample.at_us <= adv->latest.at_us)
				{
					snprintf(error, error_len, "line %d: samples are not in time order", line_no);
					return false;
				}
				else if (advisor_add(adv, &parsed.sample, &window) && on_window)
					on_window(&window, arg);
				break;
			case TRACE_WORKING_SET:
				ws = parsed.working_set;
				break;
		}
	}
	if (ferror(in))
	{
		snprintf(error, error_len, "could not read the trace: %s", strerror(errno));
		return false;
	}
	if (!started)
	{
		snprintf(error, error_len, "the trace has no samples");
		return false;
	}
	if (advisor_finish_window(adv, &window) && on_window)
		on_window(&window, arg);
	advisor_recommend(adv, &ws, advice);
	return true;
}
