/*-------------------------------------------------------------------------
 *
 * fuzz_state.c
 *		libFuzzer harness: the state file reader under any bytes.
 *
 * The first input byte chooses the mode.
 *	even: the rest is a state file image.  Decoding may fail, but then the
 *		  output must be untouched; if it succeeds, encoding the result and
 *		  decoding that must give the same state, and encoding is then
 *		  stable byte for byte.
 *	odd:  the rest describes a valid state (a number of records and their
 *		  fields with the role of version 3, the crash recovery fields and
 *		  replay rates of version 2).  Its encoding must decode to the same
 *		  state.  Then the image is damaged (bytes overwritten, optionally
 *		  re-checksummed, optionally cut, optionally turned into the version
 *		  3, 2 or 1 image of the same state) and must be rejected cleanly or
 *		  survive the round trip like any other image.
 *
 * A decoded state always keeps the reader's rules, whatever its version:
 * the replay rate ring in range with a positive finite rate in each valid
 * slot and nothing in the others, a clean-stop flag of 0 or 1, a
 * postmaster start time PostgreSQL can show, a known role in each record,
 * action totals no fewer than the records of each action and adding up to
 * no more than decisions_total.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>

#include "state_format.h"
#include "fuzz_input.h"

#define SIZE_LIMIT_MB ((int64_t) 2147483647)

/*
 * The version 1 header: version 2's and 3's without the crash recovery
 * fields.  A version 2 record: version 3's without the role at its end.
 */
#define VERSION_OFFSET 4
#define HEADER_V1_BYTES 64
#define RECOVERY_FIELDS_BYTES (2 * 8 + 3 * 4 + WALSIZER_REPLAY_RATES * 8)
#define HEADER_BYTES (HEADER_V1_BYTES + RECOVERY_FIELDS_BYTES)
#define RECORD_V2_BYTES (8 + 4 + 4 + 7 * 8 + WALSIZER_REASON_LEN)
#define ROLE_BYTES 4
/* Version 4's action totals, after the records: version 3 lacks them. */
#define ACTION_TOTALS_BYTES (WALSIZER_ACTION_LAST * 8)
#define FAILING_AND_DIRECTORY_BYTES (3 * 8)	/* failing_since, the data directory */

/* PostgreSQL's TimestampTz range (state_format.c) */
#define MIN_TIMESTAMP_US INT64_C(-211813488000000000)
#define END_TIMESTAMP_US INT64_C(9223371331200000000)

/* Is slot one of the count valid entries of a ring that goes on at next? */
static bool
replay_slot_valid(const WalsizerPersistent *state, int slot)
{
	int			age = (state->replay_next - 1 - slot + 2 * WALSIZER_REPLAY_RATES) %
		WALSIZER_REPLAY_RATES;

	return age < state->replay_count;
}

static bool
records_equal(const WalsizerRecord *a, const WalsizerRecord *b)
{
	return a->at == b->at && a->action == b->action &&
		a->confirmed == b->confirmed && a->role == b->role &&
		a->old_mb == b->old_mb &&
		a->new_mb == b->new_mb && a->requested == b->requested &&
		a->timed == b->timed && a->wal_forced == b->wal_forced &&
		a->wal_bytes == b->wal_bytes &&
		memcmp(&a->window_s, &b->window_s, sizeof(double)) == 0 &&
		strcmp(a->reason, b->reason) == 0;
}

static bool
states_equal(const WalsizerPersistent *a, const WalsizerPersistent *b)
{
	if (a->baseline_mb != b->baseline_mb || a->last_set_mb != b->last_set_mb ||
		a->intent_mb != b->intent_mb ||
		a->decisions_total != b->decisions_total ||
		memcmp(&a->policy, &b->policy, sizeof(a->policy)) != 0 ||
		a->completed_redo_lsn != b->completed_redo_lsn ||
		a->postmaster_started_at != b->postmaster_started_at ||
		a->stopped_cleanly != b->stopped_cleanly ||
		a->replay_count != b->replay_count ||
		a->replay_next != b->replay_next ||
		a->history_count != b->history_count ||
		memcmp(a->action_totals, b->action_totals, sizeof(a->action_totals)) != 0 ||
		a->failing_since != b->failing_since ||
		a->data_directory_device != b->data_directory_device ||
		a->data_directory_inode != b->data_directory_inode)
		return false;
	for (int slot = 0; slot < WALSIZER_REPLAY_RATES; slot++)
		if (replay_slot_valid(a, slot) &&
			memcmp(&a->replay_rates[slot], &b->replay_rates[slot],
				   sizeof(double)) != 0)
			return false;
	for (int i = 0; i < a->history_count; i++)
		if (!records_equal(walsizer_history_at(a, i), walsizer_history_at(b, i)))
			return false;
	return true;
}

