/*-------------------------------------------------------------------------
 *
 * options.h
 *		pg_walsizer_advisor's command line: what it asks for (Options),
 *		the parsing and validation of its options and arguments, --help,
 *		and the one-line message of bad input.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_ADVISOR_OPTIONS_H
#define WALSIZER_ADVISOR_OPTIONS_H

#include <stdbool.h>

#include "advice.h"

#define PROGRAM "pg_walsizer_advisor"
/*
 * The package's version: the control file's default_version, which the
 * Makefile passes, so that the two cannot differ.
 */
#ifndef WALSIZER_VERSION
#error "WALSIZER_VERSION must be defined (the Makefile passes pg_walsizer.control's default_version)"
#endif
#define ADVISOR_VERSION WALSIZER_VERSION

/*
 * Exit statuses, as PostgreSQL's client programs use them (psql: 1 for
 * its own errors, 2 for a connection that failed): 0 every server was
 * measured; 1 bad input (options, the servers file, a trace), nothing
 * sampled; 2 no server could be measured; 3 some were, in part or not at
 * all (a server down, a connection lost for good), and each row says why.
 */
#define EXIT_MEASURED 0
#define EXIT_BAD_INPUT 1
#define EXIT_NO_SERVER 2
#define EXIT_PARTIAL 3
#define MAX_SERVERS 256

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

/*
 * Fill o from the command line (--help and --version print and exit 0).
 * 0, or EXIT_BAD_INPUT after saying what is wrong.
 */
extern int	advisor_parse_options(int argc, char **argv, Options *o);

/* "pg_walsizer_advisor: error: " and the message on stderr; EXIT_BAD_INPUT. */
extern int	advisor_bad_input(const char *fmt,...) __attribute__((format(printf, 1, 2)));

#endif							/* WALSIZER_ADVISOR_OPTIONS_H */
