/*-------------------------------------------------------------------------
 *
 * test_size_owner_files.c
 *		What a max_wal_size set in postgresql.conf (or a file it includes),
 *		and shadowed by postgresql.auto.conf, calls for.
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "size_owner.h"

/*
 * walsizer grew the DBA's 32 MB to 640 MB in postgresql.auto.conf; the
 * files still say 32 MB, which the worker saw at its last look.
 */
static WalsizerSizeTracker t;

static WalsizerOwnerLook
grown_past_the_file(void)
{
	WalsizerOwnerLook look;

	memset(&t, 0, sizeof(t));
	t.owner = WALSIZER_OWNER_WALSIZER;
	t.running_mb = 640;
	t.baseline_mb = 32;
	t.files_seen_mb = 32;
	t.files_looked = true;

	memset(&look, 0, sizeof(look));
	look.server_mb = 640;
	look.files_known = true;
	look.file_mb = 32;
	look.auto_mb = 640;
	look.enabled = true;
	look.dry_run = false;
	return look;
}

static void
an_unchanged_shadowed_value_is_left_alone(void)
{
	WalsizerOwnerLook look = grown_past_the_file();

	/* at every sample, over many windows: nothing to say */
	for (int i = 0; i < 100; i++)
		CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	CHECK_EQ(t.owner, WALSIZER_OWNER_WALSIZER);
}

static void
an_edit_of_the_files_is_adopted_once_written(void)
{
	WalsizerOwnerLook look = grown_past_the_file();

	look.file_mb = 2048;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_ADOPT);
	/* not written (failed, postponed): asked for again */
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_ADOPT);
	walsizer_owner_written_for_dba(&t, 2048);
	CHECK_EQ(t.baseline_mb, 2048);
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	/* lowering it is the DBA's intent too */
	look.file_mb = 64;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_ADOPT);
}

static void
once_remembered_an_edit_is_not_adopted_again(void)
{
	WalsizerOwnerLook look = grown_past_the_file();

	look.file_mb = 2048;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_ADOPT);
	walsizer_owner_written_for_dba(&t, 2048);
	/* walsizer has grown past the adopted value since */
	look.server_mb = 3072;
	look.auto_mb = 3072;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
}

static void
an_edit_to_the_running_value_makes_it_the_baseline(void)
{
	WalsizerOwnerLook look = grown_past_the_file();

	look.file_mb = 640;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_ADOPT_RUNNING);
	CHECK_EQ(t.owner, WALSIZER_OWNER_DBA);
	CHECK_EQ(t.baseline_mb, 640);
	CHECK(!t.answers_our_choice);
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	/* even while disabled: nothing is written */
	look = grown_past_the_file();
	look.file_mb = 640;
	look.enabled = false;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_ADOPT_RUNNING);
}

static void
a_dry_run_advises_once(void)
{
	WalsizerOwnerLook look = grown_past_the_file();

	look.file_mb = 2048;
	look.dry_run = true;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_ADVISE);
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	CHECK_EQ(t.baseline_mb, 32);
}

static void
while_disabled_an_edit_waits_for_enable(void)
{
	WalsizerOwnerLook look = grown_past_the_file();

	look.file_mb = 2048;
	look.enabled = false;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_WAIT);
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_WAIT);
	look.enabled = true;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_ADOPT);
}

static void
a_later_alter_system_supersedes_a_waiting_edit(void)
{
	WalsizerOwnerLook look = grown_past_the_file();
	int64_t		previous;

	/* disabled: the DBA edits postgresql.conf to 2 GB, then ALTER SYSTEM 4 GB */
	look.file_mb = 2048;
	look.enabled = false;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_WAIT);
	look.server_mb = 4096;
	look.auto_mb = 4096;
	look.dba_altered = true;
	CHECK_EQ(walsizer_owner_observe(&t, &look, &previous), WALSIZER_OWNER_ADOPTED);
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	/* enabled again: the newer 4 GB stays */
	look.dba_altered = false;
	look.enabled = true;
	CHECK_EQ(walsizer_owner_observe(&t, &look, &previous), WALSIZER_OWNER_NOTHING);
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	CHECK_EQ(t.baseline_mb, 4096);
}

static void
nothing_is_shadowed_without_postgresql_auto_conf(void)
{
	WalsizerOwnerLook look = grown_past_the_file();

	/* the server runs the files' value itself (or rejected it) */
	look.file_mb = 2048;
	look.auto_mb = 0;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	/* a value removed from the files: nothing to adopt */
	look.auto_mb = 640;
	look.file_mb = 0;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	/* files not read: nothing known */
	look.file_mb = 4096;
	look.files_known = false;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
}

static void
at_start_an_unknown_shadowed_value_is_only_reported(void)
{
	WalsizerOwnerLook look = grown_past_the_file();

	t.files_looked = false;
	/* the baseline walsizer grew from: known, quiet */
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	/* edited while the server was down: a warning, never an adoption */
	look = grown_past_the_file();
	t.files_looked = false;
	look.file_mb = 2048;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_WARN);
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	look = grown_past_the_file();
	t.files_looked = false;
	look.file_mb = 2048;
	look.dry_run = true;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_WARN);
	/* the running value: nothing to report */
	look = grown_past_the_file();
	t.files_looked = false;
	look.file_mb = 640;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	/* disabled: quiet, but remembered, so enabling adopts nothing old */
	look = grown_past_the_file();
	t.files_looked = false;
	look.file_mb = 2048;
	look.enabled = false;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
	look.enabled = true;
	CHECK_EQ(walsizer_owner_look_at_files(&t, &look), WALSIZER_SHADOW_NOTHING);
}

int
main(void)
{
	const char *suite = "size_owner_files";

	RUN_TEST(suite, an_unchanged_shadowed_value_is_left_alone);
	RUN_TEST(suite, an_edit_of_the_files_is_adopted_once_written);
	RUN_TEST(suite, once_remembered_an_edit_is_not_adopted_again);
	RUN_TEST(suite, an_edit_to_the_running_value_makes_it_the_baseline);
	RUN_TEST(suite, a_dry_run_advises_once);
	RUN_TEST(suite, while_disabled_an_edit_waits_for_enable);
	RUN_TEST(suite, a_later_alter_system_supersedes_a_waiting_edit);
	RUN_TEST(suite, nothing_is_shadowed_without_postgresql_auto_conf);
	RUN_TEST(suite, at_start_an_unknown_shadowed_value_is_only_reported);
	return unit_exit_status();
}
