/*-------------------------------------------------------------------------
 *
 * pg_walsizer.c
 *		Module entry point: settings, shared memory and the worker.
 *
 * pg_walsizer keeps max_wal_size large enough that checkpoints are started
 * by checkpoint_timeout rather than forced by WAL volume, and no larger
 * than the disk and walsizer.max allow.  It does its work in a background
 * worker, so it must be loaded through shared_preload_libraries; the
 * extension's SQL objects (CREATE EXTENSION) only add the functions that
 * show what it measured and decided.
 *
 * The names walsizer.enable, walsizer.max and walsizer.threshold mean what
 * they mean in the earlier pg_walsizer worker, so its configuration keeps
 * working unchanged.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <limits.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "auto_conf_guard.h"
#include "recovery_bound.h"
#include "shared_state.h"
#include "walsizer.h"

PG_MODULE_MAGIC;

/* fmgr.h declares it only from PostgreSQL 16 on */
void		_PG_init(void);

bool		walsizer_enable = WALSIZER_ENABLE_DEFAULT;
bool		walsizer_dry_run = WALSIZER_DRY_RUN_DEFAULT;
int			walsizer_max_mb = WALSIZER_MAX_MB_DEFAULT;
int			walsizer_min_mb = WALSIZER_MIN_MB_DEFAULT;
int			walsizer_threshold = WALSIZER_THRESHOLD_DEFAULT;
double		walsizer_ratio = WALSIZER_RATIO_DEFAULT;
double		walsizer_headroom = WALSIZER_HEADROOM_DEFAULT;
int			walsizer_interval_s = WALSIZER_INTERVAL_S_DEFAULT;
int			walsizer_sample_interval_ms = WALSIZER_SAMPLE_INTERVAL_MS_DEFAULT;
int			walsizer_shrink_after = WALSIZER_SHRINK_AFTER_DEFAULT;
int			walsizer_cooldown = WALSIZER_COOLDOWN_DEFAULT;
double		walsizer_disk_fraction = WALSIZER_DISK_FRACTION_DEFAULT;
int			walsizer_max_recovery_time_s = WALSIZER_MAX_RECOVERY_TIME_S_DEFAULT;
int			walsizer_replay_rate_mb_s = WALSIZER_REPLAY_RATE_MB_S_DEFAULT;

