/*
 * changes: the lines a diff adds and removes, file by file, to compare two
 * versions of a patch whose patch-ids differ (a maintainer's edit, a v2).
 *
 * changes_parse() is pure.  It reads unified diff text (git's, or plain
 * `diff -u`, anywhere in a mail body), names each file by its new path
 * (the old one for a deletion), follows hunk line counts so that a mail
 * signature after the last hunk is not taken for a removed line, and
 * keeps a hash of every added and removed line with its white space
 * dropped, as patch-id does.  Files are sorted by path and each file's
 * hashes are sorted, so comparing is a merge.  The struct owns its
 * arrays; changes_free() accepts NULL.
 */
#ifndef FPUBENCH_CHANGES_H
#define FPUBENCH_CHANGES_H

#include "lib/strbuf.h"

#include <stddef.h>
#include <stdint.h>

struct changed_file {
	char *path;
	uint64_t *lines;	/* sorted; the sign is part of the hash */
	size_t nlines;
	size_t added;
	size_t removed;
};

struct changes {
	struct changed_file *files;
	size_t nfiles;
};

/* Never fails; text with no diff gives no files. */
struct changes *changes_parse(const char *text, size_t len);

void changes_free(struct changes *c);

/*
 * How alike two diffs are: twice the changed lines they share, file by
 * file, over all the changed lines of both (Dice's coefficient), 0 to 1.
 */
double changes_similarity(const struct changes *a, const struct changes *b);

/*
 * Appends a one-line summary of what changed from `from` to `to`:
 * "same changes", or e.g. "2 lines differ in arch/x86/kernel/fpu/core.c;
 * now also touches x.c; no longer touches y.c".
 */
void changes_describe(const struct changes *from, const struct changes *to, struct strbuf *out);

#endif
