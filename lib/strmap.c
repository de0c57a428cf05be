#include "strmap.h"

#include "hash.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static struct strmap_entry *slot_of(const struct strmap *m, const char *key)
{
	size_t i = (size_t)hash_string(key) & (m->nslots - 1);

	while (m->slots[i].key && strcmp(m->slots[i].key, key) != 0)
		i = (i + 1) & (m->nslots - 1);
	return &m->slots[i];
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;

	m->nslots = old.nslots ? 2 * old.nslots : 64;
	m->slots = xcalloc(m->nslots, sizeof(*m->slots));
	for (size_t i = 0; i < old.nslots; i++)
		if (old.slots[i].key)
			*slot_of(m, old.slots[i].key) = old.slots[i];
	free(old.slots);
}

void strmap_add(struct strmap *m, const char *key, size_t index)
{
	if (2 * (m->used + 1) > m->nslots)
		grow(m);
	struct strmap_entry *e = slot_of(m, key);
	if (!e->key) {
		e->key = xstrdup(key);
		m->used++;
	}
	if (e->n && e->v[e->n - 1] == index)
		return;
	if (e->n == e->alloc) {
		e->alloc = e->alloc ? 2 * e->alloc : 2;
		e->v = xrealloc(e->v, e->alloc * sizeof(*e->v));
	}
	e->v[e->n++] = index;
}

const struct strmap_entry *strmap_get(const struct strmap *m, const char *key)
{
	if (!m->nslots || !key)
		return NULL;
	const struct strmap_entry *e = slot_of(m, key);
	return e->key ? e : NULL;
}

void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->nslots; i++) {
		free(m->slots[i].key);
		free(m->slots[i].v);
	}
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
