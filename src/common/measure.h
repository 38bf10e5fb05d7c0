/*-------------------------------------------------------------------------
 *
 * measure.h
 *		Turn the worker's samples of the server into the measurements the
 *		sizing policy decides on.
 *
 * Like policy.h, this header and measure.c (with measure_rates.c)
 * include nothing from PostgreSQL.  The worker feeds them samples read from the server; the
 * trace simulator feeds them samples built the way PostgreSQL would show
 * them.  Both therefore run the same measurement code end to end: the
 * rate history, the peak and recent rates, the inference of which
 * checkpoints WAL volume forced, and the window roll-over.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_MEASURE_H
#define WALSIZER_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* WAL positions kept for the peak rate; older ones are thinned out. */
#define MEASURE_HISTORY_POINTS 4096
/* WAL positions kept for the recent rate, one per sample. */
#define MEASURE_RECENT_POINTS 64

/*
 * One reading of the server, taken every walsizer.sample_interval.  Times
 * are in microseconds (PostgreSQL's TimestampTz); the counters are the
 * server's cumulative ones, which a statistics reset may set back.
 */
typedef struct WalsizerSample
{
	int64_t		at_us;			/* when the sample was taken */
	uint64_t	insert_lsn;		/* WAL insert position */
	uint64_t	redo_lsn;		/* redo pointer of the latest checkpoint */
	int64_t		timed;			/* timed checkpoints so far */
	int64_t		requested;		/* requested checkpoints so far */
	int64_t		counters_reset_at;	/* reset stamp of those two counters */
	int64_t		wal_fpi;		/* full-page images written so far */
	uint64_t	wal_fpi_bytes;	/* their bytes so far (19+), else 0 */
	uint64_t	wal_stat_bytes; /* WAL bytes as pg_stat_wal counts them:
								 * flushed with the image counts, so the
								 * two give the images' share */
	bool		fpi_bytes_counted;	/* wal_fpi_bytes is the server's count */
	int64_t		wal_reset_at;	/* reset stamp of the WAL counters */
	int64_t		max_wal_size_mb;	/* the size the server runs with */
	bool		standby;		/* in recovery: insert_lsn is the replay
								 * position, redo_lsn the last
								 * restartpoint's, and the counters count
								 * restartpoints where the server keeps
								 * them apart (17+) */
} WalsizerSample;

/* The settings measuring depends on; the caller reads them each sample. */
typedef struct WalsizerMeasureSettings
{
	int64_t		segment_bytes;	/* wal_segment_size */
	double		checkpoint_timeout_s;
	double		completion_target;	/* checkpoint_completion_target */
	double		window_s;		/* decision window */
	int			sample_interval_ms; /* walsizer.sample_interval */
} WalsizerMeasureSettings;

typedef struct WalPoint
{
	int64_t		at_us;
	uint64_t	lsn;
	uint64_t	fpi_bytes;		/* full-page image bytes so far, estimated
								 * unless the server counts them */
	uint64_t	stat_bytes;		/* WAL bytes so far, as pg_stat_wal counts */
} WalPoint;

/* One checkpoint cycle: from one redo pointer move to the next. */
typedef struct WalCycle
{
	int64_t		ended_at_us;
	double		seconds;
	uint64_t	bytes;			/* WAL between the two redo pointers */
	uint64_t	fpi_bytes;		/* of which full-page images */
	bool		timed;			/* lasted a checkpoint_timeout, not forced */
	double		mid_s;			/* a point near its middle, 0 none: */
	uint64_t	mid_fpi_bytes;	/* the images up to it */
} WalCycle;

/* Whole timed cycles kept for what the load needs, newest last. */
#define MEASURE_TIMED_CYCLES 16

/* A ring of WAL positions, oldest first through measure_ring_at(). */
typedef struct WalRing
{
	WalPoint	points[MEASURE_HISTORY_POINTS];
	int			capacity;
	int			count;
	int			next;
} WalRing;

/* What a window started with: its end compares the counters to these. */
typedef struct WindowStart
{
	int64_t		at_us;
	uint64_t	insert_lsn;
	WalsizerSample sample;		/* counters at the start */
	int64_t		far_redo_moves; /* redo moves far enough to be WAL-forced */
	bool		reset_seen;		/* counters were reset during the window */
	int64_t		far_redo_moves_since_reset; /* of those, seen at or after
											 * the latest reset's sample */
} WindowStart;

/*
 * Everything measured so far.  The caller owns it (the worker keeps one in
 * its process memory, the simulator on its stack) and changes it only
 * through the functions below.
 */
