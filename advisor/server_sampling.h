/*-------------------------------------------------------------------------
 *
 * server_sampling.h
 *		The advisor's side of the connection: what it reads from a server
 *		over libpq, with the SQL each PostgreSQL major needs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SERVER_SAMPLING_H
#define WALSIZER_SERVER_SAMPLING_H

#include <libpq-fe.h>

#include "advice.h"

/* What pg_stat_all_tables said about one table at the start of the run. */
typedef struct TableCounts
{
	unsigned int relid;
	int64_t		inserted;
	int64_t		updated;
	int64_t		deleted;
	int64_t		hot_updated;
} TableCounts;

typedef struct TableSnapshot
{
	TableCounts *tables;
	int			count;
	int64_t		rows_changed_here;	/* pg_stat_database: this database */
	int64_t		rows_changed_all;	/* and all of them */
} TableSnapshot;

/*
 * Read what the advisor needs to know once; false with a message in error
 * (one line, for the user) when the role may not measure the server.
 */
extern bool sampling_read_facts(PGconn *conn, AdvisorServerFacts *facts,
								char *error, size_t error_len);
/* The one statement that reads a sample; it depends on the facts. */
extern const char *sampling_query(const AdvisorServerFacts *facts);
/* Turn that statement's result into a sample. */
extern bool sampling_parse(const PGresult *res, WalsizerSample *sample,
						   char *error, size_t error_len);

extern bool sampling_read_tables(PGconn *conn, TableSnapshot *snapshot,
								 char *error, size_t error_len);
extern bool sampling_working_set(PGconn *conn, const TableSnapshot *start,
								 double run_s, double timeout_s,
								 AdvisorWorkingSet *ws, bool *load_elsewhere,
								 char *error, size_t error_len);
extern void sampling_free_tables(TableSnapshot *snapshot);

#endif							/* WALSIZER_SERVER_SAMPLING_H */