/* Recompute the image's trailing FNV-1a checksum after damaging it. */
static void
reseal(unsigned char *buf, size_t len)
{
	uint64_t	hash = UINT64_C(14695981039346656037);

	if (len < 8)
		return;
	for (size_t i = 0; i < len - 8; i++)
	{
		hash ^= buf[i];
		hash *= UINT64_C(1099511628211);
	}
	for (int i = 0; i < 8; i++)
		buf[len - 8 + i] = (unsigned char) (hash >> (8 * i));
}

/*
 * Turn a version 5 image into the version 4 image of the same state but
 * not failing and in no known data directory: drop failing_since and the
 * data directory, say version 4, checksum it again.
 * Returns the new length.
 */
static size_t
make_version_4(unsigned char *image, size_t len)
{
	if (len < HEADER_BYTES + FAILING_AND_DIRECTORY_BYTES + 8)
		return len;
	len -= FAILING_AND_DIRECTORY_BYTES;
	image[VERSION_OFFSET] = 4;
	reseal(image, len);
	return len;
}

/*
 * Turn a version 4 image into the version 3 image of the same state: drop
 * the action totals, say version 3, checksum it again.  Returns the new
 * length.
 */
static size_t
make_version_3(unsigned char *image, size_t len)
{
	if (len < HEADER_BYTES + ACTION_TOTALS_BYTES + 8)
		return len;
	len -= ACTION_TOTALS_BYTES;
	image[VERSION_OFFSET] = 3;
	reseal(image, len);
	return len;
}

/*
 * Turn a version 3 image of count records into the version 2 image of the
 * same state: drop each record's role, say version 2, checksum it again.
 * Returns the new length.
 */
static size_t
make_version_2(unsigned char *image, size_t len, int count)
{
	if (len != HEADER_BYTES + (size_t) count * (RECORD_V2_BYTES + ROLE_BYTES) + 8)
		return len;
	for (int i = 0; i < count; i++)
		memmove(image + HEADER_BYTES + (size_t) i * RECORD_V2_BYTES,
				image + HEADER_BYTES + (size_t) i * (RECORD_V2_BYTES + ROLE_BYTES),
				RECORD_V2_BYTES);
	len -= (size_t) count * ROLE_BYTES;
	image[VERSION_OFFSET] = 2;
	reseal(image, len);
	return len;
}

/*
 * Turn a version 2 image into the version 1 image of the same state: drop
 * the crash recovery fields, say version 1, checksum it again.  Returns
 * the new length.
 */
static size_t
make_version_1(unsigned char *image, size_t len)
{
	if (len < HEADER_V1_BYTES + RECOVERY_FIELDS_BYTES + 8)
		return len;
	memmove(image + HEADER_V1_BYTES, image + HEADER_V1_BYTES + RECOVERY_FIELDS_BYTES,
			len - HEADER_V1_BYTES - RECOVERY_FIELDS_BYTES);
	len -= RECOVERY_FIELDS_BYTES;
	image[VERSION_OFFSET] = 1;
	reseal(image, len);
	return len;
}

/*
 * Decode an image; on failure *out must be untouched, on success the state
 * must survive encode/decode and its encoding must be stable.
 */
