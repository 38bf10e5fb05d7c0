/*-------------------------------------------------------------------------
 *
 * pg_walsizer_advisor.c
 *		Size max_wal_size for servers pg_walsizer cannot be loaded into:
 *		sample them over libpq as a role with pg_monitor, run the samples
 *		through the worker's measurement and policy (advice.c), and print
 *		the recommendation, what it is based on and how to apply it.
 *
 *	pg_walsizer_advisor [OPTION]... [CONNINFO]...
 *
 * Several servers are sampled at once with libpq's asynchronous API, one
 * query in flight per server, so that a slow server delays no other.
 * Exit status: 0 measured, 1 measured in part (a connection was lost and
 * could not be restored), 2 bad input or a server that cannot be measured.
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "advice.h"
#include "report.h"
#include "sample_trace.h"
#include "server_sampling.h"

#define PROGRAM "pg_walsizer_advisor"
#define ADVISOR_VERSION "1.2"
#define EXIT_PARTIAL 1
#define EXIT_BAD_INPUT 2
/*
 * A lost connection is tried again at every sample for this long, enough
 * for a server's restart; then what was measured is reported.
 */
#define RECONNECT_WINDOW_S 15.0
#define CONNECT_TIMEOUT "5"
/*
 * A sample query unanswered for this long (or three sample intervals, if
 * longer) means a server that stopped answering: its connection is reset
 * as a lost one, so that it cannot hold up the run or its end.
 */
#define QUERY_TIMEOUT_S 5.0
#define MAX_SERVERS 256
/* the secrets of one connection string: password, sslpassword, libpq's */
#define MAX_SECRETS 4
/*
 * A connection string libpq cannot parse is named by its position, and of
 * libpq's message about it every run of this many characters that is also
 * in the string is masked: the message may quote any part of it.
 */
#define MASKED_RUN_CHARS 3
#define MASK "********"
/* the longest --duration, --interval or --max-recovery-time: 7 days */
#define MAX_TIME_S (7 * 24 * 3600.0)

typedef struct Server
{
	const char *conninfo;		/* never printed: it may hold a password */
	int			number;			/* its place among the servers, from 1 */
	char		label[128];		/* host:port/dbname, what is printed */
	char	   *secrets[MAX_SECRETS];	/* masked in libpq's messages */
	int			secret_count;
	PGconn	   *conn;
	AdvisorServerFacts facts;
	Advisor    *adv;
	TableSnapshot tables;
	bool		tables_known;
	bool		started;		/* a first sample was taken */
	bool		busy;			/* a sample query is in flight */
	double		sent_at;		/* when it was sent */
	bool		lost;			/* gave up reconnecting */
	double		failed_at;		/* when the connection was lost, 0 if not */
	int			reconnects;		/* connections restored during the run */
	char		note[256];
	AdvisorWorkingSet ws;
	Advice		advice;
} Server;

typedef struct Options
{
	const char *host;
	const char *port;
	const char *user;
	const char *dbname;
	const char *conninfos[MAX_SERVERS];
	int			conninfo_count;
	const char *servers_file;
	double		duration_s;
	const char *record_path;
	const char *replay_path;
	bool		json;
	bool		quiet;
	AdvisorOptions advisor;
} Options;

static volatile sig_atomic_t interrupted = 0;

static void
on_interrupt(int signo)
{
	/* the first stops the run and reports; a second one stops at once */
	interrupted = 1;
	signal(signo, SIG_DFL);
}

