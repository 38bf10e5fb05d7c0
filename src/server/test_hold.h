/*-------------------------------------------------------------------------
 *
 * test_hold.h
 *		A test's hold on the worker's changes (test_hold.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_TEST_HOLD_H
#define WALSIZER_TEST_HOLD_H

#include "policy.h"

extern bool walsizer_test_hold_takes(WalsizerAction action);
extern bool walsizer_test_hold_covers(WalsizerAction action);
extern void walsizer_test_hold_before_write(void);

#endif							/* WALSIZER_TEST_HOLD_H */
