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
 * Byte offsets in a version 5 image, from the layout in state_format.c: a
 * record is at, action, confirmed, seven 8-byte fields, the reason and the
 * role; after the records come the action totals, failing_since, then the
 * checksum.  Version 4 lacks failing_since; version 3 also the action
 * totals; version 2 also the role of each
 * record; version 1 also the crash recovery fields, from OFFSET_REDO_LSN
 * on.
 */
#define OFFSET_VERSION 4
#define OFFSET_COUNT 8
#define OFFSET_BASELINE 16
#define OFFSET_DECISIONS_TOTAL 40
#define OFFSET_POLICY 48
#define OFFSET_REDO_LSN 64
#define OFFSET_POSTMASTER_START 72
#define OFFSET_STOPPED_CLEANLY 80
#define OFFSET_REPLAY_COUNT 84
#define OFFSET_REPLAY_NEXT 88
#define OFFSET_REPLAY_RATES 92
#define HEADER_V1_BYTES 64
#define HEADER_BYTES (OFFSET_REPLAY_RATES + WALSIZER_REPLAY_RATES * 8)
#define RECORD_V2_BYTES (8 + 4 + 4 + 7 * 8 + WALSIZER_REASON_LEN)
#define RECORD_BYTES (RECORD_V2_BYTES + 4)
#define RECORD_AT 0
#define RECORD_ACTION 8
#define RECORD_OLD_MB 16
#define RECORD_TIMED 40
#define RECORD_WINDOW 64
#define RECORD_REASON 72
#define RECORD_ROLE (RECORD_REASON + WALSIZER_REASON_LEN)
#define CHECKSUM_BYTES 8
#define ACTION_TOTALS_BYTES (WALSIZER_ACTION_LAST * 8)
#define FAILING_AND_DIRECTORY_BYTES (3 * 8)	/* failing_since, the data directory */
/* what follows the records in a version 5 image */
#define TRAILER_BYTES (ACTION_TOTALS_BYTES + FAILING_AND_DIRECTORY_BYTES + CHECKSUM_BYTES)

/*
 * PostgreSQL's TimestampTz range, MIN_TIMESTAMP <= t < END_TIMESTAMP in
 * datatype/timestamp.h: 4714-11-24 BC to 294276-12-31 AD, in microseconds
 * since 2000-01-01.
 */
#define FIRST_VALID_TIME INT64_C(-211813488000000000)
#define FIRST_INVALID_TIME INT64_C(9223371331200000000)

static WalsizerRecord
numbered_record(int n)
{
	WalsizerRecord rec;

	memset(&rec, 0, sizeof(rec));
	rec.at = 700000000000000 + n;
	rec.action = 1 + n % WALSIZER_ACTION_LAST;
	rec.confirmed = n % 2;
	rec.role = n % 3 == 0 ? WALSIZER_ROLE_STANDBY : WALSIZER_ROLE_PRIMARY;
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
		a->confirmed == b->confirmed && a->role == b->role &&
		a->old_mb == b->old_mb &&
		a->new_mb == b->new_mb && a->requested == b->requested &&
		a->timed == b->timed && a->wal_forced == b->wal_forced &&
		a->wal_bytes == b->wal_bytes && a->window_s == b->window_s &&
		strcmp(a->reason, b->reason) == 0;
}

/*
 * Equal but for the role, which an image older than version 3 does not
 * hold: it reads as primary.
 */
static bool
records_equal_read_as_primary(const WalsizerRecord *read,
							  const WalsizerRecord *written)
{
	WalsizerRecord expected;

	if (read == NULL || written == NULL)
		return false;
	expected = *written;
	expected.role = WALSIZER_ROLE_PRIMARY;
	return records_equal(read, &expected);
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

	CHECK_UEQ(len, HEADER_BYTES + (size_t) kept * RECORD_BYTES + TRAILER_BYTES);
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
	unsigned char buf[HEADER_BYTES + 3 * RECORD_BYTES + TRAILER_BYTES];

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
	put_le(buf + OFFSET_VERSION, 6, 4);
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
set_action_none(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + HEADER_BYTES + RECORD_BYTES + RECORD_ACTION,
		   WALSIZER_ACTION_NONE, 4);
}

/* The image holds three records: two decisions cannot have made them. */
static void
claim_fewer_decisions_than_records(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_DECISIONS_TOTAL, 2, 8);
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

/* The time of the second record, for expect_rejected(set_record_time). */
static int64_t record_time;

static void
set_record_time(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + HEADER_BYTES + RECORD_BYTES + RECORD_AT, (uint64_t) record_time, 8);
}

/* The reason of the second record, for expect_rejected(set_record_reason). */
static const char *record_reason;

