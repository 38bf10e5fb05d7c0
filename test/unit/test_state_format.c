/*-------------------------------------------------------------------------
 *
 * test_state_format.c
 *		The state file: what is written comes back, and nothing else does.
 *
 * The history is a ring of WALSIZER_HISTORY_LEN records; an encoded file
 * lists them oldest first, however often the ring has wrapped.  The reader
 * must reject every damaged or implausible image without touching the
 * caller's state, since the file sits in the data directory where anything
 * may happen to it.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>

#include "unit.h"
#include "state_format.h"

/*
 * Byte offsets in a version 1 image, from the layout in state_format.c: a
 * record is at, action, confirmed, seven 8-byte fields and the reason.
 */
#define OFFSET_VERSION 4
#define OFFSET_COUNT 8
#define OFFSET_BASELINE 16
#define OFFSET_POLICY 48
#define HEADER_BYTES 64
#define RECORD_BYTES (8 + 4 + 4 + 7 * 8 + WALSIZER_REASON_LEN)
#define RECORD_ACTION 8
#define RECORD_OLD_MB 16
#define RECORD_TIMED 40
#define RECORD_WINDOW 64
#define RECORD_REASON 72
#define CHECKSUM_BYTES 8

static WalsizerRecord
numbered_record(int n)
{
	WalsizerRecord rec;

	memset(&rec, 0, sizeof(rec));
	rec.at = 700000000000000 + n;
	rec.action = 1 + n % WALSIZER_ACTION_LAST;
	rec.confirmed = n % 2;
	rec.old_mb = 1024 + n;
	rec.new_mb = 2048 + n;
	rec.requested = n;
	rec.timed = 2 * n;
	rec.wal_forced = n / 2;
	rec.wal_bytes = (uint64_t) n << 33;
	rec.window_s = 300.5 + n;
	snprintf(rec.reason, sizeof(rec.reason), "decision number %d", n);
	return rec;
}

static WalsizerPersistent *
state_with_records(int n)
{
	WalsizerPersistent *state = calloc(1, sizeof(WalsizerPersistent));

	state->baseline_mb = 1024;
	state->last_set_mb = 2048;
	state->intent_mb = 0;
	state->policy.windows_below_half = 3;
	state->policy.windows_since_change = 7;
	state->policy.cap_reported = 1;
	state->policy.provisional = 0;
	for (int i = 0; i < n; i++)
	{
		WalsizerRecord rec = numbered_record(i);

		walsizer_history_append(state, &rec);
	}
	return state;
}

static bool
records_equal(const WalsizerRecord *a, const WalsizerRecord *b)
{
	if (a == NULL || b == NULL)
		return false;
	return a->at == b->at && a->action == b->action &&
		a->confirmed == b->confirmed && a->old_mb == b->old_mb &&
		a->new_mb == b->new_mb && a->requested == b->requested &&
		a->timed == b->timed && a->wal_forced == b->wal_forced &&
		a->wal_bytes == b->wal_bytes && a->window_s == b->window_s &&
		strcmp(a->reason, b->reason) == 0;
}

static unsigned char *
encode(const WalsizerPersistent *state, size_t *len)
{
	unsigned char *buf = malloc(walsizer_state_encoded_size());

	*len = walsizer_state_encode(state, buf, walsizer_state_encoded_size());
	return buf;
}

static void
put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char) (v >> (8 * i));
}

/* Recompute the checksum after a deliberate edit (FNV-1a, 64 bit). */
static void
reseal(unsigned char *buf, size_t len)
{
	uint64_t	hash = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len - CHECKSUM_BYTES; i++)
	{
		hash ^= buf[i];
		hash *= UINT64_C(1099511628211);
	}
	put_le(buf + len - CHECKSUM_BYTES, hash, 8);
}

