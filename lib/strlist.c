#include "strlist.h"

#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

void strlist_push(struct strlist *l, char *s)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 4;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->n++] = s;
}

bool strv_contains(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

bool strv_selects(const char *const *v, size_t n, const char *s)
{
	return n == 0 || strv_contains(v, n, s);
}

bool strlist_contains(const struct strlist *l, const char *s)
{
	return strv_contains((const char *const *)l->v, l->n, s);
}

void strlist_push_unique(struct strlist *l, const char *s)
{
	if (!strlist_contains(l, s))
		strlist_push(l, xstrdup(s));
}

void strlist_release(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}
