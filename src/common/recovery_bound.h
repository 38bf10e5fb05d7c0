/*-------------------------------------------------------------------------
 *
 * recovery_bound.h
 *		The crash-recovery time bound (walsizer.max_recovery_time) as pure
 *		arithmetic: the largest size whose recovery fits it, the worst
 *		recovery at a size, the replay rate to plan with.
 *
 * recovery_bound_server.c, the server's half, measures the replay rates
 * and reads the settings; these functions only compute.  Like policy.h, which
 * includes this header, it includes nothing from PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_RECOVERY_BOUND_H
#define WALSIZER_RECOVERY_BOUND_H

#include <stdint.h>

/*
 * The replay rate assumed until a crash recovery has been measured, in
 * MB of WAL per second of unavailability: conservative, measured on this
 * project's benchmark loads with a cold page cache (docs/sizing.md,
 * "Crash recovery time"; bench/experiments/replay-rate).  The worker and
 * the advisor both plan with it.
 */
#define WALSIZER_ASSUMED_REPLAY_RATE_MB_S 20

/* The share of the slowest measured replay rate planned with. */
#define REPLAY_RATE_PLANNING_SHARE 0.8

extern int64_t walsizer_recovery_cap_mb(double max_recovery_s,
										double replay_bytes_per_s);
extern double walsizer_worst_pending_bytes(int64_t size_mb,
										  double completion_target,
										  uint64_t cycle_bytes,
										  uint64_t seen_bytes);
extern double walsizer_estimated_recovery_s(int64_t size_mb,
											double completion_target,
											uint64_t cycle_bytes,
											uint64_t seen_bytes,
											double replay_bytes_per_s);
extern double walsizer_conservative_replay_rate(const double *rates,
												int count);

#endif							/* WALSIZER_RECOVERY_BOUND_H */
