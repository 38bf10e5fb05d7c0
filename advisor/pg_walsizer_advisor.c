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
 * A server that cannot be measured (down, a bad connection string, a role
 * without pg_monitor) does not stop the others: its row says why.  Exit
 * status (options.h): 0 every server measured, 1 bad input, 2 no server
 * could be measured, 3 some were measured in part or not at all.
 *
 * This file holds the run: the connections and their reconnection, the
 * sampling loop, the replay of a trace, and main.  The command line is
 * options.c's, the masking of passwords in what is printed secrets.c's,
 * the output report.c's.
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "advice.h"
#include "options.h"
#include "report.h"
#include "sample_trace.h"
#include "secrets.h"
#include "server_sampling.h"

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

typedef struct Server
{
	const char *conninfo;		/* never printed: it may hold a password */
	int			number;			/* its place among the servers, from 1 */
	char		label[128];		/* host:port/dbname, what is printed */
	AdvisorSecrets secrets;		/* masked in libpq's messages */
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
	char		error[512];		/* why it could not be measured, or "" */
	AdvisorWorkingSet ws;
	Advice		advice;
} Server;

static volatile sig_atomic_t interrupted = 0;

static void
on_interrupt(int signo)
{
	/* the first stops the run and reports; a second one stops at once */
	interrupted = 1;
	signal(signo, SIG_DFL);
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

/* libpq's message on s's connection, one line, its secrets masked. */
static void
connection_error(Server *s, char *out, size_t len)
{
	/* a password from the environment or the password file, too */
	advisor_add_secret(&s->secrets, PQpass(s->conn));
	advisor_masked_message(&s->secrets, PQerrorMessage(s->conn), out, len);
}

/*
 * s could not be measured: say why on stderr, as libpq says it (its lines
 * kept), and keep it in one line for its row.
 */
static bool
server_failed(Server *s, const char *what, const char *why)
{
	fprintf(stderr, "%s: error: %s: %s\n", PROGRAM, what, why);
	snprintf(s->error, sizeof(s->error), "%s", why);
	advisor_one_line(s->error, sizeof(s->error));
	return false;
}

/* Connect and read what the advisor needs; false after saying why. */
static bool
open_server(const Options *o, Server *s)
{
	char		error[512];
	char		what[192];

	if (!advisor_read_secrets(&s->secrets, s->conninfo, error, sizeof(error)))
	{
		/* its text may hold a password: named by its place */
		snprintf(s->label, sizeof(s->label), "server %d", s->number);
		snprintf(what, sizeof(what), "could not connect to server %d: invalid connection string",
				 s->number);
		return server_failed(s, what, error);
	}
	s->conn = connect_server(o, s->conninfo);
	set_label(s);
	if (PQstatus(s->conn) != CONNECTION_OK)
	{
		connection_error(s, error, sizeof(error));
		snprintf(what, sizeof(what), "could not connect to server \"%s\"", s->label);
		return server_failed(s, what, error);
	}
	advisor_add_secret(&s->secrets, PQpass(s->conn));
	if (!sampling_read_facts(s->conn, &s->facts, error, sizeof(error)))
		return server_failed(s, s->label, error);
	s->tables_known = sampling_read_tables(s->conn, &s->tables, error, sizeof(error));
	if (!s->tables_known)
		fprintf(stderr, "%s: %s: %s; cycles will be predicted without the working set\n",
				PROGRAM, s->label, error);
	s->adv = calloc(1, sizeof(Advisor));
	if (s->adv == NULL)
		return server_failed(s, s->label, "out of memory");
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
		advisor_one_line(error, sizeof(error));
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
			advisor_one_line(error, sizeof(error));
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
		snprintf(s->advice.reason, sizeof(s->advice.reason), "%s",
				 s->error[0] ? s->error : "no sample was taken");
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
		advisor_one_line(error, sizeof(error));
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
		rows[i].sampled = servers[i].started;
		rows[i].error = servers[i].error[0] ? servers[i].error : NULL;
	}
	if (o->json)
		report_json(stdout, rows, count, time(NULL));
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
		return advisor_bad_input("could not open trace \"%s\": %s", o->replay_path, strerror(errno));
	if (adv == NULL)
		return advisor_bad_input("out of memory");
	memset(&facts, 0, sizeof(facts));
	ok = trace_replay(in, &o->advisor, adv, replay_window, replay_other_line, (void *) o,
					  &advice, &facts, error, sizeof(error));
	if (in != stdin)
		fclose(in);
	if (!ok)
	{
		free(adv);
		return advisor_bad_input("trace \"%s\": %s", o->replay_path, error);
	}
	memset(&row, 0, sizeof(row));
	row.label = o->replay_path;
	row.facts = &facts;
	row.advice = &advice;
	row.sampled = true;
	if (o->json)
		report_json(stdout, &row, 1, time(NULL));
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
	int			sampled = 0;
	int			reachable = 0;
	bool		record_failed = false;

	if ((status = advisor_parse_options(argc, argv, &o)) != 0)
		return status;
	if (o.replay_path)
		return replay(&o);

	/* with no connection string, -d or the environment says which server */
	if (o.conninfo_count == 0)
		o.conninfos[o.conninfo_count++] = o.dbname ? o.dbname : "";
	else if (o.dbname)
		return advisor_bad_input("-d and connection strings were both given; use --server for each server");
	count = o.conninfo_count;
	servers = calloc(count, sizeof(Server));
	if (servers == NULL)
		return advisor_bad_input("out of memory");

	/* one server that cannot be measured stops none of the others */
	for (int i = 0; i < count; i++)
	{
		servers[i].conninfo = o.conninfos[i];
		servers[i].number = i + 1;
		if (open_server(&o, &servers[i]))
			reachable++;
		else
			servers[i].lost = true;
	}
	if (reachable == 0)
	{
		/* a fleet's rows, and a JSON document, say why each was not measured */
		if (count > 1 || o.json)
		{
			for (int i = 0; i < count; i++)
				finish_server(&o, &servers[i], count > 1);
			report(&o, servers, count);
		}
		return EXIT_NO_SERVER;
	}

	if (o.record_path)
	{
		record = fopen(o.record_path, "w");
		if (record == NULL)
			return advisor_bad_input("could not open \"%s\" for writing: %s",
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
		/* lost, never reached, or not one sample: measured in part */
		any_lost |= servers[i].lost || !servers[i].started;
		sampled += servers[i].started;
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
		advisor_free_secrets(&servers[i].secrets);
		PQfinish(servers[i].conn);
	}
	free(servers);
	/* the report is out; a trace that could not be written is still an error */
	if (record_failed)
		return advisor_bad_input("could not write \"%s\": %s", o.record_path, strerror(errno));
	if (sampled == 0)
		return EXIT_NO_SERVER;
	return any_lost ? EXIT_PARTIAL : EXIT_MEASURED;
}