static void
usage(FILE *out)
{
	fprintf(out,
			"%s sizes max_wal_size for a PostgreSQL server from its own load, with\n"
			"pg_walsizer's measurement and policy, from outside the server.\n\n"
			"Usage:\n"
			"  %s [OPTION]... [CONNINFO]...\n\n"
			"Servers (each needs a role with pg_monitor; several are sampled at once):\n"
			"  -h, --host=HOST          server host or socket directory\n"
			"  -p, --port=PORT          server port\n"
			"  -U, --username=USER      role to connect as\n"
			"  -d, --dbname=CONNINFO    database name or connection string\n"
			"      --server=CONNINFO    another server (repeatable); so are CONNINFO arguments\n"
			"      --servers-file=FILE  one connection string per line\n\n"
			"Measuring:\n"
			"      --duration=TIME      how long to sample (default 15min; s, min, h)\n"
			"      --interval=TIME      one line per window (default checkpoint_timeout)\n"
			"      --sample-interval=TIME  time between samples (default 1s)\n"
			"      --record=FILE        write the samples as a trace (one server)\n"
			"      --replay=FILE        run a recorded trace instead of a server\n\n"
			"Policy (the extension's settings of the same name):\n"
			"      --max=SIZE           walsizer.max (default 4GB)\n"
			"      --max-recovery-time=TIME  walsizer.max_recovery_time (default 300s, 0 off)\n"
			"      --replay-rate=MBPS   walsizer.replay_rate in MB/s (default: assumed 20)\n\n"
			"Output:\n"
			"      --json               one JSON document on standard output\n"
			"  -q, --quiet              no window lines and no progress\n"
			"      --help, --version\n\n"
			"Exit status: 0 measured, 1 measured in part (a connection was lost),\n"
			"2 bad input or a server that cannot be measured.\n",
			PROGRAM, PROGRAM);
}

static int bad_input(const char *fmt,...) __attribute__((format(printf, 1, 2)));

static int
bad_input(const char *fmt,...)
{
	va_list		args;

	fprintf(stderr, "%s: ", PROGRAM);
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fprintf(stderr, "\n");
	return EXIT_BAD_INPUT;
}

/* "90", "90s", "15min", "2h", "500ms": seconds, or -1 when not a time. */
static double
parse_seconds(const char *text)
{
	char	   *end;
	double		value;

	errno = 0;
	value = strtod(text, &end);
	if (errno != 0 || end == text || !isfinite(value) || value < 0)
		return -1;
	if (*end == '\0' || strcmp(end, "s") == 0)
		return value;
	if (strcmp(end, "ms") == 0)
		return value / 1000.0;
	if (strcmp(end, "min") == 0)
		return value * 60.0;
	if (strcmp(end, "h") == 0)
		return value * 3600.0;
	return -1;
}

/* "4096", "512MB", "4GB", "1TB": MB, or -1 when not a size. */
static int64_t
parse_mb(const char *text)
{
	char	   *end;
	double		value;

	errno = 0;
	value = strtod(text, &end);
	if (errno != 0 || end == text || !isfinite(value) || value <= 0)
		return -1;
	if (strcmp(end, "GB") == 0)
		value *= 1024;
	else if (strcmp(end, "TB") == 0)
		value *= 1024 * 1024;
	else if (*end != '\0' && strcmp(end, "MB") != 0)
		return -1;
	if (value < 2 || value > 2147483647.0)
		return -1;
	return (int64_t) value;
}

static int
read_servers_file(Options *o)
{
	FILE	   *f = fopen(o->servers_file, "r");
	char		line[1024];

	if (f == NULL)
		return bad_input("could not open servers file \"%s\": %s",
						 o->servers_file, strerror(errno));
	while (fgets(line, sizeof(line), f))
	{
		size_t		len = strcspn(line, "\r\n");
		char	   *p = line;

		if (line[len] == '\0' && !feof(f))
		{
			fclose(f);
			return bad_input("servers file \"%s\": a line is longer than %d characters",
							 o->servers_file, (int) sizeof(line) - 2);
		}

		line[len] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		if (o->conninfo_count == MAX_SERVERS)
		{
			fclose(f);
			return bad_input("too many servers: at most %d", MAX_SERVERS);
		}
		if ((o->conninfos[o->conninfo_count++] = strdup(p)) == NULL)
		{
			fclose(f);
			return bad_input("out of memory");
		}
	}
	fclose(f);
	return 0;
}

