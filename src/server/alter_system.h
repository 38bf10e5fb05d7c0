/*-------------------------------------------------------------------------
 *
 * alter_system.h
 *		Change max_wal_size the way ALTER SYSTEM does, from the worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_ALTER_SYSTEM_H
#define WALSIZER_ALTER_SYSTEM_H

#include "config_files.h"

typedef enum WalsizerAlterSystemResult
{
	WALSIZER_ALTER_SYSTEM_OK,			/* written and reload requested */
	WALSIZER_ALTER_SYSTEM_FAILED		/* ALTER SYSTEM raised an error */
} WalsizerAlterSystemResult;

extern bool walsizer_alter_system_allowed(void);
extern void walsizer_alter_system_prepare(const WalsizerConfigFiles *loaded,
								   bool *pending, char *why, size_t len);
extern void walsizer_alter_system_reloaded(void);
extern bool walsizer_alter_system_own_write_unloaded(void);
extern void walsizer_alter_system_cancel(void);
extern WalsizerAlterSystemResult walsizer_alter_system_write(int64 new_mb,
												uint64 *alter_count,
												char *errbuf, size_t errlen);

#endif							/* WALSIZER_ALTER_SYSTEM_H */
