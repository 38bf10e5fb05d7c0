/*-------------------------------------------------------------------------
 *
 * config_files.h
 *		Where the server's max_wal_size comes from: the configuration files
 *		other than postgresql.auto.conf, and postgresql.auto.conf.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_CONFIG_FILES_H
#define WALSIZER_CONFIG_FILES_H

#include "size_owner.h"

/* Room for a file's name and ":line", or a few words about it. */
#define WALSIZER_SOURCE_LEN (MAXPGPATH + 32)

/* Files remembered for walsizer_config_changed(); more are not looked at. */
#define WALSIZER_CONFIG_FILES_MAX 16

/* max_wal_size in the configuration files, as of the last reload. */
typedef struct WalsizerConfigFiles
{
	/* the value that applies among the files but postgresql.auto.conf */
	int64		file_mb;		/* 0: none of them sets it */
	char		file_name[MAXPGPATH];	/* relative to the data directory
										 * when it is in it */
	int			file_line;

	/* postgresql.auto.conf, read after them: its value wins */
	int64		auto_mb;		/* 0: it sets none */
	int			auto_line;

	/* max_wal_size comes from the command line, above every file */
	bool		outranked;

	/* the files the read went through, to notice an edit not yet loaded */
	int			nfiles;
	char		files[WALSIZER_CONFIG_FILES_MAX][MAXPGPATH];
} WalsizerConfigFiles;

extern bool walsizer_read_config_files(WalsizerConfigFiles *files);
extern void walsizer_max_wal_size_source(const WalsizerConfigFiles *files,
										 const WalsizerSizeTracker *owner,
										 char *buf, size_t len);
extern int64 walsizer_shadowed_mb(const WalsizerConfigFiles *files);
extern bool walsizer_config_changed(const WalsizerConfigFiles *loaded,
									char *why, size_t len);
extern bool walsizer_max_wal_size_outranked(void);

#endif							/* WALSIZER_CONFIG_FILES_H */
