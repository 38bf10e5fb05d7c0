/*-------------------------------------------------------------------------
 *
 * test_size_owner.c
 *		Telling pg_walsizer's own max_wal_size changes from the DBA's.
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "size_owner.h"

static WalsizerPersistedSizes
persisted(int64_t baseline_mb, int64_t last_set_mb, int64_t intent_mb)
{
	WalsizerPersistedSizes p;

	p.baseline_mb = baseline_mb;
	p.last_set_mb = last_set_mb;
	p.intent_mb = intent_mb;
	return p;
}

/* The server runs server_mb; no reload brought a DBA's ALTER SYSTEM. */
static WalsizerOwnerEvent
observe(WalsizerSizeTracker *t, int64_t server_mb, bool window_end,
		int64_t *previous)
{
	WalsizerOwnerLook look;

	memset(&look, 0, sizeof(look));
	look.server_mb = server_mb;
	look.window_end = window_end;
	look.enabled = true;
	return walsizer_owner_observe(t, &look, previous);
}

/* A tracker for a server running the DBA's 1024 MB, nothing pending. */
static WalsizerSizeTracker
dba_at_1024(void)
{
	WalsizerSizeTracker t;
	WalsizerPersistedSizes p = persisted(1024, 0, 0);
	int64_t		from;

	walsizer_owner_start(&t, 1024, &p, &from);
	return t;
}

static void
first_start_takes_the_running_value_as_the_baseline(void)
{
	WalsizerSizeTracker t;
	WalsizerPersistedSizes p = persisted(0, 0, 0);
	int64_t		from;

	CHECK_EQ(walsizer_owner_start(&t, 1024, &p, &from),
			 WALSIZER_OWNER_FIRST_START);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
	CHECK_EQ(t.baseline_mb, 1024);
	CHECK_EQ(t.running_mb, 1024);
	CHECK(!t.answers_our_choice);
}

static void
start_with_walsizer_value_keeps_it_as_walsizer_but_not_as_evidence(void)
{
	WalsizerSizeTracker t;
	WalsizerPersistedSizes p = persisted(1024, 2048, 0);
	int64_t		from;

	CHECK_EQ(walsizer_owner_start(&t, 2048, &p, &from), WALSIZER_OWNER_NOTHING);
	CHECK_EQ(t.owner, WALSIZER_OWNER_WALSIZER);
	/* measured in another run: forced checkpoints do not bypass the cooldown */
	CHECK(!t.answers_our_choice);
}

static void
start_with_the_value_being_written_at_a_crash_is_walsizer(void)
{
	WalsizerSizeTracker t;
	WalsizerPersistedSizes p = persisted(1024, 2048, 4096);
	int64_t		from;

	CHECK_EQ(walsizer_owner_start(&t, 4096, &p, &from), WALSIZER_OWNER_NOTHING);
	CHECK_EQ(t.owner, WALSIZER_OWNER_WALSIZER);
}

static void
start_after_the_dba_changed_it_while_stopped_adopts(void)
{
	WalsizerSizeTracker t;
	WalsizerPersistedSizes ours = persisted(1024, 2048, 0);
	WalsizerPersistedSizes dbas = persisted(1024, 0, 0);
	int64_t		from;

	CHECK_EQ(walsizer_owner_start(&t, 512, &ours, &from), WALSIZER_OWNER_ADOPTED);
	CHECK_EQ(from, 2048);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
	CHECK_EQ(walsizer_owner_start(&t, 512, &dbas, &from), WALSIZER_OWNER_ADOPTED);
	CHECK_EQ(from, 1024);
	CHECK_EQ(walsizer_owner_start(&t, 1024, &dbas, &from), WALSIZER_OWNER_NOTHING);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
}

static void
written_value_is_confirmed_when_the_server_runs_it(void)
{
	WalsizerSizeTracker t = dba_at_1024();
	int64_t		previous;

	walsizer_owner_written(&t, 2048);
	CHECK(t.answers_our_choice);
	/* the reload has not reached this process yet: not the DBA's change */
	CHECK_EQ(observe(&t, 1024, false, &previous),
			 WALSIZER_OWNER_NOTHING);
	CHECK_EQ(t.pending_mb, 2048);
	CHECK_EQ(observe(&t, 2048, false, &previous),
			 WALSIZER_OWNER_CONFIRMED);
	CHECK_EQ(t.owner, WALSIZER_OWNER_WALSIZER);
	CHECK_EQ(t.running_mb, 2048);
	CHECK_EQ(t.pending_mb, 0);
	CHECK(t.answers_our_choice);
}

