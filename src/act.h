/*-------------------------------------------------------------------------
 *
 * act.h
 *		Carry out one of the policy's decisions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_ACT_H
#define WALSIZER_ACT_H

#include "policy.h"
#include "size_owner.h"

extern bool walsizer_act(const WalsizerDecision *d,
						 const WalsizerMeasurements *m,
						 WalsizerSizeTracker *owner, int64 now_us,
						 double window_s);
extern bool walsizer_act_adopt(const WalsizerDecision *d,
							   WalsizerSizeTracker *owner, int64 now_us,
							   double window_s);
extern void walsizer_act_note_alter_system(bool allowed);

#endif							/* WALSIZER_ACT_H */
