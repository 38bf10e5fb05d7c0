/*-------------------------------------------------------------------------
 *
 * test_held_wal.c
 *		WAL held behind the redo pointer, and the disk's share without it.
 *
 * Slots, wal_keep_size and a failing archiver keep WAL in pg_wal however
 * small max_wal_size is.  The held WAL is the span from the oldest
 * position any of them keeps to the redo pointer of the last checkpoint,
 * named after the holder that keeps the oldest; the disk's share is
 * disk_fraction of the free space plus pg_wal's files less that WAL, and
 * never 0, which the policy reads as unknown.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include "unit.h"
#include "held_wal.h"
#include "size_units.h"

#define MB ((uint64_t) BYTES_PER_MB)

static void
nothing_holds_without_holders(void)
{
	WalsizerHeldPositions pos = {100 * MB, 0, 0, 0};
	WalsizerHeldWal held = walsizer_held_wal(&pos);

	CHECK_UEQ(held.bytes, 0);
	CHECK_EQ(held.holder, WALSIZER_HELD_BY_NONE);
	CHECK(walsizer_wal_holder_name(held.holder) == NULL);
}

static void
the_oldest_holder_binds(void)
{
	WalsizerHeldPositions pos = {100 * MB, 70 * MB, 90 * MB, 40 * MB};
	WalsizerHeldWal held = walsizer_held_wal(&pos);

	CHECK_UEQ(held.bytes, 60 * MB);
	CHECK_EQ(held.holder, WALSIZER_HELD_BY_ARCHIVER);
	CHECK(strcmp(walsizer_wal_holder_name(held.holder), "archiver") == 0);

	pos.slot_lsn = 10 * MB;
	held = walsizer_held_wal(&pos);
	CHECK_UEQ(held.bytes, 90 * MB);
	CHECK_EQ(held.holder, WALSIZER_HELD_BY_SLOT);
	CHECK(strcmp(walsizer_wal_holder_name(held.holder), "slot") == 0);

	pos.slot_lsn = 0;
	pos.archive_lsn = 0;
	held = walsizer_held_wal(&pos);
	CHECK_UEQ(held.bytes, 10 * MB);
	CHECK_EQ(held.holder, WALSIZER_HELD_BY_WAL_KEEP_SIZE);
	CHECK(strcmp(walsizer_wal_holder_name(held.holder), "wal_keep_size") == 0);
}

static void
a_tie_names_the_first_holder(void)
{
	WalsizerHeldPositions pos = {100 * MB, 0, 50 * MB, 50 * MB};
	WalsizerHeldWal held = walsizer_held_wal(&pos);

	CHECK_EQ(held.holder, WALSIZER_HELD_BY_WAL_KEEP_SIZE);
	pos.slot_lsn = 50 * MB;
	held = walsizer_held_wal(&pos);
	CHECK_EQ(held.holder, WALSIZER_HELD_BY_SLOT);
	CHECK_UEQ(held.bytes, 50 * MB);
}

static void
a_holder_at_or_after_the_redo_pointer_holds_nothing(void)
{
	WalsizerHeldPositions pos = {100 * MB, 100 * MB, 150 * MB, 0};
	WalsizerHeldWal held = walsizer_held_wal(&pos);

	CHECK_UEQ(held.bytes, 0);
	CHECK_EQ(held.holder, WALSIZER_HELD_BY_NONE);

	pos.slot_lsn = 100 * MB - 1;
	held = walsizer_held_wal(&pos);
	CHECK_UEQ(held.bytes, 1);
	CHECK_EQ(held.holder, WALSIZER_HELD_BY_SLOT);
}

static void
max_slot_wal_keep_size_limits_what_slots_hold(void)
{
	/* unlimited */
	CHECK_UEQ(walsizer_slot_held_lsn(10 * MB, 500 * MB, -1), 10 * MB);
	/* no slot */
	CHECK_UEQ(walsizer_slot_held_lsn(0, 500 * MB, 64), 0);
	/* a slot further behind than the limit holds only the limit */
	CHECK_UEQ(walsizer_slot_held_lsn(10 * MB, 500 * MB, 64), 436 * MB);
	/* a slot within the limit holds what it needs */
	CHECK_UEQ(walsizer_slot_held_lsn(480 * MB, 500 * MB, 64), 480 * MB);
	/* a limit beyond all the WAL there is */
	CHECK_UEQ(walsizer_slot_held_lsn(10 * MB, 50 * MB, 64), 10 * MB);
	/* 0: slots hold nothing beyond the current position */
	CHECK_UEQ(walsizer_slot_held_lsn(10 * MB, 500 * MB, 0), 500 * MB);
}

