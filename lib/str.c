#include "str.h"

#include "ctype.h"
#include "xalloc.h"

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
