/*-------------------------------------------------------------------------
 *
 * config_files.c
 *		Read max_wal_size from the configuration files with the server's
 *		own parser, to tell where the running value comes from and which
 *		value postgresql.auto.conf shadows.
 *
 * The server reads postgresql.conf (following include, include_dir and
 * include_if_exists) and then postgresql.auto.conf, and the last setting
 * of a parameter wins.  A DBA who edits postgresql.conf after pg_walsizer
 * (or ALTER SYSTEM) has written max_wal_size into postgresql.auto.conf
 * therefore changes nothing the server runs.  To notice that, the worker
 * parses the files the same way, with ParseConfigFile(), after each
 * reload: never a hand-written parser, so that every include form and
 * quoting rule means here what it means to the server.
 *
 * Only the worker calls this; walsizer.status() shows what it found
 * through shared memory, so that no backend reads files for it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "config_files.h"

/*
 * Parse errors are the server's to report: its postmaster logs them at
 * every reload, and every other process, like this one, stays quiet.
 * Below ERROR, so that a broken include never stops the worker.
 */
#define CONFIG_PARSE_ELEVEL DEBUG2

/* max_wal_size's lower limit in the server's parameter table, in MB */
#define MAX_WAL_SIZE_MIN_MB 2

/* A file's name as people read it: relative to the data directory there. */
static void
display_name(const char *path, char *buf, size_t len)
{
	size_t		dir_len = DataDir ? strlen(DataDir) : 0;

	if (dir_len > 0 && strncmp(path, DataDir, dir_len) == 0 &&
		path[dir_len] == '/')
		path += dir_len + 1;
	strlcpy(buf, path, len);
}

/*
 * The max_wal_size a parsed list ends with: the one that applies among
 * those files.  Parameter names are case-insensitive, as to the server.
 * The last setting wins even when the server cannot use it (not a size,
 * or below max_wal_size's minimum of 2 MB): the server then rejects that
 * line and keeps the value it runs, it falls back to no earlier line
 * spelled the same, so there is nothing to adopt and *mb_out is 0.  (The
 * server drops an earlier line only for a later one spelled exactly alike,
 * so an earlier valid line spelled otherwise would still apply there; that
 * mix is not modelled: nothing is adopted, which errs on the safe side.)
 */
static void
last_max_wal_size(ConfigVariable *head, int64 *mb_out, char *name,
				  size_t name_len, int *line_out)
{
	*mb_out = 0;
	for (ConfigVariable *item = head; item != NULL; item = item->next)
	{
		int			mb;

		if (!walsizer_names_max_wal_size(item->name))
			continue;
		if (item->value != NULL && parse_int(item->value, &mb, GUC_UNIT_MB, NULL) &&
			mb >= MAX_WAL_SIZE_MIN_MB)
			*mb_out = mb;
		else
			*mb_out = 0;
		*line_out = item->sourceline;
		if (name != NULL)
			display_name(item->filename, name, name_len);
	}
}

/* Remember path among the files to watch, once. */
static void
remember_file(WalsizerConfigFiles *files, const char *path)
{
	if (path == NULL || path[0] == '\0')
		return;
	for (int i = 0; i < files->nfiles; i++)
		if (strcmp(files->files[i], path) == 0)
			return;
	if (files->nfiles < WALSIZER_CONFIG_FILES_MAX)
		strlcpy(files->files[files->nfiles++], path, MAXPGPATH);
}

/* Every file a parsed list came from: postgresql.conf and what it includes. */
static void
remember_files(WalsizerConfigFiles *files, ConfigVariable *head)
{
	for (ConfigVariable *item = head; item != NULL; item = item->next)
		remember_file(files, item->filename);
}

/*
 * Read max_wal_size from postgresql.conf and what it includes, and from
 * postgresql.auto.conf, into *files.  False (and *files untouched) when a
 * file could not be parsed: the server then ignored the reload too.
 */
bool
walsizer_read_config_files(WalsizerConfigFiles *files)
{
	WalsizerConfigFiles found;
	ConfigVariable *head = NULL;
	ConfigVariable *tail = NULL;
	bool		parsed;
	MemoryContext parse_context;
	MemoryContext caller_context;

	/* the parser allocates paths and directory listings: free them all */
	parse_context = AllocSetContextCreate(CurrentMemoryContext,
										  "pg_walsizer configuration files",
										  ALLOCSET_SMALL_SIZES);
	caller_context = MemoryContextSwitchTo(parse_context);

	memset(&found, 0, sizeof(found));
	/* the source of a value changes only at a reload, or never (the command line) */
	found.outranked = walsizer_max_wal_size_outranked();
	remember_file(&found, ConfigFileName);
	remember_file(&found, HbaFileName);
	remember_file(&found, IdentFileName);
	parsed = ParseConfigFile(ConfigFileName, true, NULL, 0,
							 CONF_FILE_START_DEPTH, CONFIG_PARSE_ELEVEL,
							 &head, &tail);
	if (parsed)
	{
		last_max_wal_size(head, &found.file_mb, found.file_name,
						  sizeof(found.file_name), &found.file_line);
		remember_files(&found, head);
	}

	if (parsed)
	{
		head = tail = NULL;
		parsed = ParseConfigFile(PG_AUTOCONF_FILENAME, false, NULL, 0,
								 CONF_FILE_START_DEPTH, CONFIG_PARSE_ELEVEL,
								 &head, &tail);
		if (parsed)
			last_max_wal_size(head, &found.auto_mb, NULL, 0,
							  &found.auto_line);
	}
	{
		char		auto_path[MAXPGPATH];

		snprintf(auto_path, sizeof(auto_path), "%s/%s", DataDir,
				 PG_AUTOCONF_FILENAME);
		remember_file(&found, auto_path);
	}

	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(parse_context);
	if (!parsed)
		return false;
	*files = found;
	return true;
}

