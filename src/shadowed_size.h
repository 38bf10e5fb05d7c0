/*-------------------------------------------------------------------------
 *
 * shadowed_size.h
 *		What to do about a max_wal_size set in postgresql.conf (or a file it
 *		includes) that postgresql.auto.conf shadows.
 *
 * postgresql.auto.conf is read after every other configuration file, so
 * once pg_walsizer has written max_wal_size there, a DBA's later edit of
 * postgresql.conf changes nothing the server runs.  The worker reads the
 * value those other files set after every reload and asks this pure
 * module what it means: a value the DBA changed since the worker last
 * looked, and that the server does not run, is the DBA's intent and is
 * adopted (advised only in a dry run).  At the worker's start there is no
 * "last look" to compare with, so a shadowed value that is neither the
 * running one nor the DBA's known baseline is only reported.
 *
 * Pure C: no PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SHADOWED_SIZE_H
#define WALSIZER_SHADOWED_SIZE_H

#include <stdbool.h>
#include <stdint.h>

/* What one look at the configuration files calls for. */
typedef enum WalsizerShadowVerdict
{
	WALSIZER_SHADOW_NOTHING,	/* nothing new, or nothing shadowed */
	WALSIZER_SHADOW_WAIT,		/* walsizer.enable is off: look again later */
	WALSIZER_SHADOW_WARN,		/* at start: shadowed and unknown, report it */
	WALSIZER_SHADOW_ADOPT,		/* the DBA changed it: write it, baseline */
	WALSIZER_SHADOW_ADVISE		/* the same in a dry run: say so only */
} WalsizerShadowVerdict;

typedef struct WalsizerShadowLook
{
	bool		at_start;		/* the worker's first look since it started */
	int64_t		seen_mb;		/* the files' value at the last look, 0 none */
	int64_t		file_mb;		/* the value that applies among the files
								 * other than postgresql.auto.conf, 0 none */
	bool		auto_conf_sets; /* postgresql.auto.conf sets max_wal_size,
								 * so it wins over file_mb */
	int64_t		running_mb;		/* max_wal_size the server runs */
	int64_t		baseline_mb;	/* the DBA's value pg_walsizer knows */
	bool		enabled;		/* walsizer.enable */
	bool		dry_run;		/* walsizer.dry_run */
} WalsizerShadowLook;

extern WalsizerShadowVerdict walsizer_shadow_decide(const WalsizerShadowLook *look);
extern bool walsizer_shadow_remembers(WalsizerShadowVerdict verdict);

#endif							/* WALSIZER_SHADOWED_SIZE_H */