static void
set_record_reason(unsigned char *buf, size_t *len)
{
	unsigned char *reason = buf + HEADER_BYTES + RECORD_BYTES + RECORD_REASON;

	(void) len;
	memset(reason, 0, WALSIZER_REASON_LEN);
	memcpy(reason, record_reason, strlen(record_reason));
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

/*
 * Only a decision that did something is recorded (walsizer_act() returns
 * before recording one whose action is "none"), so a record saying "none"
 * was not written by walsizer and the file cannot be trusted.
 */
static void
decode_rejects_a_record_of_no_action(void)
{
	expect_rejected(set_action_none, true, "unknown action");
}

/*
 * Every record is a decision, and decisions_total counts them all,
 * overwritten ones included: it can be larger than the record count, but
 * a file that holds more records than decisions contradicts itself.
 */
static void
decode_rejects_more_records_than_decisions(void)
{
	expect_rejected(claim_fewer_decisions_than_records, true,
					"fewer decisions than records");
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

/*
 * decisions() shows a record's time as a timestamptz, which PostgreSQL
 * refuses outside its range ("timestamp out of range"): a time outside it,
 * infinities included, is damage like any other impossible field.
 */
static void
decode_rejects_times_postgresql_cannot_show(void)
{
	int64_t		times[] = {FIRST_VALID_TIME - 1, FIRST_INVALID_TIME,
	INT64_MIN, INT64_MAX};

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
	{
		record_time = times[i];
		expect_rejected(set_record_time, true, "time is out of range");
	}
}

static void
decode_accepts_the_first_and_last_valid_times(void)
{
	int64_t		times[] = {FIRST_VALID_TIME, FIRST_INVALID_TIME - 1, 0, -1};

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
	{
		WalsizerPersistent *state = state_with_records(3);
		WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
		char		err[128] = "";
		size_t		len;
		unsigned char *buf = encode(state, &len);

		record_time = times[i];
		set_record_time(buf, &len);
		reseal(buf, len);
		CHECK(walsizer_state_decode(buf, len, decoded, err, sizeof(err)));
		CHECK_STR_CONTAINS("", err);
		if (decoded->history_count == 3)
			CHECK_EQ(walsizer_history_at(decoded, 1)->at, times[i]);
		free(buf);
		free(decoded);
		free(state);
	}
}

/*
 * A reason is printable ASCII and well-formed UTF-8 characters: control
 * characters and bytes that are no UTF-8 are damage (or text in another
 * encoding that walsizer_history_append() would have replaced).
 */
static void
decode_rejects_reasons_that_are_not_valid_text(void)
{
	const char *reasons[] = {
		"grow\x01ing",			/* a control character */
		"grow\x1b[2Jing",		/* a terminal escape */
		"grow\ning",				/* a new line */
		"grow\x7fing",			/* DEL */
		"grow\xffing",			/* never in UTF-8 */
		"grow\x80ing",			/* a continuation byte alone */
		"nicht \xf6" "ffnen",	/* Latin-1 */
		"cut \xc3",				/* a character cut short */
		"cut \xe2\x82",
		"over\xc0\xafong",		/* overlong "/" */
		"over\xe0\x80\xafong",
		"surrogate \xed\xa0\x80",	/* U+D800 */
		"too high \xf4\x90\x80\x80",	/* U+110000 */
		"too high \xf5\x80\x80\x80",
	};

	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
	{
		record_reason = reasons[i];
		expect_rejected(set_record_reason, true, "reason is not valid text");
	}
}

static void
decode_accepts_utf8_reasons(void)
{
	const char *reasons[] = {
		"",
		"ALTER SYSTEM failed: konnte Datei \xc2\xbbpostgresql.auto.conf\xc2\xab nicht \xc3\xb6" "ffnen",
		"\xe2\x82\xac \xed\x9f\xbf \xee\x80\x80 \xef\xbf\xbd",	/* 3 bytes, around the surrogates */
		"\xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf",	/* 4 bytes, up to U+10FFFF */
	};

	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
	{
		WalsizerPersistent *state = state_with_records(3);
		WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
		char		err[128] = "";
		size_t		len;
		unsigned char *buf = encode(state, &len);

		record_reason = reasons[i];
		set_record_reason(buf, &len);
		reseal(buf, len);
		CHECK(walsizer_state_decode(buf, len, decoded, err, sizeof(err)));
		CHECK_STR_CONTAINS("", err);
		if (decoded->history_count == 3)
			CHECK_STR_CONTAINS(walsizer_history_at(decoded, 1)->reason, reasons[i]);
		free(buf);
		free(decoded);
		free(state);
	}
}

/*
 * The writer never produces what the reader rejects, or a restart would
 * lose the whole state (the DBA's max_wal_size with it).  A translated
 * server message can bring in any bytes, and a copy into the reason's
 * fixed length can cut a character in two.
 */
typedef struct AppendCase
{
	const char *given;
	const char *kept;
} AppendCase;

static void
history_append_keeps_only_what_the_decoder_accepts(void)
{
	char		cut[WALSIZER_REASON_LEN];
	char		cut_kept[WALSIZER_REASON_LEN];
	AppendCase	cases[] = {
		{"plain ASCII stays", "plain ASCII stays"},
		{"UTF-8 stays: \xc3\xb6" "ffnen \xe2\x82\xac", "UTF-8 stays: \xc3\xb6" "ffnen \xe2\x82\xac"},
		{"line one\nline\ttwo\x1b", "line one line two "},
		/* DEL is a control character too, in UTF-8 text as well */
		{"rub\x7fout \xc3\xb6", "rub out \xc3\xb6"},
		/* not UTF-8 at all: another encoding, where no byte can be kept */
		{"Latin-1: nicht \xf6" "ffnen \xbb\xab", "Latin-1: nicht ?ffnen ??"},
		{"mixed: \xc3\xb6 \xf6", "mixed: ?? ?"},
		{cut, cut_kept},
	};

	/* a UTF-8 character cut in two by the end of the reason */
	memset(cut, 'c', sizeof(cut));
	memcpy(cut + WALSIZER_REASON_LEN - 3, "\xe2\x82\xac", 3);
	memcpy(cut_kept, cut, WALSIZER_REASON_LEN - 3);
	cut_kept[WALSIZER_REASON_LEN - 3] = '\0';

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		WalsizerPersistent *state = calloc(1, sizeof(WalsizerPersistent));
		WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
		WalsizerRecord rec = numbered_record(1);
		char		err[128] = "";
		size_t		given_len = 0;
		size_t		len;
		unsigned char *buf;

		while (given_len < WALSIZER_REASON_LEN && cases[i].given[given_len] != '\0')
			given_len++;
		memset(rec.reason, 0, sizeof(rec.reason));
		memcpy(rec.reason, cases[i].given, given_len);
		walsizer_history_append(state, &rec);
		CHECK_STR_CONTAINS(walsizer_history_at(state, 0)->reason, cases[i].kept);
		CHECK_EQ(strlen(walsizer_history_at(state, 0)->reason), strlen(cases[i].kept));
		buf = encode(state, &len);
		CHECK(walsizer_state_decode(buf, len, decoded, err, sizeof(err)));
		CHECK_STR_CONTAINS("", err);
		free(buf);
		free(decoded);
		free(state);
	}
}

/* Likewise a time: GetCurrentTimestamp() never gives one out of range. */
static void
history_append_keeps_times_in_range(void)
{
	int64_t		times[] = {INT64_MIN, INT64_MAX, FIRST_VALID_TIME - 1,
	FIRST_INVALID_TIME};
	int64_t		kept[] = {FIRST_VALID_TIME, FIRST_INVALID_TIME - 1,
	FIRST_VALID_TIME, FIRST_INVALID_TIME - 1};

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
	{
		WalsizerPersistent *state = calloc(1, sizeof(WalsizerPersistent));
		WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
		WalsizerRecord rec = numbered_record(1);
		size_t		len;
		unsigned char *buf;

		rec.at = times[i];
		walsizer_history_append(state, &rec);
		CHECK_EQ(walsizer_history_at(state, 0)->at, kept[i]);
		buf = encode(state, &len);
		CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
		free(buf);
		free(decoded);
		free(state);
	}
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

/* --- the crash recovery fields (format version 2) --------------------------- */

static double
double_of(const unsigned char *p)
{
	uint64_t	bits = 0;
	double		value;

	for (int i = 0; i < 8; i++)
		bits |= (uint64_t) p[i] << (8 * i);
	memcpy(&value, &bits, sizeof(value));
	return value;
}

static void
put_double(unsigned char *p, double value)
{
	uint64_t	bits;

	memcpy(&bits, &value, sizeof(bits));
	put_le(p, bits, 8);
}

/* The i-th oldest valid replay rate of a ring. */
static double
replay_rate_at(const WalsizerPersistent *state, int i)
{
	return state->replay_rates[(state->replay_next - state->replay_count + i +
								WALSIZER_REPLAY_RATES) % WALSIZER_REPLAY_RATES];
}

static void
replay_rate_append_keeps_the_last_few(void)
{
	WalsizerPersistent *state = calloc(1, sizeof(WalsizerPersistent));

	walsizer_replay_rate_append(state, 10e6);
	CHECK_EQ(state->replay_count, 1);
	CHECK_EQ(state->replay_next, 1);
	CHECK(replay_rate_at(state, 0) == 10e6);

	/* six measurements in a ring of four: the last four, oldest first */
	for (int i = 2; i <= 6; i++)
		walsizer_replay_rate_append(state, i * 10e6);
	CHECK_EQ(state->replay_count, WALSIZER_REPLAY_RATES);
	CHECK_EQ(state->replay_next, 6 % WALSIZER_REPLAY_RATES);
	for (int i = 0; i < WALSIZER_REPLAY_RATES; i++)
		CHECK(replay_rate_at(state, i) == (i + 3) * 10e6);
	free(state);
}

/* A measurement that went wrong is no rate: keeping it would lose the file. */
static void
replay_rate_append_ignores_what_is_no_rate(void)
{
	WalsizerPersistent *state = calloc(1, sizeof(WalsizerPersistent));
	double		no_rates[] = {0, -0.0, -5e6, NAN, INFINITY, -INFINITY};

	walsizer_replay_rate_append(state, 7e6);
	for (size_t i = 0; i < sizeof(no_rates) / sizeof(no_rates[0]); i++)
		walsizer_replay_rate_append(state, no_rates[i]);
	CHECK_EQ(state->replay_count, 1);
	CHECK_EQ(state->replay_next, 1);
	CHECK(replay_rate_at(state, 0) == 7e6);
	free(state);
}

static void
round_trip_keeps_the_crash_recovery_fields(void)
{
	WalsizerPersistent *state = state_with_records(5);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	char		err[128] = "";
	size_t		len;
	unsigned char *buf;

	state->completed_redo_lsn = UINT64_C(0x1234567890ABCDEF);
	state->postmaster_started_at = 817000000000000;
	state->stopped_cleanly = 1;
	for (int i = 1; i <= 5; i++)
		walsizer_replay_rate_append(state, i * 1.5e6);
	buf = encode(state, &len);
	CHECK_UEQ(len, HEADER_BYTES + 5 * RECORD_BYTES + TRAILER_BYTES);
	CHECK_EQ(buf[OFFSET_VERSION], 5);
	CHECK(walsizer_state_decode(buf, len, decoded, err, sizeof(err)));
	CHECK_STR_CONTAINS("", err);
	CHECK_UEQ(decoded->completed_redo_lsn, UINT64_C(0x1234567890ABCDEF));
	CHECK_EQ(decoded->postmaster_started_at, 817000000000000);
	CHECK_EQ(decoded->stopped_cleanly, 1);
	CHECK_EQ(decoded->replay_count, WALSIZER_REPLAY_RATES);
	CHECK_EQ(decoded->replay_next, state->replay_next);
	for (int i = 0; i < WALSIZER_REPLAY_RATES; i++)
		CHECK(replay_rate_at(decoded, i) == (i + 2) * 1.5e6);
	CHECK_EQ(decoded->history_count, 5);
	CHECK(records_equal(walsizer_history_latest(decoded),
						walsizer_history_latest(state)));

	/* a measurement after the reload continues the same ring */
	walsizer_replay_rate_append(decoded, 9e6);
	CHECK(replay_rate_at(decoded, WALSIZER_REPLAY_RATES - 1) == 9e6);
	CHECK(replay_rate_at(decoded, 0) == 3 * 1.5e6);
	free(buf);
	free(decoded);
	free(state);
}

/*
 * The slots past the valid rates are written as 0, whatever the struct
 * holds there, and read back as 0 whatever the file holds there: only the
 * valid ones are rates.
 */
static void
unused_replay_slots_hold_nothing(void)
{
	WalsizerPersistent *state = state_with_records(1);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf;

	walsizer_replay_rate_append(state, 4e6);
	state->replay_rates[2] = NAN;
	buf = encode(state, &len);
	CHECK(len > 0);
	CHECK(double_of(buf + OFFSET_REPLAY_RATES) == 4e6);
	for (int slot = 1; slot < WALSIZER_REPLAY_RATES; slot++)
		CHECK(double_of(buf + OFFSET_REPLAY_RATES + 8 * slot) == 0);

	put_double(buf + OFFSET_REPLAY_RATES + 8 * 3, -1);
	reseal(buf, len);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_EQ(decoded->replay_count, 1);
	CHECK(decoded->replay_rates[0] == 4e6);
	CHECK(decoded->replay_rates[3] == 0);
	free(buf);
	free(decoded);
	free(state);
}

/*
 * A version 4 image, as the release before failing_since wrote it: the
 * version 5 image without it.
 */
static unsigned char *
version_4_image(const WalsizerPersistent *state, size_t *len)
{
	size_t		v5_len;
	unsigned char *buf = encode(state, &v5_len);

	*len = v5_len - FAILING_AND_DIRECTORY_BYTES;
	put_le(buf + OFFSET_VERSION, 4, 4);
	reseal(buf, *len);
	return buf;
}

/*
 * A version 3 image, as the release before the action totals wrote it:
 * the version 4 image without them.
 */
static unsigned char *
version_3_image(const WalsizerPersistent *state, size_t *len)
{
	size_t		v4_len;
	unsigned char *buf = version_4_image(state, &v4_len);

	*len = v4_len - ACTION_TOTALS_BYTES;
	put_le(buf + OFFSET_VERSION, 3, 4);
	reseal(buf, *len);
	return buf;
}

/*
 * A version 2 image, as the release before standbys wrote it: the version
 * 3 image without each record's role.
 */
static unsigned char *
version_2_image(const WalsizerPersistent *state, size_t *len)
{
	size_t		v3_len;
	unsigned char *buf = version_3_image(state, &v3_len);
	int			count = (int) ((v3_len - HEADER_BYTES - CHECKSUM_BYTES) /
							   RECORD_BYTES);

	for (int i = 0; i < count; i++)
		memmove(buf + HEADER_BYTES + (size_t) i * RECORD_V2_BYTES,
				buf + HEADER_BYTES + (size_t) i * RECORD_BYTES,
				RECORD_V2_BYTES);
	*len = HEADER_BYTES + (size_t) count * RECORD_V2_BYTES + CHECKSUM_BYTES;
	put_le(buf + OFFSET_VERSION, 2, 4);
	reseal(buf, *len);
	return buf;
}

/*
 * A version 1 image, as the first release wrote it: the version 2 image
 * without the crash recovery fields.
 */
static unsigned char *
version_1_image(const WalsizerPersistent *state, size_t *len)
{
	size_t		v2_len;
	unsigned char *buf = version_2_image(state, &v2_len);

	memmove(buf + HEADER_V1_BYTES, buf + HEADER_BYTES, v2_len - HEADER_BYTES);
	*len = v2_len - (HEADER_BYTES - HEADER_V1_BYTES);
	put_le(buf + OFFSET_VERSION, 1, 4);
	reseal(buf, *len);
	return buf;
}

static void
version_1_file_reads_with_no_crash_recovery_known(void)
{
	WalsizerPersistent *state = state_with_records(WALSIZER_HISTORY_LEN + 3);
	WalsizerPersistent *decoded = malloc(sizeof(WalsizerPersistent));
	char		err[128] = "";
	size_t		len;
	unsigned char *buf;

	/* the encoding of these lands in the removed fields only */
	state->completed_redo_lsn = 77;
	state->postmaster_started_at = 99;
	state->stopped_cleanly = 1;
	walsizer_replay_rate_append(state, 5e6);
	buf = version_1_image(state, &len);
	CHECK_UEQ(len, HEADER_V1_BYTES + WALSIZER_HISTORY_LEN * RECORD_V2_BYTES +
			  CHECKSUM_BYTES);

	memset(decoded, 0xA5, sizeof(WalsizerPersistent));
	CHECK(walsizer_state_decode(buf, len, decoded, err, sizeof(err)));
	CHECK_STR_CONTAINS("", err);
	CHECK_EQ(decoded->baseline_mb, 1024);
	CHECK_EQ(decoded->last_set_mb, 2048);
	CHECK_UEQ(decoded->decisions_total, WALSIZER_HISTORY_LEN + 3);
	CHECK_EQ(decoded->policy.windows_since_change, 7);
	CHECK_EQ(decoded->history_count, WALSIZER_HISTORY_LEN);
	for (int i = 0; i < WALSIZER_HISTORY_LEN; i++)
		CHECK(records_equal_read_as_primary(walsizer_history_at(decoded, i),
											walsizer_history_at(state, i)));
	CHECK_UEQ(decoded->completed_redo_lsn, 0);
	CHECK_EQ(decoded->postmaster_started_at, 0);
	CHECK_EQ(decoded->stopped_cleanly, 0);
	CHECK_EQ(decoded->replay_count, 0);
	CHECK_EQ(decoded->replay_next, 0);
	for (int slot = 0; slot < WALSIZER_REPLAY_RATES; slot++)
		CHECK(decoded->replay_rates[slot] == 0);

	/* and it is written back as version 5 */
	free(buf);
	buf = encode(decoded, &len);
	CHECK_EQ(buf[OFFSET_VERSION], 5);
	CHECK_UEQ(len, HEADER_BYTES + WALSIZER_HISTORY_LEN * RECORD_BYTES +
			  TRAILER_BYTES);
	free(buf);
	free(decoded);
	free(state);
}

static void
version_1_file_without_records_reads(void)
{
	WalsizerPersistent *state = state_with_records(0);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf = version_1_image(state, &len);

	CHECK_UEQ(len, HEADER_V1_BYTES + CHECKSUM_BYTES);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_EQ(decoded->baseline_mb, 1024);
	CHECK_EQ(decoded->history_count, 0);
	free(buf);
	free(decoded);
	free(state);
}

/*
 * Each version has its own length: a version 5 body with records labelled
 * 4, 3, 2 or 1 is damage.
 */
static void
claim_version_4(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_VERSION, 4, 4);
}

static void
claim_version_1(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_VERSION, 1, 4);
}