static void
round_trip(int appended)
{
	WalsizerPersistent *state = state_with_records(appended);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	int			kept = appended < WALSIZER_HISTORY_LEN ? appended : WALSIZER_HISTORY_LEN;
	char		err[128] = "";
	size_t		len;
	unsigned char *buf = encode(state, &len);

	CHECK_UEQ(len, HEADER_BYTES + (size_t) kept * RECORD_BYTES + CHECKSUM_BYTES);
	if (!walsizer_state_decode(buf, len, decoded, err, sizeof(err)))
	{
		CHECK_STR_CONTAINS("decoded", err);
		free(buf);
		free(decoded);
		free(state);
		return;
	}
	CHECK_EQ(decoded->baseline_mb, 1024);
	CHECK_EQ(decoded->last_set_mb, 2048);
	CHECK_EQ(decoded->intent_mb, 0);
	CHECK_UEQ(decoded->decisions_total, appended);
	CHECK_EQ(decoded->policy.windows_below_half, 3);
	CHECK_EQ(decoded->policy.windows_since_change, 7);
	CHECK_EQ(decoded->policy.cap_reported, 1);
	CHECK_EQ(decoded->history_count, kept);
	for (int i = 0; i < kept; i++)
	{
		/* oldest first: the survivors are the last `kept` appended */
		WalsizerRecord expected = numbered_record(appended - kept + i);

		CHECK(records_equal(walsizer_history_at(decoded, i), &expected));
		CHECK(records_equal(walsizer_history_at(state, i), &expected));
	}
	if (kept > 0)
	{
		WalsizerRecord newest = numbered_record(appended - 1);

		CHECK(records_equal(walsizer_history_latest(decoded), &newest));
	}
	else
		CHECK(walsizer_history_latest(decoded) == NULL);

	/* appending after a reload continues the same ring */
	{
		WalsizerRecord next = numbered_record(appended);

		walsizer_history_append(decoded, &next);
		walsizer_history_append(state, &next);
		CHECK_UEQ(decoded->decisions_total, appended + 1);
		CHECK(records_equal(walsizer_history_latest(decoded), &next));
		for (int i = 0; i < decoded->history_count; i++)
			CHECK(records_equal(walsizer_history_at(decoded, i),
								walsizer_history_at(state, i)));
	}
	free(buf);
	free(decoded);
	free(state);
}

static void
round_trip_with_no_records(void)
{
	round_trip(0);
}

static void
round_trip_with_one_record(void)
{
	round_trip(1);
}

static void
round_trip_with_one_short_of_a_full_ring(void)
{
	round_trip(WALSIZER_HISTORY_LEN - 1);
}

static void
round_trip_with_a_full_ring(void)
{
	round_trip(WALSIZER_HISTORY_LEN);
}

static void
round_trip_after_the_ring_wrapped(void)
{
	round_trip(WALSIZER_HISTORY_LEN + 1);
	round_trip(3 * WALSIZER_HISTORY_LEN + 17);
}

static void
history_at_rejects_out_of_range_positions(void)
{
	WalsizerPersistent *state = state_with_records(5);

	CHECK(walsizer_history_at(state, -1) == NULL);
	CHECK(walsizer_history_at(state, 5) == NULL);
	CHECK(walsizer_history_at(state, 4) != NULL);
	free(state);
}

static void
encode_refuses_a_buffer_too_small(void)
{
	WalsizerPersistent *state = state_with_records(3);
	unsigned char buf[HEADER_BYTES + 3 * RECORD_BYTES + CHECKSUM_BYTES];

	CHECK_UEQ(walsizer_state_encode(state, buf, sizeof(buf) - 1), 0);
	CHECK_UEQ(walsizer_state_encode(state, buf, sizeof(buf)), sizeof(buf));
	free(state);
}

static void
encode_terminates_an_unterminated_reason(void)
{
	WalsizerPersistent *state = state_with_records(1);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf;

	memset(state->history[0].reason, 'x', WALSIZER_REASON_LEN);
	buf = encode(state, &len);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	if (decoded->history_count == 1)
		CHECK_EQ(strlen(walsizer_history_at(decoded, 0)->reason),
				 WALSIZER_REASON_LEN - 1);
	free(buf);
	free(decoded);
	free(state);
}

