/*-------------------------------------------------------------------------
 *
 * size_tracking.h
 *		Adopt the DBA's max_wal_size, confirm walsizer's own.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SIZE_TRACKING_H
#define WALSIZER_SIZE_TRACKING_H

#include "config_files.h"
#include "size_owner.h"

extern void walsizer_reconcile_at_start(WalsizerSizeTracker *owner);
extern void walsizer_track_server_size(WalsizerSizeTracker *owner,
									   bool window_end);
extern void walsizer_track_config_files(WalsizerSizeTracker *owner,
										const WalsizerConfigFiles *files,
										bool at_start, int64 *seen_mb,
										int64 now_us, double window_s);

#endif							/* WALSIZER_SIZE_TRACKING_H */
