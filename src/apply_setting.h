/*-------------------------------------------------------------------------
 *
 * apply_setting.h
 *		Change max_wal_size the way ALTER SYSTEM does, from the worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_APPLY_SETTING_H
#define WALSIZER_APPLY_SETTING_H

typedef enum WalsizerApplyResult
{
	WALSIZER_APPLY_OK,			/* written and reload requested */
	WALSIZER_APPLY_BLOCKED,		/* ALTER SYSTEM is disabled on this server */
	WALSIZER_APPLY_DEFERRED,	/* someone else's change awaits a reload */
	WALSIZER_APPLY_FAILED		/* ALTER SYSTEM raised an error */
} WalsizerApplyResult;

extern bool walsizer_alter_system_allowed(void);
extern WalsizerApplyResult walsizer_apply_prepare(char *errbuf, size_t errlen);
extern void walsizer_apply_cancel(void);
extern WalsizerApplyResult walsizer_apply_write(int64 new_mb, char *errbuf,
												size_t errlen);

#endif							/* WALSIZER_APPLY_SETTING_H */
