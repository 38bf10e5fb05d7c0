/*-------------------------------------------------------------------------
 *
 * server_sample.c
 *		The sample stage: what the server has now, read into the plain
 *		structs the pure modules take.
 *
 * A sample is the WAL position, the redo pointer and the checkpoint and
 * WAL counters (stats_reader.c, the only place that knows how each major
 * names them); the settings are the server's and pg_walsizer's as they
 * are in force.  On a hot standby the same calls read the replay position
 * and the last restartpoint, so that the worker and the policy need no
 * second path for it.  Only the worker calls these, once per sample, so
 * that measure.c and policy.c never read a server global.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "postmaster/bgwriter.h"
#include "storage/lwlock.h"

#include "recovery_bound_server.h"
#include "server_sample.h"
#include "shared_state.h"
#include "stats_reader.h"
#include "walsizer.h"

/* The decision window: walsizer.interval, or 0 for checkpoint_timeout. */
double
walsizer_window_length_s(void)
{
	return walsizer_interval_s > 0 ? walsizer_interval_s : CheckPointTimeout;
}

/* Read the WAL position, the redo pointer and the counters. */
void
walsizer_read_sample(int64 now_us, WalsizerSample *sample)
{
	WalsizerCounters counters;
	bool		standby = RecoveryInProgress();

	sample->at_us = now_us;
	sample->standby = standby;

	/*
	 * On a standby the WAL comes in through replay, and the redo pointer is
	 * the last restartpoint's (CreateRestartPoint() updates the shared
	 * copy GetRedoRecPtr() reads): what the startup process compares with
	 * max_wal_size to request a restartpoint.
	 */
	sample->insert_lsn = standby ? GetXLogReplayRecPtr(NULL) : GetXLogInsertRecPtr();
	sample->redo_lsn = GetRedoRecPtr();
	walsizer_read_counters(&counters);
	sample->timed = counters.timed;
	sample->requested = counters.requested;
	if (standby && counters.restartpoints_counted)
	{
		sample->timed = counters.restartpoints_timed;
		sample->requested = counters.restartpoints_requested;
	}
	sample->counters_reset_at = counters.reset_at;
	sample->wal_fpi = counters.wal_fpi;
	sample->wal_fpi_bytes = counters.wal_fpi_bytes;
	sample->wal_stat_bytes = counters.wal_bytes;
	sample->fpi_bytes_counted = counters.fpi_bytes_counted;
	sample->wal_reset_at = counters.wal_reset_at;
	sample->max_wal_size_mb = max_wal_size_mb;
}

/* What measure.c needs of the settings. */
void
walsizer_read_measure_settings(WalsizerMeasureSettings *set)
{
	set->segment_bytes = wal_segment_size;
	set->checkpoint_timeout_s = CheckPointTimeout;
	set->completion_target = CheckPointCompletionTarget;
	set->window_s = walsizer_window_length_s();
	set->sample_interval_ms = walsizer_sample_interval_ms;
}

/*
 * What policy.c needs of the settings; the disk's cap is the worker's,
 * which measures the WAL volume less often than it samples.
 */
void
walsizer_read_policy_settings(WalsizerSettings *s, int64 disk_cap_mb)
{
	LWLockAcquire(walsizer_shared->lock, LW_SHARED);
	s->baseline_mb = walsizer_shared->persistent.baseline_mb;
	LWLockRelease(walsizer_shared->lock);

	s->current_mb = max_wal_size_mb;
	s->segment_bytes = wal_segment_size;
	s->checkpoint_timeout_s = CheckPointTimeout;
	s->completion_target = CheckPointCompletionTarget;
	s->threshold = walsizer_threshold;
	s->ratio = walsizer_ratio;
	s->headroom = walsizer_headroom;
	s->max_mb = walsizer_max_mb;
	s->min_mb = walsizer_min_mb;
	s->disk_cap_mb = disk_cap_mb;
	s->recovery_cap_mb = walsizer_recovery_cap_mb_now();
	s->shrink_after = walsizer_shrink_after;
	s->cooldown = walsizer_cooldown;
	s->sample_interval_s = walsizer_sample_interval_ms / 1000.0;
}
