/*-------------------------------------------------------------------------
 *
 * state_format.c
 *		Encode and decode pg_walsizer's state file.
 *
 * Fields are written one by one in little-endian order rather than by
 * dumping the struct, so the format does not depend on padding or on the
 * compiler, and every field can be range-checked when read back.  A 64-bit
 * FNV-1a checksum over the whole image catches torn and corrupted files;
 * the file is replaced by an atomic rename, so a torn file only appears if
 * something else damaged it.
 *
 * Layout, version 5:
 *		magic u32, version u32, record count u32, reserved u32,
 *		baseline_mb i64, last_set_mb i64, intent_mb i64, decisions_total u64,
 *		policy state 4 x i32,
 *		completed_redo_lsn u64, postmaster_started_at i64,
 *		stopped_cleanly i32, replay_count i32, replay_next i32,
 *		replay_rates WALSIZER_REPLAY_RATES x (IEEE 754 bits) u64, 0 in the
 *		slots past replay_count,
 *		records (oldest first), each:
 *			at i64, action i32, confirmed i32, old_mb i64, new_mb i64,
 *			requested i64, timed i64, wal_forced i64, wal_bytes u64,
 *			window_s (IEEE 754 bits) u64, reason char[WALSIZER_REASON_LEN],
 *			role i32 (WalsizerRole),
 *		action_totals STATE_ACTION_KINDS x u64, for the actions 1 (grow) to
 *		STATE_ACTION_KINDS in WalsizerAction's order,
 *		failing_since i64 (0: not failing),
 *		data_directory_device u64, data_directory_inode u64 (0: unknown),
 *		checksum u64 over everything before it.
 *
 * The action totals only grow, and each decision adds one to one of them
 * and to decisions_total, so the reader holds them to that: their sum is
 * at most decisions_total, and each is at least the number of records of
 * its action.  (At most, not equal: see version 3.)
 *
 * Version 4 is version 5 without failing_since and the data directory: they
 * read as 0, not failing (a worker that wrote version 4 kept no such time;
 * its next failure, if the fault goes on, starts the time again) and
 * unknown (so the file is taken as this data directory's own).
 * Version 3 is version 4 without the action totals.  They read as what the
 * history holds, the decisions of each action among its records: exact
 * while the history has never wrapped, and otherwise short of the
 * decisions it had forgotten, which no file kept.  Counting from 0 instead
 * would show fewer decisions than decisions() lists.
 * Version 2 is version 3 without a record's role; its records read as made
 * on a primary, the only role the worker ran on before version 3.
 * Version 1 is version 2 without the fields from completed_redo_lsn to
 * replay_rates; it still reads, with those fields 0 (nothing known about
 * a crash recovery yet).  Only version 5 is written.
 *
 * walsizer.decisions() shows a record's time as a timestamptz and its
 * reason as text, so the reader also rejects a time PostgreSQL cannot show
 * and a reason that is not valid text; walsizer_history_append() keeps
 * every record it is given within those rules, so that a file this module
 * wrote always reads back.  (A file that does not read back loses the whole
 * state, the DBA's own max_wal_size with it.)
 *
 *-------------------------------------------------------------------------
 */
#include "state_format.h"
#include "reason_text.h"
#include "size_units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define STATE_MAGIC 0x57534C57	/* "WLSW" */
#define STATE_VERSION 5
#define HEADER_V1_BYTES (4 * 4 + 4 * 8 + 4 * 4)
#define HEADER_BYTES (HEADER_V1_BYTES + 2 * 8 + 3 * 4 + WALSIZER_REPLAY_RATES * 8)
#define RECORD_V2_BYTES (8 + 4 + 4 + 6 * 8 + 8 + WALSIZER_REASON_LEN)
#define RECORD_BYTES (RECORD_V2_BYTES + 4)
#define CHECKSUM_BYTES 8

/*
 * The actions version 4 keeps a total of.  A new action needs a new
 * version of the file (its totals would not fit): this stops the build
 * until that is done.
 */
