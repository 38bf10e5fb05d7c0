/*-------------------------------------------------------------------------
 *
 * what_if.h
 *		The full-page-image model of a checkpoint cycle's WAL, and the
 *		"what if" table built on it: for candidate max_wal_size values, the
 *		checkpoints, WAL, crash recovery and pg_wal each would give under
 *		the load measured, and whether pg_walsizer would allow it.
 *
 * One model, shared: the advisor predicts a cycle with it, and the table
 * (the advisor's --what-if, and the worker's) is computed from it, so that
 * no second formula can drift from the first.  Like every header of
 * src/common/, it includes nothing from PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_WHAT_IF_H
#define WALSIZER_WHAT_IF_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/*
 * The WAL load as the model takes it: the records go on at a rate, and a
 * cycle's full-page images grow with its length until every page of the
 * working set has been logged once.
 */
typedef struct WalsizerLoad
{
	double		record_bytes_s; /* WAL records, full-page images excluded */
	double		fpi_bytes_per_cycle;	/* full-page images of one measured
										 * cycle */
	double		cycle_s;		/* that cycle's length */
	double		working_set_bytes;	/* the pages the load changes, in bytes;
									 * 0 when unknown (images then grow in
									 * proportion to the cycle: overstates) */
} WalsizerLoad;

extern uint64_t walsizer_predicted_cycle_bytes(double record_bytes_s,
											   double fpi_bytes_per_cycle,
											   double cycle_s,
											   double working_set_bytes,
											   double timeout_s);
extern double walsizer_load_cycle_bytes(const WalsizerLoad *load,
										double cycle_s);
extern double walsizer_working_set_from_images(double mid_s, double mid_fpi,
											   double cycle_s,
											   double cycle_fpi);

/* Why a size is in the table; a size may be there for several. */
#define WALSIZER_WHAT_IF_RUNNING 0x01	/* max_wal_size now */
#define WALSIZER_WHAT_IF_RECOMMENDED 0x02	/* the recommendation */
#define WALSIZER_WHAT_IF_LADDER 0x04	/* 1/4, 1/2, 2x, 4x of it */
#define WALSIZER_WHAT_IF_ASKED 0x08 /* the caller's */

/* at most this many sizes of the caller's; more are left out */
#define WALSIZER_WHAT_IF_MAX_ASKED 8
/* running, recommended, four ladder steps and the caller's */
#define WALSIZER_WHAT_IF_MAX_ROWS (6 + WALSIZER_WHAT_IF_MAX_ASKED)
#define WALSIZER_WHAT_IF_TEXT_LEN 256

typedef struct WalsizerWhatIfInput
{
	WalsizerLoad load;			/* as measured */
	int64_t		segment_bytes;	/* wal_segment_size */
	double		checkpoint_timeout_s;
	double		completion_target;	/* checkpoint_completion_target */
	double		replay_bytes_per_s; /* the rate in use; < 1 B/s: none */
	const char *replay_rate_source; /* where it comes from, as the caller
									 * names it: "measured", "assumed",
									 * "setting" (the server's
									 * walsizer_replay_rate_source_name()) */
	int64_t		cap_mb;			/* the effective cap; <= 0: none */
	WalsizerCapSource cap_source;	/* which limit it is */
	int64_t		wal_room_mb;	/* what pg_wal may hold on its volume:
								 * free space plus what it holds now;
								 * <= 0 unknown (the advisor cannot see it) */
	int64_t		current_mb;		/* max_wal_size now; <= 0 unknown */
	int64_t		recommended_mb; /* <= 0: none */
	const int64_t *asked_mb;	/* the caller's sizes, in MB */
	int			asked_count;
} WalsizerWhatIfInput;

typedef struct WalsizerWhatIfRow
{
	int64_t		size_mb;
	unsigned	kinds;			/* WALSIZER_WHAT_IF_* flags */
	double		cycle_s;		/* one checkpoint cycle at this size */
	double		checkpoints_per_hour;
	double		forced_per_hour;	/* of those, forced by WAL */
	double		wal_mb_per_hour;
	bool		recovery_known; /* a replay rate was given (else
								 * recovery_s is 0) */
	double		recovery_s;		/* worst case, at that rate */
	int64_t		peak_pg_wal_mb; /* the most of pg_wal the size keeps at
								 * the load's peak */
	bool		allowed;		/* pg_walsizer could set it */
	char		why_not[WALSIZER_WHAT_IF_TEXT_LEN]; /* "" when allowed */
} WalsizerWhatIfRow;

typedef struct WalsizerWhatIf
{
	int			count;
	WalsizerWhatIfRow rows[WALSIZER_WHAT_IF_MAX_ROWS];	/* by size */
	double		timed_cycle_bytes;	/* the model's WAL of one
									 * checkpoint_timeout */
	const char *replay_rate_source; /* its name; NULL without a rate */
	bool		working_set_known;
	bool		wal_room_known;
	int64_t		wal_room_mb;	/* as given, when known */
	char		basis[WALSIZER_WHAT_IF_TEXT_LEN];	/* what was used where a
													 * figure is not known */
} WalsizerWhatIf;

extern void walsizer_what_if(const WalsizerWhatIfInput *in,
							 WalsizerWhatIf *out);
extern void walsizer_what_if_kinds_text(unsigned kinds, char *buf,
										int len);

#endif							/* WALSIZER_WHAT_IF_H */
