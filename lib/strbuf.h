/*
 * strbuf: a growable, always NUL-terminated byte string.
 *
 * Invariants: buf is never NULL (an empty strbuf points at a shared ""),
 * buf[len] == '\0', and len < alloc once anything was added.  The strbuf
 * owns buf; strbuf_detach() hands it to the caller, strbuf_release() frees
 * it and leaves an empty strbuf.  Allocation failure aborts: the bench has
 * no useful way to go on without memory.
 */
#ifndef FPUBENCH_STRBUF_H
#define FPUBENCH_STRBUF_H

#include "xalloc.h"	/* every user of a strbuf allocates too */

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);	/* caller frees; never NULL */

void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_reset(struct strbuf *sb);

/*
 * The length of the valid UTF-8 sequence at p (1 for ASCII, up to 4)
 * within `left` bytes, or 0 if there is none.
 */
size_t strbuf_utf8_length(const unsigned char *p, size_t left);

#endif