static void
claim_version_2(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_VERSION, 2, 4);
}

static void
claim_version_3(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_VERSION, 3, 4);
}

static void
claim_version_0(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_VERSION, 0, 4);
}

static void
decode_rejects_a_version_that_does_not_match_the_length(void)
{
	expect_rejected(claim_version_4, true, "length");
	expect_rejected(claim_version_1, true, "length");
	expect_rejected(claim_version_2, true, "length");
	expect_rejected(claim_version_3, true, "length");
	expect_rejected(claim_version_0, true, "unsupported version");
}

/* The value a damage function below writes, and where. */
static int64_t recovery_value;
static double recovery_rate;

static void
set_replay_count(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_REPLAY_COUNT, (uint64_t) recovery_value, 4);
}

static void
set_replay_next(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_REPLAY_NEXT, (uint64_t) recovery_value, 4);
}

static void
set_postmaster_start(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_POSTMASTER_START, (uint64_t) recovery_value, 8);
}

static void
set_stopped_cleanly(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_STOPPED_CLEANLY, (uint64_t) recovery_value, 4);
}

/* Two valid rates, in slots 1 and 2; the second is recovery_rate. */
static void
set_second_replay_rate(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + OFFSET_REPLAY_COUNT, 2, 4);
	put_le(buf + OFFSET_REPLAY_NEXT, 3, 4);
	put_double(buf + OFFSET_REPLAY_RATES + 8 * 1, 6e6);
	put_double(buf + OFFSET_REPLAY_RATES + 8 * 2, recovery_rate);
}

