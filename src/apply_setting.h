/*-------------------------------------------------------------------------
 *
 * apply_setting.h
 *		Change max_wal_size the way ALTER SYSTEM does, from the worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_APPLY_SETTING_H
#define WALSIZER_APPLY_SETTING_H

#include "config_files.h"

typedef enum WalsizerApplyResult
{
	WALSIZER_APPLY_OK,			/* written and reload requested */
	WALSIZER_APPLY_FAILED		/* ALTER SYSTEM raised an error */
} WalsizerApplyResult;

extern bool walsizer_alter_system_allowed(void);
extern void walsizer_apply_prepare(const WalsizerConfigFiles *loaded,
								   bool *pending, char *why, size_t len);
extern void walsizer_apply_reloaded(void);
extern bool walsizer_apply_own_write_unloaded(void);
extern void walsizer_apply_cancel(void);
extern WalsizerApplyResult walsizer_apply_write(int64 new_mb,
												uint64 *alter_count,
												char *errbuf, size_t errlen);

#endif							/* WALSIZER_APPLY_SETTING_H */
