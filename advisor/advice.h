/*-------------------------------------------------------------------------
 *
 * advice.h
 *		The advisor's pipeline, from samples of a server to one recommended
 *		max_wal_size: the worker's own measurement (measure.c) and policy
 *		(policy.c), run from outside the server.
 *
 * Like policy.h and measure.h, this header and advice.c include nothing
 * from PostgreSQL or libpq: pg_walsizer_advisor feeds them samples read
 * over a connection, --replay and the simulator feed them samples read
 * from a recorded trace, and the unit tests feed them by hand.  All three
 * get the same recommendation from the same samples.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_ADVICE_H
#define WALSIZER_ADVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "measure.h"
#include "policy.h"
#include "recovery_bound.h"
#include "size_units.h"
#include "what_if.h"

/* What the advisor knows about the server it samples; read once. */
typedef struct AdvisorServerFacts
{
	int			major;			/* PostgreSQL major, 15 for 15.x */
	bool		standby;		/* in recovery: measured by replayed WAL;
								 * in the advisor, the latest sample's
								 * (WalsizerSample.standby) */
	bool		redo_known;		/* pg_control_checkpoint() could be read;
								 * else the redo pointer is inferred from
								 * the checkpoint counters */
	int64_t		segment_bytes;	/* wal_segment_size */
	int64_t		block_bytes;	/* block_size: the largest full-page image */
	double		checkpoint_timeout_s;
	double		completion_target;	/* checkpoint_completion_target */
} AdvisorServerFacts;

/* What the user asked for; the defaults are the extension's. */
typedef struct AdvisorOptions
{
	double		window_s;		/* one report line per window; 0 means
								 * checkpoint_timeout */
	double		sample_interval_s;
	int64_t		max_mb;			/* as walsizer.max */
	double		max_recovery_s; /* as walsizer.max_recovery_time, 0 off */
	double		replay_rate_bytes_s;	/* as walsizer.replay_rate; 0 means
										 * ADVISOR_ASSUMED_REPLAY_RATE */
	bool		what_if;		/* --what-if: the what-if table too */
	int64_t		what_if_mb[WALSIZER_WHAT_IF_MAX_ASKED]; /* its sizes, MB */
	int			what_if_count;
} AdvisorOptions;

/* The extension's replay rate before it has measured one. */
#define ADVISOR_ASSUMED_REPLAY_RATE \
	((double) WALSIZER_ASSUMED_REPLAY_RATE_MB_S * BYTES_PER_MB_DOUBLE)

extern void advisor_default_options(AdvisorOptions *options);

/* One report line: a window of the run, as the worker's windows. */
typedef struct AdvisorWindow
{
	double		ended_at_s;		/* seconds since the first sample */
	double		seconds;
	uint64_t	wal_bytes;
	int64_t		timed;			/* timed checkpoints completed */
	int64_t		requested;		/* requested checkpoints completed */
	int64_t		wal_forced;		/* of those, forced by WAL volume */
	double		fpi_share;		/* full-page images' share of the WAL */
	int64_t		max_wal_size_mb;	/* the size the server ran with */
} AdvisorWindow;

/*
 * The pages one checkpoint_timeout of the load can change at most, from
 * the tables written during the run (pg_stat_all_tables of the database
 * the advisor is connected to): each page changed first after a checkpoint
 * is logged whole, so this bounds a cycle's full-page images.  0 pages:
 * not known.
 */
typedef struct AdvisorWorkingSet
{
	int64_t		pages;
	int			tables;			/* tables that contributed */
} AdvisorWorkingSet;

extern void advisor_working_set_add_table(AdvisorWorkingSet *ws,
										  int64_t heap_pages,
										  int64_t index_pages,
										  int index_count,
										  int64_t rows_changed,
										  int64_t index_entries_added,
										  double run_s, double timeout_s);

typedef enum AdvisorVerdict
{
	ADVISOR_KEEP = 0,			/* the size is right: nothing to do */
	ADVISOR_GROW,
	ADVISOR_GROW_CAPPED,		/* grow, but the load needs more than the cap */
	ADVISOR_SHRINK,
	ADVISOR_UNKNOWN				/* too little was measured to say */
} AdvisorVerdict;

typedef struct Advice
{
	AdvisorVerdict verdict;
	int64_t		current_mb;
	int64_t		recommended_mb;
	int64_t		needed_mb;		/* what the load needs, uncapped */
	int64_t		cap_mb;
	WalsizerCapSource cap_source;

	/* what the run measured */
	double		seconds;
	uint64_t	wal_bytes;
	int64_t		timed;
	int64_t		requested;
	int64_t		wal_forced;
	double		fpi_share;

	/* how a whole checkpoint_timeout cycle was sized */
	bool		cycle_predicted;	/* from the working-set model, because
									 * checkpoints were forced: no whole
									 * timed cycle could be measured */
	uint64_t	cycle_bytes;	/* WAL one checkpoint_timeout needs */
	int64_t		working_set_pages;	/* 0: the linear bound was used */

	/* the effect */
	double		forced_per_hour_now;
	double		forced_per_hour_after;
	double		estimated_recovery_s;	/* at recommended_mb */
	double		replay_rate_bytes_s;
	bool		replay_rate_assumed;

	char		reason[WALSIZER_REASON_LEN];	/* the policy's */
	char		basis[WALSIZER_REASON_LEN]; /* what the cycle was sized
											 * from */

	/*
	 * The run's load as the image model takes it (what_if.h), and the
	 * what-if table built on it when --what-if asked for one.  The
	 * advisor knows the working set (table statistics), not the disk: the
	 * table's room for pg_wal is unknown.
	 */
	WalsizerLoad load;
	bool		what_if_asked;	/* --what-if */
	bool		what_if_done;	/* not for a standby, nor without advice */
	WalsizerWhatIf what_if;
} Advice;

/*
 * The whole run.  The caller owns it (it is large: the measurement's WAL
 * history) and changes it only through the functions below.
 */
typedef struct Advisor
{
	AdvisorServerFacts facts;
	AdvisorOptions options;
	WalsizerMeasureSettings measure_settings;
	WalsizerMeasure measure;
	WalsizerSample first;
	WalsizerSample latest;
	uint64_t	fpi_bytes;		/* full-page image bytes over the run */
	uint64_t	stat_bytes;		/* WAL bytes as pg_stat_wal counts them */
	int64_t		samples;
	AdvisorWindow total;		/* all windows so far, summed */
	/* redo pointer inferred from the counters when it cannot be read */
	uint64_t	inferred_redo_lsn;
	int64_t		inferred_checkpoints;
} Advisor;

extern void advisor_start(Advisor *adv, const AdvisorServerFacts *facts,
						  const AdvisorOptions *options,
						  const WalsizerSample *first);
extern bool advisor_add(Advisor *adv, const WalsizerSample *sample,
						AdvisorWindow *ended);
extern bool advisor_finish_window(Advisor *adv, AdvisorWindow *ended);
extern void advisor_recommend(const Advisor *adv,
							  const AdvisorWorkingSet *working_set,
							  Advice *advice);

extern const char *advisor_verdict_name(AdvisorVerdict verdict);

#endif							/* WALSIZER_ADVICE_H */