static void
decode_rejects_impossible_crash_recovery_fields(void)
{
	int64_t		counts[] = {WALSIZER_REPLAY_RATES + 1, -1, INT32_MAX};
	int64_t		nexts[] = {WALSIZER_REPLAY_RATES, -1};
	int64_t		flags[] = {2, -1};
	int64_t		start_times[] = {FIRST_VALID_TIME - 1, FIRST_INVALID_TIME,
	INT64_MIN, INT64_MAX};
	double		rates[] = {0, -0.0, -1e6, NAN, INFINITY, -INFINITY};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
	{
		recovery_value = counts[i];
		expect_rejected(set_replay_count, true, "replay rate ring");
	}
	for (size_t i = 0; i < sizeof(nexts) / sizeof(nexts[0]); i++)
	{
		recovery_value = nexts[i];
		expect_rejected(set_replay_next, true, "replay rate ring");
	}
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
	{
		recovery_rate = rates[i];
		expect_rejected(set_second_replay_rate, true, "invalid replay rate");
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
	{
		recovery_value = flags[i];
		expect_rejected(set_stopped_cleanly, true, "clean stop flag");
	}
	/* PostgreSQL's TimestampTz range, as for a record's time */
	for (size_t i = 0; i < sizeof(start_times) / sizeof(start_times[0]); i++)
	{
		recovery_value = start_times[i];
		expect_rejected(set_postmaster_start, true, "postmaster start time");
	}
}

/* The edges of what is accepted: a full ring, the last slot, a tiny rate. */
static void
decode_accepts_the_edges_of_the_crash_recovery_fields(void)
{
	WalsizerPersistent *state = state_with_records(2);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf;

	for (int i = 0; i < WALSIZER_REPLAY_RATES - 1; i++)
		walsizer_replay_rate_append(state, 1e6);
	walsizer_replay_rate_append(state, 4.9e-324);
	state->completed_redo_lsn = UINT64_MAX;
	state->postmaster_started_at = FIRST_INVALID_TIME - 1;
	buf = encode(state, &len);
	CHECK_EQ(state->replay_next, 0);
	put_le(buf + OFFSET_REPLAY_NEXT, WALSIZER_REPLAY_RATES - 1, 4);
	reseal(buf, len);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_EQ(decoded->replay_count, WALSIZER_REPLAY_RATES);
	CHECK_EQ(decoded->replay_next, WALSIZER_REPLAY_RATES - 1);
	CHECK(decoded->replay_rates[WALSIZER_REPLAY_RATES - 1] == 4.9e-324);
	CHECK_UEQ(decoded->completed_redo_lsn, UINT64_MAX);
	CHECK_EQ(decoded->postmaster_started_at, FIRST_INVALID_TIME - 1);
	CHECK_EQ(decoded->stopped_cleanly, 0);
	free(buf);
	free(decoded);
	free(state);
}

/* The writer never writes what the reader rejects: it refuses instead. */
static void
encode_refuses_impossible_crash_recovery_fields(void)
{
	WalsizerPersistent *state = state_with_records(1);
	unsigned char *buf = malloc(walsizer_state_encoded_size());
	size_t		size = walsizer_state_encoded_size();

	state->replay_count = WALSIZER_REPLAY_RATES + 1;
	CHECK_UEQ(walsizer_state_encode(state, buf, size), 0);
	state->replay_count = 0;
	state->replay_next = -1;
	CHECK_UEQ(walsizer_state_encode(state, buf, size), 0);
	state->replay_next = 0;
	state->stopped_cleanly = 2;
	CHECK_UEQ(walsizer_state_encode(state, buf, size), 0);
	state->stopped_cleanly = 1;
	state->postmaster_started_at = INT64_MAX;
	CHECK_UEQ(walsizer_state_encode(state, buf, size), 0);
	state->postmaster_started_at = FIRST_VALID_TIME;
	state->replay_count = 1;
	state->replay_next = 1;
	state->replay_rates[0] = NAN;
	CHECK_UEQ(walsizer_state_encode(state, buf, size), 0);
	state->replay_rates[0] = 2e6;
	CHECK_UEQ(walsizer_state_encode(state, buf, size),
			  HEADER_BYTES + RECORD_BYTES + TRAILER_BYTES);
	free(buf);
	free(state);
}

/* --- the role a decision was made on (format version 3) ------------------ */

static void
role_names_are_the_ones_sql_shows(void)
{
	CHECK_STR_CONTAINS(walsizer_role_name(WALSIZER_ROLE_PRIMARY), "primary");
	CHECK_EQ(strlen(walsizer_role_name(WALSIZER_ROLE_PRIMARY)), 7);
	CHECK_STR_CONTAINS(walsizer_role_name(WALSIZER_ROLE_STANDBY), "standby");
	CHECK_EQ(strlen(walsizer_role_name(WALSIZER_ROLE_STANDBY)), 7);
	CHECK_STR_CONTAINS(walsizer_role_name(WALSIZER_ROLE_LAST + 1), "unknown");
	CHECK_STR_CONTAINS(walsizer_role_name(-1), "unknown");
}

static void
round_trip_keeps_each_records_role(void)
{
	WalsizerPersistent *state = state_with_records(4);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf = encode(state, &len);

	/* numbered_record(): records 0 and 3 were made on a standby */
	CHECK_EQ(buf[HEADER_BYTES + RECORD_ROLE], WALSIZER_ROLE_STANDBY);
	CHECK_EQ(buf[HEADER_BYTES + RECORD_BYTES + RECORD_ROLE],
			 WALSIZER_ROLE_PRIMARY);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_EQ(decoded->history_count, 4);
	if (decoded->history_count == 4)
	{
		CHECK_EQ(walsizer_history_at(decoded, 0)->role, WALSIZER_ROLE_STANDBY);
		CHECK_EQ(walsizer_history_at(decoded, 1)->role, WALSIZER_ROLE_PRIMARY);
		CHECK_EQ(walsizer_history_at(decoded, 2)->role, WALSIZER_ROLE_PRIMARY);
		CHECK_EQ(walsizer_history_at(decoded, 3)->role, WALSIZER_ROLE_STANDBY);
	}
	free(buf);
	free(decoded);
	free(state);
}

/*
 * Before version 3 the worker ran on primaries only: a version 2 file
 * reads with every record made on a primary, all else as it was, and is
 * written back as version 3.
 */
static void
version_2_file_reads_with_every_record_made_on_a_primary(void)
{
	WalsizerPersistent *state = state_with_records(WALSIZER_HISTORY_LEN + 5);
	WalsizerPersistent *decoded = malloc(sizeof(WalsizerPersistent));
	char		err[128] = "";
	size_t		len;
	unsigned char *buf;

	state->completed_redo_lsn = 77;
	state->postmaster_started_at = 99;
	state->stopped_cleanly = 1;
	walsizer_replay_rate_append(state, 5e6);
	buf = version_2_image(state, &len);
	CHECK_UEQ(len, HEADER_BYTES + WALSIZER_HISTORY_LEN * RECORD_V2_BYTES +
			  CHECKSUM_BYTES);

	memset(decoded, 0xA5, sizeof(WalsizerPersistent));
	CHECK(walsizer_state_decode(buf, len, decoded, err, sizeof(err)));
	CHECK_STR_CONTAINS("", err);
	CHECK_EQ(decoded->baseline_mb, 1024);
	CHECK_UEQ(decoded->decisions_total, WALSIZER_HISTORY_LEN + 5);
	CHECK_UEQ(decoded->completed_redo_lsn, 77);
	CHECK_EQ(decoded->postmaster_started_at, 99);
	CHECK_EQ(decoded->stopped_cleanly, 1);
	CHECK_EQ(decoded->replay_count, 1);
	CHECK(replay_rate_at(decoded, 0) == 5e6);
	CHECK_EQ(decoded->history_count, WALSIZER_HISTORY_LEN);
	for (int i = 0; i < WALSIZER_HISTORY_LEN; i++)
	{
		CHECK_EQ(walsizer_history_at(decoded, i)->role, WALSIZER_ROLE_PRIMARY);
		CHECK(records_equal_read_as_primary(walsizer_history_at(decoded, i),
											walsizer_history_at(state, i)));
	}

	free(buf);
	buf = encode(decoded, &len);
	CHECK_EQ(buf[OFFSET_VERSION], 5);
	CHECK_UEQ(len, HEADER_BYTES + WALSIZER_HISTORY_LEN * RECORD_BYTES +
			  TRAILER_BYTES);
	free(buf);
	free(decoded);
	free(state);
}

/* The role of the second record, for expect_rejected(set_record_role). */
static int64_t record_role;

static void
set_record_role(unsigned char *buf, size_t *len)
{
	(void) len;
	put_le(buf + HEADER_BYTES + RECORD_BYTES + RECORD_ROLE,
		   (uint64_t) record_role, 4);
}

static void
decode_rejects_an_unknown_role(void)
{
	int64_t		roles[] = {WALSIZER_ROLE_LAST + 1, -1, INT32_MAX, INT32_MIN};

	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
	{
		record_role = roles[i];
		expect_rejected(set_record_role, true, "unknown role");
	}
}

/* --- the decisions by action (format version 4) --------------------------- */

/* How many of numbered_record(0) to numbered_record(n - 1) have action. */
static uint64_t
numbered_records_of_action(int n, int action)
{
	uint64_t	total = 0;

	for (int i = 0; i < n; i++)
		if (numbered_record(i).action == action)
			total++;
	return total;
}

/*
 * Every decision counts once, in its action's total, for as long as the
 * state lives: the totals go on after the ring forgets, and add up to
 * decisions_total.
 */
static void
history_append_counts_each_action(void)
{
	int			appended = 3 * WALSIZER_HISTORY_LEN + 17;
	WalsizerPersistent *state = state_with_records(appended);
	uint64_t	sum = 0;

	CHECK_UEQ(state->action_totals[WALSIZER_ACTION_NONE], 0);
	for (int action = 1; action <= WALSIZER_ACTION_LAST; action++)
	{
		CHECK_UEQ(state->action_totals[action],
				  numbered_records_of_action(appended, action));
		sum += state->action_totals[action];
	}
	CHECK_UEQ(sum, appended);
	CHECK_UEQ(state->decisions_total, appended);
	free(state);
}

/* A record of no known action (a caller's bug) counts in no action. */
static void
history_append_counts_no_unknown_action(void)
{
	WalsizerPersistent *state = state_with_records(0);
	WalsizerRecord rec = numbered_record(0);
	uint64_t	before[WALSIZER_ACTION_LAST + 1];

	memcpy(before, state->action_totals, sizeof(before));
	rec.action = WALSIZER_ACTION_NONE;
	walsizer_history_append(state, &rec);
	rec.action = WALSIZER_ACTION_LAST + 1;
	walsizer_history_append(state, &rec);
	rec.action = -1;
	walsizer_history_append(state, &rec);
	CHECK(memcmp(before, state->action_totals, sizeof(before)) == 0);
	CHECK_UEQ(state->decisions_total, 3);
	free(state);
}

static void
round_trip_keeps_the_action_totals(void)
{
	int			appended = 2 * WALSIZER_HISTORY_LEN + 5;
	WalsizerPersistent *state = state_with_records(appended);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	char		err[128] = "";
	size_t		len;
	unsigned char *buf = encode(state, &len);
	const unsigned char *totals = buf + len - TRAILER_BYTES;

	CHECK_EQ(buf[OFFSET_VERSION], 5);
	/* the layout: one u64 per action, grow first, little-endian */
	CHECK_UEQ(totals[0], numbered_records_of_action(appended, WALSIZER_ACTION_GROW));
	CHECK_UEQ(totals[8 * (WALSIZER_ACTION_LAST - 1)],
			  numbered_records_of_action(appended, WALSIZER_ACTION_LAST));
	CHECK(walsizer_state_decode(buf, len, decoded, err, sizeof(err)));
	CHECK_STR_CONTAINS("", err);
	for (int action = 0; action <= WALSIZER_ACTION_LAST; action++)
		CHECK_UEQ(decoded->action_totals[action], state->action_totals[action]);
	free(buf);
	free(decoded);
	free(state);
}

/*
 * A file older than version 4 kept no totals: they read as what its
 * history holds.  Exact while the history never wrapped; after it did,
 * short of what it forgot, and decisions_total still counts everything.
 */
static void
check_totals_from_history(int appended, int version)
{
	WalsizerPersistent *state = state_with_records(appended);
	WalsizerPersistent *decoded = malloc(sizeof(WalsizerPersistent));
	WalsizerPersistent *again = calloc(1, sizeof(WalsizerPersistent));
	int			kept = appended < WALSIZER_HISTORY_LEN ? appended : WALSIZER_HISTORY_LEN;
	char		err[128] = "";
	size_t		len;
	unsigned char *buf;

	buf = version == 3 ? version_3_image(state, &len) :
		version == 2 ? version_2_image(state, &len) :
		version_1_image(state, &len);
	memset(decoded, 0xA5, sizeof(WalsizerPersistent));
	CHECK(walsizer_state_decode(buf, len, decoded, err, sizeof(err)));
	CHECK_STR_CONTAINS("", err);
	CHECK_UEQ(decoded->decisions_total, appended);
	CHECK_UEQ(decoded->action_totals[WALSIZER_ACTION_NONE], 0);
	for (int action = 1; action <= WALSIZER_ACTION_LAST; action++)
	{
		uint64_t	in_history = numbered_records_of_action(appended, action) -
			numbered_records_of_action(appended - kept, action);

		CHECK_UEQ(decoded->action_totals[action], in_history);
		if (appended <= WALSIZER_HISTORY_LEN)
			CHECK_UEQ(decoded->action_totals[action], state->action_totals[action]);
	}

	/* written back as version 5, the totals read back as they are */
	free(buf);
	buf = encode(decoded, &len);
	CHECK_EQ(buf[OFFSET_VERSION], 5);
	CHECK(walsizer_state_decode(buf, len, again, NULL, 0));
	for (int action = 0; action <= WALSIZER_ACTION_LAST; action++)
		CHECK_UEQ(again->action_totals[action], decoded->action_totals[action]);
	free(buf);
	free(again);
	free(decoded);
	free(state);
}

static void
older_files_read_with_the_totals_their_history_holds(void)
{
	check_totals_from_history(5, 3);
	check_totals_from_history(WALSIZER_HISTORY_LEN, 3);
	check_totals_from_history(2 * WALSIZER_HISTORY_LEN + 7, 3);
	check_totals_from_history(WALSIZER_HISTORY_LEN + 5, 2);
	check_totals_from_history(WALSIZER_HISTORY_LEN + 5, 1);
	check_totals_from_history(0, 1);
}

/* The action (1 = grow) and value a damage function below writes. */
static int	total_action;
static uint64_t total_value;

static void
set_action_total(unsigned char *buf, size_t *len)
{
	put_le(buf + *len - TRAILER_BYTES + 8 * (size_t) (total_action - 1),
		   total_value, 8);
}

/*
 * expect_rejected()'s image holds three decisions, grow, capped and shrink
 * (numbered_record()), each in the history and each counted once.
 */
static void
decode_rejects_impossible_action_totals(void)
{
	/* fewer grows than the history shows */
	total_action = WALSIZER_ACTION_GROW;
	total_value = 0;
	expect_rejected(set_action_total, true, "fewer decisions of an action");
	/* one decision more than decisions_total, in an action not in the ring */
	total_action = WALSIZER_ACTION_PROTECT;
	total_value = 1;
	expect_rejected(set_action_total, true, "more decisions by action");
	/* a sum that would overflow */
	total_action = WALSIZER_ACTION_LAST;
	total_value = UINT64_MAX;
	expect_rejected(set_action_total, true, "more decisions by action");
	total_action = WALSIZER_ACTION_SHRINK;
	total_value = UINT64_MAX - 1;
	expect_rejected(set_action_total, true, "more decisions by action");
}

/* Totals short of decisions_total (an upgraded file's) are no damage. */
static void
decode_accepts_totals_short_of_all_decisions(void)
{
	WalsizerPersistent *state = state_with_records(3);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf;

	state->decisions_total += 1000;
	buf = encode(state, &len);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_UEQ(decoded->decisions_total, 1003);
	CHECK_UEQ(decoded->action_totals[WALSIZER_ACTION_GROW], 1);
	free(buf);
	free(decoded);
	free(state);
}

/* The writer never writes what the reader rejects: it refuses instead. */
static void
encode_refuses_impossible_action_totals(void)
{
	WalsizerPersistent *state = state_with_records(3);
	unsigned char *buf = malloc(walsizer_state_encoded_size());
	size_t		size = walsizer_state_encoded_size();

	state->action_totals[WALSIZER_ACTION_GROW] = 0;
	CHECK_UEQ(walsizer_state_encode(state, buf, size), 0);
	state->action_totals[WALSIZER_ACTION_GROW] = 1;
	state->action_totals[WALSIZER_ACTION_NONE] = 1;
	CHECK_UEQ(walsizer_state_encode(state, buf, size), 0);
	state->action_totals[WALSIZER_ACTION_NONE] = 0;
	state->action_totals[WALSIZER_ACTION_ERROR] = 1;
	CHECK_UEQ(walsizer_state_encode(state, buf, size), 0);
	state->action_totals[WALSIZER_ACTION_ERROR] = 0;
	CHECK_UEQ(walsizer_state_encode(state, buf, size),
			  HEADER_BYTES + 3 * RECORD_BYTES + TRAILER_BYTES);
	free(buf);
	free(state);
}

/* --- failing_since (format version 5) ------------------------------------ */

static void
round_trip_keeps_failing_since(void)
{
	WalsizerPersistent *state = state_with_records(2);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf;

	state->failing_since = 817000000123456;
	buf = encode(state, &len);
	CHECK_UEQ(len, HEADER_BYTES + 2 * RECORD_BYTES + TRAILER_BYTES);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_EQ(decoded->failing_since, 817000000123456);
	free(buf);

	/* and 0, not failing, stays 0 */
	state->failing_since = 0;
	buf = encode(state, &len);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_EQ(decoded->failing_since, 0);
	free(buf);
	free(decoded);
	free(state);
}

/* A version 4 file kept no such time: it reads as not failing. */
static void
version_4_file_reads_as_not_failing(void)
{
	WalsizerPersistent *state = state_with_records(3);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf;

	state->failing_since = 817000000123456;
	buf = version_4_image(state, &len);
	CHECK_UEQ(len, HEADER_BYTES + 3 * RECORD_BYTES + ACTION_TOTALS_BYTES +
			  CHECKSUM_BYTES);
	decoded->failing_since = 1;
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_EQ(decoded->failing_since, 0);
	CHECK_EQ(decoded->history_count, 3);
	for (int action = 1; action <= WALSIZER_ACTION_LAST; action++)
		CHECK_UEQ(decoded->action_totals[action], state->action_totals[action]);
	free(buf);
	free(decoded);
	free(state);
}

static void
set_failing_since(unsigned char *buf, size_t *len)
{
	put_le(buf + *len - CHECKSUM_BYTES - FAILING_AND_DIRECTORY_BYTES,
		   (uint64_t) recovery_value, 8);
}

/* Only times walsizer.status can show as a timestamptz, or 0. */
static void
decode_rejects_a_failing_since_postgresql_cannot_show(void)
{
	WalsizerPersistent *state = state_with_records(1);
	unsigned char *buf = malloc(walsizer_state_encoded_size());

	recovery_value = FIRST_INVALID_TIME;
	expect_rejected(set_failing_since, true, "failing-since");
	recovery_value = FIRST_VALID_TIME - 1;
	expect_rejected(set_failing_since, true, "failing-since");

	/* and the encoder refuses to write one */
	state->failing_since = FIRST_INVALID_TIME;
	CHECK_UEQ(walsizer_state_encode(state, buf, walsizer_state_encoded_size()), 0);
	state->failing_since = FIRST_INVALID_TIME - 1;
	CHECK(walsizer_state_encode(state, buf, walsizer_state_encoded_size()) > 0);
	free(buf);
	free(state);
}

/* --- the data directory a state was written in -------------------------- */

static void
round_trip_keeps_the_data_directory(void)
{
	WalsizerPersistent *state = state_with_records(1);
	WalsizerPersistent *decoded = calloc(1, sizeof(WalsizerPersistent));
	size_t		len;
	unsigned char *buf;

	state->data_directory_device = UINT64_C(0xFD01);
	state->data_directory_inode = UINT64_C(0x123456789A);
	buf = encode(state, &len);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_UEQ(decoded->data_directory_device, UINT64_C(0xFD01));
	CHECK_UEQ(decoded->data_directory_inode, UINT64_C(0x123456789A));
	free(buf);

	/* a version 4 file does not say where it was written */
	buf = version_4_image(state, &len);
	CHECK(walsizer_state_decode(buf, len, decoded, NULL, 0));
	CHECK_UEQ(decoded->data_directory_device, 0);
	CHECK_UEQ(decoded->data_directory_inode, 0);
	CHECK(!walsizer_state_is_copied(decoded, 2));
	free(buf);
	free(decoded);
	free(state);
}

static void
a_state_from_another_data_directory_is_a_copy(void)
{
	WalsizerPersistent *state = state_with_records(0);

	state->data_directory_device = 7;
	state->data_directory_inode = 11;
	CHECK(!walsizer_state_is_copied(state, 11));
	CHECK(walsizer_state_is_copied(state, 12));
	/* the device alone changes across reboots: not a copy */
	state->data_directory_device = 8;
	CHECK(!walsizer_state_is_copied(state, 11));
	/* a directory the file does not know: not judged a copy */
	state->data_directory_inode = 0;
	CHECK(!walsizer_state_is_copied(state, 11));
	free(state);
}

/*
 * A copy forgets the other server's history, counters, policy state,
 * rates, failures and crash marks, and keeps the sizes the copied
 * configuration files hold: the DBA's baseline and what pg_walsizer wrote
 * or was writing.
 */
static void
a_copy_keeps_only_the_sizes(void)
{
	WalsizerPersistent *state = state_with_records(5);
	unsigned char *buf = malloc(walsizer_state_encoded_size());

	state->baseline_mb = 1024;
	state->last_set_mb = 2912;
	state->intent_mb = 4096;
	state->policy.windows_below_half = 3;
	state->policy.provisional = 1;
	state->completed_redo_lsn = 123456;
	state->postmaster_started_at = 817000000000000;
	state->stopped_cleanly = 1;
	walsizer_replay_rate_append(state, 5e7);
	state->failing_since = 817000000000001;
	state->data_directory_device = 7;
	state->data_directory_inode = 11;
	walsizer_state_forget_copied(state);
	CHECK_EQ(state->baseline_mb, 1024);
	CHECK_EQ(state->last_set_mb, 2912);
	CHECK_EQ(state->intent_mb, 4096);
	CHECK_EQ(state->history_count, 0);
	CHECK_UEQ(state->decisions_total, 0);
	for (int action = 0; action <= WALSIZER_ACTION_LAST; action++)
		CHECK_UEQ(state->action_totals[action], 0);
	CHECK_EQ(state->policy.windows_below_half, 0);
	CHECK_EQ(state->policy.provisional, 0);
	{
		WalsizerPolicyState fresh;

		/* the policy starts as on a new server: no cooldown to wait out */
		walsizer_policy_init_state(&fresh);
		CHECK_EQ(state->policy.windows_since_change, fresh.windows_since_change);
	}
	CHECK_UEQ(state->completed_redo_lsn, 0);
	CHECK_EQ(state->postmaster_started_at, 0);
	CHECK_EQ(state->stopped_cleanly, 0);
	CHECK_EQ(state->replay_count, 0);
	CHECK_EQ(state->failing_since, 0);
	/* and what is left is a state the file holds */
	CHECK(walsizer_state_encode(state, buf, walsizer_state_encoded_size()) > 0);
	free(buf);
	free(state);
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
	RUN_TEST(suite, decode_rejects_a_record_of_no_action);
	RUN_TEST(suite, decode_rejects_more_records_than_decisions);
	RUN_TEST(suite, decode_rejects_unterminated_reason);
	RUN_TEST(suite, decode_rejects_impossible_sizes);
	RUN_TEST(suite, decode_rejects_negative_counts);
	RUN_TEST(suite, decode_accepts_change_pending_in_current_window);
	RUN_TEST(suite, decode_rejects_invalid_window_length);
	RUN_TEST(suite, decode_rejects_times_postgresql_cannot_show);
	RUN_TEST(suite, decode_accepts_the_first_and_last_valid_times);
	RUN_TEST(suite, decode_rejects_reasons_that_are_not_valid_text);
	RUN_TEST(suite, decode_accepts_utf8_reasons);
	RUN_TEST(suite, history_append_keeps_only_what_the_decoder_accepts);
	RUN_TEST(suite, history_append_keeps_times_in_range);
	RUN_TEST(suite, decode_rejects_empty_and_missing_buffers);
	RUN_TEST(suite, replay_rate_append_keeps_the_last_few);
	RUN_TEST(suite, replay_rate_append_ignores_what_is_no_rate);
	RUN_TEST(suite, round_trip_keeps_the_crash_recovery_fields);
	RUN_TEST(suite, unused_replay_slots_hold_nothing);
	RUN_TEST(suite, version_1_file_reads_with_no_crash_recovery_known);
	RUN_TEST(suite, version_1_file_without_records_reads);
	RUN_TEST(suite, decode_rejects_a_version_that_does_not_match_the_length);
	RUN_TEST(suite, decode_rejects_impossible_crash_recovery_fields);
	RUN_TEST(suite, decode_accepts_the_edges_of_the_crash_recovery_fields);
	RUN_TEST(suite, encode_refuses_impossible_crash_recovery_fields);
	RUN_TEST(suite, role_names_are_the_ones_sql_shows);
	RUN_TEST(suite, round_trip_keeps_each_records_role);
	RUN_TEST(suite, version_2_file_reads_with_every_record_made_on_a_primary);
	RUN_TEST(suite, decode_rejects_an_unknown_role);
	RUN_TEST(suite, history_append_counts_each_action);
	RUN_TEST(suite, history_append_counts_no_unknown_action);
	RUN_TEST(suite, round_trip_keeps_the_action_totals);
	RUN_TEST(suite, older_files_read_with_the_totals_their_history_holds);
	RUN_TEST(suite, decode_rejects_impossible_action_totals);
	RUN_TEST(suite, decode_accepts_totals_short_of_all_decisions);
	RUN_TEST(suite, encode_refuses_impossible_action_totals);
	RUN_TEST(suite, round_trip_keeps_failing_since);
	RUN_TEST(suite, version_4_file_reads_as_not_failing);
	RUN_TEST(suite, decode_rejects_a_failing_since_postgresql_cannot_show);
	RUN_TEST(suite, round_trip_keeps_the_data_directory);
	RUN_TEST(suite, a_state_from_another_data_directory_is_a_copy);
	RUN_TEST(suite, a_copy_keeps_only_the_sizes);
	return unit_exit_status();
}
