/*-------------------------------------------------------------------------
 *
 * walsizer.h
 *		Settings of pg_walsizer, shared by the worker and the SQL functions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_H
#define WALSIZER_H

/*
 * Each setting's default and limits, defined once: pg_walsizer.c's
 * variables start at the default, and their DefineCustom*Variable() calls
 * take all three.  Sizes in MB, times in the setting's own unit.
 */
#define WALSIZER_ENABLE_DEFAULT true
#define WALSIZER_DRY_RUN_DEFAULT false
/* max_wal_size's own limits: two 1 MB segments at the least, INT_MAX MB */
#define WALSIZER_SIZE_MIN_MB 2
#define WALSIZER_SIZE_LIMIT_MB INT_MAX
#define WALSIZER_MAX_MB_DEFAULT 4096
#define WALSIZER_MIN_MB_DEFAULT 0
#define WALSIZER_MIN_MB_MIN 0	/* 0: the size before pg_walsizer changed it */
#define WALSIZER_THRESHOLD_DEFAULT 2
#define WALSIZER_THRESHOLD_MIN 1
/* the largest count of windows or checkpoints a setting may name */
#define WALSIZER_COUNT_LIMIT 1000000
#define WALSIZER_THRESHOLD_MAX WALSIZER_COUNT_LIMIT
#define WALSIZER_RATIO_DEFAULT 0.33
#define WALSIZER_RATIO_MIN 0.0
#define WALSIZER_RATIO_MAX 1.0
#define WALSIZER_HEADROOM_DEFAULT 0.25
#define WALSIZER_HEADROOM_MIN 0.0
#define WALSIZER_HEADROOM_MAX 10.0
/* walsizer.interval and walsizer.max_recovery_time: at most a week */
#define WALSIZER_WEEK_S (7 * 24 * 3600)
#define WALSIZER_INTERVAL_S_DEFAULT 0
#define WALSIZER_INTERVAL_S_MIN 0	/* 0: follow checkpoint_timeout */
#define WALSIZER_INTERVAL_S_MAX WALSIZER_WEEK_S
#define WALSIZER_SAMPLE_INTERVAL_MS_DEFAULT 1000
#define WALSIZER_SAMPLE_INTERVAL_MS_MIN 100
#define WALSIZER_SAMPLE_INTERVAL_MS_MAX (3600 * 1000)
#define WALSIZER_SHRINK_AFTER_DEFAULT 12
#define WALSIZER_SHRINK_AFTER_MIN 0 /* 0: never shrink */
#define WALSIZER_SHRINK_AFTER_MAX WALSIZER_COUNT_LIMIT
#define WALSIZER_COOLDOWN_DEFAULT 1
#define WALSIZER_COOLDOWN_MIN 1
#define WALSIZER_COOLDOWN_MAX WALSIZER_COUNT_LIMIT
#define WALSIZER_DISK_FRACTION_DEFAULT 0.5
#define WALSIZER_DISK_FRACTION_MIN 0.01
#define WALSIZER_DISK_FRACTION_MAX 1.0
#define WALSIZER_MAX_RECOVERY_TIME_S_DEFAULT 300
#define WALSIZER_MAX_RECOVERY_TIME_S_MIN 0	/* 0: no bound */
#define WALSIZER_MAX_RECOVERY_TIME_S_MAX WALSIZER_WEEK_S
#define WALSIZER_REPLAY_RATE_MB_S_DEFAULT 0
#define WALSIZER_REPLAY_RATE_MB_S_MIN 0 /* 0: measured, or assumed */
#define WALSIZER_REPLAY_RATE_MB_S_MAX WALSIZER_COUNT_LIMIT
#define WALSIZER_DEBUG_APPLY_DELAY_MS_DEFAULT 0
#define WALSIZER_DEBUG_APPLY_DELAY_MS_MIN 0
#define WALSIZER_DEBUG_APPLY_DELAY_MS_MAX 60000

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
extern int	walsizer_debug_apply_delay_ms;
extern int	walsizer_max_recovery_time_s;
extern int	walsizer_replay_rate_mb_s;

/* The background worker's entry point (worker.c). */
extern PGDLLEXPORT void walsizer_worker_main(Datum main_arg);
extern void walsizer_register_worker(void);

#endif							/* WALSIZER_H */