/*
 * Where the running max_wal_size comes from, for walsizer.status():
 * "pg_walsizer" for a size it chose; "adopted from FILE:LINE" when
 * postgresql.auto.conf holds the DBA's value that FILE sets at LINE
 * (pg_walsizer wrote it there when it adopted the edit, or the DBA
 * repeated it with ALTER SYSTEM); "postgresql.auto.conf:LINE" for the
 * DBA's ALTER SYSTEM; "FILE:LINE" when nothing shadows the files; and
 * "default" when no file sets it; "command line" when the postmaster
 * was started with it (outranking every file).
 */
void
walsizer_max_wal_size_source(const WalsizerConfigFiles *files,
							 const WalsizerSizeTracker *owner,
							 char *buf, size_t len)
{
	if (files->outranked)
		strlcpy(buf, "command line", len);
	else if (files->auto_mb == 0)
	{
		if (files->file_mb == 0)
			strlcpy(buf, "default", len);
		else
			snprintf(buf, len, "%s:%d", files->file_name, files->file_line);
	}
	else if (owner->owner == WALSIZER_OWNER_WALSIZER)
		strlcpy(buf, "pg_walsizer", len);
	else if (files->file_mb == files->auto_mb)
		snprintf(buf, len, "adopted from %s:%d", files->file_name,
				 files->file_line);
	else
		snprintf(buf, len, "%s:%d", PG_AUTOCONF_FILENAME, files->auto_line);
}

/*
 * The value the other files set and postgresql.auto.conf overrides with
 * another one: what the DBA's postgresql.conf says and the server does
 * not run.  0 when there is none.
 */
int64
walsizer_shadowed_mb(const WalsizerConfigFiles *files)
{
	if (files->auto_mb == 0 || files->file_mb == 0 ||
		files->file_mb == files->auto_mb)
		return 0;
	return files->file_mb;
}

/* The max_wal_size postgresql.auto.conf holds now, in MB; 0 none, -1 unreadable. */
static int64
auto_conf_mb_now(void)
{
	ConfigVariable *head = NULL;
	ConfigVariable *tail = NULL;
	int64		mb = -1;
	int			line;
	MemoryContext parse_context;
	MemoryContext caller_context;

	parse_context = AllocSetContextCreate(CurrentMemoryContext,
										  "pg_walsizer postgresql.auto.conf",
										  ALLOCSET_SMALL_SIZES);
	caller_context = MemoryContextSwitchTo(parse_context);
	if (ParseConfigFile(PG_AUTOCONF_FILENAME, false, NULL, 0,
						CONF_FILE_START_DEPTH, CONFIG_PARSE_ELEVEL,
						&head, &tail))
		last_max_wal_size(head, &mb, NULL, 0, &line);
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(parse_context);
	return mb;
}

/*
 * Whether a configuration change awaits a reload: postgresql.auto.conf
 * sets another max_wal_size than the server loaded (a DBA's ALTER SYSTEM
 * SET, or RESET, not yet reloaded), or a file the last read went through
 * (postgresql.conf, what it includes, postgresql.auto.conf, pg_hba.conf,
 * pg_ident.conf) was modified after this process last loaded the
 * configuration (pg_conf_load_time()).  A write by pg_walsizer would reload
 * every such change on the DBA's behalf, or replace it.  The first reason
 * goes into why.  A file added to an include directory since the last
 * reload is not noticed: only files that were read are watched.
 */
bool
walsizer_config_changed(const WalsizerConfigFiles *loaded, char *why,
						size_t len)
{
	int64		auto_now;
	const char *modified = NULL;

	if (loaded == NULL)
		return false;			/* never read: nothing to compare with */
	auto_now = auto_conf_mb_now();
	if (auto_now < 0)
		auto_now = loaded->auto_mb; /* unreadable: the mtime still tells */
	for (int i = 0; i < loaded->nfiles && modified == NULL; i++)
	{
		struct stat st;

		if (stat(loaded->files[i], &st) == 0 &&
			time_t_to_timestamptz(st.st_mtim.tv_sec) +
			st.st_mtim.tv_nsec / 1000 > PgReloadTime)
			modified = loaded->files[i];
	}
	if (!walsizer_owner_change_pending(auto_now, loaded->auto_mb,
									   modified != NULL))
		return false;

	if (auto_now == loaded->auto_mb)
	{
		char		name[MAXPGPATH];

		display_name(modified, name, sizeof(name));
		snprintf(why, len,
				 "\"%s\" was modified after the server last loaded its configuration",
				 name);
	}
	else if (auto_now == 0)
		snprintf(why, len,
				 "postgresql.auto.conf no longer sets max_wal_size (ALTER SYSTEM RESET), which the server has not loaded yet");
	else
		snprintf(why, len,
				 "postgresql.auto.conf sets max_wal_size = %lld MB, which the server has not loaded yet",
				 (long long) auto_now);
	return true;
}

/*
 * Whether the server's max_wal_size comes from a source that outranks
 * postgresql.auto.conf: the postmaster's command line (postgres -c,
 * pg_ctl -o), where no ALTER SYSTEM can change it.
 */
bool
walsizer_max_wal_size_outranked(void)
{
	struct config_generic *record = walsizer_find_guc("max_wal_size");

	return record != NULL && record->source > PGC_S_FILE;
}