static int
parse_options(int argc, char **argv, Options *o)
{
	static const struct option long_options[] = {
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"username", required_argument, NULL, 'U'},
		{"dbname", required_argument, NULL, 'd'},
		{"quiet", no_argument, NULL, 'q'},
		{"server", required_argument, NULL, 1},
		{"servers-file", required_argument, NULL, 2},
		{"duration", required_argument, NULL, 3},
		{"interval", required_argument, NULL, 4},
		{"sample-interval", required_argument, NULL, 5},
		{"record", required_argument, NULL, 6},
		{"replay", required_argument, NULL, 7},
		{"max", required_argument, NULL, 8},
		{"max-recovery-time", required_argument, NULL, 9},
		{"replay-rate", required_argument, NULL, 10},
		{"json", no_argument, NULL, 11},
		{"help", no_argument, NULL, 12},
		{"version", no_argument, NULL, 13},
		{NULL, 0, NULL, 0}
	};
	int			c;
	double		seconds;

	memset(o, 0, sizeof(*o));
	o->duration_s = 15 * 60;
	advisor_default_options(&o->advisor);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h:p:U:d:q", long_options, NULL)) != -1)
	{
		switch (c)
		{
			case 'h':
				o->host = optarg;
				break;
			case 'p':
				o->port = optarg;
				break;
			case 'U':
				o->user = optarg;
				break;
			case 'd':
				o->dbname = optarg;
				break;
			case 'q':
				o->quiet = true;
				break;
			case 1:
				if (o->conninfo_count == MAX_SERVERS)
					return bad_input("too many servers: at most %d", MAX_SERVERS);
				o->conninfos[o->conninfo_count++] = optarg;
				break;
			case 2:
				o->servers_file = optarg;
				break;
			case 3:
				if ((seconds = parse_seconds(optarg)) <= 0 || seconds > MAX_TIME_S)
					return bad_input("invalid value for --duration: \"%s\" (a time such as 90s, 15min or 1h, at most 7 days)", optarg);
				o->duration_s = seconds;
				break;
			case 4:
				if ((seconds = parse_seconds(optarg)) < 1 || seconds > MAX_TIME_S)
					return bad_input("invalid value for --interval: \"%s\" (a time from 1s to 7 days)", optarg);
				o->advisor.window_s = seconds;
				break;
			case 5:
				if ((seconds = parse_seconds(optarg)) < 0.1 || seconds > 60)
					return bad_input("invalid value for --sample-interval: \"%s\" (100ms to 60s)", optarg);
				o->advisor.sample_interval_s = seconds;
				break;
			case 6:
				o->record_path = optarg;
				break;
			case 7:
				o->replay_path = optarg;
				break;
			case 8:
				if ((o->advisor.max_mb = parse_mb(optarg)) < 0)
					return bad_input("invalid value for --max: \"%s\" (a size such as 4096MB or 4GB)", optarg);
				break;
			case 9:
				if ((seconds = parse_seconds(optarg)) < 0 || seconds > MAX_TIME_S)
					return bad_input("invalid value for --max-recovery-time: \"%s\" (a time such as 300s; 0 turns the bound off)", optarg);
				o->advisor.max_recovery_s = seconds;
				break;
			case 10:
				{
					char	   *end;
					double		mb_s = strtod(optarg, &end);

					if (end == optarg || *end != '\0' || !isfinite(mb_s) || mb_s <= 0)
						return bad_input("invalid value for --replay-rate: \"%s\" (MB/s, above 0)", optarg);
					o->advisor.replay_rate_bytes_s = mb_s * 1024 * 1024;
				}
				break;
			case 11:
				o->json = true;
				break;
			case 12:
				usage(stdout);
				exit(0);
			case 13:
				printf("%s %s\n", PROGRAM, ADVISOR_VERSION);
				exit(0);
			case ':':
				return bad_input("option %s needs a value; try \"%s --help\"",
								 argv[optind - 1], PROGRAM);
			default:
				return bad_input("unknown option \"%s\"; try \"%s --help\"",
								 argv[optind - 1], PROGRAM);
		}
	}
	for (; optind < argc; optind++)
	{
		if (o->conninfo_count == MAX_SERVERS)
			return bad_input("too many servers: at most %d", MAX_SERVERS);
		o->conninfos[o->conninfo_count++] = argv[optind];
	}
	if (o->servers_file && read_servers_file(o) != 0)
		return EXIT_BAD_INPUT;
	if (o->replay_path && (o->conninfo_count > 0 || o->host || o->dbname || o->record_path))
		return bad_input("--replay reads a trace; it takes no server and no --record");
	if (o->record_path && o->conninfo_count > 1)
		return bad_input("--record writes the trace of one server; %d were given",
						 o->conninfo_count);
	return 0;
}

static double
monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* --- Connections ---------------------------------------------------------- */