static void
dba_value_written_for_them_stays_theirs_once_it_runs(void)
{
	WalsizerSizeTracker t = dba_at_1024();
	int64_t		previous;

	/* walsizer grew to 2048 MB, then adopted a postgresql.conf edit */
	walsizer_owner_written(&t, 2048);
	CHECK_EQ(observe(&t, 2048, false, &previous),
			 WALSIZER_OWNER_CONFIRMED);
	walsizer_owner_written_for_dba(&t, 4096);
	CHECK(!t.answers_our_choice);
	CHECK_EQ(observe(&t, 2048, false, &previous),
			 WALSIZER_OWNER_NOTHING);
	/* running it is neither a second adoption nor walsizer's growth */
	CHECK_EQ(observe(&t, 4096, false, &previous),
			 WALSIZER_OWNER_CONFIRMED);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
	CHECK(!t.answers_our_choice);
	CHECK_EQ(observe(&t, 4096, true, &previous),
			 WALSIZER_OWNER_NOTHING);
	/* walsizer's own change after that is walsizer's again */
	walsizer_owner_written(&t, 6144);
	CHECK_EQ(observe(&t, 6144, false, &previous),
			 WALSIZER_OWNER_CONFIRMED);
	CHECK_EQ(t.owner, WALSIZER_OWNER_WALSIZER);
}

static void
another_value_is_adopted_even_while_one_is_pending(void)
{
	WalsizerSizeTracker t = dba_at_1024();
	int64_t		previous;

	walsizer_owner_written(&t, 2048);
	CHECK_EQ(observe(&t, 3000, false, &previous),
			 WALSIZER_OWNER_ADOPTED);
	CHECK_EQ(previous, 1024);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
	CHECK_EQ(t.running_mb, 3000);
	CHECK_EQ(t.pending_mb, 0);
	CHECK(!t.answers_our_choice);
}

static void
pending_value_is_unconfirmed_after_two_window_ends(void)
{
	WalsizerSizeTracker t = dba_at_1024();
	int64_t		previous;

	walsizer_owner_written(&t, 2048);
	/* samples between window ends do not count */
	for (int i = 0; i < 10; i++)
		CHECK_EQ(observe(&t, 1024, false, &previous),
				 WALSIZER_OWNER_NOTHING);
	CHECK_EQ(observe(&t, 1024, true, &previous),
			 WALSIZER_OWNER_NOTHING);
	CHECK_EQ(observe(&t, 1024, true, &previous),
			 WALSIZER_OWNER_UNCONFIRMED);
	CHECK_EQ(previous, 2048);
	CHECK_EQ(t.pending_mb, 0);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
	/* the old value runs: its forced checkpoints answer nothing walsizer did */
	CHECK(!t.answers_our_choice);
	CHECK_EQ(observe(&t, 1024, true, &previous),
			 WALSIZER_OWNER_NOTHING);
}

static void
an_attempt_stops_the_old_value_answering_for_walsizer(void)
{
	WalsizerSizeTracker t = dba_at_1024();
	int64_t		previous;

	walsizer_owner_written(&t, 2048);
	observe(&t, 2048, false, &previous);
	CHECK(t.answers_our_choice);
	/* a dry-run advice or a failed ALTER SYSTEM */
	walsizer_owner_attempting(&t);
	CHECK(!t.answers_our_choice);
	CHECK_EQ(t.owner, WALSIZER_OWNER_WALSIZER);
	walsizer_owner_written(&t, 4096);
	CHECK(t.answers_our_choice);
}

static void
a_dbas_alter_system_to_the_running_value_makes_it_the_baseline(void)
{
	WalsizerSizeTracker t = dba_at_1024();
	WalsizerOwnerLook look;
	int64_t		previous;

	walsizer_owner_written(&t, 2048);
	CHECK_EQ(observe(&t, 2048, false, &previous), WALSIZER_OWNER_CONFIRMED);
	CHECK_EQ(t.baseline_mb, 1024);
	/* ALTER SYSTEM SET max_wal_size = '2GB', reloaded: nothing changes but who chose it */
	memset(&look, 0, sizeof(look));
	look.server_mb = 2048;
	look.dba_altered = true;
	CHECK_EQ(walsizer_owner_observe(&t, &look, &previous), WALSIZER_OWNER_ADOPTED);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
	CHECK_EQ(t.baseline_mb, 2048);
	/* the same again is no news */
	CHECK_EQ(walsizer_owner_observe(&t, &look, &previous), WALSIZER_OWNER_NOTHING);
}

