#include "str.h"

#include "ctype.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

size_t str_split_words(char *s, char **words, size_t max)
{
	char *save = NULL;
	size_t n = 0;

	for (char *w = strtok_r(s, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		if (n == max)
			return max + 1;
		words[n++] = w;
	}
	return n;
}

char *xstrndup_trimmed(const char *p, const char *end)
{
	while (p < end && ctype_is_space(*p))
		p++;
	while (end > p && ctype_is_space(end[-1]))
		end--;
	return xstrndup(p, (size_t)(end - p));
}

/* Levenshtein distance, with a transposition counting as one edit. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *prev2 = xcalloc(lb + 1, sizeof(size_t));
	size_t *prev = xcalloc(lb + 1, sizeof(size_t));
	size_t *row = xcalloc(lb + 1, sizeof(size_t));
	size_t d;

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			row[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = row;
		row = t;
	}
	d = prev[lb];
	free(prev2);
	free(prev);
	free(row);
	return d;
}

const char *str_nearest(const char *word, const char *const *names, size_t n)
{
	size_t limit = strlen(word) / 3, best = (size_t)-1;
	const char *nearest = NULL;

	if (limit > 3)
		limit = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, names[i]);

		if (d < best) {
			best = d;
			nearest = names[i];
		}
	}
	return best <= (limit ? limit : 1) ? nearest : NULL;
}

bool str_equal(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool str_has_prefix(const char *p, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(p, prefix, n) == 0;
}
