/*-------------------------------------------------------------------------
 *
 * server_sampling.c
 *		Read from a server, over libpq, what the worker reads from shared
 *		memory: the WAL position, the redo pointer, the checkpoint and WAL
 *		counters and the settings, as a role with pg_monitor.
 *
 *		15, 16: checkpoints in pg_stat_bgwriter (which counts restartpoints
 *				there on a standby).
 *		17+:	pg_stat_checkpointer: num_timed and num_requested, and on a
 *				standby restartpoints_timed and restartpoints_req.
 *		19+:	pg_stat_wal.wal_fpi_bytes, the bytes of full-page images.
 *
 * A standby is measured by the WAL it replays: that is the primary's rate.
 *
 *-------------------------------------------------------------------------
 */
#include "server_sampling.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PostgreSQL's own number for 17.0, where pg_stat_checkpointer came. */
#define FIRST_CHECKPOINTER_VIEW 170000
#define FIRST_FPI_BYTES 190000

static void
set_error(char *error, size_t error_len, const char *what, PGconn *conn)
{
	const char *message = PQerrorMessage(conn);
	size_t		len;

	snprintf(error, error_len, "%s: %s", what, message);
	/* one line: libpq's messages end with a newline */
	len = strlen(error);
	while (len > 0 && (error[len - 1] == '\n' || error[len - 1] == ' '))
		error[--len] = '\0';
}

static bool
parse_int64_text(const char *text, int64_t *value)
{
	char	   *end;
	long long	v;

	if (text == NULL || *text == '\0')
		return false;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*value = (int64_t) v;
	return true;
}

static bool
parse_uint64_text(const char *text, uint64_t *value)
{
	char	   *end;
	unsigned long long v;

	if (text == NULL || *text == '\0' || *text == '-')
		return false;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*value = (uint64_t) v;
	return true;
}

bool
sampling_read_facts(PGconn *conn, AdvisorServerFacts *facts,
					char *error, size_t error_len)
{
	PGresult   *res;
	int64_t		version;
	int64_t		i;

	memset(facts, 0, sizeof(*facts));
	res = PQexec(conn,
				 "SELECT current_setting('server_version_num'),"
				 " pg_has_role('pg_monitor', 'USAGE')"
				 "   OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),"
				 " pg_is_in_recovery(),"
				 " pg_size_bytes(current_setting('wal_segment_size')),"
				 " current_setting('block_size'),"
				 " extract(epoch FROM current_setting('checkpoint_timeout')::interval)::bigint,"
				 " current_setting('checkpoint_completion_target'),"
				 " current_user");
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		set_error(error, error_len, "could not read the server's settings", conn);
		PQclear(res);
		return false;
	}
	if (!parse_int64_text(PQgetvalue(res, 0, 0), &version) || version < 150000)
	{
		snprintf(error, error_len,
				 "server version %s is not supported: the advisor needs PostgreSQL 15 or later",
				 PQgetvalue(res, 0, 0));
		PQclear(res);
		return false;
	}
	if (strcmp(PQgetvalue(res, 0, 1), "t") != 0)
	{
		snprintf(error, error_len,
				 "role \"%s\" may not measure this server: it needs the privileges of pg_monitor (GRANT pg_monitor TO \"%s\")",
				 PQgetvalue(res, 0, 7), PQgetvalue(res, 0, 7));
		PQclear(res);
		return false;
	}
	facts->major = (int) (version / 10000);
	facts->standby = strcmp(PQgetvalue(res, 0, 2), "t") == 0;
	if (!parse_int64_text(PQgetvalue(res, 0, 3), &facts->segment_bytes) ||
		!parse_int64_text(PQgetvalue(res, 0, 4), &facts->block_bytes) ||
		!parse_int64_text(PQgetvalue(res, 0, 5), &i))
	{
		snprintf(error, error_len, "could not understand the server's settings");
		PQclear(res);
		return false;
	}
	facts->checkpoint_timeout_s = (double) i;
	facts->completion_target = strtod(PQgetvalue(res, 0, 6), NULL);
	PQclear(res);

	/*
	 * The redo pointer: a role may have lost EXECUTE on
	 * pg_control_checkpoint() (managed services revoke it); then it is
	 * inferred from the counters.
	 */
	res = PQexec(conn, "SELECT redo_lsn FROM pg_control_checkpoint()");
	facts->redo_known = PQresultStatus(res) == PGRES_TUPLES_OK;
	PQclear(res);
	return true;
}

