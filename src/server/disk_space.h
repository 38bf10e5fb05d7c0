/*-------------------------------------------------------------------------
 *
 * disk_space.h
 *		How much room the WAL volume gives max_wal_size.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_DISK_SPACE_H
#define WALSIZER_DISK_SPACE_H

extern int64 walsizer_measure_disk_cap_mb(double disk_fraction, uint64 held_bytes,
											 int64 *without_held_mb);

#endif							/* WALSIZER_DISK_SPACE_H */