typedef struct WalsizerMeasure
{
	WalRing		history;		/* for the peak rate over the horizon */
	WalRing		recent;			/* for the recent rate, every sample */
	int64_t		last_history_at_us; /* newest point in history */

	WalsizerSample latest;		/* the newest sample */
	uint64_t	fpi_bytes;		/* image bytes so far, as WalPoint's */
	uint64_t	stat_bytes;		/* WAL bytes so far, as WalPoint's */
	uint64_t	switched_bytes; /* WAL positions segment switches skipped
								 * so far; the recent ring leaves them out */
	int64_t		last_redo_move_at_us;	/* 0 until a checkpoint was seen */
	bool		next_redo_move_unjudged;	/* the next redo pointer move
											 * starts a cycle but says
											 * nothing about the size: the
											 * first checkpoint after a
											 * promotion */
	uint64_t	fpi_bytes_at_redo_move; /* fpi_bytes then */
	int64_t		forced_since_change;	/* far redo moves since the size
										 * changed or walsizer was enabled */
	int64_t		size_changed_at_us; /* when it last changed */
	uint64_t	cycle_reach_bytes;	/* the furthest reach (reach_bytes) in
									 * the cycle in progress */
	uint64_t	last_cycle_reach_bytes; /* and in the one before; both
										 * restart at a size change */
	int64_t		timed_cycles_since_change;	/* whole timed cycles that
											 * started after that */
	uint64_t	timed_cycle_peak_since_change;	/* the most WAL one of
												 * them wrote */
	WalCycle	last_cycle;		/* seconds 0 until one completed */
	WalCycle	timed_cycles[MEASURE_TIMED_CYCLES]; /* the latest whole timed
													 * ones, a ring */
	int			timed_cycles_count;
	int			timed_cycles_next;
	uint64_t	timed_cycle_fpi_bytes;	/* images of the last whole timed
										 * cycle, 0 until one completed */

	WindowStart window;			/* the window in progress */
	int64_t		next_window_at_us;	/* when it ends, unless asked earlier */
} WalsizerMeasure;

/*
 * What the measurement knows that status() shows and the policy never
 * reads: the last complete checkpoint cycle (which the worker's estimate
 * of a crash recovery also uses) and how image bytes are counted.
 */
typedef struct WalsizerStatusFigures
{
	double		last_cycle_s;	/* 0 until one was seen */
	uint64_t	last_cycle_bytes;	/* WAL from one redo pointer to the next */
	uint64_t	last_cycle_fpi_bytes;	/* of which full-page images */
	bool		last_cycle_timed;
	double		last_cycle_mid_s;	/* a point near its middle (0 none) */
	uint64_t	last_cycle_mid_fpi_bytes;	/* and its images up to it:
											 * how fast they fell shows the
											 * working set (what_if.c) */
	bool		fpi_bytes_measured; /* the server counts image bytes (19+);
									 * else they are estimated */
} WalsizerStatusFigures;

extern void walsizer_measure_start(WalsizerMeasure *ms,
								   const WalsizerSample *first,
								   const WalsizerMeasureSettings *set);
extern void walsizer_measure_add(WalsizerMeasure *ms,
								 const WalsizerSample *sample,
								 const WalsizerMeasureSettings *set);
extern void walsizer_measure_get(const WalsizerMeasure *ms, bool window_end,
								 bool size_is_ours,
								 const WalsizerMeasureSettings *set,
								 WalsizerMeasurements *m);
extern void walsizer_measure_status_figures(const WalsizerMeasure *ms,
											WalsizerStatusFigures *f);
extern void walsizer_measure_end_window(WalsizerMeasure *ms,
										const WalsizerMeasurements *ended,
										const WalsizerMeasureSettings *set);
extern void walsizer_measure_size_changed(WalsizerMeasure *ms);
extern void walsizer_measure_role_changed(WalsizerMeasure *ms,
										  const WalsizerSample *sample,
										  const WalsizerMeasureSettings *set,
										  bool promoted);
extern void walsizer_measure_forget_load(WalsizerMeasure *ms,
										 const WalsizerMeasureSettings *set);
extern void walsizer_measure_window_length_changed(WalsizerMeasure *ms,
												   const WalsizerMeasureSettings *set);
extern bool walsizer_measure_window_due(const WalsizerMeasure *ms);
extern int64_t walsizer_measure_window_fpi(const WalsizerMeasure *ms);

#endif							/* WALSIZER_MEASURE_H */