static PGconn *
connect_server(const Options *o, const char *conninfo)
{
	const char *keywords[8];
	const char *values[8];
	int			n = 0;

	/* the connection string comes last, so that what it says wins */
#define ADD(k, v) do { if (v) { keywords[n] = (k); values[n] = (v); n++; } } while (0)
	ADD("host", o->host);
	ADD("port", o->port);
	ADD("user", o->user);
	ADD("connect_timeout", CONNECT_TIMEOUT);
	ADD("application_name", PROGRAM);
	ADD("dbname", conninfo);
#undef ADD
	keywords[n] = NULL;
	values[n] = NULL;
	return PQconnectdbParams(keywords, values, 1);
}

static void
set_label(Server *s)
{
	const char *host = PQhost(s->conn);

	snprintf(s->label, sizeof(s->label), "%s:%s/%s",
			 host && host[0] == '/' ? "local" : (host && host[0] ? host : "?"),
			 PQport(s->conn) && PQport(s->conn)[0] ? PQport(s->conn) : "?",
			 PQdb(s->conn) && PQdb(s->conn)[0] ? PQdb(s->conn) : "?");
}

/* libpq's messages span lines and indent with tabs: make them one line */
static void
one_line(char *text)
{
	char	   *to = text;

	for (const char *from = text; *from; from++)
	{
		char		c = (*from == '\n' || *from == '\t') ? ' ' : *from;

		if (c == ' ' && (to == text || to[-1] == ' '))
			continue;
		*to++ = c;
	}
	while (to > text && to[-1] == ' ')
		to--;
	*to = '\0';
}

/* --- Secrets -------------------------------------------------------------- */

/*
 * Nothing the advisor prints may hold a password: its output goes to cron
 * mails and CI logs.  A server is named by its label, never by its
 * connection string, and libpq's messages are printed with every secret
 * of the connection masked.
 */

static void
add_secret(Server *s, const char *value)
{
	if (value == NULL || value[0] == '\0' || s->secret_count == MAX_SECRETS)
		return;
	for (int i = 0; i < s->secret_count; i++)
		if (strcmp(s->secrets[i], value) == 0)
			return;
	if ((s->secrets[s->secret_count] = strdup(value)) != NULL)
		s->secret_count++;
}

/* Append text[0..n) to out, which holds len bytes, cutting it if full. */
static void
append(char *out, size_t len, size_t *used, const char *text, size_t n)
{
	if (*used + 1 >= len)
		return;
	if (n > len - 1 - *used)
		n = len - 1 - *used;
	memcpy(out + *used, text, n);
	*used += n;
	out[*used] = '\0';
}

/* Copy text to out (one line) with every secret of s masked. */
static void
masked_message(const Server *s, const char *text, char *out, size_t len)
{
	size_t		used = 0;

	out[0] = '\0';
	while (*text)
	{
		size_t		secret_len = 0;

		for (int i = 0; i < s->secret_count; i++)
		{
			size_t		n = strlen(s->secrets[i]);

			if (n > secret_len && strncmp(text, s->secrets[i], n) == 0)
				secret_len = n;
		}
		if (secret_len > 0)
		{
			append(out, len, &used, MASK, strlen(MASK));
			text += secret_len;
		}
		else
			append(out, len, &used, text++, 1);
	}
	one_line(out);
}

/*
 * The longest n such that text[0..n) occurs in within; 0 when text's
 * first character does not.
 */
static size_t
longest_run_in(const char *text, const char *within)
{
	size_t		best = 0;
	size_t		text_len = strlen(text);

	for (const char *w = within; *w; w++)
	{
		size_t		n = 0;

		while (n < text_len && w[n] != '\0' && w[n] == text[n])
			n++;
		if (n > best)
			best = n;
	}
	return best;
}

/*
 * libpq's message about a connection string it could not parse, which
 * quotes parts of it (a URI whole): every run of MASKED_RUN_CHARS or more
 * characters that is also in the string is masked.
 */
static void
unparsed_message(const char *conninfo, const char *text, char *out, size_t len)
{
	size_t		used = 0;

	out[0] = '\0';
	while (*text)
	{
		size_t		run = longest_run_in(text, conninfo);

		if (run >= MASKED_RUN_CHARS)
		{
			append(out, len, &used, MASK, strlen(MASK));
			text += run;
		}
		else
			append(out, len, &used, text++, 1);
	}
	one_line(out);
}

