/*-------------------------------------------------------------------------
 *
 * reason_text.h
 *		The rule for a decision's reason text (reason_text.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_REASON_TEXT_H
#define WALSIZER_REASON_TEXT_H

#include <stdbool.h>

extern bool walsizer_reason_text_is_valid(const char *text);
extern void walsizer_make_reason_text_valid(char *text);

#endif							/* WALSIZER_REASON_TEXT_H */
