/*-------------------------------------------------------------------------
 *
 * report.c
 *		Print the advisor's results for people (text, the fleet table) and
 *		for scripts (JSON).
 *
 *-------------------------------------------------------------------------
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "options.h"
#include "size_units.h"


static const char *
role_name(const AdvisorServerFacts *facts)
{
	return facts->standby ? "standby" : "primary";
}

void
report_window(FILE *out, const char *label, const AdvisorWindow *w)
{
	if (label)
		fprintf(out, "%s: ", label);
	fprintf(out,
			"%6.0f s  WAL %7.1f MB/s  checkpoints %" PRId64 " timed, %" PRId64
			" requested, %" PRId64 " forced by WAL  full-page images %3.0f %%  max_wal_size %" PRId64 "MB\n",
			w->ended_at_s, w->seconds > 0 ? (double) w->wal_bytes / BYTES_PER_MB_DOUBLE / w->seconds : 0,
			w->timed, w->requested, w->wal_forced, w->fpi_share * 100.0,
			w->max_wal_size_mb);
}

void
report_apply_command(char *buf, size_t len, int64_t size_mb)
{
	snprintf(buf, len,
			 "ALTER SYSTEM SET max_wal_size = '%" PRId64 "MB'; SELECT pg_reload_conf();",
			 size_mb);
}

/*
 * The same size through an HA manager that owns postgresql.conf: Patroni's
 * dynamic configuration (stored in its DCS, written to every node's
 * postgresql.conf), and a CloudNativePG Cluster resource (whose operator
 * sets allow_alter_system = off on PostgreSQL 17 and later).  docs/ha.md.
 */
void
report_patroni_command(char *buf, size_t len, int64_t size_mb)
{
	snprintf(buf, len,
			 "patronictl edit-config -s postgresql.parameters.max_wal_size=%" PRId64 "MB",
			 size_mb);
}

void
report_cloudnativepg_snippet(char *buf, size_t len, int64_t size_mb)
{
	snprintf(buf, len,
			 "spec.postgresql.parameters.max_wal_size: \"%" PRId64 "MB\"",
			 size_mb);
}

/*
 * The what-if table: a row per candidate size, its columns named as the
 * JSON's, units in the names.  The advisor cannot see the disk, so the
 * WAL volume's room is "unknown" on every row.
 */
static void
report_what_if_text(FILE *out, const ReportRow *row)
{
	const Advice *a = row->advice;
	const WalsizerWhatIf *w = &a->what_if;

	if (!a->what_if_done)
	{
		fprintf(out, "  what if: none: %s\n",
				row->facts->standby ?
				"a standby's restartpoints follow its primary's checkpoints, whatever its size" :
				"no recommendation to build it around");
		return;
	}
	fprintf(out, "  what if (%s):\n", w->basis);
	fprintf(out, "    %8s  %-22s %20s %15s %15s %10s %14s %11s  %s\n",
			"size_mb", "kind", "checkpoints_per_hour", "forced_per_hour",
			"wal_mb_per_hour", "recovery_s", "peak_pg_wal_mb", "wal_room_mb",
			"allowed");
	for (int i = 0; i < w->count; i++)
	{
		const WalsizerWhatIfRow *r = &w->rows[i];
		char		kind[64];
		char		recovery[32];
		char		room[32];

		walsizer_what_if_kinds_text(r->kinds, kind, sizeof(kind));
		if (r->recovery_known)
			snprintf(recovery, sizeof(recovery), "%.1f", r->recovery_s);
		else
			snprintf(recovery, sizeof(recovery), "unknown");
		if (w->wal_room_known)
			snprintf(room, sizeof(room), "%" PRId64, w->wal_room_mb);
		else
			snprintf(room, sizeof(room), "unknown");
		fprintf(out, "    %8" PRId64 "  %-22s %20.1f %15.1f %15.1f %10s %14" PRId64 " %11s  %s%s\n",
				r->size_mb, kind, r->checkpoints_per_hour, r->forced_per_hour,
				r->wal_mb_per_hour, recovery, r->peak_pg_wal_mb,
				room,
				r->allowed ? "yes" : "no: ", r->why_not);
	}
}