/*
 * What libpq takes for a connection string rather than a database name
 * (its recognized_connection_string()): a URI, or text with an "=".
 */
static bool
is_connection_string(const char *text)
{
	return strncmp(text, "postgresql://", 13) == 0 ||
		strncmp(text, "postgres://", 11) == 0 || strchr(text, '=') != NULL;
}

/*
 * Note the secrets of s's connection string: the options libpq displays
 * as "*" (password, sslpassword).  False when libpq cannot parse it, with
 * a message in error that quotes none of it.
 */
static bool
read_secrets(Server *s, char *error, size_t error_len)
{
	PQconninfoOption *options;
	char	   *message = NULL;

	if (!is_connection_string(s->conninfo))
		return true;
	options = PQconninfoParse(s->conninfo, &message);
	if (options == NULL)
	{
		unparsed_message(s->conninfo, message ? message : "out of memory",
						 error, error_len);
		PQfreemem(message);
		return false;
	}
	for (PQconninfoOption *opt = options; opt->keyword; opt++)
		if (opt->dispchar && strchr(opt->dispchar, '*') && opt->val)
			add_secret(s, opt->val);
	PQconninfoFree(options);
	return true;
}

/* libpq's message on s's connection, one line, its secrets masked. */
static void
connection_error(Server *s, char *out, size_t len)
{
	/* a password from the environment or the password file, too */
	add_secret(s, PQpass(s->conn));
	masked_message(s, PQerrorMessage(s->conn), out, len);
}

static void
free_secrets(Server *s)
{
	for (int i = 0; i < s->secret_count; i++)
		free(s->secrets[i]);
	s->secret_count = 0;
}

/* Connect and read what the advisor needs; false after saying why. */
static bool
open_server(const Options *o, Server *s)
{
	char		error[512];

	if (!read_secrets(s, error, sizeof(error)))
	{
		fprintf(stderr, "%s: could not connect to server %d: invalid connection string: %s\n",
				PROGRAM, s->number, error);
		return false;
	}
	s->conn = connect_server(o, s->conninfo);
	set_label(s);
	if (PQstatus(s->conn) != CONNECTION_OK)
	{
		connection_error(s, error, sizeof(error));
		fprintf(stderr, "%s: could not connect to server \"%s\": %s\n",
				PROGRAM, s->label, error);
		return false;
	}
	add_secret(s, PQpass(s->conn));
	if (!sampling_read_facts(s->conn, &s->facts, error, sizeof(error)))
	{
		fprintf(stderr, "%s: %s: %s\n", PROGRAM, s->label, error);
		return false;
	}
	s->tables_known = sampling_read_tables(s->conn, &s->tables, error, sizeof(error));
	if (!s->tables_known)
		fprintf(stderr, "%s: %s: %s; cycles will be predicted without the working set\n",
				PROGRAM, s->label, error);
	s->adv = calloc(1, sizeof(Advisor));
	if (s->adv == NULL)
	{
		fprintf(stderr, "%s: out of memory\n", PROGRAM);
		return false;
	}
	return true;
}

/* A connection failed: try it again, for at most RECONNECT_WINDOW_S. */
static void
connection_failed(Server *s)
{
	double		now = monotonic_s();

	if (s->failed_at == 0)
	{
		s->failed_at = now;
		fprintf(stderr, "%s: %s: the connection was lost; reconnecting\n",
				PROGRAM, s->label);
	}
	/* blocks up to connect_timeout: the other servers wait meanwhile */
	PQreset(s->conn);
	now = monotonic_s();
	if (PQstatus(s->conn) == CONNECTION_OK)
	{
		fprintf(stderr, "%s: %s: reconnected after %.1f s\n",
				PROGRAM, s->label, now - s->failed_at);
		s->failed_at = 0;
		s->reconnects++;
		return;
	}
	if (now - s->failed_at >= RECONNECT_WINDOW_S)
	{
		char		error[256];

		connection_error(s, error, sizeof(error));
		s->lost = true;
		snprintf(s->note, sizeof(s->note),
				 "the connection was lost and could not be restored in %.0f s (%s); this is what was measured until then",
				 RECONNECT_WINDOW_S, error);
		fprintf(stderr, "%s: %s: %s\n", PROGRAM, s->label, s->note);
	}
}

