/*-------------------------------------------------------------------------
 *
 * options.c
 *		pg_walsizer_advisor's command line: parse and check its options
 *		and arguments into Options, print --help and --version, and say
 *		in one line what is wrong with bad input (EXIT_BAD_INPUT, before any
 *		server is sampled).
 *
 * Each group of options (servers, measuring, policy, output) has a parser
 * of its own; what the options say together is checked once all are read.
 *
 *-------------------------------------------------------------------------
 */
/* strdup(); the unit tests build this file as C99 */
#define _POSIX_C_SOURCE 200809L

#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings_limits.h"

/* the longest --duration, --interval or --max-recovery-time: 7 days */
#define MAX_TIME_S ((double) WALSIZER_WEEK_S)

/* getopt_long's codes for the options without a short form */
enum
{
	OPT_SERVER = 1,
	OPT_SERVERS_FILE,
	OPT_DURATION,
	OPT_INTERVAL,
	OPT_SAMPLE_INTERVAL,
	OPT_RECORD,
	OPT_REPLAY,
	OPT_MAX,
	OPT_MAX_RECOVERY_TIME,
	OPT_REPLAY_RATE,
	OPT_JSON,
	OPT_WHAT_IF,
	OPT_HELP,
	OPT_VERSION
};

/* What a group's parser returns for an option of another group. */
#define NOT_THIS_GROUP (-1)

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
			"      --what-if[=SIZE,...] also the what-if table: per candidate max_wal_size\n"
			"                           (now, recommended, 1/4 to 4x of it, and each SIZE)\n"
			"                           checkpoints, WAL and worst crash recovery\n"
			"  -q, --quiet              no window lines and no progress\n\n"
			"Other options:\n"
			"  -V, --version            output version information, then exit\n"
			"  -?, --help               show this help, then exit\n\n"
			"Connection settings not given here come from libpq's environment\n"
			"variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGSERVICE, ...).\n\n"
			"Exit status: %d every server measured, %d bad input, %d no server could be\n"
			"measured, %d some servers measured in part or not at all (each row says why).\n",
			PROGRAM, PROGRAM, EXIT_MEASURED, EXIT_BAD_INPUT, EXIT_NO_SERVER, EXIT_PARTIAL);
}

int
advisor_bad_input(const char *fmt,...)
{
	va_list		args;

	fprintf(stderr, "%s: error: ", PROGRAM);
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
	if (value < WALSIZER_SIZE_MIN_MB || value > (double) WALSIZER_SIZE_LIMIT_MB)
		return -1;
	return (int64_t) value;
}

static int
add_server(Options *o, const char *conninfo)
{
	if (o->conninfo_count == MAX_SERVERS)
		return advisor_bad_input("too many servers: at most %d", MAX_SERVERS);
	o->conninfos[o->conninfo_count++] = conninfo;
	return 0;
}

/*
 * One server per line of o->servers_file; blank lines and "#" comments are
 * skipped.  A file that names no server, or that cannot be read (a
 * directory), is bad input: never a reason to fall back to the default
 * server.
 */
