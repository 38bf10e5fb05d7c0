/*-------------------------------------------------------------------------
 *
 * test_shadowed_size.c
 *		What a max_wal_size set in postgresql.conf, and shadowed by
 *		postgresql.auto.conf, calls for.
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "shadowed_size.h"

/*
 * walsizer grew the DBA's 32 MB to 640 MB in postgresql.auto.conf; the
 * files still say 32 MB, which the worker saw at its last look.
 */
static WalsizerShadowLook
grown_past_the_file(void)
{
	WalsizerShadowLook look;

	memset(&look, 0, sizeof(look));
	look.at_start = false;
	look.seen_mb = 32;
	look.file_mb = 32;
	look.auto_conf_sets = true;
	look.running_mb = 640;
	look.baseline_mb = 32;
	look.enabled = true;
	look.dry_run = false;
	return look;
}

static void
an_unchanged_shadowed_value_is_left_alone(void)
{
	WalsizerShadowLook look = grown_past_the_file();

	/* at every sample, over many windows: nothing to say */
	for (int i = 0; i < 100; i++)
		CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_NOTHING);
	CHECK(walsizer_shadow_remembers(WALSIZER_SHADOW_NOTHING));
}

static void
an_edit_of_the_files_is_adopted(void)
{
	WalsizerShadowLook look = grown_past_the_file();

	look.file_mb = 2048;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_ADOPT);
	CHECK(walsizer_shadow_remembers(WALSIZER_SHADOW_ADOPT));
	/* lowering it is the DBA's intent too */
	look.file_mb = 64;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_ADOPT);
}

static void
once_remembered_an_edit_is_not_adopted_again(void)
{
	WalsizerShadowLook look = grown_past_the_file();

	look.file_mb = 2048;
	look.seen_mb = 2048;
	/* walsizer has grown past the adopted value since */
	look.running_mb = 3072;
	look.baseline_mb = 2048;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_NOTHING);
}

static void
an_edit_to_the_running_value_changes_nothing(void)
{
	WalsizerShadowLook look = grown_past_the_file();

	look.file_mb = 640;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_NOTHING);
}

static void
a_dry_run_advises_only(void)
{
	WalsizerShadowLook look = grown_past_the_file();

	look.file_mb = 2048;
	look.dry_run = true;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_ADVISE);
	CHECK(walsizer_shadow_remembers(WALSIZER_SHADOW_ADVISE));
}

static void
while_disabled_an_edit_waits_for_enable(void)
{
	WalsizerShadowLook look = grown_past_the_file();

	look.file_mb = 2048;
	look.enabled = false;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_WAIT);
	/* not remembered: adopted once walsizer.enable is on again */
	CHECK(!walsizer_shadow_remembers(WALSIZER_SHADOW_WAIT));
	look.enabled = true;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_ADOPT);
}

static void
nothing_is_shadowed_without_postgresql_auto_conf(void)
{
	WalsizerShadowLook look = grown_past_the_file();

	/* the server runs the files' value itself (or rejected it) */
	look.file_mb = 2048;
	look.auto_conf_sets = false;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_NOTHING);
	/* a value removed from the files: nothing to adopt */
	look.auto_conf_sets = true;
	look.file_mb = 0;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_NOTHING);
}

static void
at_start_an_unknown_shadowed_value_is_only_reported(void)
{
	WalsizerShadowLook look = grown_past_the_file();

	look.at_start = true;
	look.seen_mb = 0;
	/* the baseline walsizer grew from: known, quiet */
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_NOTHING);
	/* edited while the server was down: a warning, never an adoption */
	look.file_mb = 2048;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_WARN);
	look.dry_run = true;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_WARN);
	/* the running value: nothing to report */
	look.running_mb = 2048;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_NOTHING);
	/* disabled: quiet, but remembered, so enabling adopts nothing old */
	look.running_mb = 640;
	look.enabled = false;
	CHECK_EQ(walsizer_shadow_decide(&look), WALSIZER_SHADOW_NOTHING);
}

int
main(void)
{
	const char *suite = "shadowed_size";

	RUN_TEST(suite, an_unchanged_shadowed_value_is_left_alone);
	RUN_TEST(suite, an_edit_of_the_files_is_adopted);
	RUN_TEST(suite, once_remembered_an_edit_is_not_adopted_again);
	RUN_TEST(suite, an_edit_to_the_running_value_changes_nothing);
	RUN_TEST(suite, a_dry_run_advises_only);
	RUN_TEST(suite, while_disabled_an_edit_waits_for_enable);
	RUN_TEST(suite, nothing_is_shadowed_without_postgresql_auto_conf);
	RUN_TEST(suite, at_start_an_unknown_shadowed_value_is_only_reported);
	return unit_exit_status();
}