static void
check_image(const unsigned char *image, size_t len)
{
	static WalsizerPersistent decoded;
	static WalsizerPersistent before;
	static WalsizerPersistent again;
	size_t		capacity = walsizer_state_encoded_size();
	unsigned char *first = malloc(capacity);
	unsigned char *second = malloc(capacity);
	char		err[128];
	size_t		first_len;
	size_t		second_len;

	memset(&decoded, 0x5A, sizeof(decoded));
	before = decoded;
	if (!walsizer_state_decode(image, len, &decoded, err, sizeof(err)))
	{
		if (memcmp(&decoded, &before, sizeof(decoded)) != 0)
			abort();
		if (memchr(err, '\0', sizeof(err)) == NULL || err[0] == '\0')
			abort();
		free(first);
		free(second);
		return;
	}

	if (decoded.history_count < 0 || decoded.history_count > WALSIZER_HISTORY_LEN ||
		decoded.decisions_total < (uint64_t) decoded.history_count ||
		decoded.baseline_mb < 0 || decoded.baseline_mb > SIZE_LIMIT_MB)
		abort();
	if (decoded.replay_count < 0 || decoded.replay_count > WALSIZER_REPLAY_RATES ||
		decoded.replay_next < 0 || decoded.replay_next >= WALSIZER_REPLAY_RATES ||
		(decoded.stopped_cleanly != 0 && decoded.stopped_cleanly != 1) ||
		decoded.postmaster_started_at < MIN_TIMESTAMP_US ||
		decoded.postmaster_started_at >= END_TIMESTAMP_US)
		abort();
	for (int slot = 0; slot < WALSIZER_REPLAY_RATES; slot++)
	{
		double		rate = decoded.replay_rates[slot];

		if (replay_slot_valid(&decoded, slot) ?
			!(isfinite(rate) && rate > 0) : rate != 0)
			abort();
	}
	{
		uint64_t	in_history[WALSIZER_ACTION_LAST + 1] = {0};
		uint64_t	sum = 0;

		for (int i = 0; i < decoded.history_count; i++)
		{
			const WalsizerRecord *rec = walsizer_history_at(&decoded, i);

			if (rec == NULL || memchr(rec->reason, '\0', WALSIZER_REASON_LEN) == NULL ||
				rec->role < WALSIZER_ROLE_PRIMARY || rec->role > WALSIZER_ROLE_LAST ||
				rec->action <= WALSIZER_ACTION_NONE || rec->action > WALSIZER_ACTION_LAST)
				abort();
			in_history[rec->action]++;
		}
		if (decoded.action_totals[WALSIZER_ACTION_NONE] != 0)
			abort();
		for (int action = 1; action <= WALSIZER_ACTION_LAST; action++)
		{
			if (decoded.action_totals[action] < in_history[action] ||
				decoded.action_totals[action] > decoded.decisions_total - sum)
				abort();
			sum += decoded.action_totals[action];
		}
	}

	first_len = walsizer_state_encode(&decoded, first, capacity);
	if (first_len == 0 ||
		!walsizer_state_decode(first, first_len, &again, err, sizeof(err)) ||
		!states_equal(&decoded, &again))
		abort();
	second_len = walsizer_state_encode(&again, second, capacity);
	if (second_len != first_len || memcmp(first, second, first_len) != 0)
		abort();
	free(first);
	free(second);
}

