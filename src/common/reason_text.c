/*-------------------------------------------------------------------------
 *
 * reason_text.c
 *		What text a decision's reason may hold, and how a reason from
 *		elsewhere (a server error message) is made to fit that rule.
 *
 * The state file keeps reasons, and decisions() hands them out as text in
 * whatever encoding the calling database has: state_format.c checks every
 * reason it reads with walsizer_reason_text_is_valid() and makes every one
 * it writes valid first.
 *
 * Pure C: no PostgreSQL headers, no globals, no I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "reason_text.h"

#include <string.h>

/* What a byte that is no part of a valid reason becomes. */
#define REPLACEMENT_CHAR '?'

/*
 * The rule for a reason's text.  Our own reasons are ASCII and numbers; the
 * only other text in them is a server error message (ALTER SYSTEM's), in
 * the language of lc_messages and the encoding of the database the worker
 * connects to.  This module knows neither that encoding nor the one of the
 * database decisions() is called in, so the rule is printable ASCII, which
 * every server encoding shares, and well-formed UTF-8 multibyte characters,
 * the common server encoding, where a translated message stays legible.
 * Control characters are no part of a one-line reason (and would reach a
 * terminal as they are).
 *
 * The length of the character at text[0], of at most avail bytes, under
 * that rule; 0 if it breaks it, and then *cut_short says whether it is a
 * well-formed character cut short by the end of the text.  UTF-8 as the
 * Unicode standard restricts it (its table 3-7): no overlong forms, no
 * surrogates, nothing past U+10FFFF.
 */
static int
text_char_length(const unsigned char *text, size_t avail, bool *cut_short)
{
	unsigned char lead = text[0];
	unsigned char second_min = 0x80;
	unsigned char second_max = 0xBF;
	int			length;

	*cut_short = false;
	if (lead >= 0x20 && lead <= 0x7E)
		return 1;
	if (lead >= 0xC2 && lead <= 0xDF)
		length = 2;
	else if (lead >= 0xE0 && lead <= 0xEF)
	{
		length = 3;
		if (lead == 0xE0)
			second_min = 0xA0;	/* overlong below */
		else if (lead == 0xED)
			second_max = 0x9F;	/* surrogates above */
	}
	else if (lead >= 0xF0 && lead <= 0xF4)
	{
		length = 4;
		if (lead == 0xF0)
			second_min = 0x90;	/* overlong below */
		else if (lead == 0xF4)
			second_max = 0x8F;	/* past U+10FFFF above */
	}
	else
		return 0;

	for (int i = 1; i < length; i++)
	{
		unsigned char min = i == 1 ? second_min : 0x80;
		unsigned char max = i == 1 ? second_max : 0xBF;

		if ((size_t) i >= avail)
		{
			*cut_short = true;
			return 0;
		}
		if (text[i] < min || text[i] > max)
			return 0;
	}
	return length;
}

/* Is the NUL-terminated text a valid reason (text_char_length())? */
bool
walsizer_reason_text_is_valid(const char *text)
{
	const unsigned char *pos = (const unsigned char *) text;
	size_t		avail = strlen(text);
	bool		cut_short;

	while (avail > 0)
	{
		int			length = text_char_length(pos, avail, &cut_short);

		if (length == 0)
			return false;
		pos += length;
		avail -= (size_t) length;
	}
	return true;
}

/*
 * Make a NUL-terminated reason valid, changing no more than it must:
 * control characters become spaces, a character cut short by the end
 * (a copy into the fixed-length reason can cut one in two) is dropped, and
 * if the text is still no UTF-8 it is in another encoding, where a single
 * byte cannot be told from part of a character, so every byte that is not
 * printable ASCII becomes REPLACEMENT_CHAR.
 */
void
walsizer_make_reason_text_valid(char *text)
{
	unsigned char *pos = (unsigned char *) text;
	size_t		avail;
	bool		cut_short;

	for (unsigned char *c = pos; *c != '\0'; c++)
		if (*c < 0x20 || *c == 0x7F)
			*c = ' ';

	avail = strlen(text);
	while (avail > 0)
	{
		int			length = text_char_length(pos, avail, &cut_short);

		if (length == 0)
		{
			if (cut_short)
				*pos = '\0';
			break;
		}
		pos += length;
		avail -= (size_t) length;
	}

	if (!walsizer_reason_text_is_valid(text))
		for (unsigned char *c = (unsigned char *) text; *c != '\0'; c++)
			if (*c > 0x7E)
				*c = REPLACEMENT_CHAR;
}