const char *
sampling_query(const AdvisorServerFacts *facts)
{
	/*
	 * Columns: time, WAL position, redo pointer, timed and requested
	 * checkpoints and their reset time, images (number, bytes), WAL bytes,
	 * whether image bytes are counted, the WAL counters' reset time,
	 * max_wal_size in MB, whether in recovery (the sizing rules differ, and
	 * a promotion during the run must show).  Times as microseconds since
	 * 1970; only their changes matter.
	 */
#define Q_TIME "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint,"
#define Q_LSN " (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()" \
			  "  ELSE pg_current_wal_insert_lsn() END - '0/0'::pg_lsn)::bigint,"
#define Q_REDO " (SELECT redo_lsn - '0/0'::pg_lsn FROM pg_control_checkpoint())::bigint,"
#define Q_NO_REDO " NULL,"
#define Q_RESET(col) " coalesce((extract(epoch FROM " col ") * 1000000)::bigint, 0),"
#define Q_TAIL " coalesce((extract(epoch FROM w.stats_reset) * 1000000)::bigint, 0)," \
			   " pg_size_bytes(current_setting('max_wal_size')) / 1048576," \
			   " pg_is_in_recovery()"
#define Q_OLD_COUNTERS " b.checkpoints_timed, b.checkpoints_req," Q_RESET("b.stats_reset")
#define Q_NEW_COUNTERS \
	" CASE WHEN pg_is_in_recovery() THEN c.restartpoints_timed ELSE c.num_timed END," \
	" CASE WHEN pg_is_in_recovery() THEN c.restartpoints_req ELSE c.num_requested END," \
	Q_RESET("c.stats_reset")
#define Q_WAL_COUNT " w.wal_fpi, 0, w.wal_bytes, false,"
#define Q_WAL_BYTES " w.wal_fpi, w.wal_fpi_bytes, w.wal_bytes, true,"
#define Q_FROM_OLD " FROM pg_stat_bgwriter b, pg_stat_wal w"
#define Q_FROM_NEW " FROM pg_stat_checkpointer c, pg_stat_wal w"

	static const char *const queries[2][3] = {
		/* redo pointer read */
		{Q_TIME Q_LSN Q_REDO Q_OLD_COUNTERS Q_WAL_COUNT Q_TAIL Q_FROM_OLD,
			Q_TIME Q_LSN Q_REDO Q_NEW_COUNTERS Q_WAL_COUNT Q_TAIL Q_FROM_NEW,
		Q_TIME Q_LSN Q_REDO Q_NEW_COUNTERS Q_WAL_BYTES Q_TAIL Q_FROM_NEW},
		/* redo pointer inferred */
		{Q_TIME Q_LSN Q_NO_REDO Q_OLD_COUNTERS Q_WAL_COUNT Q_TAIL Q_FROM_OLD,
			Q_TIME Q_LSN Q_NO_REDO Q_NEW_COUNTERS Q_WAL_COUNT Q_TAIL Q_FROM_NEW,
		Q_TIME Q_LSN Q_NO_REDO Q_NEW_COUNTERS Q_WAL_BYTES Q_TAIL Q_FROM_NEW},
	};
	int			version = facts->major * 10000;
	int			which = version >= FIRST_FPI_BYTES ? 2 :
		version >= FIRST_CHECKPOINTER_VIEW ? 1 : 0;

	return queries[facts->redo_known ? 0 : 1][which];
}

bool
sampling_parse(const PGresult *res, WalsizerSample *s, char *error,
			   size_t error_len)
{
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 ||
		PQnfields(res) != 13)
	{
		snprintf(error, error_len, "sample query failed: %s",
				 PQresultErrorMessage(res));
		return false;
	}
	memset(s, 0, sizeof(*s));
	if (!parse_int64_text(PQgetvalue(res, 0, 0), &s->at_us) ||
		!parse_uint64_text(PQgetvalue(res, 0, 1), &s->insert_lsn) ||
		(!PQgetisnull(res, 0, 2) &&
		 !parse_uint64_text(PQgetvalue(res, 0, 2), &s->redo_lsn)) ||
		!parse_int64_text(PQgetvalue(res, 0, 3), &s->timed) ||
		!parse_int64_text(PQgetvalue(res, 0, 4), &s->requested) ||
		!parse_int64_text(PQgetvalue(res, 0, 5), &s->counters_reset_at) ||
		!parse_int64_text(PQgetvalue(res, 0, 6), &s->wal_fpi) ||
		!parse_uint64_text(PQgetvalue(res, 0, 7), &s->wal_fpi_bytes) ||
		!parse_uint64_text(PQgetvalue(res, 0, 8), &s->wal_stat_bytes) ||
		!parse_int64_text(PQgetvalue(res, 0, 10), &s->wal_reset_at) ||
		!parse_int64_text(PQgetvalue(res, 0, 11), &s->max_wal_size_mb))
	{
		snprintf(error, error_len, "sample query returned an unexpected value");
		return false;
	}
	s->fpi_bytes_counted = strcmp(PQgetvalue(res, 0, 9), "t") == 0;
	s->standby = strcmp(PQgetvalue(res, 0, 12), "t") == 0;
	return true;
}

/* --- The tables the load changes ----------------------------------------- */

#define TABLES_QUERY \
	"SELECT t.relid, t.n_tup_ins, t.n_tup_upd, t.n_tup_del, t.n_tup_hot_upd," \
	" coalesce(pg_relation_size(t.relid), 0) / current_setting('block_size')::bigint," \
	" coalesce((SELECT sum(pg_relation_size(i.indexrelid)) FROM pg_index i" \
	"           WHERE i.indrelid = t.relid), 0)::bigint / current_setting('block_size')::bigint," \
	" (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid)" \
	" FROM pg_stat_all_tables t" \
	" WHERE t.relid >= 16384"	/* FirstNormalObjectId: not the catalogs */