/*
 * Decode a damaged copy of a valid three-record image: it must fail, say
 * why, and leave the caller's state exactly as it was.
 */
typedef void (*Damage) (unsigned char *buf, size_t *len);

static void
expect_rejected(Damage damage, bool reseal_after, const char *why)
{
	WalsizerPersistent *state = state_with_records(3);
	WalsizerPersistent *out = malloc(sizeof(WalsizerPersistent));
	WalsizerPersistent *before = malloc(sizeof(WalsizerPersistent));
	char		err[128] = "";
	size_t		len;
	unsigned char *buf = encode(state, &len);

	memset(out, 0xA5, sizeof(WalsizerPersistent));
	memcpy(before, out, sizeof(WalsizerPersistent));
	damage(buf, &len);
	if (reseal_after)
		reseal(buf, len);
	CHECK(!walsizer_state_decode(buf, len, out, err, sizeof(err)));
	CHECK(memcmp(out, before, sizeof(WalsizerPersistent)) == 0);
	CHECK_STR_CONTAINS(err, why);
	free(buf);
	free(out);
	free(before);
	free(state);
}

static void
truncate_by_one(unsigned char *buf, size_t *len)
{
	(void) buf;
	*len -= 1;
}

static void
truncate_to_header(unsigned char *buf, size_t *len)
{
	(void) buf;
	*len = 10;
}

static void
lengthen_by_one(unsigned char *buf, size_t *len)
{
	buf[*len] = 0;
	*len += 1;
}

static void
break_magic(unsigned char *buf, size_t *len)
{
	(void) len;
	buf[0] ^= 0xFF;
}

static void
bump_version(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_VERSION, 2, 4);
}

static void
flip_a_reason_bit(unsigned char *buf, size_t *len)
{
	(void) len;
	buf[HEADER_BYTES + RECORD_BYTES + RECORD_REASON + 3] ^= 0x01;
}

static void
claim_too_many_records(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_COUNT, WALSIZER_HISTORY_LEN + 1, 4);
}

static void
claim_fewer_records(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_COUNT, 2, 4);
}

static void
set_unknown_action(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + HEADER_BYTES + RECORD_ACTION, WALSIZER_ACTION_LAST + 1, 4);
}

static void
set_negative_action(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + HEADER_BYTES + RECORD_ACTION, (uint32_t) -1, 4);
}

static void
unterminate_reason(unsigned char *buf, size_t *len)
{
	(void) len;
	memset(buf + HEADER_BYTES + 2 * RECORD_BYTES + RECORD_REASON, 'r',
		   WALSIZER_REASON_LEN);
}

static void
set_impossible_baseline(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_BASELINE, (uint64_t) 2147483648, 8);
}

static void
set_negative_baseline(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_BASELINE, (uint64_t) -1, 8);
}

static void
set_impossible_record_size(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + HEADER_BYTES + RECORD_OLD_MB, UINT64_C(1) << 40, 8);
}

static void
set_negative_record_count(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + HEADER_BYTES + RECORD_BYTES + RECORD_TIMED, (uint64_t) -3, 8);
}

static void
set_negative_policy_counter(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_POLICY, (uint32_t) -1, 4);
}

static void
set_policy_cooldown_below_minus_one(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_POLICY + 4, (uint32_t) -2, 4);
}

static void
set_nan_window(unsigned char *buf, size_t *len)
{
	double		nan_value = NAN;
	uint64_t	bits;

	(void) len;
	memcpy(&bits, &nan_value, sizeof(bits));
	put_le(buf + HEADER_BYTES + RECORD_WINDOW, bits, 8);
}

static void
decode_rejects_truncated_file(void)
{
	expect_rejected(truncate_by_one, false, "length");
	expect_rejected(truncate_to_header, false, "too short");
}

static void
decode_rejects_too_long_file(void)
{
	expect_rejected(lengthen_by_one, false, "length");
}