static void
define_settings(void)
{
	DefineCustomBoolVariable("walsizer.enable",
							 "Lets pg_walsizer change max_wal_size.",
							 "When off, the worker keeps measuring and reporting but changes nothing.",
							 &walsizer_enable, WALSIZER_ENABLE_DEFAULT,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable("walsizer.dry_run",
							 "Records what pg_walsizer would do as \"advise\" decisions without changing anything.",
							 NULL,
							 &walsizer_dry_run, WALSIZER_DRY_RUN_DEFAULT,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.max",
							"Largest max_wal_size pg_walsizer sets.",
							"The disk can lower the effective cap further; see walsizer.disk_fraction.",
							&walsizer_max_mb, WALSIZER_MAX_MB_DEFAULT,
							WALSIZER_SIZE_MIN_MB, WALSIZER_SIZE_LIMIT_MB,
							PGC_SIGHUP, GUC_UNIT_MB, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.min",
							"Smallest max_wal_size pg_walsizer shrinks to.",
							"0 means the max_wal_size in effect before pg_walsizer first changed it.",
							&walsizer_min_mb, WALSIZER_MIN_MB_DEFAULT,
							WALSIZER_MIN_MB_MIN, WALSIZER_SIZE_LIMIT_MB,
							PGC_SIGHUP, GUC_UNIT_MB, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.threshold",
							"Checkpoints forced by WAL in one window that make pg_walsizer grow max_wal_size.",
							NULL,
							&walsizer_threshold, WALSIZER_THRESHOLD_DEFAULT,
							WALSIZER_THRESHOLD_MIN, WALSIZER_THRESHOLD_MAX,
							PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomRealVariable("walsizer.ratio",
							 "Share of a window's checkpoints that must be forced by WAL before pg_walsizer grows max_wal_size.",
							 NULL,
							 &walsizer_ratio, WALSIZER_RATIO_DEFAULT,
							 WALSIZER_RATIO_MIN, WALSIZER_RATIO_MAX,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomRealVariable("walsizer.headroom",
							 "Extra fraction added to the size the measured WAL rate needs.",
							 NULL,
							 &walsizer_headroom, WALSIZER_HEADROOM_DEFAULT,
							 WALSIZER_HEADROOM_MIN, WALSIZER_HEADROOM_MAX,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.interval",
							"Length of pg_walsizer's decision window.",
							"0 follows checkpoint_timeout.",
							&walsizer_interval_s, WALSIZER_INTERVAL_S_DEFAULT,
							WALSIZER_INTERVAL_S_MIN, WALSIZER_INTERVAL_S_MAX,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.sample_interval",
							"How often pg_walsizer samples the WAL position and redo pointer.",
							NULL,
							&walsizer_sample_interval_ms, WALSIZER_SAMPLE_INTERVAL_MS_DEFAULT,
							WALSIZER_SAMPLE_INTERVAL_MS_MIN, WALSIZER_SAMPLE_INTERVAL_MS_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.shrink_after",
							"Windows the load must need under half of max_wal_size before pg_walsizer shrinks it.",
							"0 never shrinks.",
							&walsizer_shrink_after, WALSIZER_SHRINK_AFTER_DEFAULT,
							WALSIZER_SHRINK_AFTER_MIN, WALSIZER_SHRINK_AFTER_MAX,
							PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.cooldown",
							"Windows pg_walsizer waits between two changes of max_wal_size.",
							NULL,
							&walsizer_cooldown, WALSIZER_COOLDOWN_DEFAULT,
							WALSIZER_COOLDOWN_MIN, WALSIZER_COOLDOWN_MAX,
							PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomRealVariable("walsizer.disk_fraction",
							 "Largest share of the WAL volume's space max_wal_size may claim.",
							 "The space counted is what pg_wal holds plus the free space of its filesystem, less the WAL that replication slots, wal_keep_size and the archiver keep.",
							 &walsizer_disk_fraction, WALSIZER_DISK_FRACTION_DEFAULT,
							 WALSIZER_DISK_FRACTION_MIN, WALSIZER_DISK_FRACTION_MAX,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.max_recovery_time",
							"Longest crash recovery the max_wal_size pg_walsizer sets may cause.",
							"0 puts no bound. The worst case replays about max_wal_size of WAL at the replay rate.",
							&walsizer_max_recovery_time_s, WALSIZER_MAX_RECOVERY_TIME_S_DEFAULT,
							WALSIZER_MAX_RECOVERY_TIME_S_MIN,
							WALSIZER_MAX_RECOVERY_TIME_S_MAX,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);

	DefineCustomIntVariable("walsizer.replay_rate",
							"WAL replayed per second of a crash recovery, in MB, for walsizer.max_recovery_time.",
							"0 uses " CppAsString2(REPLAY_RATE_PLANNING_SHARE) " times the slowest of the last crash recoveries pg_walsizer measured, and a conservative assumed rate before any.",
							&walsizer_replay_rate_mb_s, WALSIZER_REPLAY_RATE_MB_S_DEFAULT,
							WALSIZER_REPLAY_RATE_MB_S_MIN,
							WALSIZER_REPLAY_RATE_MB_S_MAX,
							PGC_SIGHUP, 0, NULL, NULL, NULL);

	MarkGUCPrefixReserved("walsizer");
}

void
_PG_init(void)
{
	define_settings();

	/* the worker and its shared memory exist only when preloaded */
	if (!process_shared_preload_libraries_in_progress)
		return;

	walsizer_shmem_install_hooks();
	walsizer_install_auto_conf_guard();
	walsizer_register_worker();
}
