/*-------------------------------------------------------------------------
 *
 * shadowed_size.c
 *		Decide what a max_wal_size shadowed by postgresql.auto.conf calls
 *		for (see shadowed_size.h).
 *
 * The rules, in order:
 *
 *	  nothing shadowed (no value in the other files, or postgresql.auto.conf
 *	  sets none, so the server runs the files' value)	-> nothing
 *	  the files' value is what the server runs			-> nothing
 *	  first look at start: unknown to pg_walsizer		-> warn once
 *	  walsizer.enable = off								-> wait
 *	  unchanged since the last look						-> nothing
 *	  changed: the DBA's intent							-> adopt (advise
 *														   in a dry run)
 *
 * "Unchanged since the last look" is what keeps an adopted value, or one
 * walsizer has since grown past, from being adopted again at every
 * sample: only an edit is news.  While walsizer is disabled the last look
 * is not updated, so an edit made meanwhile is adopted once it is enabled
 * again.
 *
 *-------------------------------------------------------------------------
 */
#include "shadowed_size.h"

WalsizerShadowVerdict
walsizer_shadow_decide(const WalsizerShadowLook *look)
{
	if (look->file_mb <= 0 || !look->auto_conf_sets)
		return WALSIZER_SHADOW_NOTHING;
	if (look->file_mb == look->running_mb)
		return WALSIZER_SHADOW_NOTHING;

	/*
	 * At start nothing tells an edit made while the server was down from a
	 * value walsizer grew past long ago, except the DBA's baseline: the
	 * files' value after a growth is that baseline.
	 */
	if (look->at_start)
		return look->enabled && look->file_mb != look->baseline_mb ?
			WALSIZER_SHADOW_WARN : WALSIZER_SHADOW_NOTHING;
	if (!look->enabled)
		return WALSIZER_SHADOW_WAIT;
	if (look->file_mb == look->seen_mb)
		return WALSIZER_SHADOW_NOTHING;
	return look->dry_run ? WALSIZER_SHADOW_ADVISE : WALSIZER_SHADOW_ADOPT;
}

/*
 * Whether the files' value becomes the last look once the verdict is
 * carried out.  An adoption that failed is not carried out: the caller
 * then keeps the old look, so that it is tried again.
 */
bool
walsizer_shadow_remembers(WalsizerShadowVerdict verdict)
{
	return verdict != WALSIZER_SHADOW_WAIT;
}
