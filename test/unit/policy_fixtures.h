/*-------------------------------------------------------------------------
 *
 * policy_fixtures.h
 *		Typical settings and measurements for the policy tests.
 *
 * The tests start from a server that looks like a default installation
 * (1 GB max_wal_size, 16 MB segments, 5 min checkpoint_timeout, 0.9
 * completion target, pg_walsizer's default GUCs) and change only what the
 * behaviour under test is about, so each test states its premise in a few
 * lines.  With these settings a sustained WAL rate of R MB/s needs
 * ceil(1.9 * R * 300 * 1.25) MB, rounded up to 16 MB: 720 MB at 1 MB/s,
 * 1440 MB at 2 MB/s, 2864 MB at 4 MB/s.  At 1 GB a checkpoint is forced
 * 528 MB after the start of the redo pointer's segment
 * (walsizer_trigger_bytes()), so from 512 MB after the redo pointer on;
 * with 1 s samples a checkpoint is imminent when the WAL is expected to
 * reach 512 MB within 3 s.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_POLICY_FIXTURES_H
#define WALSIZER_POLICY_FIXTURES_H

#include "policy.h"
#include "size_units.h"

#define MB ((uint64_t) 1024 * 1024)

static inline WalsizerSettings
typical_settings(void)
{
	WalsizerSettings s;

	memset(&s, 0, sizeof(s));
	s.current_mb = 1024;
	s.segment_bytes = 16 * MB;
	s.checkpoint_timeout_s = 300;
	s.completion_target = 0.9;
	s.threshold = 2;
	s.ratio = 0.33;
	s.headroom = 0.25;
	s.max_mb = 4096;
	s.min_mb = 0;
	s.baseline_mb = 1024;
	s.disk_cap_mb = 0;
	s.shrink_after = 12;
	s.cooldown = 1;
	s.sample_interval_s = 1;
	return s;
}

/* A sample between window ends: nothing measured that asks for action. */
static inline WalsizerMeasurements
quiet_sample(void)
{
	WalsizerMeasurements m;

	memset(&m, 0, sizeof(m));
	m.window_end = false;
	m.seconds_to_timed_checkpoint = 300;
	return m;
}

/*
 * The end of a 300 s window in which WAL was written at rate_mb_s, with the
 * given checkpoint counts.  The peak rate over the horizon is the same rate.
 */
static inline WalsizerMeasurements
window_at_rate(double rate_mb_s, int64_t timed, int64_t requested,
			   int64_t wal_forced)
{
	WalsizerMeasurements m = quiet_sample();

	m.window_end = true;
	m.window_s = 300;
	m.timed = timed;
	m.requested = requested;
	m.wal_forced = wal_forced;
	m.wal_bytes = (uint64_t) (rate_mb_s * 300 * (double) MB);
	m.peak_rate = rate_mb_s * (double) MB;
	/* the horizon covers a checkpoint_timeout: a whole cycle's evidence */
	m.peak_covers_cycle = true;
	return m;
}

/*
 * The least WAL after the redo pointer that can force a checkpoint at s:
 * the trigger less a segment, with the redo pointer at the end of its
 * segment.  The policy looks ahead to this point.
 */
static inline uint64_t
trigger_of(const WalsizerSettings *s, int64_t size_mb)
{
	uint64_t	trigger = walsizer_trigger_bytes(size_mb, s->segment_bytes,
												 s->completion_target);

	return trigger > (uint64_t) s->segment_bytes ?
		trigger - (uint64_t) s->segment_bytes : 0;
}

/*
 * A sample between window ends at which measure.c expects the WAL after
 * the redo pointer, since_redo_bytes now, to reach reach_bytes within the
 * lookahead (3 s).  The recent rate is what gets it there; the records
 * alone, and whole cycles, say 1 MB/s.  At walsizer's own size: an
 * imminent checkpoint may cut its cooldown short.
 */
static inline WalsizerMeasurements
sample_reaching(uint64_t since_redo_bytes, uint64_t reach_bytes)
{
	WalsizerMeasurements m = quiet_sample();

	m.wal_since_redo_bytes = since_redo_bytes;
	m.recent_rate_valid = true;
	m.reach_within_s = 3;
	m.reach_bytes = reach_bytes;
	m.recent_rate = reach_bytes > since_redo_bytes ?
		(double) (reach_bytes - since_redo_bytes) / m.reach_within_s : 0;
	m.recent_record_rate = 1 * (double) MB;
	m.peak_rate = 1 * (double) MB;
	m.size_is_walsizers = true;
	return m;
}

/*
 * The end of a window at rate_mb_s after a growth: the horizon holds whole
 * checkpoint_timeouts at the grown size, and `cycles` whole timed cycles
 * were measured at it, none forced, each writing rate_mb_s over
 * checkpoint_timeout.  Settling needs at least two.
 */
static inline WalsizerMeasurements
window_after_timed_cycles(double rate_mb_s, int64_t cycles)
{
	WalsizerMeasurements m = window_at_rate(rate_mb_s, 1, 0, 0);

	m.peak_covers_cycle = true;
	m.timed_cycles_at_size = cycles;
	m.wal_forced_at_size = 0;
	m.size_is_walsizers = true;
	if (cycles > 0)
	{
		m.timed_cycle_peak_bytes = m.wal_bytes;
		m.timed_cycle_peak_bytes_at_size = m.wal_bytes;
	}
	return m;
}

static inline WalsizerPolicyState
fresh_state(void)
{
	WalsizerPolicyState state;

	walsizer_policy_init_state(&state);
	return state;
}

/* One call of the policy; *state becomes the state it hands back. */
static inline WalsizerDecision
decide(const WalsizerSettings *s, const WalsizerMeasurements *m,
	   WalsizerPolicyState *state)
{
	WalsizerDecision d;

	walsizer_decide(s, m, state, &d);
	*state = d.state;
	return d;
}

#endif							/* WALSIZER_POLICY_FIXTURES_H */
