/*-------------------------------------------------------------------------
 *
 * size_units.h
 *		The units every part of pg_walsizer counts sizes in, defined once.
 *
 * Sizes are in MB, like the max_wal_size GUC; WAL volumes in bytes.  This
 * header includes nothing from PostgreSQL, so the pure modules, the unit
 * tests, the simulator and the fuzzers share it with the server code.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SIZE_UNITS_H
#define WALSIZER_SIZE_UNITS_H

#include <stdint.h>

#define BYTES_PER_MB ((int64_t) 1024 * 1024)
/* The same, for arithmetic in double (rates, fractions of a MB). */
#define BYTES_PER_MB_DOUBLE (1024.0 * 1024.0)

/* max_wal_size's own minimum, in segments: no cap, floor or size below it. */
#define MIN_SIZE_SEGMENTS 2

/*
 * A full-page image where the server counts images but not their bytes
 * (before PostgreSQL 19): a whole block of the default size.
 */
#define FULL_PAGE_IMAGE_BYTES 8192

/*
 * A WAL segment in whole MB, at least 1 (wal_segment_size is a power of
 * two between 1 MB and 1 GB; 0 or less means it is not known yet).
 */
static inline int64_t
walsizer_segment_mb(int64_t segment_bytes)
{
	return segment_bytes >= BYTES_PER_MB ? segment_bytes / BYTES_PER_MB : 1;
}

/*
 * No size pg_walsizer computes may exceed this.  It is max_wal_size's own
 * upper limit (INT_MAX MB, about 2 PB), so rounding and headroom can never
 * overflow an int64 or produce a value the server would reject.
 */
#define SIZE_LIMIT_MB ((int64_t) 2147483647)

#endif							/* WALSIZER_SIZE_UNITS_H */
