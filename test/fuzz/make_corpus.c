/*-------------------------------------------------------------------------
 *
 * make_corpus.c
 *		Writes the seed corpora of the fuzzers into test/fuzz/corpus/.
 *
 * Seeds give the fuzzers a head start on inputs that mean something:
 * ordinary settings with forced checkpoints, an imminent forced checkpoint,
 * a provisional size that settles, a long quiet stretch (also in windows
 * check_now() cut short), a disk cap, the DBA's own size above walsizer.max
 * with a provisional state, a growth capped by the recovery-time bound, a
 * slower replay that lowers the bound, the DBA's own size above it, and
 * valid state file images (version 5 with replay rates and decisions made
 * on a standby, versions 3, 2 and 1; a history that wrapped is the build
 * mode's business: a seed that large would slow every run of the fuzzer).
 * They are written in fuzz_input.h's encoding; rerun with
 * `make fuzz-corpus` when that encoding or the state format changes.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state_format.h"
#include "fuzz_input.h"

typedef struct Seed
{
	unsigned char bytes[4096];
	size_t		len;
} Seed;

static void
put_byte(Seed *seed, unsigned v)
{
	seed->bytes[seed->len++] = (unsigned char) v;
}

static void
put_small(Seed *seed, unsigned v)
{
	put_byte(seed, FUZZ_SMALL);
	put_byte(seed, v & 0xFF);
	put_byte(seed, (v >> 8) & 0xFF);
}

static void
put_raw(Seed *seed, uint64_t v)
{
	put_byte(seed, FUZZ_RAW);
	for (int i = 0; i < 8; i++)
		put_byte(seed, (unsigned) (v >> (8 * i)) & 0xFF);
}

/* A double in hundredths (mode FUZZ_SMALL of fuzz_double). */
static void
put_hundredths(Seed *seed, double v)
{
	put_small(seed, (unsigned) (v * 100 + 0.5));
}

/* A rate in MB/s, read back in bytes/s (the fourth mode of fuzz_double). */
static void
put_rate(Seed *seed, double mb_per_s)
{
	unsigned	v = (unsigned) (mb_per_s * 100 + 0.5);

	put_byte(seed, 3);
	put_byte(seed, v & 0xFF);
	put_byte(seed, (v >> 8) & 0xFF);
}

/*
 * The recovery-time bound as fuzz_policy.c reads it: walsizer.max_recovery_time
 * in seconds and the replay rate in MB/s (0 and 0: no bound).
 */
static void
put_recovery_bound(Seed *seed, double max_recovery_s, double replay_mb_s)
{
	put_hundredths(seed, max_recovery_s);
	put_rate(seed, replay_mb_s);
}

/*
 * Settings with 16 MB segments and PostgreSQL's and walsizer's defaults,
 * but for the recovery-time bound, which the caller puts next.
 */
static void
put_settings_with(Seed *seed, unsigned current_mb, unsigned max_mb,
				  unsigned min_mb, unsigned baseline_mb, unsigned disk_mb,
				  unsigned shrink_after)
{
	put_byte(seed, 4);			/* 16 MB segments */
	put_small(seed, current_mb);
	put_hundredths(seed, 300);	/* checkpoint_timeout */
	put_hundredths(seed, 0.9);
	put_small(seed, 2);			/* threshold */
	put_hundredths(seed, 0.33);
	put_hundredths(seed, 0.25);
	put_small(seed, max_mb);
	put_small(seed, min_mb);
	put_small(seed, baseline_mb);
	put_small(seed, disk_mb);
	put_small(seed, shrink_after);
	put_small(seed, 1);			/* cooldown */
	put_hundredths(seed, 1);	/* sample_interval */
}

/* ... with no walsizer.min, the DBA's value at most 1 GB, a fresh state */
static void
put_settings(Seed *seed, unsigned current_mb, unsigned max_mb,
			 unsigned disk_mb, unsigned shrink_after)
{
	put_settings_with(seed, current_mb, max_mb, 0,
					  current_mb < 1024 ? current_mb : 1024, disk_mb,
					  shrink_after);
	put_recovery_bound(seed, 0, 0);
	put_byte(seed, 0);			/* fresh state */
}

/*
 * What measure.c adds to a sample: the reach within the lookahead, the
 * record rate, and the cycles measured at the size.
 */