static void
a_dbas_alter_system_outranks_a_pending_value(void)
{
	WalsizerSizeTracker t = dba_at_1024();
	WalsizerOwnerLook look;
	int64_t		previous;

	/* walsizer wrote 2048 MB; the DBA's ALTER SYSTEM landed in the same reload */
	walsizer_owner_written(&t, 2048);
	memset(&look, 0, sizeof(look));
	look.server_mb = 2048;
	look.dba_altered = true;
	CHECK_EQ(walsizer_owner_observe(&t, &look, &previous), WALSIZER_OWNER_ADOPTED);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
	CHECK_EQ(t.pending_mb, 0);
	CHECK_EQ(t.baseline_mb, 2048);
}

static void
names_match_without_regard_to_case(void)
{
	CHECK(walsizer_names_max_wal_size("max_wal_size"));
	CHECK(walsizer_names_max_wal_size("MAX_WAL_SIZE"));
	CHECK(walsizer_names_max_wal_size("Max_Wal_Size"));
	CHECK(!walsizer_names_max_wal_size("max_wal_sizes"));
	CHECK(!walsizer_names_max_wal_size("max_wal_siz"));
	CHECK(!walsizer_names_max_wal_size("min_wal_size"));
	CHECK(!walsizer_names_max_wal_size(""));
	CHECK(!walsizer_names_max_wal_size(NULL));
}

static WalsizerWriteFacts
free_to_write(void)
{
	WalsizerWriteFacts f;

	memset(&f, 0, sizeof(f));
	f.enabled = true;
	f.alter_system_allowed = true;
	return f;
}

static void
a_write_waits_for_a_pending_reload_unless_it_protects_the_disk(void)
{
	WalsizerWriteFacts f = free_to_write();

	CHECK_EQ(walsizer_owner_may_write(&f), WALSIZER_WRITE);
	f.config_pending = true;
	CHECK_EQ(walsizer_owner_may_write(&f), WALSIZER_WRITE_DEFER);
	f.disk_guard = true;
	CHECK_EQ(walsizer_owner_may_write(&f), WALSIZER_WRITE);
}

static void
what_stops_a_write_comes_in_order(void)
{
	WalsizerWriteFacts f = free_to_write();

	f.config_pending = true;
	f.alter_system_allowed = false;
	CHECK_EQ(walsizer_owner_may_write(&f), WALSIZER_WRITE_BLOCKED);
	f.outranked = true;
	CHECK_EQ(walsizer_owner_may_write(&f), WALSIZER_WRITE_OUTRANKED);
	/* the disk guard cannot win against the command line either */
	f.disk_guard = true;
	CHECK_EQ(walsizer_owner_may_write(&f), WALSIZER_WRITE_OUTRANKED);
	f.dry_run = true;
	CHECK_EQ(walsizer_owner_may_write(&f), WALSIZER_WRITE_ADVISE);
	f.enabled = false;
	CHECK_EQ(walsizer_owner_may_write(&f), WALSIZER_WRITE_DISABLED);
}

static void
owner_names_are_what_status_shows(void)
{
	CHECK_STR_CONTAINS(walsizer_owner_name(WALSIZER_OWNER_DBA), "dba");
	CHECK_STR_CONTAINS(walsizer_owner_name(WALSIZER_OWNER_WALSIZER), "pg_walsizer");
}

int
main(void)
{
	const char *suite = "size_owner";

	RUN_TEST(suite, first_start_takes_the_running_value_as_the_baseline);
	RUN_TEST(suite, start_with_walsizer_value_keeps_it_as_walsizer_but_not_as_evidence);
	RUN_TEST(suite, start_with_the_value_being_written_at_a_crash_is_walsizer);
	RUN_TEST(suite, start_after_the_dba_changed_it_while_stopped_adopts);
	RUN_TEST(suite, written_value_is_confirmed_when_the_server_runs_it);
	RUN_TEST(suite, dba_value_written_for_them_stays_theirs_once_it_runs);
	RUN_TEST(suite, another_value_is_adopted_even_while_one_is_pending);
	RUN_TEST(suite, pending_value_is_unconfirmed_after_two_window_ends);
	RUN_TEST(suite, an_attempt_stops_the_old_value_answering_for_walsizer);
	RUN_TEST(suite, a_dbas_alter_system_to_the_running_value_makes_it_the_baseline);
	RUN_TEST(suite, a_dbas_alter_system_outranks_a_pending_value);
	RUN_TEST(suite, names_match_without_regard_to_case);
	RUN_TEST(suite, a_write_waits_for_a_pending_reload_unless_it_protects_the_disk);
	RUN_TEST(suite, what_stops_a_write_comes_in_order);
	RUN_TEST(suite, owner_names_are_what_status_shows);
	return unit_exit_status();
}
