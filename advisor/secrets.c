/*-------------------------------------------------------------------------
 *
 * secrets.c
 *		Nothing pg_walsizer_advisor prints may hold a password: its output
 *		goes to cron mails and CI logs.  A server is named by its label,
 *		never by its connection string, and libpq's messages are printed
 *		with every secret of the connection masked.  This file holds
 *		those secrets and the masking, and makes libpq's messages one line.
 *
 *-------------------------------------------------------------------------
 */
#include "secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

/*
 * A connection string libpq cannot parse is named by its position, and of
 * libpq's message about it every run of this many characters that is also
 * in the string is masked: the message may quote any part of it.
 */
#define MASKED_RUN_CHARS 3
#define MASK "********"

void
advisor_one_line(char *text, size_t size)
{
	size_t		len = strlen(text);
	char	   *line = malloc(2 * len + 1);
	char	   *to = line;

	if (line == NULL)
		return;
	for (const char *from = text; *from; from++)
	{
		char		c = (*from == '\n' || *from == '\t') ? ' ' : *from;

		/*
		 * A line that starts without a tab is another message (libpq's
		 * attempt at the next host or address): "; " keeps them apart.  An
		 * indented one continues the line before it.
		 */
		if (*from == '\n' && from[1] != '\0' && from[1] != '\t' &&
			from[1] != '\n' && to != line)
		{
			while (to > line && to[-1] == ' ')
				to--;
			*to++ = ';';
			*to++ = ' ';
			continue;
		}
		if (c == ' ' && (to == line || to[-1] == ' '))
			continue;
		*to++ = c;
	}
	while (to > line && to[-1] == ' ')
		to--;
	*to = '\0';
	if (size > 0)
		snprintf(text, size, "%s", line);
	free(line);
}

void
advisor_add_secret(AdvisorSecrets *secrets, const char *value)
{
	if (value == NULL || value[0] == '\0' || secrets->count == MAX_SECRETS)
		return;
	for (int i = 0; i < secrets->count; i++)
		if (strcmp(secrets->values[i], value) == 0)
			return;
	if ((secrets->values[secrets->count] = strdup(value)) != NULL)
		secrets->count++;
}

/* Append text[0..n) to out, which holds len bytes, cutting it if full. */
static void
append(char *out, size_t len, size_t *used, const char *text, size_t n)
{
	if (*used + 1 >= len)
		return;
	if (n > len - 1 - *used)
		n = len - 1 - *used;
	memcpy(out + *used, text, n);
	*used += n;
	out[*used] = '\0';
}

void
advisor_masked_message(const AdvisorSecrets *secrets, const char *text,
					   char *out, size_t len)
{
	size_t		used = 0;

	out[0] = '\0';
	while (*text)
	{
		size_t		secret_len = 0;

		for (int i = 0; i < secrets->count; i++)
		{
			size_t		n = strlen(secrets->values[i]);

			if (n > secret_len && strncmp(text, secrets->values[i], n) == 0)
				secret_len = n;
		}
		if (secret_len > 0)
		{
			append(out, len, &used, MASK, strlen(MASK));
			text += secret_len;
		}
		else
			append(out, len, &used, text++, 1);
	}
	/* libpq's messages end with a newline; its lines are kept */
	while (used > 0 && (out[used - 1] == '\n' || out[used - 1] == ' '))
		out[--used] = '\0';
}

/*
 * The longest n such that text[0..n) occurs in within; 0 when text's
 * first character does not.
 */
static size_t
longest_run_in(const char *text, const char *within)
{
	size_t		best = 0;
	size_t		text_len = strlen(text);

	for (const char *w = within; *w; w++)
	{
		size_t		n = 0;

		while (n < text_len && w[n] != '\0' && w[n] == text[n])
			n++;
		if (n > best)
			best = n;
	}
	return best;
}

/*
 * libpq's message about a connection string it could not parse, which
 * quotes parts of it (a URI whole): every run of MASKED_RUN_CHARS or more
 * characters that is also in the string is masked.
 */
static void
unparsed_message(const char *conninfo, const char *text, char *out, size_t len)
{
	size_t		used = 0;

	out[0] = '\0';
	while (*text)
	{
		size_t		run = longest_run_in(text, conninfo);

		if (run >= MASKED_RUN_CHARS)
		{
			append(out, len, &used, MASK, strlen(MASK));
			text += run;
		}
		else
			append(out, len, &used, text++, 1);
	}
	advisor_one_line(out, len);
}

/*
 * What libpq takes for a connection string rather than a database name
 * (its recognized_connection_string()): a URI, or text with an "=".
 */
static bool
is_connection_string(const char *text)
{
	return strncmp(text, "postgresql://", 13) == 0 ||
		strncmp(text, "postgres://", 11) == 0 || strchr(text, '=') != NULL;
}

bool
advisor_read_secrets(AdvisorSecrets *secrets, const char *conninfo,
					 char *error, size_t error_len)
{
	PQconninfoOption *options;
	char	   *message = NULL;

	if (!is_connection_string(conninfo))
		return true;
	options = PQconninfoParse(conninfo, &message);
	if (options == NULL)
	{
		unparsed_message(conninfo, message ? message : "out of memory",
						 error, error_len);
		PQfreemem(message);
		return false;
	}
	for (PQconninfoOption *opt = options; opt->keyword; opt++)
		if (opt->dispchar && strchr(opt->dispchar, '*') && opt->val)
			advisor_add_secret(secrets, opt->val);
	PQconninfoFree(options);
	return true;
}

void
advisor_free_secrets(AdvisorSecrets *secrets)
{
	for (int i = 0; i < secrets->count; i++)
		free(secrets->values[i]);
	secrets->count = 0;
}
