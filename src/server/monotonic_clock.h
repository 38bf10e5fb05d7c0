/*-------------------------------------------------------------------------
 *
 * monotonic_clock.h
 *		The clock pg_walsizer measures intervals with.
 *
 * The wall clock can be stepped (by an administrator, or by NTP on a
 * machine that drifted): a step backwards would make every "not yet" wait
 * for as long as the step, a step forwards would end windows early and
 * turn a burst into a rate.  Sample times, window ends, the disk's refresh
 * and retry delays therefore use CLOCK_MONOTONIC, which only moves
 * forwards at a steady pace.  The wall clock only stamps what people read
 * (decisions, status() times).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_MONOTONIC_CLOCK_H
#define WALSIZER_MONOTONIC_CLOCK_H

#include <time.h>

/* Microseconds on the monotonic clock; only differences mean anything. */
static inline int64
walsizer_monotonic_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64) now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

#endif							/* WALSIZER_MONOTONIC_CLOCK_H */