static void
wal_keep_size_holds_behind_the_position(void)
{
	CHECK_UEQ(walsizer_keep_held_lsn(500 * MB, 0), 0);
	CHECK_UEQ(walsizer_keep_held_lsn(500 * MB, 64), 436 * MB);
	/* more than all the WAL written: everything */
	CHECK_UEQ(walsizer_keep_held_lsn(50 * MB, 64), 1);
	CHECK_UEQ(walsizer_keep_held_lsn(0, 64), 0);
}

static void
the_share_leaves_out_the_held_wal(void)
{
	/* 500 MB free, 100 MB in pg_wal of which 60 MB held: half of 540 MB */
	CHECK_EQ(walsizer_disk_share_mb(0.5, 500 * MB, 100 * MB, 60 * MB), 270);
	/* nothing held: as before, half of 600 MB */
	CHECK_EQ(walsizer_disk_share_mb(0.5, 500 * MB, 100 * MB, 0), 300);
	/* a held figure above pg_wal's files (a race) removes at most them */
	CHECK_EQ(walsizer_disk_share_mb(0.5, 500 * MB, 100 * MB, 900 * MB), 250);
	/* the whole fraction */
	CHECK_EQ(walsizer_disk_share_mb(1.0, 10 * MB, 30 * MB, 20 * MB), 20);
}

static void
a_tiny_share_is_never_unknown(void)
{
	/* the volume is full of held WAL: the smallest share, not 0 (unknown) */
	CHECK_EQ(walsizer_disk_share_mb(0.5, 0, 100 * MB, 100 * MB), 1);
	CHECK_EQ(walsizer_disk_share_mb(0.01, MB, 0, 0), 1);
	CHECK_EQ(walsizer_disk_share_mb(0.5, 0, 0, 0), 1);
}

/*
 * The held WAL binds when the disk's share is the cap, a segment or more
 * is held and the share without it would be a segment higher, and the cap
 * limits the size (it runs at the cap, or the load needs more); otherwise
 * nothing is said.
 */
static void
held_wal_binds_only_where_it_limits_the_size(void)
{
	WalsizerHeldWal slot = {300 * MB, WALSIZER_HELD_BY_SLOT};
	WalsizerHeldWal little = {8 * MB, WALSIZER_HELD_BY_SLOT};
	WalsizerHeldWal none = {0, WALSIZER_HELD_BY_NONE};
	int64_t		seg = 16 * MB;

	/* at the cap of 133 MB, 300 MB without the slot */
	CHECK(walsizer_held_wal_binds(&slot, seg, true, 133, 300, 133, 100));
	/* below the cap, but the load needs more */
	CHECK(walsizer_held_wal_binds(&slot, seg, true, 133, 300, 96, 200));
	/* below the cap, and the load fits under it */
	CHECK(!walsizer_held_wal_binds(&slot, seg, true, 133, 300, 96, 100));
	/* the cap is walsizer.max or the recovery bound, not the disk */
	CHECK(!walsizer_held_wal_binds(&slot, seg, false, 133, 300, 133, 200));
	/* without the held WAL the cap would be less than a segment higher */
	CHECK(!walsizer_held_wal_binds(&slot, seg, true, 133, 148, 133, 200));
	CHECK(walsizer_held_wal_binds(&slot, seg, true, 133, 149, 133, 200));
	/* less than a segment held, or nothing */
	CHECK(!walsizer_held_wal_binds(&little, seg, true, 133, 300, 133, 200));
	CHECK(!walsizer_held_wal_binds(&none, seg, true, 133, 300, 133, 200));
}

int
main(void)
{
	const char *suite = "held_wal";

	RUN_TEST(suite, nothing_holds_without_holders);
	RUN_TEST(suite, the_oldest_holder_binds);
	RUN_TEST(suite, a_tie_names_the_first_holder);
	RUN_TEST(suite, a_holder_at_or_after_the_redo_pointer_holds_nothing);
	RUN_TEST(suite, max_slot_wal_keep_size_limits_what_slots_hold);
	RUN_TEST(suite, wal_keep_size_holds_behind_the_position);
	RUN_TEST(suite, the_share_leaves_out_the_held_wal);
	RUN_TEST(suite, a_tiny_share_is_never_unknown);
	RUN_TEST(suite, held_wal_binds_only_where_it_limits_the_size);
	return unit_exit_status();
}
