/*
 * ctype: character classes for parsing text that comes from outside
 * (mail, patches, consoles, trailers).  Unlike <ctype.h> they take a
 * plain char of any value, never depend on the locale, and mean exactly
 * what git means by them (git's sane_ctype), so a parser here classifies
 * bytes as git does.  Bytes 0x80 and up are in no class.
 */
#ifndef FPUBENCH_CTYPE_H
#define FPUBENCH_CTYPE_H

#include <stdbool.h>

/* Space or tab: the blanks inside a line, and a header's folding. */
static inline bool ctype_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* git's isspace: blank, CR or LF. */
static inline bool ctype_is_space(char c)
{
	return ctype_is_blank(c) || c == '\n' || c == '\r';
}

static inline bool ctype_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool ctype_is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool ctype_is_alnum(char c)
{
	return ctype_is_alpha(c) || ctype_is_digit(c);
}

/* Printable ASCII, space included. */
static inline bool ctype_is_print(char c)
{
	return c >= 0x20 && c < 0x7f;
}

/* The value of a hex digit of either case, or -1. */
static inline int ctype_hex_value(char c)
{
	if (ctype_is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline bool ctype_is_xdigit(char c)
{
	return ctype_hex_value(c) >= 0;
}

/* A hex digit as the kernel prints addresses and git object ids: 0-9, a-f. */
static inline bool ctype_is_lower_xdigit(char c)
{
	return ctype_is_digit(c) || (c >= 'a' && c <= 'f');
}

#endif