void
report_text(FILE *out, const ReportRow *row)
{
	const Advice *a = row->advice;
	char		apply[128];

	if (row->error)
	{
		fprintf(out, "\n%s: not measured: %s\n", row->label, row->error);
		return;
	}
	fprintf(out, "\n%s (PostgreSQL %d, %s): measured %.0f s%s\n",
			row->label, row->facts->major, role_name(row->facts), a->seconds,
			row->partial ? " (partial: the connection was lost)" :
			row->interrupted ? " (stopped early)" : "");
	if (row->note)
		fprintf(out, "  note: %s\n", row->note);
	if (!row->facts->redo_known)
		fprintf(out, "  note: pg_control_checkpoint() is not allowed for this role; checkpoint cycles were inferred from the counters\n");
	fprintf(out, "  WAL: %.0f MB, %.1f MB/s; full-page images %.0f %%\n",
			(double) a->wal_bytes / BYTES_PER_MB_DOUBLE,
			a->seconds > 0 ? (double) a->wal_bytes / BYTES_PER_MB_DOUBLE / a->seconds : 0,
			a->fpi_share * 100.0);
	fprintf(out, "  checkpoints: %" PRId64 " timed, %" PRId64 " requested, %" PRId64 " forced by WAL\n",
			a->timed, a->requested, a->wal_forced);
	if (a->verdict == ADVISOR_UNKNOWN)
	{
		fprintf(out, "  recommendation: none: %s\n", a->reason);
		return;
	}
	fprintf(out, "  recommended max_wal_size: %" PRId64 "MB (now %" PRId64 "MB): %s\n",
			a->recommended_mb, a->current_mb, advisor_verdict_name(a->verdict));
	fprintf(out, "  why: %s\n", a->reason);
	fprintf(out, "  measured from: %s\n", a->basis);
	if (a->verdict == ADVISOR_KEEP)
		fprintf(out, "  apply: nothing to change\n");
	else
	{
		report_apply_command(apply, sizeof(apply), a->recommended_mb);
		fprintf(out, "  apply: %s\n", apply);
		fprintf(out, "         or, where ALTER SYSTEM is not allowed (a managed service): set the parameter max_wal_size to %" PRId64 "MB\n",
				a->recommended_mb);
		report_patroni_command(apply, sizeof(apply), a->recommended_mb);
		fprintf(out, "         or, under Patroni: %s\n", apply);
		report_cloudnativepg_snippet(apply, sizeof(apply), a->recommended_mb);
		fprintf(out, "         or, in a CloudNativePG Cluster: %s\n", apply);
	}
	if (a->needed_mb > a->recommended_mb && a->recommended_mb >= a->cap_mb)
		fprintf(out, "  capped: the load needs %" PRId64 "MB, above the cap of %" PRId64 "MB (%s)\n",
				a->needed_mb, a->cap_mb, walsizer_cap_source_name(a->cap_source));
	fprintf(out, "  effect: checkpoints forced by WAL per hour: %.0f now, %.0f after\n",
			a->forced_per_hour_now, a->forced_per_hour_after);
	fprintf(out, "  crash recovery at %" PRId64 "MB: about %.1f s at worst, at %s %.0f MB/s replay rate\n",
			a->recommended_mb, a->estimated_recovery_s,
			a->replay_rate_assumed ? "an assumed" : "the given",
			a->replay_rate_bytes_s / BYTES_PER_MB_DOUBLE);
	if (a->what_if_asked)
		report_what_if_text(out, row);
}

void
report_table(FILE *out, const ReportRow *rows, int count)
{
	fprintf(out, "\n%-32s %-8s %6s %9s %9s %8s %12s  %s\n",
			"server", "role", "secs", "WAL MB/s", "forced/h", "now", "recommended", "verdict");
	for (int i = 0; i < count; i++)
	{
		const Advice *a = rows[i].advice;

		if (rows[i].error)
		{
			fprintf(out, "%-32s %-8s %6s %9s %9s %8s %12s  %s\n",
					rows[i].label, "-", "-", "-", "-", "-", "-", "not measured");
			continue;
		}
		fprintf(out, "%-32s %-8s %6.0f %9.1f %9.0f %6" PRId64 "MB %10" PRId64 "MB  %s%s\n",
				rows[i].label, role_name(rows[i].facts), a->seconds,
				a->seconds > 0 ? (double) a->wal_bytes / BYTES_PER_MB_DOUBLE / a->seconds : 0,
				a->forced_per_hour_now, a->current_mb, a->recommended_mb,
				advisor_verdict_name(a->verdict),
				rows[i].partial ? " (partial)" : "");
	}
}

