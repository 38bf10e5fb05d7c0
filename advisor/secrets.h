/*-------------------------------------------------------------------------
 *
 * secrets.h
 *		Nothing pg_walsizer_advisor prints may hold a password: the
 *		secrets of one connection, and libpq's messages made one line
 *		with those secrets masked.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_ADVISOR_SECRETS_H
#define WALSIZER_ADVISOR_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

/* the secrets of one connection string: password, sslpassword, libpq's */
#define MAX_SECRETS 4

typedef struct AdvisorSecrets
{
	char	   *values[MAX_SECRETS];	/* masked in libpq's messages */
	int			count;
} AdvisorSecrets;

/* Note value (NULL or empty: nothing) as a secret, once. */
extern void advisor_add_secret(AdvisorSecrets *secrets, const char *value);

/*
 * Note the secrets of a connection string: the options libpq displays as
 * "*" (password, sslpassword).  False when libpq cannot parse it, with a
 * message in error that quotes none of it.
 */
extern bool advisor_read_secrets(AdvisorSecrets *secrets, const char *conninfo,
								 char *error, size_t error_len);

/*
 * Copy text to out with every secret masked, its lines kept (without the
 * final newline): advisor_one_line() makes it one.
 */
extern void advisor_masked_message(const AdvisorSecrets *secrets, const char *text,
								   char *out, size_t len);

extern void advisor_free_secrets(AdvisorSecrets *secrets);

/*
 * libpq's messages span lines and indent with tabs: make them one line,
 * an indented line joined to the one before it, another message after
 * "; ".
 */
extern void advisor_one_line(char *text, size_t size);

#endif							/* WALSIZER_ADVISOR_SECRETS_H */
