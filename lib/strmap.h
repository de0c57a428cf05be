/*
 * strmap: strings to lists of indices (an index of records by a key: mails
 * by message-id, by patch-id, by file), an open-addressing table grown at
 * half full.
 *
 * Invariants: nslots is 0 or a power of two, at least twice used; a
 * slot with a NULL key is free.  Each entry owns a copy of its key and its
 * list, which keeps the order of strmap_add() calls; an index added twice
 * in a row for one key is kept once.  A zeroed struct strmap is empty.
 */
#ifndef FPUBENCH_STRMAP_H
#define FPUBENCH_STRMAP_H

#include <stddef.h>

struct strmap_entry {
	char *key;
	size_t *v;
	size_t n, alloc;
};

struct strmap {
	struct strmap_entry *slots;
	size_t nslots, used;
};

void strmap_add(struct strmap *m, const char *key, size_t index);

/* The key's entry, or NULL when it has none (or key is NULL). */
const struct strmap_entry *strmap_get(const struct strmap *m, const char *key);

void strmap_release(struct strmap *m);

#endif