const char *
report_action_name(AdvisorVerdict verdict)
{
	switch (verdict)
	{
		case ADVISOR_KEEP:
			return walsizer_action_name(WALSIZER_ACTION_NONE);
		case ADVISOR_GROW:
			return walsizer_action_name(WALSIZER_ACTION_GROW);
		case ADVISOR_GROW_CAPPED:
			return walsizer_action_name(WALSIZER_ACTION_CAPPED);
		case ADVISOR_SHRINK:
			return walsizer_action_name(WALSIZER_ACTION_SHRINK);
		case ADVISOR_UNKNOWN:
			break;
	}
	return NULL;
}

/* --- JSON ------------------------------------------------------------------ */

/*
 * The members of one JSON object, written in order: each writer puts the
 * separator before its member.  A figure that is not known is null.
 */
typedef struct JsonObject
{
	FILE	   *out;
	bool		first;
} JsonObject;

static void
json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void
json_key(JsonObject *o, const char *key)
{
	fprintf(o->out, "%s\"%s\": ", o->first ? "" : ", ", key);
	o->first = false;
}

/* A string, or null when s is NULL or empty. */
static void
json_text(JsonObject *o, const char *key, const char *s)
{
	json_key(o, key);
	if (s && s[0])
		json_string(o->out, s);
	else
		fputs("null", o->out);
}

static void
json_bool(JsonObject *o, const char *key, bool known, bool value)
{
	json_key(o, key);
	fputs(!known ? "null" : value ? "true" : "false", o->out);
}

static void
json_int(JsonObject *o, const char *key, bool known, int64_t value)
{
	json_key(o, key);
	if (known)
		fprintf(o->out, "%" PRId64, value);
	else
		fputs("null", o->out);
}

static void
json_uint(JsonObject *o, const char *key, bool known, uint64_t value)
{
	json_key(o, key);
	if (known)
		fprintf(o->out, "%" PRIu64, value);
	else
		fputs("null", o->out);
}

/* A number with digits decimals; null when unknown or not finite. */
static void
json_real(JsonObject *o, const char *key, bool known, double value, int digits)
{
	json_key(o, key);
	if (known && isfinite(value))
		fprintf(o->out, "%.*f", digits, value);
	else
		fputs("null", o->out);
}

/* What was measured: known once a first sample was taken. */
static void
json_measured(JsonObject *o, const ReportRow *row)
{
	const Advice *a = row->advice;
	bool		sampled = row->sampled;
	bool		connected = row->error == NULL;

	json_int(o, "major", connected, row->facts->major);
	json_text(o, "role", connected ? role_name(row->facts) : NULL);
	json_text(o, "redo_source", !connected ? NULL :
			  row->facts->redo_known ? "pg_control_checkpoint" : "counters");
	json_bool(o, "partial", true, row->partial);
	json_real(o, "seconds", sampled, a->seconds, 1);
	json_uint(o, "wal_bytes", sampled, a->wal_bytes);
	/* walsizer.decisions' names, and the names of 1.4 and before */
	json_int(o, "timed", sampled, a->timed);
	json_int(o, "requested", sampled, a->requested);
	json_int(o, "wal_forced", sampled, a->wal_forced);
	json_int(o, "checkpoints_timed", sampled, a->timed);
	json_int(o, "checkpoints_requested", sampled, a->requested);
	json_int(o, "checkpoints_forced_by_wal", sampled, a->wal_forced);
	json_real(o, "fpi_share", sampled && a->wal_bytes > 0, a->fpi_share, 3);
	json_int(o, "max_wal_size_mb", sampled, a->current_mb);
}

