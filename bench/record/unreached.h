/*
 * unreached: the checked-in reasons why lines of the FPU code cannot run
 * on any FSAVE setup (patches/gcov/unreached.list), and the part of the
 * coverage summary that sorts the lines no FSAVE setup executed into
 * explained, by reason, and not explained; the same as an HTML page.
 *
 * The list's lines (blank ones and `#` comments aside) are either
 *
 *   reason NAME TEXT            what NAME stands for, before any entry uses it;
 *   FILE FUNCTION NAME SOURCE   an entry.
 *
 * An entry explains each line of FILE (as the tracefile's SF: names it)
 * that no FSAVE setup executed, inside FUNCTION (the function whose FN:
 * record starts last at or before the line; `-` before the first), whose
 * source text is SOURCE, both with the spaces at their ends dropped and
 * each run of spaces inside as one; SOURCE `*` explains every such line of
 * the function, and SOURCE ending in ` @N` only the Nth line of the function
 * that reads so (counted from its FN: line), for lines alike that differ in
 * reason.  No line numbers: an entry stays valid when code moves.
 * An entry that explains no line is named in the summary, to be dropped.
 *
 * Pure, for unit tests: the caller gives the sources' text.
 */
#ifndef FPUBENCH_UNREACHED_H
#define FPUBENCH_UNREACHED_H

#include "lcov.h"

#include <stdbool.h>
#include <stddef.h>

struct strbuf;
struct unreached_list;

/* 0 and *out, or ERR_INPUT naming `name` and the line that is not an entry. */
int unreached_parse(const char *name, const char *text, struct unreached_list **out);

void unreached_list_free(struct unreached_list *list);

/* A source file's text, `path` as the tracefile names it; text NULL when it could not be read. */
struct unreached_source {
	const char *path;
	const char *text;
};

/*
 * Appends to `out`, for each file of `fsave` that `is_fpu_code` accepts,
 * the lines it never executed that `list` (NULL: no list, named `name`)
 * explains, by reason, then those it does not explain, by function, then
 * the entries that explained nothing.
 */
void unreached_summary(struct strbuf *out, const struct lcov_trace *fsave,
		       const struct unreached_list *list, const char *name,
		       const struct unreached_source *sources, size_t nsources,
		       bool (*is_fpu_code)(const char *path));

/*
 * The same as an HTML page into *out (caller frees), to sit beside
 * genhtml's pages of `fsave`: each line number links to
 * FILE.gcov.html#LINE.  0, or ERR_GENERIC.
 */
int unreached_html(const struct lcov_trace *fsave, const struct unreached_list *list,
		   const char *name, const struct unreached_source *sources, size_t nsources,
		   bool (*is_fpu_code)(const char *path), char **out);

#endif