#define STATE_ACTION_KINDS 9
#define ACTION_TOTALS_BYTES (STATE_ACTION_KINDS * 8)
#define FAILING_AND_DIRECTORY_BYTES (3 * 8)
typedef char state_action_kinds_match_WalsizerAction
			[WALSIZER_ACTION_LAST == STATE_ACTION_KINDS ? 1 : -1];


/*
 * PostgreSQL's TimestampTz range, in microseconds since 2000-01-01: from
 * MIN_TIMESTAMP (4714-11-24 BC) up to, not including, END_TIMESTAMP
 * (294277-01-01 AD) in datatype/timestamp.h, which this file cannot
 * include.  Outside it, infinities included, timestamptz output fails with
 * "timestamp out of range".
 */
#define MIN_TIMESTAMP_US INT64_C(-211813488000000000)
#define END_TIMESTAMP_US INT64_C(9223371331200000000)

typedef struct Writer
{
	unsigned char *pos;
} Writer;

typedef struct Reader
{
	const unsigned char *pos;
} Reader;

static void
put_u32(Writer *w, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*w->pos++ = (unsigned char) (v >> (8 * i));
}

static void
put_u64(Writer *w, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*w->pos++ = (unsigned char) (v >> (8 * i));
}

static uint32_t
get_u32(Reader *r)
{
	uint32_t	v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t) *r->pos++ << (8 * i);
	return v;
}

static uint64_t
get_u64(Reader *r)
{
	uint64_t	v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t) *r->pos++ << (8 * i);
	return v;
}

static uint64_t
fnv1a64(const unsigned char *data, size_t len)
{
	uint64_t	hash = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len; i++)
	{
		hash ^= data[i];
		hash *= UINT64_C(1099511628211);
	}
	return hash;
}

static size_t
encoded_size_for(uint32_t version, uint32_t count)
{
	return (version == 1 ? HEADER_V1_BYTES : HEADER_BYTES) +
		(size_t) count * (version < 3 ? RECORD_V2_BYTES : RECORD_BYTES) +
		(version >= 4 ? ACTION_TOTALS_BYTES : 0) +
		(version >= 5 ? FAILING_AND_DIRECTORY_BYTES : 0) +
		CHECKSUM_BYTES;
}

size_t
walsizer_state_encoded_size(void)
{
	return encoded_size_for(STATE_VERSION, WALSIZER_HISTORY_LEN);
}

const char *
walsizer_role_name(int32_t role)
{
	switch (role)
	{
		case WALSIZER_ROLE_PRIMARY:
			return "primary";
		case WALSIZER_ROLE_STANDBY:
			return "standby";
	}
	return "unknown";
}

/* Is slot a valid entry of the replay rate ring of count entries? */
static bool
replay_slot_valid(int32_t count, int32_t next, int slot)
{
	int			age = (next - 1 - slot + 2 * WALSIZER_REPLAY_RATES) %
		WALSIZER_REPLAY_RATES;

	return age < count;
}

/*
 * The rules the reader holds the crash recovery fields to: a ring of
 * replay rates in range, each valid one a positive finite rate, a flag
 * that is 0 or 1, and a postmaster start time PostgreSQL can show.  NULL
 * when they hold, else what breaks them.
 */
static const char *
recovery_fields_error(const WalsizerPersistent *state)
{
	if (state->replay_count < 0 ||
		state->replay_count > WALSIZER_REPLAY_RATES ||
		state->replay_next < 0 ||
		state->replay_next >= WALSIZER_REPLAY_RATES)
		return "file holds an impossible replay rate ring";
	for (int slot = 0; slot < WALSIZER_REPLAY_RATES; slot++)
		if (replay_slot_valid(state->replay_count, state->replay_next, slot) &&
			!(isfinite(state->replay_rates[slot]) &&
			  state->replay_rates[slot] > 0))
			return "file holds an invalid replay rate";
	if (state->stopped_cleanly != 0 && state->stopped_cleanly != 1)
		return "file holds an invalid clean stop flag";
	if (state->postmaster_started_at < MIN_TIMESTAMP_US ||
		state->postmaster_started_at >= END_TIMESTAMP_US)
		return "file holds a postmaster start time out of range";
	return NULL;
}

/*
 * failing_since is 0 or a time walsizer.status can show as a timestamptz:
 * NULL when it is, else what is wrong.
 */
