/*-------------------------------------------------------------------------
 *
 * act.h
 *		Carry out one of the policy's decisions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_ACT_H
#define WALSIZER_ACT_H

#include "config_files.h"
#include "policy.h"
#include "size_owner.h"

/* What walsizer_act() needs besides the decision. */
typedef struct WalsizerActContext
{
	WalsizerSizeTracker *owner; /* who set the size the server runs */
	const WalsizerConfigFiles *loaded;	/* the files as last loaded; NULL
										 * when they could not be read */
	uint64	   *alter_count_seen;	/* the DBA's ALTER SYSTEM count the
										 * worker has taken in; a write
										 * replaces the statements before it */
	int64		now_us;			/* the monotonic clock */
	double		window_s;		/* the window's length */
} WalsizerActContext;

/* How far a decision was carried out. */
typedef enum WalsizerActOutcome
{
	WALSIZER_ACT_NONE,			/* nothing to do */
	WALSIZER_ACT_WRITTEN,		/* written and reloaded */
	WALSIZER_ACT_ADVISED,		/* no write may be made: advised or
								 * reported instead, and said so */
	WALSIZER_ACT_NOT_DONE		/* failed or postponed: try again, having
								 * consumed nothing */
} WalsizerActOutcome;

extern WalsizerActOutcome walsizer_act(const WalsizerDecision *d,
									   const WalsizerMeasurements *m,
									   const WalsizerActContext *ctx);
extern WalsizerActOutcome walsizer_act_adopt(const WalsizerDecision *d,
											 const WalsizerActContext *ctx);
extern void walsizer_act_note_alter_system(bool allowed);
extern const char *walsizer_act_postponed(void);
extern void walsizer_act_note_reload(void);

#endif							/* WALSIZER_ACT_H */
