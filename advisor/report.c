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

#define BYTES_PER_MB (1024.0 * 1024.0)

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
			w->ended_at_s, w->seconds > 0 ? (double) w->wal_bytes / BYTES_PER_MB / w->seconds : 0,
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

void
report_text(FILE *out, const ReportRow *row)
{
	const Advice *a = row->advice;
	char		apply[128];

	fprintf(out, "\n%s (PostgreSQL %d, %s): measured %.0f s%s\n",
			row->label, row->facts->major, role_name(row->facts), a->seconds,
			row->partial ? " (partial: the connection was lost)" :
			row->interrupted ? " (stopped early)" : "");
	if (row->note)
		fprintf(out, "  note: %s\n", row->note);
	if (!row->facts->redo_known)
		fprintf(out, "  note: pg_control_checkpoint() is not allowed for this role; checkpoint cycles were inferred from the counters\n");
	fprintf(out, "  WAL: %.0f MB, %.1f MB/s; full-page images %.0f %%\n",
			(double) a->wal_bytes / BYTES_PER_MB,
			a->seconds > 0 ? (double) a->wal_bytes / BYTES_PER_MB / a->seconds : 0,
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
	}
	if (a->needed_mb > a->recommended_mb && a->recommended_mb >= a->cap_mb)
		fprintf(out, "  capped: the load needs %" PRId64 "MB, above the cap of %" PRId64 "MB (%s)\n",
				a->needed_mb, a->cap_mb, walsizer_cap_source_name(a->cap_source));
	fprintf(out, "  effect: checkpoints forced by WAL per hour: %.0f now, %.0f after\n",
			a->forced_per_hour_now, a->forced_per_hour_after);
	fprintf(out, "  crash recovery at %" PRId64 "MB: about %.1f s at worst, at %s %.0f MB/s replay rate\n",
			a->recommended_mb, a->estimated_recovery_s,
			a->replay_rate_assumed ? "an assumed" : "the given",
			a->replay_rate_bytes_s / BYTES_PER_MB);
}

void
report_table(FILE *out, const ReportRow *rows, int count)
{
	fprintf(out, "\n%-32s %-8s %6s %9s %9s %8s %12s  %s\n",
			"server", "role", "secs", "WAL MB/s", "forced/h", "now", "recommended", "verdict");
	for (int i = 0; i < count; i++)
	{
		const Advice *a = rows[i].advice;

		fprintf(out, "%-32s %-8s %6.0f %9.1f %9.0f %6" PRId64 "MB %10" PRId64 "MB  %s%s\n",
				rows[i].label, role_name(rows[i].facts), a->seconds,
				a->seconds > 0 ? (double) a->wal_bytes / BYTES_PER_MB / a->seconds : 0,
				a->forced_per_hour_now, a->current_mb, a->recommended_mb,
				advisor_verdict_name(a->verdict),
				rows[i].partial ? " (partial)" : "");
	}
}

static void
json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++)
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

static double
finite_or_zero(double v)
{
	return isfinite(v) ? v : 0;
}

void
report_json(FILE *out, const ReportRow *rows, int count)
{
	fprintf(out, "{\"servers\": [");
	for (int i = 0; i < count; i++)
	{
		const Advice *a = rows[i].advice;
		char		apply[128];

		report_apply_command(apply, sizeof(apply), a->recommended_mb);
		fprintf(out, "%s\n  {\"server\": ", i ? "," : "");
		json_string(out, rows[i].label);
		fprintf(out, ", \"major\": %d, \"role\": \"%s\", \"redo_source\": \"%s\"",
				rows[i].facts->major, role_name(rows[i].facts),
				rows[i].facts->redo_known ? "pg_control_checkpoint" : "counters");
		fprintf(out, ", \"partial\": %s, \"seconds\": %.1f, \"wal_bytes\": %" PRIu64,
				rows[i].partial ? "true" : "false", finite_or_zero(a->seconds), a->wal_bytes);
		fprintf(out, ", \"checkpoints_timed\": %" PRId64 ", \"checkpoints_requested\": %" PRId64
				", \"checkpoints_forced_by_wal\": %" PRId64 ", \"fpi_share\": %.3f",
				a->timed, a->requested, a->wal_forced, finite_or_zero(a->fpi_share));
		fprintf(out, ", \"verdict\": \"%s\", \"max_wal_size_mb\": %" PRId64
				", \"recommended_mb\": %" PRId64 ", \"needed_mb\": %" PRId64
				", \"cap_mb\": %" PRId64 ", \"cap_source\": \"%s\"",
				advisor_verdict_name(a->verdict), a->current_mb, a->recommended_mb,
				a->needed_mb, a->cap_mb, walsizer_cap_source_name(a->cap_source));
		fprintf(out, ", \"cycle_bytes\": %" PRIu64 ", \"cycle_predicted\": %s"
				", \"working_set_pages\": %" PRId64,
				a->cycle_bytes, a->cycle_predicted ? "true" : "false",
				a->working_set_pages);
		fprintf(out, ", \"forced_per_hour_now\": %.1f, \"forced_per_hour_after\": %.1f"
				", \"estimated_recovery_s\": %.1f, \"replay_rate_bytes_per_s\": %.0f"
				", \"replay_rate_source\": \"%s\"",
				finite_or_zero(a->forced_per_hour_now),
				finite_or_zero(a->forced_per_hour_after),
				finite_or_zero(a->estimated_recovery_s),
				finite_or_zero(a->replay_rate_bytes_s),
				a->replay_rate_assumed ? "assumed" : "given");
		fprintf(out, ", \"reason\": ");
		json_string(out, a->reason);
		fprintf(out, ", \"basis\": ");
		json_string(out, a->basis);
		fprintf(out, ", \"apply\": ");
		json_string(out, a->verdict == ADVISOR_KEEP || a->verdict == ADVISOR_UNKNOWN ?
					"" : apply);
		fprintf(out, "}");
	}
	fprintf(out, "\n]}\n");
}