static const char *
failing_since_error(const WalsizerPersistent *state)
{
	if (state->failing_since != 0 &&
		(state->failing_since < MIN_TIMESTAMP_US ||
		 state->failing_since >= END_TIMESTAMP_US))
		return "file holds a failing-since time out of range";
	return NULL;
}

/*
 * The rules the reader holds the action totals to (see the top of the
 * file), against the history in state: NULL when they hold, else what
 * breaks them.
 */
static const char *
action_totals_error(const WalsizerPersistent *state)
{
	uint64_t	in_history[WALSIZER_ACTION_LAST + 1] = {0};
	uint64_t	sum = 0;

	for (int i = 0; i < state->history_count; i++)
	{
		int32_t		action = walsizer_history_at(state, i)->action;

		if (action > WALSIZER_ACTION_NONE && action <= WALSIZER_ACTION_LAST)
			in_history[action]++;
	}
	if (state->action_totals[WALSIZER_ACTION_NONE] != 0)
		return "file holds a total of decisions that did nothing";
	for (int action = 1; action <= WALSIZER_ACTION_LAST; action++)
	{
		uint64_t	total = state->action_totals[action];

		if (total < in_history[action])
			return "file holds fewer decisions of an action than its records";
		/* written so that it cannot overflow */
		if (total > state->decisions_total - sum)
			return "file holds more decisions by action than in all";
		sum += total;
	}
	return NULL;
}

void
walsizer_replay_rate_append(WalsizerPersistent *state, double bytes_per_s)
{
	if (!isfinite(bytes_per_s) || bytes_per_s <= 0)
		return;
	/* a ring out of range (only a caller's bug) starts again */
	if (state->replay_next < 0 || state->replay_next >= WALSIZER_REPLAY_RATES ||
		state->replay_count < 0 || state->replay_count > WALSIZER_REPLAY_RATES)
		state->replay_next = state->replay_count = 0;
	state->replay_rates[state->replay_next] = bytes_per_s;
	state->replay_next = (state->replay_next + 1) % WALSIZER_REPLAY_RATES;
	if (state->replay_count < WALSIZER_REPLAY_RATES)
		state->replay_count++;
}

const WalsizerRecord *
walsizer_history_at(const WalsizerPersistent *state, int i)
{
	int			oldest;

	if (i < 0 || i >= state->history_count)
		return NULL;
	oldest = (state->history_next - state->history_count +
			  WALSIZER_HISTORY_LEN) % WALSIZER_HISTORY_LEN;
	return &state->history[(oldest + i) % WALSIZER_HISTORY_LEN];
}

WalsizerRecord *
walsizer_history_latest(WalsizerPersistent *state)
{
	if (state->history_count == 0)
		return NULL;
	return &state->history[(state->history_next - 1 + WALSIZER_HISTORY_LEN) %
						   WALSIZER_HISTORY_LEN];
}

/*
 * Append a record, kept within what the reader accepts: a time PostgreSQL
 * can show (GetCurrentTimestamp() gives no other) and a valid reason.
 */
void
walsizer_history_append(WalsizerPersistent *state, const WalsizerRecord *record)
{
	WalsizerRecord *rec = &state->history[state->history_next];

	*rec = *record;
	if (rec->at < MIN_TIMESTAMP_US)
		rec->at = MIN_TIMESTAMP_US;
	if (rec->at >= END_TIMESTAMP_US)
		rec->at = END_TIMESTAMP_US - 1;
	rec->reason[WALSIZER_REASON_LEN - 1] = '\0';
	walsizer_make_reason_text_valid(rec->reason);
	state->history_next = (state->history_next + 1) % WALSIZER_HISTORY_LEN;
	if (state->history_count < WALSIZER_HISTORY_LEN)
		state->history_count++;
	state->decisions_total++;
	/* a record of no known action is the caller's bug: it counts in no total */
	if (rec->action > WALSIZER_ACTION_NONE && rec->action <= WALSIZER_ACTION_LAST)
		state->action_totals[rec->action]++;
}