static void
put_cycles(Seed *seed, unsigned reach_mb, double record_mb_s,
		   unsigned timed_cycles, unsigned peak_reach_mb)
{
	put_raw(seed, (uint64_t) reach_mb * 1048576);
	put_hundredths(seed, 3);	/* reach_within_s */
	put_rate(seed, record_mb_s);
	put_small(seed, timed_cycles);
	/* the most WAL one of them wrote: a checkpoint_timeout at the rate */
	put_raw(seed, (uint64_t) (timed_cycles > 0 ? record_mb_s * 300 * 1048576 : 0));
	put_small(seed, 0);			/* forced at size */
	put_raw(seed, (uint64_t) peak_reach_mb * 1048576);
	put_small(seed, 0);			/* timed_cycle_peak_bytes */
	/* the last cycle, for status(): a whole timed one at the rate, if any */
	put_hundredths(seed, timed_cycles > 0 ? 300 : 0);
	put_raw(seed, (uint64_t) (timed_cycles > 0 ? record_mb_s * 300 * 1048576 : 0));
	put_small(seed, 0);			/* of which full-page images */
}

/* Measurement flags (read_measurements() in fuzz_policy.c). */
#define WINDOW_END 1
#define RECENT_RATE_VALID 4
#define SIZE_IS_OURS 8
#define PEAK_COVERS_CYCLE 16
#define ENDED_EARLY 32
#define LAST_CYCLE_TIMED 64		/* no longer read; kept so that the
									 * corpus is written as it is stored */

/* A step's change byte: the recovery-time bound changes. */
#define CHANGE_RECOVERY_BOUND 16

/* The fields of a window end, after the step's change byte and values. */
static void
put_window_fields(Seed *seed, unsigned flags, double rate_mb_s, unsigned timed,
				  unsigned requested, unsigned forced)
{
	put_byte(seed, flags);
	put_hundredths(seed, 300);
	put_small(seed, timed);
	put_small(seed, requested);
	put_small(seed, forced);
	put_raw(seed, (uint64_t) (rate_mb_s * 300 * 1048576));
	put_small(seed, 0);
	put_rate(seed, rate_mb_s);
	put_rate(seed, rate_mb_s);
	put_hundredths(seed, 300);
	put_small(seed, forced);	/* forced since the last change */
	put_cycles(seed, 0, rate_mb_s, forced > 0 ? 0 : 2, 0);
}

static void
put_window_flags(Seed *seed, unsigned flags, double rate_mb_s, unsigned timed,
				 unsigned requested, unsigned forced)
{
	put_byte(seed, 0);			/* no setting changes */
	put_window_fields(seed, flags, rate_mb_s, timed, requested, forced);
}

static void
put_window(Seed *seed, double rate_mb_s, unsigned timed, unsigned requested,
		   unsigned forced)
{
	put_window_flags(seed, WINDOW_END | SIZE_IS_OURS | PEAK_COVERS_CYCLE |
					 (forced > 0 ? 0 : LAST_CYCLE_TIMED),
					 rate_mb_s, timed, requested, forced);
}

static void
put_sample(Seed *seed, double rate_mb_s, unsigned since_redo_mb,
		   double to_timed_s)
{
	put_byte(seed, 0);
	put_byte(seed, RECENT_RATE_VALID | SIZE_IS_OURS);
	put_hundredths(seed, 0);
	put_small(seed, 0);
	put_small(seed, 0);
	put_small(seed, 0);
	put_small(seed, 0);
	put_raw(seed, (uint64_t) since_redo_mb * 1048576);
	put_rate(seed, rate_mb_s);
	put_rate(seed, rate_mb_s);
	put_hundredths(seed, to_timed_s);
	put_small(seed, 0);			/* forced since the last change */
	put_cycles(seed, since_redo_mb + (unsigned) (3 * rate_mb_s),
			   rate_mb_s / 2, 0, 0);
}

static void
write_seed(const char *dir, const char *name, const void *bytes, size_t len)
{
	char		path[1024];
	FILE	   *file;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	file = fopen(path, "wb");
	if (file == NULL || fwrite(bytes, 1, len, file) != len || fclose(file) != 0)
	{
		fprintf(stderr, "make_corpus: cannot write %s\n", path);
		exit(1);
	}
}