static void
decode_rejects_wrong_magic(void)
{
	expect_rejected(break_magic, false, "magic");
}

static void
decode_rejects_wrong_version(void)
{
	expect_rejected(bump_version, false, "version");
}

static void
decode_rejects_bad_checksum(void)
{
	expect_rejected(flip_a_reason_bit, false, "checksum");
}

static void
decode_rejects_record_count_that_does_not_match_length(void)
{
	expect_rejected(claim_too_many_records, true, "too many records");
	expect_rejected(claim_fewer_records, true, "length");
}

static void
decode_rejects_unknown_action(void)
{
	expect_rejected(set_unknown_action, true, "unknown action");
	expect_rejected(set_negative_action, true, "unknown action");
}

static void
decode_rejects_unterminated_reason(void)
{
	expect_rejected(unterminate_reason, true, "not terminated");
}

static void
decode_rejects_impossible_sizes(void)
{
	expect_rejected(set_impossible_baseline, true, "impossible max_wal_size");
	expect_rejected(set_negative_baseline, true, "impossible max_wal_size");
	expect_rejected(set_impossible_record_size, true, "impossible size");
}

static void
decode_rejects_negative_counts(void)
{
	expect_rejected(set_negative_record_count, true, "negative count");
	expect_rejected(set_negative_policy_counter, true, "policy state");
	expect_rejected(set_policy_cooldown_below_minus_one, true, "policy state");
}

/* -1 means "changed during the window in progress" (see policy.h). */
static void
decode_accepts_change_pending_in_current_window(void)
{
	WalsizerPersistent *state = state_with_records(2);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf;

	state->policy.windows_since_change = -1;
	buf = encode(state, &len);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_EQ(decoded->policy.windows_since_change, -1);
	free(buf);
	free(decoded);
	free(state);
}

static void
decode_rejects_invalid_window_length(void)
{
	expect_rejected(set_nan_window, true, "window");
}

static void
decode_rejects_empty_and_missing_buffers(void)
{
	WalsizerPersistent *out = calloc(1, sizeof(WalsizerPersistent));
	unsigned char byte = 0;

	CHECK(!walsizer_state_decode(NULL, 0, out, NULL, 0));
	CHECK(!walsizer_state_decode(&byte, 0, out, NULL, 0));
	CHECK_EQ(out->baseline_mb, 0);
	free(out);
}

int
main(void)
{
	const char *suite = "state_format";

	RUN_TEST(suite, round_trip_with_no_records);
	RUN_TEST(suite, round_trip_with_one_record);
	RUN_TEST(suite, round_trip_with_one_short_of_a_full_ring);
	RUN_TEST(suite, round_trip_with_a_full_ring);
	RUN_TEST(suite, round_trip_after_the_ring_wrapped);
	RUN_TEST(suite, history_at_rejects_out_of_range_positions);
	RUN_TEST(suite, encode_refuses_a_buffer_too_small);
	RUN_TEST(suite, encode_terminates_an_unterminated_reason);
	RUN_TEST(suite, decode_rejects_truncated_file);
	RUN_TEST(suite, decode_rejects_too_long_file);
	RUN_TEST(suite, decode_rejects_wrong_magic);
	RUN_TEST(suite, decode_rejects_wrong_version);
	RUN_TEST(suite, decode_rejects_bad_checksum);
	RUN_TEST(suite, decode_rejects_record_count_that_does_not_match_length);
	RUN_TEST(suite, decode_rejects_unknown_action);
	RUN_TEST(suite, decode_rejects_unterminated_reason);
	RUN_TEST(suite, decode_rejects_impossible_sizes);
	RUN_TEST(suite, decode_rejects_negative_counts);
	RUN_TEST(suite, decode_accepts_change_pending_in_current_window);
	RUN_TEST(suite, decode_rejects_invalid_window_length);
	RUN_TEST(suite, decode_rejects_empty_and_missing_buffers);
	return unit_exit_status();
}
