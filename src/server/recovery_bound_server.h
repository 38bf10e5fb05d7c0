/*-------------------------------------------------------------------------
 *
 * recovery_bound_server.h
 *		How long a crash recovery takes here: the replay rate measured after
 *		each crash, and the bound walsizer.max_recovery_time puts on
 *		max_wal_size.  The server half of recovery_bound.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_RECOVERY_BOUND_SERVER_H
#define WALSIZER_RECOVERY_BOUND_SERVER_H

/* Where the replay rate in use comes from. */
typedef enum WalsizerReplayRateSource
{
	WALSIZER_REPLAY_ASSUMED,	/* nothing measured yet: the built-in figure */
	WALSIZER_REPLAY_MEASURED,	/* the slowest recent crash recovery, less a margin */
	WALSIZER_REPLAY_SETTING		/* walsizer.replay_rate, the DBA's figure */
} WalsizerReplayRateSource;

extern void walsizer_recovery_at_start(void);
extern void walsizer_recovery_track_checkpoint(void);
extern uint64 walsizer_recovery_seen_bytes(void);
extern void walsizer_recovery_note_clean_stop(void);
extern double walsizer_replay_rate(WalsizerReplayRateSource *source);
extern const char *walsizer_replay_rate_source_name(WalsizerReplayRateSource source);
extern int64 walsizer_recovery_cap_mb_now(void);

#endif							/* WALSIZER_RECOVERY_BOUND_SERVER_H */