/* --- Sampling ------------------------------------------------------------- */

static void
print_window(const Options *o, const char *label, const AdvisorWindow *w)
{
	if (o->quiet || o->json)
		return;
	report_window(stdout, label, w);
	fflush(stdout);
}

static void
take_sample(const Options *o, Server *s, const WalsizerSample *sample,
			FILE *record, bool fleet)
{
	AdvisorWindow w;

	/* only what the advisor takes: a replay must take the same */
	if (record && (!s->started || sample->at_us > s->adv->latest.at_us))
		trace_write_sample(record, sample);
	if (!s->started)
	{
		advisor_start(s->adv, &s->facts, &o->advisor, sample);
		s->started = true;
	}
	else if (advisor_add(s->adv, sample, &w))
		print_window(o, fleet ? s->label : NULL, &w);
}

/* Read whatever results have arrived; a finished query clears busy. */
static void
collect(const Options *o, Server *s, FILE *record, bool fleet)
{
	PGresult   *res;
	char		error[256];

	if (!PQconsumeInput(s->conn))
	{
		s->busy = false;
		connection_failed(s);
		return;
	}
	while (!PQisBusy(s->conn))
	{
		WalsizerSample sample;

		res = PQgetResult(s->conn);
		if (res == NULL)
		{
			s->busy = false;
			return;
		}
		if (sampling_parse(res, &sample, error, sizeof(error)))
			take_sample(o, s, &sample, record, fleet);
		else
		{
			one_line(error);
			fprintf(stderr, "%s: %s: %s\n", PROGRAM, s->label, error);
		}
		PQclear(res);
		if (PQstatus(s->conn) != CONNECTION_OK)
		{
			s->busy = false;
			connection_failed(s);
			return;
		}
	}
}