static void
build_valid_state(FuzzInput *in, WalsizerPersistent *state)
{
	int			records = fuzz_byte(in) % (2 * WALSIZER_HISTORY_LEN + 2);

	memset(state, 0, sizeof(*state));
	state->baseline_mb = (int64_t) ((uint64_t) fuzz_int(in) % (SIZE_LIMIT_MB + 1));
	state->last_set_mb = (int64_t) ((uint64_t) fuzz_int(in) % (SIZE_LIMIT_MB + 1));
	state->intent_mb = (int64_t) ((uint64_t) fuzz_int(in) % (SIZE_LIMIT_MB + 1));
	state->policy.windows_below_half = fuzz_int32(in) & 0x7FFFFFFF;
	state->policy.windows_since_change = (fuzz_int32(in) & 0x7FFFFFFF) - 1;
	state->policy.cap_reported = fuzz_flag(in);
	state->policy.provisional = fuzz_flag(in);
	state->decisions_total = (uint64_t) fuzz_int(in) % 1000;
	state->completed_redo_lsn = (uint64_t) fuzz_int(in);
	state->postmaster_started_at = fuzz_int(in);
	if (state->postmaster_started_at < MIN_TIMESTAMP_US ||
		state->postmaster_started_at >= END_TIMESTAMP_US)
		state->postmaster_started_at = 0;
	state->stopped_cleanly = fuzz_flag(in);
	/* measured rates, some of them no rate at all, which are left out */
	for (int i = fuzz_byte(in) % (2 * WALSIZER_REPLAY_RATES + 2); i > 0; i--)
		walsizer_replay_rate_append(state, fuzz_double(in));
	for (int i = 0; i < records; i++)
	{
		WalsizerRecord rec;
		double		window = fuzz_double(in);
		size_t		reason_len = fuzz_byte(in);

		memset(&rec, 0, sizeof(rec));
		rec.at = fuzz_int(in);
		rec.action = 1 + fuzz_byte(in) % WALSIZER_ACTION_LAST;
		rec.confirmed = fuzz_flag(in);
		rec.role = fuzz_flag(in) ? WALSIZER_ROLE_STANDBY : WALSIZER_ROLE_PRIMARY;
		rec.old_mb = (int64_t) ((uint64_t) fuzz_int(in) % (SIZE_LIMIT_MB + 1));
		rec.new_mb = (int64_t) ((uint64_t) fuzz_int(in) % (SIZE_LIMIT_MB + 1));
		rec.requested = fuzz_int(in) & INT64_MAX;
		rec.timed = fuzz_int(in) & INT64_MAX;
		rec.wal_forced = fuzz_int(in) & INT64_MAX;
		rec.wal_bytes = (uint64_t) fuzz_int(in);
		rec.window_s = isfinite(window) && window >= 0 ? window : 0;
		for (size_t j = 0; j < reason_len && j < WALSIZER_REASON_LEN - 1; j++)
			rec.reason[j] = (char) (1 + fuzz_byte(in) % 255);
		walsizer_history_append(state, &rec);
	}
	/*
	 * Decisions of each action that no record is left of, counted in the
	 * totals and in decisions_total (last, so that the bytes of older
	 * seeds keep their meaning above).
	 */
	for (int action = 1; action <= WALSIZER_ACTION_LAST; action++)
	{
		uint64_t	forgotten = (uint64_t) fuzz_byte(in) % 8;

		state->action_totals[action] += forgotten;
		state->decisions_total += forgotten;
	}
	/* the data directory it was written in: any numbers */
	state->data_directory_device = (uint64_t) fuzz_int(in);
	state->data_directory_inode = (uint64_t) fuzz_int(in);
	/* a failed change since a time it can show, or none (0) */
	if (fuzz_flag(in))
		state->failing_since = (int64_t) ((uint64_t) MIN_TIMESTAMP_US +
										  (uint64_t) fuzz_int(in) %
										  ((uint64_t) END_TIMESTAMP_US -
										   (uint64_t) MIN_TIMESTAMP_US));
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static WalsizerPersistent state;
	static WalsizerPersistent decoded;
	FuzzInput	input = {data, size, 0};
	size_t		capacity = walsizer_state_encoded_size();
	unsigned char *image;
	size_t		len;
	int			damages;

	if (size == 0)
		return 0;
	if ((fuzz_byte(&input) & 1) == 0)
	{
		/* copy, so that reads past the end are the sanitizer's business */
		image = malloc(size - 1 + 1);
		memcpy(image, data + 1, size - 1);
		check_image(image, size - 1);
		free(image);
		return 0;
	}

	build_valid_state(&input, &state);
	image = malloc(capacity + 16);
	len = walsizer_state_encode(&state, image, capacity);
	if (len == 0 ||
		!walsizer_state_decode(image, len, &decoded, NULL, 0) ||
		!states_equal(&state, &decoded))
	{
		fprintf(stderr, "a valid state with %d records does not survive encode/decode\n",
				state.history_count);
		abort();
	}

	/*
	 * The same state as version 4 wrote it: not failing; as version 3
	 * wrote it: also the action totals those of its history; as version 2
	 * wrote it: also every decision made on a primary; and as version 1
	 * wrote it: also knowing no recovery.
	 */
	if (fuzz_flag(&input))
	{
		int			version = 4 - fuzz_byte(&input) % 4;

		len = make_version_4(image, len);
		state.failing_since = 0;
		state.data_directory_device = state.data_directory_inode = 0;
		if (version <= 3)
		{
			len = make_version_3(image, len);
			memset(state.action_totals, 0, sizeof(state.action_totals));
			for (int i = 0; i < state.history_count; i++)
				state.action_totals[walsizer_history_at(&state, i)->action]++;
		}
		if (version <= 2)
		{
			len = make_version_2(image, len, state.history_count);
			for (int slot = 0; slot < WALSIZER_HISTORY_LEN; slot++)
				state.history[slot].role = WALSIZER_ROLE_PRIMARY;
		}
		if (version == 1)
		{
			len = make_version_1(image, len);
			state.completed_redo_lsn = 0;
			state.postmaster_started_at = 0;
			state.stopped_cleanly = 0;
			state.replay_count = state.replay_next = 0;
		}
		if (!walsizer_state_decode(image, len, &decoded, NULL, 0) ||
			!states_equal(&state, &decoded))
		{
			fprintf(stderr, "a version %d image with %d records does not decode to its state\n",
					version, state.history_count);
			abort();
		}
	}

	damages = fuzz_byte(&input) % 8;
	for (int i = 0; i < damages; i++)
	{
		size_t		at = (size_t) fuzz_le(&input, 2) % len;

		image[at] = fuzz_byte(&input);
	}
	if (fuzz_flag(&input))
		reseal(image, len);
	if (fuzz_flag(&input))
		len -= (size_t) fuzz_le(&input, 2) % (len + 1);
	check_image(image, len);
	free(image);
	return 0;
}