size_t
walsizer_state_encode(const WalsizerPersistent *state, unsigned char *buf,
					  size_t buflen)
{
	uint32_t	count = (uint32_t) state->history_count;
	size_t		size;
	Writer		w = {buf};

	if (state->history_count < 0 || count > WALSIZER_HISTORY_LEN)
		return 0;
	/* what the reader would reject is not written either */
	if (recovery_fields_error(state) != NULL ||
		action_totals_error(state) != NULL ||
		failing_since_error(state) != NULL)
		return 0;
	size = encoded_size_for(STATE_VERSION, count);
	if (buflen < size)
		return 0;

	put_u32(&w, STATE_MAGIC);
	put_u32(&w, STATE_VERSION);
	put_u32(&w, count);
	put_u32(&w, 0);
	put_u64(&w, (uint64_t) state->baseline_mb);
	put_u64(&w, (uint64_t) state->last_set_mb);
	put_u64(&w, (uint64_t) state->intent_mb);
	put_u64(&w, state->decisions_total);
	put_u32(&w, (uint32_t) state->policy.windows_below_half);
	put_u32(&w, (uint32_t) state->policy.windows_since_change);
	put_u32(&w, (uint32_t) state->policy.cap_reported);
	put_u32(&w, (uint32_t) state->policy.provisional);
	put_u64(&w, state->completed_redo_lsn);
	put_u64(&w, (uint64_t) state->postmaster_started_at);
	put_u32(&w, (uint32_t) state->stopped_cleanly);
	put_u32(&w, (uint32_t) state->replay_count);
	put_u32(&w, (uint32_t) state->replay_next);
	for (int slot = 0; slot < WALSIZER_REPLAY_RATES; slot++)
	{
		uint64_t	rate_bits = 0;

		if (replay_slot_valid(state->replay_count, state->replay_next, slot))
			memcpy(&rate_bits, &state->replay_rates[slot], sizeof(rate_bits));
		put_u64(&w, rate_bits);
	}

	for (int i = 0; i < (int) count; i++)
	{
		const WalsizerRecord *rec = walsizer_history_at(state, i);
		uint64_t	window_bits;

		memcpy(&window_bits, &rec->window_s, sizeof(window_bits));
		put_u64(&w, (uint64_t) rec->at);
		put_u32(&w, (uint32_t) rec->action);
		put_u32(&w, (uint32_t) rec->confirmed);
		put_u64(&w, (uint64_t) rec->old_mb);
		put_u64(&w, (uint64_t) rec->new_mb);
		put_u64(&w, (uint64_t) rec->requested);
		put_u64(&w, (uint64_t) rec->timed);
		put_u64(&w, (uint64_t) rec->wal_forced);
		put_u64(&w, rec->wal_bytes);
		put_u64(&w, window_bits);
		memcpy(w.pos, rec->reason, WALSIZER_REASON_LEN);
		w.pos[WALSIZER_REASON_LEN - 1] = '\0';
		w.pos += WALSIZER_REASON_LEN;
		put_u32(&w, (uint32_t) rec->role);
	}
	for (int action = 1; action <= STATE_ACTION_KINDS; action++)
		put_u64(&w, state->action_totals[action]);
	put_u64(&w, (uint64_t) state->failing_since);
	put_u64(&w, state->data_directory_device);
	put_u64(&w, state->data_directory_inode);
	/* the layout comment, the size macros and the writes must agree */
	if (w.pos != buf + size - CHECKSUM_BYTES)
		return 0;
	put_u64(&w, fnv1a64(buf, size - CHECKSUM_BYTES));
	return size;
}

static bool
size_ok(int64_t mb)
{
	return mb >= 0 && mb <= SIZE_LIMIT_MB;
}

static bool
fail(char *errbuf, size_t errlen, const char *what)
{
	if (errbuf && errlen > 0)
		snprintf(errbuf, errlen, "%s", what);
	return false;
}

/*
 * The decoders of walsizer_state_decode(), one per section of the layout
 * (see the top of the file), each reading on from r and returning NULL,
 * or what the section breaks.
 */

/*
 * The first four fields, checked against the file's length, and its
 * checksum: *version and *count, the records that follow.
 */