/* The recommendation: known when the policy decided. */
static void
json_recommendation(JsonObject *o, const ReportRow *row)
{
	const Advice *a = row->advice;
	bool		decided = row->error == NULL && a->verdict != ADVISOR_UNKNOWN;
	bool		to_apply = decided && a->verdict != ADVISOR_KEEP;
	char		apply[128];

	json_text(o, "action", decided ? report_action_name(a->verdict) : NULL);
	json_text(o, "verdict", row->error ? NULL : advisor_verdict_name(a->verdict));
	json_int(o, "recommended_mb", decided, a->recommended_mb);
	json_int(o, "needed_mb", decided && a->needed_mb > 0, a->needed_mb);
	json_int(o, "cap_mb", decided, a->cap_mb);
	json_text(o, "cap_source", decided ? walsizer_cap_source_name(a->cap_source) : NULL);
	json_uint(o, "cycle_bytes", decided, a->cycle_bytes);
	json_bool(o, "cycle_predicted", decided, a->cycle_predicted);
	json_int(o, "working_set_pages", decided, a->working_set_pages);
	json_real(o, "forced_per_hour_now", decided, a->forced_per_hour_now, 1);
	json_real(o, "forced_per_hour_after", decided, a->forced_per_hour_after, 1);
	json_real(o, "estimated_recovery_s", decided, a->estimated_recovery_s, 1);
	json_real(o, "replay_rate_bytes_per_s", decided, a->replay_rate_bytes_s, 0);
	json_text(o, "replay_rate_source", !decided ? NULL :
			  a->replay_rate_assumed ? "assumed" : "given");
	json_text(o, "reason", row->error ? NULL : a->reason);
	json_text(o, "basis", decided ? a->basis : NULL);
	report_apply_command(apply, sizeof(apply), a->recommended_mb);
	json_text(o, "apply", to_apply ? apply : NULL);
	report_patroni_command(apply, sizeof(apply), a->recommended_mb);
	json_text(o, "apply_patroni", to_apply ? apply : NULL);
	report_cloudnativepg_snippet(apply, sizeof(apply), a->recommended_mb);
	json_text(o, "apply_cloudnativepg", to_apply ? apply : NULL);
}

/*
 * The what-if table as an array of rows (null when not asked for or not
 * built), with what it used where a figure is unknown: the WAL volume's
 * room is null on every row, the advisor cannot see the disk.
 */
static void
json_what_if(JsonObject *o, const ReportRow *row)
{
	const Advice *a = row->advice;
	const WalsizerWhatIf *w = &a->what_if;
	bool		done = row->error == NULL && a->what_if_done;

	json_text(o, "what_if_basis", done ? w->basis : NULL);
	json_key(o, "what_if");
	if (!done)
	{
		fputs("null", o->out);
		return;
	}
	fputs("[", o->out);
	for (int i = 0; i < w->count; i++)
	{
		const WalsizerWhatIfRow *r = &w->rows[i];
		JsonObject	ro = {o->out, true};
		char		kind[64];

		walsizer_what_if_kinds_text(r->kinds, kind, sizeof(kind));
		fprintf(o->out, "%s\n    {", i ? "," : "");
		json_int(&ro, "size_mb", true, r->size_mb);
		json_text(&ro, "kind", kind);
		json_real(&ro, "checkpoints_per_hour", true, r->checkpoints_per_hour, 2);
		json_real(&ro, "forced_per_hour", true, r->forced_per_hour, 2);
		json_real(&ro, "wal_mb_per_hour", true, r->wal_mb_per_hour, 1);
		json_real(&ro, "recovery_s", r->recovery_known, r->recovery_s, 1);
		json_text(&ro, "replay_rate_source", w->replay_rate_source);
		json_text(&ro, "images_up_to", w->working_set_known ?
				  "working_set" : "none: grow with the cycle");
		json_int(&ro, "peak_pg_wal_mb", true, r->peak_pg_wal_mb);
		json_int(&ro, "wal_room_mb", w->wal_room_known, w->wal_room_mb);
		json_bool(&ro, "allowed", true, r->allowed);
		json_text(&ro, "why_not", r->why_not);
		fputs("}", o->out);
	}
	fputs("]", o->out);
}

void
report_json(FILE *out, const ReportRow *rows, int count, time_t at)
{
	char		at_text[32] = "";
	struct tm  *utc = gmtime(&at);

	if (utc)
		strftime(at_text, sizeof(at_text), "%Y-%m-%dT%H:%M:%SZ", utc);
	fprintf(out, "{\"program\": \"%s\", \"version\": \"%s\", \"at\": ",
			PROGRAM, ADVISOR_VERSION);
	if (at_text[0])
		json_string(out, at_text);
	else
		fputs("null", out);
	fprintf(out, ", \"servers\": [");
	for (int i = 0; i < count; i++)
	{
		JsonObject	o = {out, true};

		fprintf(out, "%s\n  {", i ? "," : "");
		json_text(&o, "server", rows[i].label);
		json_text(&o, "error", rows[i].error);
		json_measured(&o, &rows[i]);
		json_recommendation(&o, &rows[i]);
		json_what_if(&o, &rows[i]);
		fprintf(out, "}");
	}
	fprintf(out, "\n]}\n");
}