static int
read_servers_file(Options *o)
{
	FILE	   *f = fopen(o->servers_file, "r");
	char		line[1024];
	int			named = 0;

	if (f == NULL)
		return advisor_bad_input("could not open servers file \"%s\": %s",
								 o->servers_file, strerror(errno));
	while (fgets(line, sizeof(line), f))
	{
		size_t		len = strcspn(line, "\r\n");
		char	   *p = line;

		if (line[len] == '\0' && !feof(f))
		{
			fclose(f);
			return advisor_bad_input("servers file \"%s\": a line is longer than %d characters",
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
			return advisor_bad_input("too many servers: at most %d", MAX_SERVERS);
		}
		if ((o->conninfos[o->conninfo_count++] = strdup(p)) == NULL)
		{
			fclose(f);
			return advisor_bad_input("out of memory");
		}
		named++;
	}
	if (ferror(f))
	{
		int			read_errno = errno;

		fclose(f);
		return advisor_bad_input("could not read servers file \"%s\": %s",
								 o->servers_file, strerror(read_errno));
	}
	fclose(f);
	if (named == 0)
		return advisor_bad_input("servers file \"%s\" names no server (one connection string per line)",
								 o->servers_file);
	return 0;
}

/* -h, -p, -U, -d, --server, --servers-file */
static int
server_option(int c, const char *value, Options *o)
{
	switch (c)
	{
		case 'h':
			o->host = value;
			return 0;
		case 'p':
			o->port = value;
			return 0;
		case 'U':
			o->user = value;
			return 0;
		case 'd':
			o->dbname = value;
			return 0;
		case OPT_SERVER:
			return add_server(o, value);
		case OPT_SERVERS_FILE:
			o->servers_file = value;
			return 0;
	}
	return NOT_THIS_GROUP;
}

/* --duration, --interval, --sample-interval, --record, --replay */
static int
measuring_option(int c, const char *value, Options *o)
{
	double		seconds;

	switch (c)
	{
		case OPT_DURATION:
			if ((seconds = parse_seconds(value)) <= 0 || seconds > MAX_TIME_S)
				return advisor_bad_input("invalid value for --duration: \"%s\" (a time such as 90s, 15min or 1h, at most 7 days)", value);
			o->duration_s = seconds;
			return 0;
		case OPT_INTERVAL:
			if ((seconds = parse_seconds(value)) < 1 || seconds > MAX_TIME_S)
				return advisor_bad_input("invalid value for --interval: \"%s\" (a time from 1s to 7 days)", value);
			o->advisor.window_s = seconds;
			return 0;
		case OPT_SAMPLE_INTERVAL:
			if ((seconds = parse_seconds(value)) < 0.1 || seconds > 60)
				return advisor_bad_input("invalid value for --sample-interval: \"%s\" (100ms to 60s)", value);
			o->advisor.sample_interval_s = seconds;
			return 0;
		case OPT_RECORD:
			o->record_path = value;
			return 0;
		case OPT_REPLAY:
			o->replay_path = value;
			return 0;
	}
	return NOT_THIS_GROUP;
}

/* --max, --max-recovery-time, --replay-rate: the extension's settings */
static int
policy_option(int c, const char *value, Options *o)
{
	double		seconds;
	double		mb_s;
	char	   *end;

	switch (c)
	{
		case OPT_MAX:
			if ((o->advisor.max_mb = parse_mb(value)) < 0)
				return advisor_bad_input("invalid value for --max: \"%s\" (a size such as 4096MB or 4GB)", value);
			return 0;
		case OPT_MAX_RECOVERY_TIME:
			if ((seconds = parse_seconds(value)) < 0 || seconds > MAX_TIME_S)
				return advisor_bad_input("invalid value for --max-recovery-time: \"%s\" (a time such as 300s; 0 turns the bound off)", value);
			o->advisor.max_recovery_s = seconds;
			return 0;
		case OPT_REPLAY_RATE:
			mb_s = strtod(value, &end);
			if (end == value || *end != '\0' || !isfinite(mb_s) || mb_s <= 0)
				return advisor_bad_input("invalid value for --replay-rate: \"%s\" (MB/s, above 0)", value);
			o->advisor.replay_rate_bytes_s = mb_s * 1024 * 1024;
			return 0;
	}
	return NOT_THIS_GROUP;
}

/*
 * --what-if's sizes: "1GB,8GB", at most WALSIZER_WHAT_IF_MAX_ASKED, each a
 * size as --max takes it; none (a bare --what-if) is the table without.
 */
static int
parse_what_if_sizes(const char *value, Options *o)
{
	char		size[64];
	const char *p = value;

	o->advisor.what_if = true;
	o->advisor.what_if_count = 0;
	if (value == NULL)
		return 0;
	for (;;)
	{
		size_t		len = strcspn(p, ",");
		int64_t		mb;

		if (len == 0 || len >= sizeof(size))
			return advisor_bad_input("invalid value for --what-if: \"%s\" (sizes such as 1GB,8GB)", value);
		memcpy(size, p, len);
		size[len] = '\0';
		if ((mb = parse_mb(size)) < 0)
			return advisor_bad_input("invalid value for --what-if: \"%s\" (\"%s\" is not a size such as 1024MB or 8GB)",
									 value, size);
		if (o->advisor.what_if_count == WALSIZER_WHAT_IF_MAX_ASKED)
			return advisor_bad_input("invalid value for --what-if: \"%s\" (at most %d sizes)",
									 value, WALSIZER_WHAT_IF_MAX_ASKED);
		o->advisor.what_if_mb[o->advisor.what_if_count++] = mb;
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

static void
print_version(void)
{
	printf("%s (pg_walsizer) %s\n", PROGRAM, ADVISOR_VERSION);
}

/* -q, --json, --what-if, -?, --help, -V, --version */
static int
output_option(int c, const char *value, Options *o)
{
	switch (c)
	{
		case 'q':
			o->quiet = true;
			return 0;
		case OPT_JSON:
			o->json = true;
			return 0;
		case OPT_WHAT_IF:
			return parse_what_if_sizes(value, o);
		case OPT_HELP:
			usage(stdout);
			exit(EXIT_MEASURED);
		case 'V':
		case OPT_VERSION:
			print_version();
			exit(EXIT_MEASURED);
	}
	return NOT_THIS_GROUP;
}

/* One option getopt_long returned: its group's parser, or what is wrong. */
static int
take_option(int c, char **argv, Options *o)
{
	int			status;

	if ((status = server_option(c, optarg, o)) != NOT_THIS_GROUP)
		return status;
	if ((status = measuring_option(c, optarg, o)) != NOT_THIS_GROUP)
		return status;
	if ((status = policy_option(c, optarg, o)) != NOT_THIS_GROUP)
		return status;
	if ((status = output_option(c, optarg, o)) != NOT_THIS_GROUP)
		return status;
	/* getopt's '?' is also what an unknown option returns: look at it */
	if (c == '?' && optind > 1 && strcmp(argv[optind - 1], "-?") == 0)
		return output_option(OPT_HELP, NULL, o);
	if (c == ':')
		return advisor_bad_input("option %s needs a value; try \"%s --help\"",
								 argv[optind - 1], PROGRAM);
	return advisor_bad_input("unknown option \"%s\"; try \"%s --help\"",
							 argv[optind - 1], PROGRAM);
}

/*
 * Once every option is read: the CONNINFO arguments, the servers file,
 * and what the options cannot be given together.
 */
static int
check_servers(int argc, char **argv, Options *o)
{
	for (; optind < argc; optind++)
		if (add_server(o, argv[optind]) != 0)
			return EXIT_BAD_INPUT;
	if (o->servers_file && read_servers_file(o) != 0)
		return EXIT_BAD_INPUT;
	if (o->replay_path && (o->conninfo_count > 0 || o->host || o->dbname || o->record_path))
		return advisor_bad_input("--replay reads a trace; it takes no server and no --record");
	if (o->record_path && o->conninfo_count > 1)
		return advisor_bad_input("--record writes the trace of one server; %d were given",
								 o->conninfo_count);
	return 0;
}

int
advisor_parse_options(int argc, char **argv, Options *o)
{
	static const struct option long_options[] = {
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"username", required_argument, NULL, 'U'},
		{"dbname", required_argument, NULL, 'd'},
		{"quiet", no_argument, NULL, 'q'},
		{"server", required_argument, NULL, OPT_SERVER},
		{"servers-file", required_argument, NULL, OPT_SERVERS_FILE},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"interval", required_argument, NULL, OPT_INTERVAL},
		{"sample-interval", required_argument, NULL, OPT_SAMPLE_INTERVAL},
		{"record", required_argument, NULL, OPT_RECORD},
		{"replay", required_argument, NULL, OPT_REPLAY},
		{"max", required_argument, NULL, OPT_MAX},
		{"max-recovery-time", required_argument, NULL, OPT_MAX_RECOVERY_TIME},
		{"replay-rate", required_argument, NULL, OPT_REPLAY_RATE},
		{"json", no_argument, NULL, OPT_JSON},
		{"what-if", optional_argument, NULL, OPT_WHAT_IF},
		{"help", no_argument, NULL, OPT_HELP},
		{"version", no_argument, NULL, OPT_VERSION},
		{NULL, 0, NULL, 0}
	};
	int			c;
	int			status;

	memset(o, 0, sizeof(*o));
	o->duration_s = 15 * 60;
	advisor_default_options(&o->advisor);
	opterr = 0;
	optind = 1;					/* the unit tests parse more than one line */
	while ((c = getopt_long(argc, argv, ":h:p:U:d:qV?", long_options, NULL)) != -1)
		if ((status = take_option(c, argv, o)) != 0)
			return status;
	return check_servers(argc, argv, o);
}
