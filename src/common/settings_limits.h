/*-------------------------------------------------------------------------
 *
 * settings_limits.h
 *		Each setting's default, minimum and maximum, defined once.
 *
 * The worker's GUC variables start at the default and their
 * DefineCustom*Variable() calls take all three (src/server/walsizer.h
 * includes this header); the advisor's options of the same name start at
 * the same defaults and accept the same ranges; the policy's counters
 * saturate at the largest count a setting may name.  Like every header of
 * src/common/, it includes nothing from PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SETTINGS_LIMITS_H
#define WALSIZER_SETTINGS_LIMITS_H

#include <limits.h>
#include <stdbool.h>

/* Sizes in MB, times in the setting's own unit. */
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

#endif							/* WALSIZER_SETTINGS_LIMITS_H */
