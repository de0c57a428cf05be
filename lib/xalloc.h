/*
 * xalloc: allocation that cannot fail.  Running out of memory aborts with
 * a message: the bench has no useful way to go on without memory, and a
 * caller that never sees NULL has no error path to get wrong.  Everything
 * returned is the caller's to free().
 */
#ifndef FPUBENCH_XALLOC_H
#define FPUBENCH_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