static void
show_progress(const Options *o, double elapsed)
{
	if (o->quiet || !isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r%s: measuring, %.0f of %.0f s ", PROGRAM, elapsed, o->duration_s);
	fflush(stderr);
}

/* Sample every server each sample interval until the run is over. */
static void
sample_servers(const Options *o, Server *servers, int count, FILE *record)
{
	double		start = monotonic_s();
	double		next = start;
	bool		fleet = count > 1;

	while (!interrupted)
	{
		double		now = monotonic_s();
		bool		any = false;

		if (now - start > o->duration_s)
			break;
		if (now >= next)
		{
			for (int i = 0; i < count; i++)
			{
				Server	   *s = &servers[i];
				double		timeout_s = 3 * o->advisor.sample_interval_s;

				if (timeout_s < QUERY_TIMEOUT_S)
					timeout_s = QUERY_TIMEOUT_S;
				if (s->busy && !s->lost && now - s->sent_at > timeout_s)
				{
					fprintf(stderr, "%s: %s: no answer for %.0f s\n",
							PROGRAM, s->label, now - s->sent_at);
					s->busy = false;
					connection_failed(s);
				}
				if (s->lost || s->busy)
					continue;
				if (PQstatus(s->conn) != CONNECTION_OK ||
					!PQsendQuery(s->conn, sampling_query(&s->facts)))
					connection_failed(s);
				else
				{
					s->busy = true;
					s->sent_at = now;
				}
			}
			while (next <= now)
				next += o->advisor.sample_interval_s;
			show_progress(o, now - start);
		}

		/* wait for answers, or for the next sample */
		{
			fd_set		readable;
			int			max_fd = -1;
			double		wait_s = next - monotonic_s();
			struct timeval tv;

			FD_ZERO(&readable);
			for (int i = 0; i < count; i++)
				if (servers[i].busy && PQsocket(servers[i].conn) >= 0)
				{
					FD_SET(PQsocket(servers[i].conn), &readable);
					if (PQsocket(servers[i].conn) > max_fd)
						max_fd = PQsocket(servers[i].conn);
					any = true;
				}
			if (wait_s < 0)
				wait_s = 0;
			tv.tv_sec = (time_t) wait_s;
			tv.tv_usec = (suseconds_t) ((wait_s - (double) tv.tv_sec) * 1e6);
			if (select(any ? max_fd + 1 : 0, any ? &readable : NULL, NULL, NULL, &tv) > 0)
				for (int i = 0; i < count; i++)
					if (servers[i].busy && PQsocket(servers[i].conn) >= 0 &&
						FD_ISSET(PQsocket(servers[i].conn), &readable))
						collect(o, &servers[i], record, fleet);
		}
		{
			bool		all_lost = true;

			for (int i = 0; i < count; i++)
				all_lost &= servers[i].lost;
			if (all_lost)
				break;
		}
	}
	if (!o->quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "\n");
	/* let a query still in flight finish, so that its sample counts */
	for (int i = 0; i < count; i++)
		while (servers[i].busy && !servers[i].lost)
		{
			fd_set		readable;
			struct timeval tv = {5, 0};
			int			fd = PQsocket(servers[i].conn);

			if (fd < 0)
				break;
			FD_ZERO(&readable);
			FD_SET(fd, &readable);
			if (select(fd + 1, &readable, NULL, NULL, &tv) <= 0)
				break;
			collect(o, &servers[i], record, fleet);
		}
}

static void
finish_server(const Options *o, Server *s, bool fleet)
{
	AdvisorWindow w;
	char		error[256];
	bool		elsewhere = false;

	if (!s->started)
	{
		memset(&s->advice, 0, sizeof(s->advice));
		s->advice.verdict = ADVISOR_UNKNOWN;
		snprintf(s->advice.reason, sizeof(s->advice.reason), "no sample was taken");
		return;
	}
	if (advisor_finish_window(s->adv, &w))
		print_window(o, fleet ? s->label : NULL, &w);
	/* the role it was sized as: promoted during the run, a primary */
	s->facts.standby = s->adv->facts.standby;
	/* still down at the end: what was measured is all there is */
	if (!s->lost && (s->busy || s->failed_at != 0))
	{
		s->lost = true;
		snprintf(s->note, sizeof(s->note),
				 "the connection was down at the end of the run; this is what was measured until then");
	}
	if (s->tables_known && !s->lost && PQstatus(s->conn) == CONNECTION_OK &&
		!sampling_working_set(s->conn, &s->tables, s->adv->total.seconds,
							  s->facts.checkpoint_timeout_s, &s->ws,
							  &elsewhere, error, sizeof(error)))
	{
		one_line(error);
		fprintf(stderr, "%s: %s: %s\n", PROGRAM, s->label, error);
	}
	if (elsewhere)
		snprintf(s->note, sizeof(s->note),
				 "most rows changed in other databases than %s: connect to the busiest one for the tables its load changes",
				 PQdb(s->conn));
	advisor_recommend(s->adv, &s->ws, &s->advice);
	if (!s->lost && s->reconnects > 0)
		snprintf(s->note, sizeof(s->note),
				 "the connection was lost and restored %d time%s; the samples in between are missing",
				 s->reconnects, s->reconnects > 1 ? "s" : "");
}

static void
report(const Options *o, Server *servers, int count)
{
	ReportRow	rows[MAX_SERVERS];

	for (int i = 0; i < count; i++)
	{
		rows[i].label = servers[i].label;
		rows[i].facts = &servers[i].facts;
		rows[i].advice = &servers[i].advice;
		rows[i].partial = servers[i].lost;
		rows[i].interrupted = interrupted;
		rows[i].note = servers[i].note[0] ? servers[i].note : NULL;
	}
	if (o->json)
		report_json(stdout, rows, count);
	else
	{
		for (int i = 0; i < count; i++)
			report_text(stdout, &rows[i]);
		if (count > 1)
			report_table(stdout, rows, count);
	}
}

/* --- Replay --------------------------------------------------------------- */

static void
replay_window(const AdvisorWindow *w, void *arg)
{
	print_window((const Options *) arg, NULL, w);
}

/*
 * A trace kept as a simulator regression test carries its properties
 * ("expect ..."): those are the simulator's to check, not errors.
 */
static bool
replay_other_line(const char *line, int line_no, void *arg)
{
	(void) line_no;
	(void) arg;
	line += strspn(line, " \t");
	return strncmp(line, "expect", 6) == 0 && (line[6] == ' ' || line[6] == '\t');
}

static int
replay(const Options *o)
{
	FILE	   *in = strcmp(o->replay_path, "-") == 0 ? stdin : fopen(o->replay_path, "r");
	Advisor    *adv = calloc(1, sizeof(Advisor));
	AdvisorServerFacts facts;
	Advice		advice;
	ReportRow	row;
	char		error[512];
	bool		ok;

	if (in == NULL)
		return bad_input("could not open trace \"%s\": %s", o->replay_path, strerror(errno));
	if (adv == NULL)
		return bad_input("out of memory");
	memset(&facts, 0, sizeof(facts));
	ok = trace_replay(in, &o->advisor, adv, replay_window, replay_other_line, (void *) o,
					  &advice, &facts, error, sizeof(error));
	if (in != stdin)
		fclose(in);
	if (!ok)
	{
		free(adv);
		return bad_input("trace \"%s\": %s", o->replay_path, error);
	}
	memset(&row, 0, sizeof(row));
	row.label = o->replay_path;
	row.facts = &facts;
	row.advice = &advice;
	if (o->json)
		report_json(stdout, &row, 1);
	else
		report_text(stdout, &row);
	free(adv);
	return 0;
}

/* --- main ----------------------------------------------------------------- */

int
main(int argc, char **argv)
{
	Options		o;
	Server	   *servers;
	int			count;
	int			status;
	FILE	   *record = NULL;
	bool		any_lost = false;
	bool		none_sampled = false;
	bool		record_failed = false;

	if ((status = parse_options(argc, argv, &o)) != 0)
		return status;
	if (o.replay_path)
		return replay(&o);

	/* with no connection string, -d or the environment says which server */
	if (o.conninfo_count == 0)
		o.conninfos[o.conninfo_count++] = o.dbname ? o.dbname : "";
	else if (o.dbname)
		return bad_input("-d and connection strings were both given; use --server for each server");
	count = o.conninfo_count;
	servers = calloc(count, sizeof(Server));
	if (servers == NULL)
		return bad_input("out of memory");

	status = 0;
	for (int i = 0; i < count; i++)
	{
		servers[i].conninfo = o.conninfos[i];
		servers[i].number = i + 1;
		if (!open_server(&o, &servers[i]))
			status = EXIT_BAD_INPUT;
	}
	if (status != 0)
		return status;

	if (o.record_path)
	{
		record = fopen(o.record_path, "w");
		if (record == NULL)
			return bad_input("could not open \"%s\" for writing: %s",
							 o.record_path, strerror(errno));
		fprintf(record, "# recorded by %s %s from %s (PostgreSQL %d, %s)\n",
				PROGRAM, ADVISOR_VERSION, servers[0].label, servers[0].facts.major,
				servers[0].facts.standby ? "standby" : "primary");
		trace_write_server(record, &servers[0].facts);
	}

	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	signal(SIGPIPE, SIG_IGN);
	if (!o.quiet && !o.json)
	{
		printf("%s: sampling %d server%s every %.1f s for %.0f s\n", PROGRAM, count,
			   count > 1 ? "s" : "", o.advisor.sample_interval_s, o.duration_s);
		fflush(stdout);
	}
	sample_servers(&o, servers, count, record);

	for (int i = 0; i < count; i++)
	{
		finish_server(&o, &servers[i], count > 1);
		any_lost |= servers[i].lost;
		/* not one sample: nothing was measured on that server */
		none_sampled |= !servers[i].started;
	}
	if (record)
	{
		trace_write_working_set(record, &servers[0].ws);
		record_failed = ferror(record) != 0;
		record_failed |= fclose(record) != 0;
	}
	report(&o, servers, count);
	for (int i = 0; i < count; i++)
	{
		sampling_free_tables(&servers[i].tables);
		free(servers[i].adv);
		free_secrets(&servers[i]);
		PQfinish(servers[i].conn);
	}
	free(servers);
	/* the report is out; a trace that could not be written is still an error */
	if (record_failed)
		return bad_input("could not write \"%s\": %s", o.record_path, strerror(errno));
	if (none_sampled)
		return EXIT_BAD_INPUT;
	return any_lost ? EXIT_PARTIAL : 0;
}
