/*
 * series: the patch series in patches/ and the kernel variants built from it.
 *
 * `series` is quilt's format: one patch file name a line, relative to the
 * series file's directory; `#` starts a comment; a `-p1` after the name is
 * accepted (the only strip level the bench applies).  `variants` names each
 * variant with the last patch of the series it includes ("-": none), so a
 * variant is always a prefix of the series.
 *
 * A struct series owns all its strings; free it with series_free().
 */
#ifndef FPUBENCH_SERIES_H
#define FPUBENCH_SERIES_H

#include <stddef.h>

struct series_variant {
	char *name;
	size_t npatches;	/* the first npatches patches of the series */
};

struct series {
	char *dir;		/* where the patch files are */
	char **patches;		/* paths, dir-prefixed */
	size_t npatches;
	struct series_variant *variants;
	size_t nvariants;
};

/* Parses the text of a series file; `name` is for messages. */
int series_parse(struct series **out, const char *dir, const char *name,
		 const char *text);

/* Parses a variants file's text against a parsed series. */
int series_parse_variants(struct series *s, const char *name, const char *text);

/* Reads DIR/series and DIR/variants. */
int series_load(struct series **out, const char *dir);

const struct series_variant *series_find_variant(const struct series *s, const char *name);

void series_free(struct series *s);

#endif
