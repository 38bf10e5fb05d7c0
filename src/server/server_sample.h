/*-------------------------------------------------------------------------
 *
 * server_sample.h
 *		What the server has now, as the plain structs the pure modules take.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_SERVER_SAMPLE_H
#define WALSIZER_SERVER_SAMPLE_H

#include "measure.h"
#include "policy.h"

extern double walsizer_window_length_s(void);
extern void walsizer_read_sample(int64 now_us, WalsizerSample *sample);
extern void walsizer_read_measure_settings(WalsizerMeasureSettings *set);
extern void walsizer_read_policy_settings(WalsizerSettings *s, int64 disk_cap_mb);

#endif							/* WALSIZER_SERVER_SAMPLE_H */
