/*-------------------------------------------------------------------------
 *
 * policy_utils.c
 *		The small helpers every step of the sizing policy uses: sizes in
 *		whole segments and within limits, sane settings, reason texts, and
 *		what a change does to the state kept between decisions.
 *
 * Part of the policy (policy.c runs its pipeline); pure like all of it: no
 * PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "policy_internal.h"
#include "size_units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

int64_t
policy_segment_mb(const WalsizerSettings *s)
{
	return walsizer_segment_mb(s->segment_bytes);
}

int64_t
policy_clamp_size(int64_t mb)
{
	if (mb < 0)
		return 0;
	if (mb > SIZE_LIMIT_MB)
		return SIZE_LIMIT_MB;
	return mb;
}

/* Round up to a whole number of segments, never past SIZE_LIMIT_MB. */
int64_t
policy_round_up_to_segment(int64_t mb, int64_t seg_mb)
{
	int64_t		rounded;

	mb = policy_clamp_size(mb);
	rounded = ((mb + seg_mb - 1) / seg_mb) * seg_mb;
	if (rounded > SIZE_LIMIT_MB)
		rounded = (SIZE_LIMIT_MB / seg_mb) * seg_mb;
	return rounded;
}

double
policy_sane_fraction(double value, double fallback)
{
	/* NaN and infinities can only come from a caller's bug; fall back */
	if (!isfinite(value) || value < 0)
		return fallback;
	return value;
}

/* Bytes as whole MB for a reason text, safe for any double. */
long long
policy_mb_for_reason(double bytes)
{
	double		mb;

	if (!isfinite(bytes) || bytes <= 0)
		return 0;
	mb = ceil(bytes / (double) BYTES_PER_MB);
	return mb < (double) SIZE_LIMIT_MB ? (long long) mb : (long long) SIZE_LIMIT_MB;
}

/* Reasons may be cut at WALSIZER_REASON_LEN; they are for people. */
void
policy_set_reason(WalsizerDecision *d, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, args);
	va_end(args);
}

/*
 * A change at a window end starts the count at 0; a change between window
 * ends belongs to the window in progress, whose end must not count towards
 * the cooldown, so it starts at -1.  Either way at most one change happens
 * per window.
 */
void
policy_note_change(DecideContext *c, WalsizerAction action, int64_t new_mb)
{
	c->d->action = action;
	c->d->new_mb = new_mb;
	c->d->state.windows_since_change = c->m->window_end ? 0 : -1;
	c->d->state.windows_below_half = 0;
	c->d->state.provisional = 0;
}

/*
 * Whether a change would come too soon: fewer than walsizer.cooldown
 * window ends since the last one.  Growth, settling and shrinking all wait
 * for it, on a primary and on a standby alike.
 */
bool
policy_in_cooldown(const DecideContext *c)
{
	return c->d->state.windows_since_change < c->cooldown;
}
