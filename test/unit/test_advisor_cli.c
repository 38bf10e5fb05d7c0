/*-------------------------------------------------------------------------
 *
 * test_advisor_cli.c
 *		pg_walsizer_advisor's command line and JSON, without a server
 *		(advisor/options.c, advisor/report.c).
 *
 * A servers file that names no server, or that cannot be read, is bad
 * input, never a run on the default server.  Times and sizes take the
 * units the extension's settings do (ms, s, min, h; MB, GB, TB, 1024 to
 * the next), and a value out of bounds or in a unit it does not know is
 * bad input, never a guess; a trace is one server's.  The JSON document
 * carries the advisor's version and time, names actions and columns as the
 * SQL API does (walsizer.recommendation), and says null for what is
 * unknown.
 * Where there is something to apply, the text and the JSON give it as
 * ALTER SYSTEM, as a patronictl command and as a CloudNativePG field.
 * A fleet is one array, and control characters in a message are escaped.
 *
 *-------------------------------------------------------------------------
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <unistd.h>

#include "unit.h"

#include "options.h"
#include "report.h"

static char dir[] = "/tmp/walsizer_cli_XXXXXX";
/* on the heap: their sizes are no business of unit.h's messages */
#define TEXT_SIZE 8192
static char *messages;

/* Parse argv into o; what it said on stderr goes to messages. */
static int
parse(int argc, char **argv, Options *o)
{
	FILE	   *err = tmpfile();
	int			saved = dup(fileno(stderr));
	int			status;
	size_t		n;

	fflush(stderr);
	dup2(fileno(err), fileno(stderr));
	status = advisor_parse_options(argc, argv, o);
	fflush(stderr);
	dup2(saved, fileno(stderr));
	close(saved);
	rewind(err);
	n = fread(messages, 1, TEXT_SIZE - 1, err);
	messages[n] = '\0';
	fclose(err);
	return status;
}