static const char *
decode_header(Reader *r, const unsigned char *buf, size_t len,
			  uint32_t *version, uint32_t *count)
{
	/* the shortest file: a version 1 header and no records */
	if (buf == NULL || len < HEADER_V1_BYTES + CHECKSUM_BYTES)
		return "file is too short";
	if (get_u32(r) != STATE_MAGIC)
		return "file has the wrong magic number";
	*version = get_u32(r);
	if (*version < 1 || *version > STATE_VERSION)
		return "file has an unsupported version";
	*count = get_u32(r);
	if (*count > WALSIZER_HISTORY_LEN)
		return "file claims too many records";
	if (len != encoded_size_for(*version, *count))
		return "file length does not match its header";
	{
		Reader		tail = {buf + len - CHECKSUM_BYTES};

		if (get_u64(&tail) != fnv1a64(buf, len - CHECKSUM_BYTES))
			return "file checksum does not match";
	}
	(void) get_u32(r);			/* reserved */
	return NULL;
}

/* The sizes, the decision count and the policy state, for count records. */
static const char *
decode_sizes_and_policy(Reader *r, WalsizerPersistent *state, uint32_t count)
{
	state->baseline_mb = (int64_t) get_u64(r);
	state->last_set_mb = (int64_t) get_u64(r);
	state->intent_mb = (int64_t) get_u64(r);
	state->decisions_total = get_u64(r);
	state->policy.windows_below_half = (int32_t) get_u32(r);
	state->policy.windows_since_change = (int32_t) get_u32(r);
	state->policy.cap_reported = (int32_t) get_u32(r);
	state->policy.provisional = (int32_t) get_u32(r);
	if (!size_ok(state->baseline_mb) || !size_ok(state->last_set_mb) ||
		!size_ok(state->intent_mb))
		return "file holds an impossible max_wal_size";
	if (state->policy.windows_below_half < 0 ||
		state->policy.windows_since_change < -1 ||
		state->policy.cap_reported < 0 || state->policy.cap_reported > 1 ||
		state->policy.provisional < 0 ||
		state->policy.provisional > 1)
		return "file holds an impossible policy state";
	if (state->decisions_total < count)
		return "file holds fewer decisions than records";
	return NULL;
}

/* The crash recovery fields, from completed_redo_lsn to replay_rates (2+). */
static const char *
decode_recovery_fields(Reader *r, WalsizerPersistent *state)
{
	const char *error;

	state->completed_redo_lsn = get_u64(r);
	state->postmaster_started_at = (int64_t) get_u64(r);
	state->stopped_cleanly = (int32_t) get_u32(r);
	state->replay_count = (int32_t) get_u32(r);
	state->replay_next = (int32_t) get_u32(r);
	for (int slot = 0; slot < WALSIZER_REPLAY_RATES; slot++)
	{
		uint64_t	rate_bits = get_u64(r);

		memcpy(&state->replay_rates[slot], &rate_bits, sizeof(double));
	}
	error = recovery_fields_error(state);
	if (error != NULL)
		return error;
	/* the slots past the valid ones hold nothing */
	for (int slot = 0; slot < WALSIZER_REPLAY_RATES; slot++)
		if (!replay_slot_valid(state->replay_count, state->replay_next, slot))
			state->replay_rates[slot] = 0;
	return NULL;
}

