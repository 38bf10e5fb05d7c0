/*-------------------------------------------------------------------------
 *
 * auto_conf_guard.h
 *		Serialise ALTER SYSTEM of max_wal_size with pg_walsizer's own.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_AUTO_CONF_GUARD_H
#define WALSIZER_AUTO_CONF_GUARD_H

extern void walsizer_install_auto_conf_guard(void);

#endif							/* WALSIZER_AUTO_CONF_GUARD_H */
