#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->alloc ? sb->buf : xstrdup("");

	strbuf_init(sb);
	return s;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want <= sb->alloc)
		return;
	size_t alloc = sb->alloc ? sb->alloc : 64;
	while (alloc < want)
		alloc *= 2;
	if (!sb->alloc) {
		sb->buf = xmalloc(alloc);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, alloc);
	}
	sb->alloc = alloc;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

size_t strbuf_utf8_length(const unsigned char *p, size_t left)
{
	size_t n;

	if (left == 0)
		return 0;
	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > left)
		return 0;
	/* A NUL ends the string and is no continuation byte, so nothing past it is read. */
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong three- and four-byte forms, surrogates and beyond U+10FFFF. */
	if ((n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) ||
	    (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))))
		return 0;
	return n;
}
