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

/*
 * No size pg_walsizer computes may exceed this.  It is max_wal_size's own
 * upper limit (INT_MAX MB, about 2 PB), so rounding and headroom can never
 * overflow an int64 or produce a value the server would reject.
 */
#define SIZE_LIMIT_MB ((int64_t) 2147483647)

#endif							/* WALSIZER_SIZE_UNITS_H */