static void
policy_seeds(const char *dir)
{
	Seed		seed;

	memset(&seed, 0, sizeof(seed));
	put_settings(&seed, 1024, 4096, 0, 12);
	put_byte(&seed, 3);
	put_window(&seed, 2, 0, 3, 3);
	put_window(&seed, 4, 0, 3, 3);
	put_window(&seed, 4, 1, 0, 0);
	write_seed(dir, "forced_then_capped", seed.bytes, seed.len);

	memset(&seed, 0, sizeof(seed));
	put_settings(&seed, 1024, 4096, 0, 12);
	put_byte(&seed, 2);
	put_sample(&seed, 2, 400, 100);
	put_sample(&seed, 40, 500, 60);
	put_sample(&seed, 80, 1000, 50);
	write_seed(dir, "imminent", seed.bytes, seed.len);

	memset(&seed, 0, sizeof(seed));
	put_settings(&seed, 1024, 8192, 0, 12);
	put_byte(&seed, 4);
	put_sample(&seed, 40, 500, 60);
	put_window(&seed, 1, 1, 0, 0);
	put_window(&seed, 1, 1, 0, 0);
	put_window(&seed, 1, 1, 0, 0);
	write_seed(dir, "imminent_then_settle", seed.bytes, seed.len);

	memset(&seed, 0, sizeof(seed));
	put_settings(&seed, 4096, 4096, 0, 2);
	put_byte(&seed, 8);
	for (int i = 0; i < 8; i++)
		put_window(&seed, 0.2, 1, 0, 0);
	write_seed(dir, "quiet_shrink", seed.bytes, seed.len);

	memset(&seed, 0, sizeof(seed));
	put_settings(&seed, 4096, 4096, 0, 2);
	put_byte(&seed, 8);
	for (int i = 0; i < 8; i++)
		put_window_flags(&seed, WINDOW_END | (i % 2 ? 0 : ENDED_EARLY) |
						 SIZE_IS_OURS | PEAK_COVERS_CYCLE, 0.2, 1, 0, 0);
	write_seed(dir, "quiet_check_now", seed.bytes, seed.len);

	/*
	 * The DBA set 8 GB above walsizer.max = 4 GB after a growth: the state
	 * is still provisional, and whole quiet cycles are measured at the size.
	 * Neither a settle nor a shrink may go below the DBA's value.
	 */
	memset(&seed, 0, sizeof(seed));
	put_settings_with(&seed, 8192, 4096, 0, 8192, 0, 2);
	put_recovery_bound(&seed, 0, 0);
	put_byte(&seed, 1);			/* a state: */
	put_small(&seed, 5);		/* windows since the change */
	put_small(&seed, 0);		/* windows below half */
	put_byte(&seed, 0);			/* cap not reported */
	put_byte(&seed, 1);			/* provisional */
	put_byte(&seed, 4);
	for (int i = 0; i < 4; i++)
		put_window(&seed, 0.5, 1, 0, 0);
	write_seed(dir, "dba_above_cap_provisional", seed.bytes, seed.len);

	memset(&seed, 0, sizeof(seed));
	put_settings(&seed, 2048, 4096, 1000, 12);
	put_byte(&seed, 2);
	put_sample(&seed, 1, 100, 200);
	put_window(&seed, 3, 0, 3, 3);
	write_seed(dir, "disk_protect", seed.bytes, seed.len);

	/* 4 MB/s needs 2864 MB; 10 s at 150 MB/s allows 1500 MB */
	memset(&seed, 0, sizeof(seed));
	put_settings_with(&seed, 1024, 8192, 0, 1024, 0, 12);
	put_recovery_bound(&seed, 10, 150);
	put_byte(&seed, 0);
	put_byte(&seed, 4);
	put_window(&seed, 4, 0, 3, 3);
	put_window(&seed, 4, 0, 3, 3);
	put_window(&seed, 4, 1, 0, 0);
	put_window(&seed, 1, 1, 0, 0);
	write_seed(dir, "recovery_time_capped", seed.bytes, seed.len);

	/*
	 * 30 s at 100 MB/s allows 3000 MB, above the 2864 MB 4 MB/s needs; a
	 * crash recovery then measures 50 MB/s, which allows 1500 MB.
	 */
	memset(&seed, 0, sizeof(seed));
	put_settings_with(&seed, 1024, 8192, 0, 1024, 0, 12);
	put_recovery_bound(&seed, 30, 100);
	put_byte(&seed, 0);
	put_byte(&seed, 4);
	put_window(&seed, 4, 0, 3, 3);
	put_window(&seed, 4, 1, 0, 0);
	put_byte(&seed, CHANGE_RECOVERY_BOUND);
	put_recovery_bound(&seed, 30, 50);
	put_window_fields(&seed, WINDOW_END | SIZE_IS_OURS | PEAK_COVERS_CYCLE |
					  LAST_CYCLE_TIMED, 4, 1, 0, 0);
	put_window(&seed, 4, 0, 3, 3);
	write_seed(dir, "slower_replay_lowers", seed.bytes, seed.len);

	/* the DBA's 8 GB takes 80 s to recover at 100 MB/s, above a 5 s bound */
	memset(&seed, 0, sizeof(seed));
	put_settings_with(&seed, 8192, 16384, 0, 8192, 0, 2);
	put_recovery_bound(&seed, 5, 100);
	put_byte(&seed, 0);
	put_byte(&seed, 4);
	put_window(&seed, 4, 0, 3, 3);
	put_window(&seed, 0.5, 1, 0, 0);
	put_window(&seed, 0.5, 1, 0, 0);
	put_window(&seed, 0.5, 1, 0, 0);
	write_seed(dir, "dba_above_recovery_bound", seed.bytes, seed.len);

	/* the disk's share is below the size, the recovery bound further below */
	memset(&seed, 0, sizeof(seed));
	put_settings_with(&seed, 4096, 8192, 0, 2048, 3000, 12);
	put_recovery_bound(&seed, 10, 100);
	put_byte(&seed, 0);
	put_byte(&seed, 2);
	put_sample(&seed, 1, 100, 200);
	put_window(&seed, 3, 0, 3, 3);
	write_seed(dir, "protect_with_recovery_bound", seed.bytes, seed.len);
}