static const char *
servers_file(const char *name, const char *text)
{
	static char path[256];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static int
parse_servers_file(const char *path, Options *o)
{
	char		arg[300];
	char	   *argv[] = {"pg_walsizer_advisor", arg, NULL};

	snprintf(arg, sizeof(arg), "--servers-file=%s", path);
	return parse(2, argv, o);
}

static void
an_empty_servers_file_is_bad_input(void)
{
	Options		o;

	CHECK_EQ(parse_servers_file(servers_file("empty", ""), &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "pg_walsizer_advisor: error: servers file \"");
	CHECK_STR_CONTAINS(messages, "names no server");
	CHECK_EQ(o.conninfo_count, 0);
}

static void
a_servers_file_of_comments_is_bad_input(void)
{
	Options		o;

	CHECK_EQ(parse_servers_file(servers_file("comments", "# db1\n\n  # db2\n\t\n"), &o),
			 EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "names no server");
}

static void
a_directory_is_not_a_servers_file(void)
{
	Options		o;

	CHECK_EQ(parse_servers_file(dir, &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "pg_walsizer_advisor: error: could not read servers file \"");
	CHECK_STR_CONTAINS(messages, "Is a directory");
}

static void
a_servers_file_names_its_servers(void)
{
	Options		o;

	CHECK_EQ(parse_servers_file(servers_file("two", "# fleet\nport=5432\n\n  port=5433\n"), &o), 0);
	CHECK_EQ(o.conninfo_count, 2);
	if (o.conninfo_count == 2)
	{
		CHECK_STR_CONTAINS(o.conninfos[0], "port=5432");
		CHECK_STR_CONTAINS(o.conninfos[1], "port=5433");
	}
	/* the program keeps them for its run; a test gives them back */
	for (int i = 0; i < o.conninfo_count; i++)
		free((void *) o.conninfos[i]);
}

static void
bad_input_and_unreachable_servers_exit_differently(void)
{
	char	   *argv[] = {"pg_walsizer_advisor", "--duration=soon", NULL};
	Options		o;

	CHECK_EQ(parse(2, argv, &o), EXIT_BAD_INPUT);
	CHECK_EQ(EXIT_BAD_INPUT, 1);
	CHECK_EQ(EXIT_NO_SERVER, 2);
	CHECK_EQ(EXIT_PARTIAL, 3);
	CHECK_STR_CONTAINS(messages, "pg_walsizer_advisor: error: invalid value for --duration");
}

/* Parse one option alone; 0 or EXIT_BAD_INPUT. */
static int
parse_one(const char *option, Options *o)
{
	char	   *argv[] = {"pg_walsizer_advisor", (char *) option, NULL};

	return parse(2, argv, o);
}

/* A time is seconds unless it says ms, s, min or h. */
static void
times_take_their_units(void)
{
	Options		o;

	CHECK_EQ(parse_one("--duration=90", &o), 0);
	CHECK(o.duration_s == 90);
	CHECK_EQ(parse_one("--duration=15min", &o), 0);
	CHECK(o.duration_s == 900);
	CHECK_EQ(parse_one("--duration=2h", &o), 0);
	CHECK(o.duration_s == 7200);
	CHECK_EQ(parse_one("--sample-interval=500ms", &o), 0);
	CHECK(o.advisor.sample_interval_s == 0.5);
	CHECK_EQ(parse_one("--interval=5min", &o), 0);
	CHECK(o.advisor.window_s == 300);
	/* at most 7 days, and a unit the advisor knows */
	CHECK_EQ(parse_one("--duration=169h", &o), EXIT_BAD_INPUT);
	CHECK_EQ(parse_one("--duration=1d", &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "invalid value for --duration: \"1d\"");
}

/* A run that samples nothing is bad input, not a recommendation. */
static void
a_duration_of_zero_is_bad_input(void)
{
	Options		o;

	CHECK_EQ(parse_one("--duration=0", &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "invalid value for --duration: \"0\"");
	CHECK_EQ(parse_one("--duration=0min", &o), EXIT_BAD_INPUT);
}

/* --max as walsizer.max: MB unless it says GB or TB, 1024 to the next. */
static void
sizes_take_their_units(void)
{
	Options		o;

	CHECK_EQ(parse_one("--max=4096", &o), 0);
	CHECK_EQ(o.advisor.max_mb, 4096);
	CHECK_EQ(parse_one("--max=512MB", &o), 0);
	CHECK_EQ(o.advisor.max_mb, 512);
	CHECK_EQ(parse_one("--max=4GB", &o), 0);
	CHECK_EQ(o.advisor.max_mb, 4096);
	CHECK_EQ(parse_one("--max=1TB", &o), 0);
	CHECK_EQ(o.advisor.max_mb, 1024 * 1024);
	/* a unit it does not know is bad input, never MB */
	CHECK_EQ(parse_one("--max=4kB", &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "invalid value for --max: \"4kB\"");
	CHECK_EQ(parse_one("--max=4G", &o), EXIT_BAD_INPUT);
	/* below max_wal_size's two segments */
	CHECK_EQ(parse_one("--max=1MB", &o), EXIT_BAD_INPUT);
}

/* As walsizer.max_recovery_time: 0 turns the bound off. */
static void
a_max_recovery_time_of_zero_turns_the_bound_off(void)
{
	Options		o;

	CHECK_EQ(parse_one("--max-recovery-time=0", &o), 0);
	CHECK(o.advisor.max_recovery_s == 0);
	CHECK_EQ(parse_one("--max-recovery-time=2min", &o), 0);
	CHECK(o.advisor.max_recovery_s == 120);
	CHECK_EQ(parse_one("--max-recovery-time=-1", &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "invalid value for --max-recovery-time");
}

/* As walsizer.replay_rate: MB/s of 1024 * 1024 bytes, above 0. */
static void
the_replay_rate_is_in_mb_per_second(void)
{
	Options		o;

	CHECK_EQ(parse_one("--replay-rate=20", &o), 0);
	CHECK(o.advisor.replay_rate_bytes_s == 20.0 * 1024 * 1024);
	CHECK_EQ(parse_one("--replay-rate=0", &o), EXIT_BAD_INPUT);
	CHECK_EQ(parse_one("--replay-rate=20MB/s", &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "invalid value for --replay-rate: \"20MB/s\"");
}

/* A trace is one server's: --record takes one, --replay none. */
static void
a_trace_is_one_servers(void)
{
	char	   *one[] = {"pg_walsizer_advisor", "--record=t.trace", "port=5432", NULL};
	char	   *two[] = {"pg_walsizer_advisor", "--record=t.trace", "port=5432", "port=5433", NULL};
	char	   *replay[] = {"pg_walsizer_advisor", "--replay=t.trace", "port=5432", NULL};
	Options		o;

	CHECK_EQ(parse(3, one, &o), 0);
	CHECK_EQ(o.conninfo_count, 1);
	CHECK_EQ(parse(4, two, &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "--record writes the trace of one server; 2 were given");
	CHECK_EQ(parse(3, replay, &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "--replay reads a trace; it takes no server");
}

/* --- --what-if ---------------------------------------------------------------- */

static void
what_if_takes_sizes_or_none(void)
{
	char	   *bare[] = {"pg_walsizer_advisor", "--what-if", NULL};
	char	   *sizes[] = {"pg_walsizer_advisor", "--what-if=1GB,8192MB", NULL};
	char	   *none[] = {"pg_walsizer_advisor", NULL};
	Options		o;

	CHECK_EQ(parse(2, bare, &o), 0);
	CHECK(o.advisor.what_if);
	CHECK_EQ(o.advisor.what_if_count, 0);
	CHECK_EQ(parse(2, sizes, &o), 0);
	CHECK(o.advisor.what_if);
	CHECK_EQ(o.advisor.what_if_count, 2);
	CHECK_EQ(o.advisor.what_if_mb[0], 1024);
	CHECK_EQ(o.advisor.what_if_mb[1], 8192);
	CHECK_EQ(parse(1, none, &o), 0);
	CHECK(!o.advisor.what_if);
}

static void
what_if_rejects_what_is_not_a_size(void)
{
	char	   *word[] = {"pg_walsizer_advisor", "--what-if=1GB,soon", NULL};
	char	   *empty[] = {"pg_walsizer_advisor", "--what-if=", NULL};
	char	   *gap[] = {"pg_walsizer_advisor", "--what-if=1GB,,2GB", NULL};
	char	   *many[] = {"pg_walsizer_advisor",
	"--what-if=1GB,2GB,3GB,4GB,5GB,6GB,7GB,8GB,9GB", NULL};
	Options		o;

	CHECK_EQ(parse(2, word, &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "invalid value for --what-if: \"1GB,soon\" (\"soon\" is not a size");
	CHECK_EQ(parse(2, empty, &o), EXIT_BAD_INPUT);
	CHECK_EQ(parse(2, gap, &o), EXIT_BAD_INPUT);
	CHECK_EQ(parse(2, many, &o), EXIT_BAD_INPUT);
	CHECK_STR_CONTAINS(messages, "at most 8 sizes");
}

/* --- JSON ------------------------------------------------------------------- */

static char *json;

static void
to_json(const ReportRow *rows, int count)
{
	FILE	   *out = tmpfile();
	size_t		n;

	/* 2026-01-02 03:04:05 UTC */
	report_json(out, rows, count, (time_t) 1767323045);
	rewind(out);
	n = fread(json, 1, TEXT_SIZE - 1, out);
	json[n] = '\0';
	fclose(out);
}

/* The text report of one row, into the same buffer. */
static void
to_text(const ReportRow *row)
{
	FILE	   *out = tmpfile();
	size_t		n;

	report_text(out, row);
	rewind(out);
	n = fread(json, 1, TEXT_SIZE - 1, out);
	json[n] = '\0';
	fclose(out);
}

static void
json_carries_the_version_and_the_time(void)
{
	to_json(NULL, 0);
	CHECK_STR_CONTAINS(json, "\"program\": \"pg_walsizer_advisor\"");
	CHECK_STR_CONTAINS(json, "\"version\": \"" WALSIZER_VERSION "\"");
	CHECK_STR_CONTAINS(json, "\"at\": \"2026-01-02T03:04:05Z\"");
}

static void
json_names_actions_as_the_sql_api(void)
{
	AdvisorServerFacts facts = {.major = 15};
	Advice		a = {.verdict = ADVISOR_KEEP, .current_mb = 1024,
	.recommended_mb = 1024, .needed_mb = 300, .cap_mb = 4096, .seconds = 60,
	.wal_bytes = 1 << 20};
	ReportRow	row = {.label = "db1:5432/postgres", .facts = &facts,
	.advice = &a, .sampled = true};

	to_json(&row, 1);
	/* walsizer.recommendation's action: "none", not the advisor's "keep" */
	CHECK_STR_CONTAINS(json, "\"action\": \"none\"");
	CHECK_STR_CONTAINS(json, "\"max_wal_size_mb\": 1024");
	CHECK_STR_CONTAINS(json, "\"recommended_mb\": 1024");
	CHECK_STR_CONTAINS(json, "\"wal_forced\": 0");
	CHECK_STR_CONTAINS(json, "\"error\": null");
	CHECK_STR_CONTAINS(json, "\"apply\": null");
	CHECK_STR_CONTAINS(json, "\"apply_patroni\": null");
	CHECK_STR_CONTAINS(json, "\"apply_cloudnativepg\": null");
	a.verdict = ADVISOR_GROW_CAPPED;
	to_json(&row, 1);
	CHECK_STR_CONTAINS(json, "\"action\": \"capped\"");
	CHECK_STR_CONTAINS(json, "\"apply\": \"ALTER SYSTEM SET max_wal_size = '1024MB'; SELECT pg_reload_conf();\"");
	CHECK_STR_CONTAINS(json, "\"apply_patroni\": \"patronictl edit-config -s postgresql.parameters.max_wal_size=1024MB\"");
	/* a JSON string holding the YAML's quotes */
	CHECK_STR_CONTAINS(json, "\"apply_cloudnativepg\": \"spec.postgresql.parameters.max_wal_size: \\\"1024MB\\\"\"");
}

static void
json_says_null_for_what_is_unknown(void)
{
	AdvisorServerFacts facts = {0};
	Advice		a = {.verdict = ADVISOR_UNKNOWN};
	ReportRow	row = {.label = "db2:5432/postgres", .facts = &facts,
		.advice = &a, .partial = true,
	.error = "connection to server at \"db2\", port 5432 failed: Connection refused"};

	to_json(&row, 1);
	CHECK_STR_CONTAINS(json, "\"error\": \"connection to server at \\\"db2\\\", port 5432 failed");
	CHECK_STR_CONTAINS(json, "\"major\": null");
	CHECK_STR_CONTAINS(json, "\"role\": null");
	CHECK_STR_CONTAINS(json, "\"seconds\": null");
	CHECK_STR_CONTAINS(json, "\"max_wal_size_mb\": null");
	CHECK_STR_CONTAINS(json, "\"action\": null");
	CHECK_STR_CONTAINS(json, "\"recommended_mb\": null");
	CHECK_STR_CONTAINS(json, "\"needed_mb\": null");
	CHECK_STR_CONTAINS(json, "\"estimated_recovery_s\": null");
	CHECK_STR_CONTAINS(json, "\"fpi_share\": null");
	CHECK_STR_CONTAINS(json, "\"partial\": true");
	CHECK(strstr(json, "\"recommended_mb\": 0") == NULL);
}

/* Held at the cap, the text says what the load needs beyond it. */
static void
text_says_when_the_cap_holds_the_size_back(void)
{
	AdvisorServerFacts facts = {.major = 16, .redo_known = true};
	Advice		a = {.verdict = ADVISOR_GROW_CAPPED, .current_mb = 1024,
		.recommended_mb = 4096, .needed_mb = 6000, .cap_mb = 4096,
		.cap_source = WALSIZER_CAP_SETTING, .seconds = 60,
		.wal_bytes = 1 << 20, .reason = "r", .basis = "b"};
	ReportRow	row = {.label = "db1:5432/postgres", .facts = &facts,
	.advice = &a, .sampled = true};

	to_text(&row);
	CHECK_STR_CONTAINS(json, "  capped: the load needs 6000MB, above the cap of 4096MB (walsizer.max)\n");
	/* below the cap there is nothing to say */
	a.verdict = ADVISOR_GROW;
	a.needed_mb = 2048;
	a.recommended_mb = 2048;
	to_text(&row);
	CHECK(strstr(json, "capped") == NULL);
}

/* An error message may hold a newline: the JSON escapes it. */
static void
json_escapes_control_characters(void)
{
	AdvisorServerFacts facts = {0};
	Advice		a = {.verdict = ADVISOR_UNKNOWN};
	ReportRow	row = {.label = "db3", .facts = &facts, .advice = &a,
	.error = "could not connect\n\tis the server running?"};

	to_json(&row, 1);
	CHECK_STR_CONTAINS(json, "\"error\": \"could not connect\\u000a\\u0009is the server running?\"");
	CHECK(strchr(json, '\t') == NULL);
}

/* A load that needs nothing measurable has no needed size: null, not 0. */
static void
json_needed_mb_is_null_when_nothing_is_needed(void)
{
	AdvisorServerFacts facts = {.major = 15};
	Advice		a = {.verdict = ADVISOR_KEEP, .current_mb = 1024,
		.recommended_mb = 1024, .needed_mb = 0, .cap_mb = 4096, .seconds = 60};
	ReportRow	row = {.label = "idle", .facts = &facts, .advice = &a,
	.sampled = true};

	to_json(&row, 1);
	CHECK_STR_CONTAINS(json, "\"needed_mb\": null");
	CHECK_STR_CONTAINS(json, "\"recommended_mb\": 1024");
}

/* A fleet is an array of servers, separated by commas. */
static void
json_lists_a_fleet_as_one_array(void)
{
	AdvisorServerFacts facts = {0};
	Advice		a = {.verdict = ADVISOR_UNKNOWN};
	ReportRow	rows[] = {
		{.label = "db1", .facts = &facts, .advice = &a, .error = "down"},
		{.label = "db2", .facts = &facts, .advice = &a, .error = "down"},
		{.label = "db3", .facts = &facts, .advice = &a, .error = "down"},
	};

	to_json(rows, 3);
	CHECK_STR_CONTAINS(json, "\"servers\": [\n  {\"server\": \"db1\", ");
	CHECK_STR_CONTAINS(json, "},\n  {\"server\": \"db2\", ");
	CHECK_STR_CONTAINS(json, "},\n  {\"server\": \"db3\", ");
	CHECK_STR_CONTAINS(json, "}\n]}\n");
}

/* Beside ALTER SYSTEM, the same size for Patroni and for CloudNativePG. */
static void
text_names_the_ha_managers_commands(void)
{
	AdvisorServerFacts facts = {.major = 17};
	Advice		a = {.verdict = ADVISOR_GROW, .current_mb = 64,
		.recommended_mb = 704, .needed_mb = 704, .cap_mb = 4096, .seconds = 60,
		.wal_bytes = 1 << 20, .reason = "r", .basis = "b"};
	ReportRow	row = {.label = "db1:5432/postgres", .facts = &facts,
	.advice = &a, .sampled = true};
	FILE	   *out = tmpfile();
	size_t		n;

	report_text(out, &row);
	rewind(out);
	n = fread(json, 1, TEXT_SIZE - 1, out);
	json[n] = '\0';
	fclose(out);
	CHECK_STR_CONTAINS(json, "  apply: ALTER SYSTEM SET max_wal_size = '704MB'; SELECT pg_reload_conf();\n");
	CHECK_STR_CONTAINS(json, "         or, under Patroni: patronictl edit-config -s postgresql.parameters.max_wal_size=704MB\n");
	CHECK_STR_CONTAINS(json, "         or, in a CloudNativePG Cluster: spec.postgresql.parameters.max_wal_size: \"704MB\"\n");
	/* nothing to apply: no command at all */
	a.verdict = ADVISOR_KEEP;
	out = tmpfile();
	report_text(out, &row);
	rewind(out);
	n = fread(json, 1, TEXT_SIZE - 1, out);
	json[n] = '\0';
	fclose(out);
	CHECK_STR_CONTAINS(json, "  apply: nothing to change\n");
	CHECK(strstr(json, "patronictl") == NULL);
	CHECK(strstr(json, "CloudNativePG") == NULL);
}

/*
 * An advice with the table of what_if.c around 1024 MB, recommended 2048,
 * the cap at 4096: the ladder's 8192 is above it.
 */
static void
advice_with_a_table(Advice *a)
{
	WalsizerWhatIfInput in;

	memset(a, 0, sizeof(*a));
	a->verdict = ADVISOR_GROW;
	a->current_mb = 1024;
	a->recommended_mb = 2048;
	a->needed_mb = 2048;
	a->cap_mb = 4096;
	a->seconds = 600;
	a->wal_bytes = 1 << 30;
	snprintf(a->reason, sizeof(a->reason), "r");
	snprintf(a->basis, sizeof(a->basis), "b");
	memset(&in, 0, sizeof(in));
	in.load.record_bytes_s = 1 << 20;
	in.load.fpi_bytes_per_cycle = 100 << 20;
	in.load.cycle_s = 60;
	in.load.working_set_bytes = 1024.0 * (1 << 20);
	in.segment_bytes = 16 << 20;
	in.checkpoint_timeout_s = 300;
	in.completion_target = 0.9;
	in.replay_bytes_per_s = 20 << 20;
	in.replay_rate_source = "assumed";
	in.cap_mb = 4096;
	in.cap_source = WALSIZER_CAP_SETTING;
	in.current_mb = 1024;
	in.recommended_mb = 2048;
	walsizer_what_if(&in, &a->what_if);
	a->what_if_asked = true;
	a->what_if_done = true;
}

static void
json_gives_the_what_if_table_as_an_array(void)
{
	AdvisorServerFacts facts = {.major = 15};
	static Advice a;
	ReportRow	row = {.label = "db1:5432/postgres", .facts = &facts,
	.advice = &a, .sampled = true};

	advice_with_a_table(&a);
	to_json(&row, 1);
	CHECK_STR_CONTAINS(json, "\"what_if\": [\n    {\"size_mb\": 512, \"kind\": \"ladder\", \"checkpoints_per_hour\": ");
	CHECK_STR_CONTAINS(json, "{\"size_mb\": 1024, \"kind\": \"running,ladder\"");
	CHECK_STR_CONTAINS(json, "{\"size_mb\": 2048, \"kind\": \"recommended\"");
	/* the advisor cannot see the disk */
	CHECK_STR_CONTAINS(json, "\"peak_pg_wal_mb\": ");
	CHECK_STR_CONTAINS(json, "\"wal_room_mb\": null");
	CHECK_STR_CONTAINS(json, "\"replay_rate_source\": \"assumed\"");
	CHECK_STR_CONTAINS(json, "\"allowed\": true, \"why_not\": null}");
	CHECK_STR_CONTAINS(json, "\"size_mb\": 8192");
	CHECK_STR_CONTAINS(json, "\"allowed\": false, \"why_not\": \"above the cap of 4096 MB (walsizer.max)\"}");
	CHECK_STR_CONTAINS(json, "\"what_if_basis\": \"full-page images up to the working set;");
	/* not asked for: null */
	a.what_if_done = false;
	to_json(&row, 1);
	CHECK_STR_CONTAINS(json, "\"what_if\": null");
	CHECK_STR_CONTAINS(json, "\"what_if_basis\": null");
}

static void
text_gives_the_what_if_table_with_the_disk_unknown(void)
{
	AdvisorServerFacts facts = {.major = 17};
	static Advice a;
	ReportRow	row = {.label = "db1:5432/postgres", .facts = &facts,
	.advice = &a, .sampled = true};
	FILE	   *out;
	size_t		n;

	advice_with_a_table(&a);
	out = tmpfile();
	report_text(out, &row);
	rewind(out);
	n = fread(json, 1, TEXT_SIZE - 1, out);
	json[n] = '\0';
	fclose(out);
	CHECK_STR_CONTAINS(json, "  what if (full-page images up to the working set; replay rate assumed; free space of the WAL volume unknown: not checked):\n");
	CHECK_STR_CONTAINS(json, "size_mb  kind                   checkpoints_per_hour forced_per_hour wal_mb_per_hour recovery_s peak_pg_wal_mb wal_room_mb  allowed\n");
	CHECK_STR_CONTAINS(json, "\n        1024  running,ladder ");
	CHECK_STR_CONTAINS(json, " unknown  yes\n");
	CHECK_STR_CONTAINS(json, " unknown  no: above the cap of 4096 MB (walsizer.max)\n");
	/* asked for, on a standby: no table, and why */
	a.what_if_done = false;
	facts.standby = true;
	out = tmpfile();
	report_text(out, &row);
	rewind(out);
	n = fread(json, 1, TEXT_SIZE - 1, out);
	json[n] = '\0';
	fclose(out);
	CHECK_STR_CONTAINS(json, "  what if: none: a standby's restartpoints follow its primary's checkpoints");
	CHECK(strstr(json, "size_mb") == NULL);
}

int
main(void)
{
	const char *suite = "advisor_cli";

	messages = calloc(1, TEXT_SIZE);
	json = calloc(1, TEXT_SIZE);
	if (messages == NULL || json == NULL || mkdtemp(dir) == NULL)
	{
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(suite, an_empty_servers_file_is_bad_input);
	RUN_TEST(suite, a_servers_file_of_comments_is_bad_input);
	RUN_TEST(suite, a_directory_is_not_a_servers_file);
	RUN_TEST(suite, a_servers_file_names_its_servers);
	RUN_TEST(suite, bad_input_and_unreachable_servers_exit_differently);
	RUN_TEST(suite, times_take_their_units);
	RUN_TEST(suite, a_duration_of_zero_is_bad_input);
	RUN_TEST(suite, sizes_take_their_units);
	RUN_TEST(suite, a_max_recovery_time_of_zero_turns_the_bound_off);
	RUN_TEST(suite, the_replay_rate_is_in_mb_per_second);
	RUN_TEST(suite, a_trace_is_one_servers);
	RUN_TEST(suite, what_if_takes_sizes_or_none);
	RUN_TEST(suite, what_if_rejects_what_is_not_a_size);
	RUN_TEST(suite, json_carries_the_version_and_the_time);
	RUN_TEST(suite, json_names_actions_as_the_sql_api);
	RUN_TEST(suite, json_says_null_for_what_is_unknown);
	RUN_TEST(suite, json_escapes_control_characters);
	RUN_TEST(suite, json_needed_mb_is_null_when_nothing_is_needed);
	RUN_TEST(suite, json_lists_a_fleet_as_one_array);
	RUN_TEST(suite, text_says_when_the_cap_holds_the_size_back);
	RUN_TEST(suite, text_names_the_ha_managers_commands);
	RUN_TEST(suite, json_gives_the_what_if_table_as_an_array);
	RUN_TEST(suite, text_gives_the_what_if_table_with_the_disk_unknown);
	unlink(servers_file("empty", ""));
	unlink(servers_file("comments", ""));
	unlink(servers_file("two", ""));
	rmdir(dir);
	free(messages);
	free(json);
	return unit_exit_status();
}
