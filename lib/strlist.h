/*
 * strlist: a growable array of owned C strings.
 *
 * Invariants: v holds n strings, each allocated with xmalloc and owned by
 * the list; v is NULL when n and alloc are 0.  strlist_release() frees the
 * strings and the array and leaves an empty list.
 */
#ifndef FPUBENCH_STRLIST_H
#define FPUBENCH_STRLIST_H

#include <stdbool.h>
#include <stddef.h>

struct strlist {
	char **v;
	size_t n;
	size_t alloc;
};

#define STRLIST_INIT { NULL, 0, 0 }

/* Takes ownership of s. */
void strlist_push(struct strlist *l, char *s);

/* Pushes a copy of s unless an equal string is already there. */
void strlist_push_unique(struct strlist *l, const char *s);

bool strlist_contains(const struct strlist *l, const char *s);

/* Whether s is one of the n strings of v. */
bool strv_contains(const char *const *v, size_t n, const char *s);

/* Whether a choice of n names selects s: it is one of them, or none was chosen (all are). */
bool strv_selects(const char *const *v, size_t n, const char *s);

void strlist_release(struct strlist *l);

#endif
