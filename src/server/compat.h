/*-------------------------------------------------------------------------
 *
 * compat.h
 *		The differences between PostgreSQL majors that pg_walsizer's code
 *		(outside the statistics reader) has to know about.
 *
 * Everything version-dependent is either here or in stats_reader.c, so the
 * worker, the policy and the SQL functions read the same on every major.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_COMPAT_H
#define WALSIZER_COMPAT_H

#include "funcapi.h"

#if PG_VERSION_NUM < 150000
#error "pg_walsizer requires PostgreSQL 15 or later"
#endif

/*
 * "Ignore this signal" for pqsignal(): 19 gave signal handlers a second
 * argument and PG_SIG_IGN, which plain SIG_IGN no longer matches.
 */
#ifndef PG_SIG_IGN
#define PG_SIG_IGN SIG_IGN
#endif

/* 16 renamed SetSingleFuncCall(); 15 keeps the old name in early minors. */
#if PG_VERSION_NUM >= 160000
#define walsizer_init_materialized_srf(fcinfo) InitMaterializedSRF((fcinfo), 0)
#else
#define walsizer_init_materialized_srf(fcinfo) SetSingleFuncCall((fcinfo), 0)
#endif

/*
 * The depth a configuration file parse starts at: named in conffiles.h
 * from 16 on, a literal 0 in guc-file.l before.
 */
#if PG_VERSION_NUM >= 160000
#include "utils/conffiles.h"
#else
#define CONF_FILE_START_DEPTH 0
#endif

/*
 * A server parameter's record (its value's source, for one), by name:
 * find_option() is exported from 16 on; 15 hands out the whole table.
 */
#include "utils/guc_tables.h"
#if PG_VERSION_NUM >= 160000
#define walsizer_find_guc(name) find_option((name), false, true, DEBUG1)
#else
static inline struct config_generic *
walsizer_find_guc(const char *name)
{
	struct config_generic **vars = get_guc_variables();
	int			count = GetNumConfigOptions();

	for (int i = 0; i < count; i++)
		if (pg_strcasecmp(vars[i]->name, name) == 0)
			return vars[i];
	return NULL;
}
#endif

/*
 * Whether a replication slot was invalidated: a cause from 16 on; on 15 an
 * invalidated slot's restart_lsn is invalid, which the caller checks too.
 * Under the slot's mutex.
 */
#if PG_VERSION_NUM >= 160000
#define walsizer_slot_invalidated(slot) ((slot)->data.invalidated != RS_INVAL_NONE)
#else
#define walsizer_slot_invalidated(slot) ((void) (slot), false)
#endif

#endif							/* WALSIZER_COMPAT_H */