/*
 * The version 1 header: the version 2 and 3 one without the recovery
 * fields.  A version 2 record: the version 3 one without the role at its
 * end.
 */
#define HEADER_V1_BYTES 64
#define RECOVERY_FIELDS_BYTES (2 * 8 + 3 * 4 + WALSIZER_REPLAY_RATES * 8)
#define HEADER_BYTES (HEADER_V1_BYTES + RECOVERY_FIELDS_BYTES)
#define RECORD_V2_BYTES (8 + 4 + 4 + 7 * 8 + WALSIZER_REASON_LEN)
#define ROLE_BYTES 4
#define ACTION_TOTALS_BYTES (WALSIZER_ACTION_LAST * 8)
#define FAILING_AND_DIRECTORY_BYTES (3 * 8)	/* failing_since, the data directory */

/* FNV-1a over all but the trailing checksum, as state_format.c seals. */
static void
reseal(unsigned char *buf, size_t len)
{
	uint64_t	hash = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len - 8; i++)
	{
		hash ^= buf[i];
		hash *= UINT64_C(1099511628211);
	}
	for (int i = 0; i < 8; i++)
		buf[len - 8 + i] = (unsigned char) (hash >> (8 * i));
}

/*
 * A state file image with the given records and replay rates, as version
 * 5, version 4 (which has no failing_since), version 3 (which also has no
 * action totals), version 2 (which also has no
 * role in its records) or version 1 (which also has no crash recovery
 * fields) wrote it.  Every third record was made on
 * a standby, which versions 3 and 4 keep.
 */
