#include "series.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/str.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/*
 * Cuts the line at *cursor (advanced to the next line, NULL after the last;
 * empty lines count, so line numbers stay right) and returns the words
 * before its # comment, as str_split_words() counts them.
 */
static size_t next_line_words(char **cursor, int *lineno, char **words, size_t max)
{
	char *line = *cursor, *hash;

	*cursor = strchr(line, '\n');
	if (*cursor)
		*(*cursor)++ = '\0';
	(*lineno)++;
	if ((hash = strchr(line, '#')))
		*hash = '\0';
	return str_split_words(line, words, max);
}

int series_parse(struct series **out, const char *dir, const char *name,
		 const char *text)
{
	struct series *s = xcalloc(1, sizeof(*s));
	char *copy = xstrdup(text), *cursor = copy;
	int lineno = 0, err = 0;

	s->dir = xstrdup(dir);
	while (cursor) {
		char *words[3];
		size_t n = next_line_words(&cursor, &lineno, words, 3);

		if (n == 0)
			continue;
		if (n > 2 || (n == 2 && strcmp(words[1], "-p1") != 0)) {
			err = error_set(ERR_INPUT, "series '%s' line %d: only 'PATCH [-p1]' is supported",
					name, lineno);
			goto out;
		}
		s->patches = xrealloc(s->patches, (s->npatches + 1) * sizeof(*s->patches));
		s->patches[s->npatches++] = xasprintf("%s/%s", dir, words[0]);
	}
out:
	free(copy);
	if (err) {
		series_free(s);
		return err;
	}
	*out = s;
	return 0;
}

static const char *patch_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int series_parse_variants(struct series *s, const char *name, const char *text)
{
	char *copy = xstrdup(text), *cursor = copy;
	int lineno = 0, err = 0;

	while (cursor) {
		char *words[3];
		size_t n = next_line_words(&cursor, &lineno, words, 3), count = 0;

		if (n == 0)
			continue;
		if (n != 2) {
			err = error_set(ERR_INPUT, "variants '%s' line %d: expected 'NAME LAST-PATCH'",
					name, lineno);
			goto out;
		}
		if (series_find_variant(s, words[0])) {
			err = error_set(ERR_INPUT, "variants '%s' line %d: variant '%s' defined twice",
					name, lineno, words[0]);
			goto out;
		}
		if (strcmp(words[1], "-") != 0) {
			while (count < s->npatches &&
			       strcmp(patch_basename(s->patches[count]), words[1]) != 0)
				count++;
			if (count == s->npatches) {
				err = error_set(ERR_INPUT, "variants '%s' line %d: patch '%s' is not in the series",
						name, lineno, words[1]);
				goto out;
			}
			count++;
		}
		s->variants = xrealloc(s->variants, (s->nvariants + 1) * sizeof(*s->variants));
		s->variants[s->nvariants].name = xstrdup(words[0]);
		s->variants[s->nvariants].npatches = count;
		s->nvariants++;
	}
	if (!s->nvariants)
		err = error_set(ERR_INPUT, "variants '%s' defines no variant", name);
out:
	free(copy);
	return err;
}

int series_load(struct series **out, const char *dir)
{
	char *series_path = xasprintf("%s/series", dir);
	char *variants_path = xasprintf("%s/variants", dir);
	struct strbuf text = STRBUF_INIT;
	struct series *s = NULL;
	int err;

	if ((err = file_read(series_path, &text)) < 0 ||
	    (err = series_parse(&s, dir, series_path, text.buf)) < 0)
		goto out;
	strbuf_reset(&text);
	if ((err = file_read(variants_path, &text)) < 0 ||
	    (err = series_parse_variants(s, variants_path, text.buf)) < 0)
		goto out;
	for (size_t i = 0; i < s->npatches; i++) {
		if (!file_exists(s->patches[i])) {
			err = error_set(ERR_NOTFOUND, "patch '%s' listed in '%s' is missing",
					s->patches[i], series_path);
			goto out;
		}
	}
	*out = s;
	s = NULL;
out:
	series_free(s);
	strbuf_release(&text);
	free(series_path);
	free(variants_path);
	return err;
}

const struct series_variant *series_find_variant(const struct series *s, const char *name)
{
	for (size_t i = 0; i < s->nvariants; i++)
		if (strcmp(s->variants[i].name, name) == 0)
			return &s->variants[i];
	return NULL;
}

void series_free(struct series *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->npatches; i++)
		free(s->patches[i]);
	for (size_t i = 0; i < s->nvariants; i++)
		free(s->variants[i].name);
	free(s->patches);
	free(s->variants);
	free(s->dir);
	free(s);
}
