/*-------------------------------------------------------------------------
 *
 * measure_internal.h
 *		What the files of the measurement share and nothing else sees.
 *
 * measure.c turns samples into measurements (walsizer_measure_*(), see
 * measure.h); measure_rates.c keeps the WAL position rings and takes the
 * recent and peak rates from them.  A helper used by one file only stays
 * static there.  The shared ones carry a measure_ prefix, so that the
 * server module exports no generic names.
 *
 * Like measure.h, this header includes nothing from PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_MEASURE_INTERNAL_H
#define WALSIZER_MEASURE_INTERNAL_H

#include "measure.h"

#define USECS_PER_SECOND ((int64_t) 1000000)

/* measure_rates.c: time */
extern double measure_seconds_between(int64_t start_us, int64_t stop_us);
extern int64_t measure_seconds_to_us(double seconds);
extern double measure_timeout_s(const WalsizerMeasureSettings *set);

/* measure_rates.c: the WAL position rings */
extern void measure_ring_clear(WalRing *ring, int capacity);
extern const WalPoint *measure_ring_at(const WalRing *ring, int i);
extern void measure_ring_push(WalRing *ring, int64_t at_us, uint64_t lsn,
							  uint64_t fpi_bytes, uint64_t stat_bytes);
extern void measure_ring_trim(WalRing *ring, int64_t oldest_kept_us);
extern int64_t measure_ring_span_us(const WalRing *ring);
extern double measure_rate_between(const WalPoint *from, const WalPoint *to);

/* measure_rates.c: the horizon and the rates */
extern double measure_horizon_s(const WalsizerMeasureSettings *set);
extern double measure_peak_rate(const WalRing *ring,
								const WalsizerMeasureSettings *set);
extern bool measure_recent_rate(const WalRing *ring, double *rate,
								double *record_rate);

#endif							/* WALSIZER_MEASURE_INTERNAL_H */