static void
state_seed(const char *dir, const char *name, int records, int rates,
		   int version)
{
	static WalsizerPersistent state;
	size_t		capacity = walsizer_state_encoded_size();
	unsigned char *image = malloc(capacity + 1);
	size_t		len;

	memset(&state, 0, sizeof(state));
	state.baseline_mb = 1024;
	state.last_set_mb = 2048;
	state.policy.windows_since_change = 3;
	state.completed_redo_lsn = (uint64_t) 0x3A000028;
	state.postmaster_started_at = 759000000000000;
	state.stopped_cleanly = rates % 2;
	/* a change failing since just before the records, where there are any */
	state.failing_since = records > 0 ? 759999999000000 : 0;
	for (int i = 0; i < rates; i++)
		walsizer_replay_rate_append(&state, (40 + 10 * i) * 1048576.0);
	for (int i = 0; i < records; i++)
	{
		WalsizerRecord rec;

		memset(&rec, 0, sizeof(rec));
		rec.at = 760000000000000 + i;
		rec.action = WALSIZER_ACTION_GROW + i % 4;
		rec.role = i % 3 == 2 ? WALSIZER_ROLE_STANDBY : WALSIZER_ROLE_PRIMARY;
		rec.old_mb = 1024;
		rec.new_mb = 2048;
		rec.requested = 3;
		rec.wal_forced = 3;
		rec.wal_bytes = (uint64_t) 600 << 20;
		rec.window_s = 300;
		snprintf(rec.reason, sizeof(rec.reason), "seed record %d", i);
		walsizer_history_append(&state, &rec);
	}
	image[0] = 0;				/* mode: decode the image */
	len = walsizer_state_encode(&state, image + 1, capacity);
	if (len == 0)
	{
		fprintf(stderr, "make_corpus: cannot encode %s\n", name);
		exit(1);
	}
	if (version <= 4)
	{
		len -= FAILING_AND_DIRECTORY_BYTES;
		image[1 + 4] = 4;		/* the version, little-endian */
		reseal(image + 1, len);
	}
	if (version <= 3)
	{
		len -= ACTION_TOTALS_BYTES;
		image[1 + 4] = 3;		/* the version, little-endian */
		reseal(image + 1, len);
	}
	if (version <= 2)
	{
		for (int i = 0; i < state.history_count; i++)
			memmove(image + 1 + HEADER_BYTES + (size_t) i * RECORD_V2_BYTES,
					image + 1 + HEADER_BYTES +
					(size_t) i * (RECORD_V2_BYTES + ROLE_BYTES),
					RECORD_V2_BYTES);
		len -= (size_t) state.history_count * ROLE_BYTES;
		image[1 + 4] = 2;		/* the version, little-endian */
		reseal(image + 1, len);
	}
	if (version == 1)
	{
		memmove(image + 1 + HEADER_V1_BYTES,
				image + 1 + HEADER_V1_BYTES + RECOVERY_FIELDS_BYTES,
				len - HEADER_V1_BYTES - RECOVERY_FIELDS_BYTES);
		len -= RECOVERY_FIELDS_BYTES;
		image[1 + 4] = 1;		/* the version, little-endian */
		reseal(image + 1, len);
	}
	write_seed(dir, name, image, len + 1);
	free(image);
}

int
main(int argc, char **argv)
{
	/*
	 * Mode 1 (build a valid state): 3 records, baseline 16 MB, last set
	 * 32 MB; intent, policy state and decisions 0; the redo pointer at 40,
	 * the postmaster started at 48, stopped cleanly; three replay rates, 50, 80 and 20 MB/s (mode 3 of
	 * fuzz_double); the records and the rest all zero.
	 */
	static const unsigned char build_mode[] = {
		1, 3, 0, 0x10, 0, 0, 0x20, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0x28, 0, 0, 0x30, 0, 1,
		3, 3, 0x88, 0x13, 3, 0x40, 0x1F, 3, 0xD0, 0x07
	};

	if (argc != 3)
	{
		fprintf(stderr, "usage: make_corpus POLICY_DIR STATE_DIR\n");
		return 2;
	}
	policy_seeds(argv[1]);
	state_seed(argv[2], "empty", 0, 0, 5);
	state_seed(argv[2], "one_record", 1, 1, 5);
	state_seed(argv[2], "three_records", 3, 2, 5);
	state_seed(argv[2], "replay_rates_wrapped", 2, WALSIZER_REPLAY_RATES + 2, 5);
	state_seed(argv[2], "version_4_three_records", 3, 2, 4);
	state_seed(argv[2], "version_3_three_records", 3, 2, 3);
	state_seed(argv[2], "version_2_three_records", 3, 2, 2);
	state_seed(argv[2], "version_1_empty", 0, 0, 1);
	state_seed(argv[2], "version_1_three_records", 3, 0, 1);
	write_seed(argv[2], "built", build_mode, sizeof(build_mode));
	return 0;
}