/* One record of a file of the given version. */
static const char *
decode_record(Reader *r, uint32_t version, WalsizerRecord *rec)
{
	uint64_t	window_bits;

	rec->at = (int64_t) get_u64(r);
	rec->action = (int32_t) get_u32(r);
	rec->confirmed = (int32_t) get_u32(r);
	rec->old_mb = (int64_t) get_u64(r);
	rec->new_mb = (int64_t) get_u64(r);
	rec->requested = (int64_t) get_u64(r);
	rec->timed = (int64_t) get_u64(r);
	rec->wal_forced = (int64_t) get_u64(r);
	rec->wal_bytes = get_u64(r);
	window_bits = get_u64(r);
	memcpy(&rec->window_s, &window_bits, sizeof(rec->window_s));
	memcpy(rec->reason, r->pos, WALSIZER_REASON_LEN);
	r->pos += WALSIZER_REASON_LEN;
	/* before version 3 the worker ran on primaries only */
	rec->role = version >= 3 ? (int32_t) get_u32(r) : WALSIZER_ROLE_PRIMARY;

	if (rec->action <= WALSIZER_ACTION_NONE ||
		rec->action > WALSIZER_ACTION_LAST)
		return "a record has an unknown action";
	if (rec->confirmed != 0 && rec->confirmed != 1)
		return "a record has an invalid flag";
	if (rec->role < WALSIZER_ROLE_PRIMARY || rec->role > WALSIZER_ROLE_LAST)
		return "a record has an unknown role";
	if (!size_ok(rec->old_mb) || !size_ok(rec->new_mb))
		return "a record holds an impossible size";
	if (rec->requested < 0 || rec->timed < 0 || rec->wal_forced < 0)
		return "a record holds a negative count";
	if (!isfinite(rec->window_s) || rec->window_s < 0)
		return "a record holds an invalid window";
	if (rec->at < MIN_TIMESTAMP_US || rec->at >= END_TIMESTAMP_US)
		return "a record's time is out of range";
	if (memchr(rec->reason, '\0', WALSIZER_REASON_LEN) == NULL)
		return "a record's reason is not terminated";
	if (!walsizer_reason_text_is_valid(rec->reason))
		return "a record's reason is not valid text";
	return NULL;
}

/*
 * The action totals (4+), or before version 4 what the count records of
 * the history hold.
 */
static const char *
decode_action_totals(Reader *r, uint32_t version, uint32_t count,
					 WalsizerPersistent *state)
{
	if (version >= 4)
		for (int action = 1; action <= STATE_ACTION_KINDS; action++)
			state->action_totals[action] = get_u64(r);
	else
	{
		/* what the history holds: see the top of the file */
		for (uint32_t i = 0; i < count; i++)
			state->action_totals[state->history[i].action]++;
	}
	return action_totals_error(state);
}

bool
walsizer_state_decode(const unsigned char *buf, size_t len,
					  WalsizerPersistent *out, char *errbuf, size_t errlen)
{
	/* decoded into a local copy so that *out is untouched on failure */
	static WalsizerPersistent state;
	Reader		r = {buf};
	uint32_t	version;
	uint32_t	count;
	const char *error;

	error = decode_header(&r, buf, len, &version, &count);
	if (error != NULL)
		return fail(errbuf, errlen, error);

	memset(&state, 0, sizeof(state));
	error = decode_sizes_and_policy(&r, &state, count);
	if (error != NULL)
		return fail(errbuf, errlen, error);
	if (version >= 2)
	{
		error = decode_recovery_fields(&r, &state);
		if (error != NULL)
			return fail(errbuf, errlen, error);
	}

	for (uint32_t i = 0; i < count; i++)
	{
		error = decode_record(&r, version, &state.history[i]);
		if (error != NULL)
			return fail(errbuf, errlen, error);
	}
	state.history_count = (int32_t) count;
	state.history_next = (int32_t) (count % WALSIZER_HISTORY_LEN);

	error = decode_action_totals(&r, version, count, &state);
	if (error != NULL)
		return fail(errbuf, errlen, error);
	if (version >= 5)
	{
		state.failing_since = (int64_t) get_u64(&r);
		state.data_directory_device = get_u64(&r);
		state.data_directory_inode = get_u64(&r);
		error = failing_since_error(&state);
		if (error != NULL)
			return fail(errbuf, errlen, error);
	}
	*out = state;
	return true;
}

bool
walsizer_state_is_copied(const WalsizerPersistent *state, uint64_t inode)
{
	return state->data_directory_inode != 0 &&
		state->data_directory_inode != inode;
}

void
walsizer_state_forget_copied(WalsizerPersistent *state)
{
	int64_t		baseline_mb = state->baseline_mb;
	int64_t		last_set_mb = state->last_set_mb;
	int64_t		intent_mb = state->intent_mb;

	memset(state, 0, sizeof(*state));
	walsizer_policy_init_state(&state->policy);
	state->baseline_mb = baseline_mb;
	state->last_set_mb = last_set_mb;
	state->intent_mb = intent_mb;
}