/* Rows changed in this database and in all of them. */
#define DATABASES_QUERY \
	"SELECT coalesce(sum(tup_inserted + tup_updated + tup_deleted)" \
	"                FILTER (WHERE datname = current_database()), 0)," \
	"       coalesce(sum(tup_inserted + tup_updated + tup_deleted), 0)" \
	" FROM pg_stat_database"

static bool
read_database_rows(PGconn *conn, int64_t *here, int64_t *all)
{
	PGresult   *res = PQexec(conn, DATABASES_QUERY);
	bool		ok = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
		parse_int64_text(PQgetvalue(res, 0, 0), here) &&
		parse_int64_text(PQgetvalue(res, 0, 1), all);

	PQclear(res);
	return ok;
}

static bool
read_counts(const PGresult *res, int row, TableCounts *t)
{
	int64_t		relid;

	if (!parse_int64_text(PQgetvalue(res, row, 0), &relid) ||
		!parse_int64_text(PQgetvalue(res, row, 1), &t->inserted) ||
		!parse_int64_text(PQgetvalue(res, row, 2), &t->updated) ||
		!parse_int64_text(PQgetvalue(res, row, 3), &t->deleted) ||
		!parse_int64_text(PQgetvalue(res, row, 4), &t->hot_updated))
		return false;
	t->relid = (unsigned int) relid;
	return true;
}

bool
sampling_read_tables(PGconn *conn, TableSnapshot *snapshot, char *error,
					 size_t error_len)
{
	PGresult   *res = PQexec(conn, TABLES_QUERY);
	int			rows;

	snapshot->tables = NULL;
	snapshot->count = 0;
	if (!read_database_rows(conn, &snapshot->rows_changed_here,
							&snapshot->rows_changed_all))
		snapshot->rows_changed_here = snapshot->rows_changed_all = -1;
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		set_error(error, error_len, "could not read the table statistics", conn);
		PQclear(res);
		return false;
	}
	rows = PQntuples(res);
	snapshot->tables = calloc(rows > 0 ? rows : 1, sizeof(TableCounts));
	if (snapshot->tables == NULL)
	{
		snprintf(error, error_len, "out of memory");
		PQclear(res);
		return false;
	}
	for (int i = 0; i < rows; i++)
		if (read_counts(res, i, &snapshot->tables[snapshot->count]))
			snapshot->count++;
	PQclear(res);
	return true;
}

static const TableCounts *
find_table(const TableSnapshot *snapshot, unsigned int relid)
{
	for (int i = 0; i < snapshot->count; i++)
		if (snapshot->tables[i].relid == relid)
			return &snapshot->tables[i];
	return NULL;
}

bool
sampling_working_set(PGconn *conn, const TableSnapshot *start, double run_s,
					 double timeout_s, AdvisorWorkingSet *ws,
					 bool *load_elsewhere, char *error, size_t error_len)
{
	PGresult   *res;
	int64_t		here;
	int64_t		all;

	ws->pages = 0;
	ws->tables = 0;
	*load_elsewhere = false;

	/*
	 * The tables are those of the connected database.  If most rows changed
	 * elsewhere, they would understate the pages the load changes and so
	 * the full-page images: better no working set (the images then grow
	 * with the cycle, which overstates) than a wrong one.
	 */
	if (start->rows_changed_all >= 0 && read_database_rows(conn, &here, &all) &&
		all - start->rows_changed_all > 0 &&
		2 * (here - start->rows_changed_here) < all - start->rows_changed_all)
	{
		*load_elsewhere = true;
		return true;
	}

	res = PQexec(conn, TABLES_QUERY);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		set_error(error, error_len, "could not read the table statistics", conn);
		PQclear(res);
		return false;
	}
	for (int i = 0; i < PQntuples(res); i++)
	{
		TableCounts now;
		const TableCounts *before;
		int64_t		heap_pages;
		int64_t		index_pages;
		int64_t		index_count;

		if (!read_counts(res, i, &now) ||
			!parse_int64_text(PQgetvalue(res, i, 5), &heap_pages) ||
			!parse_int64_text(PQgetvalue(res, i, 6), &index_pages) ||
			!parse_int64_text(PQgetvalue(res, i, 7), &index_count))
			continue;
		/* a table made during the run changed all it holds */
		before = find_table(start, now.relid);
		if (before != NULL && before->updated <= now.updated &&
			before->deleted <= now.deleted && before->inserted <= now.inserted &&
			before->hot_updated <= now.hot_updated)
		{
			now.inserted -= before->inserted;
			now.updated -= before->updated;
			now.deleted -= before->deleted;
			now.hot_updated -= before->hot_updated;
		}
		advisor_working_set_add_table(ws, heap_pages, index_pages,
									  (int) index_count,
									  now.updated + now.deleted,
									  now.inserted + now.updated - now.hot_updated,
									  run_s, timeout_s);
	}
	PQclear(res);
	return true;
}

void
sampling_free_tables(TableSnapshot *snapshot)
{
	free(snapshot->tables);
	snapshot->tables = NULL;
	snapshot->count = 0;
}
