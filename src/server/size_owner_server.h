/*-------------------------------------------------------------------------
 *
 * size_owner_server.h
 *		Adopt the DBA's max_wal_size, confirm walsizer's own: the server
 *		side of size_owner.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SIZE_OWNER_SERVER_H
#define WALSIZER_SIZE_OWNER_SERVER_H

#include "act.h"
#include "config_files.h"
#include "size_owner.h"

extern void walsizer_tracking_start(void);
extern void walsizer_tracking_before_reload(void);
extern void walsizer_tracking_after_reload(void);
extern void walsizer_track_size(bool window_end, int64 now_us, char *source,
								size_t len);
extern WalsizerActContext walsizer_tracking_act_context(int64 now_us);
extern const WalsizerSizeTracker *walsizer_tracking_owner(void);
extern int64 walsizer_tracking_shadowed_mb(void);

#endif							/* WALSIZER_SIZE_OWNER_SERVER_H */
