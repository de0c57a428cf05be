/*
 * fmt: printf-style formatting into a caller's fixed buffer.
 *
 * The subset: %d %i %u %x %c %s %%, an optional '0' flag and width (%08x),
 * and an 'l' length, which changes nothing on i386.  No 64-bit
 * conversions: %llu would pull in libgcc's division, and nothing needs it.
 * Output past the buffer's end is dropped; the text stays NUL-terminated.
 */
#ifndef GT_FMT_H
#define GT_FMT_H

#include <stdarg.h>
#include <stddef.h>

struct fmt_buf {
	char *data;	/* caller's storage, `size` bytes */
	size_t size;	/* at least 1 */
	size_t len;	/* bytes of text, always < size */
};

/* Starts an empty text in `data`. */
void fmt_init(struct fmt_buf *b, char *data, size_t size);

void fmt_add_char(struct fmt_buf *b, char c);

__attribute__((format(printf, 2, 0)))
void fmt_vaddf(struct fmt_buf *b, const char *fmt, va_list ap);

__attribute__((format(printf, 2, 3)))
void fmt_addf(struct fmt_buf *b, const char *fmt, ...);

#endif
