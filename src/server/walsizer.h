/*-------------------------------------------------------------------------
 *
 * walsizer.h
 *		Settings of pg_walsizer, shared by the worker and the SQL functions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_H
#define WALSIZER_H

#include "settings_limits.h"

/* GUC variables, defined in pg_walsizer.c; every one reloads with SIGHUP. */
extern bool walsizer_enable;
extern bool walsizer_dry_run;
extern int	walsizer_max_mb;
extern int	walsizer_min_mb;
extern int	walsizer_threshold;
extern double walsizer_ratio;
extern double walsizer_headroom;
extern int	walsizer_interval_s;
extern int	walsizer_sample_interval_ms;
extern int	walsizer_shrink_after;
extern int	walsizer_cooldown;
extern double walsizer_disk_fraction;
extern int	walsizer_max_recovery_time_s;
extern int	walsizer_replay_rate_mb_s;

/* The background worker's entry point (worker.c). */
extern PGDLLEXPORT void walsizer_worker_main(Datum main_arg);
extern void walsizer_register_worker(void);

#endif							/* WALSIZER_H */
