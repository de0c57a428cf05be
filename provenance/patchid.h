/*
 * patchid: git's stable patch-id (`git patch-id --stable`) of a commit
 * and of the diff in a mail.
 *
 * A commit's diff is made as `git log -p` makes it with git's defaults:
 * against its first parent or, for a root commit, the empty tree; the
 * indent heuristic; rename detection at 50 % with git's own similarity
 * score (diffcore-delta's span hashes, plugged into libgit2 as a metric)
 * so that the same pairs are found and "similarity index N%" reads the
 * same.  The patch text is then hashed with git's algorithm: white space
 * dropped, hunk headers and index lines skipped, binary files by the
 * blob ids of their index line (abbreviated as git abbreviates them),
 * one SHA-1 per file, summed.  git_diff_patchid() is not used because
 * libgit2 1.5 leaves out binary files and hunkless new files and so
 * disagrees with git there (tests/unit/provenance/test_patchid.c).
 *
 * An all-zero id means "no patch-id": a merge, or a commit that changes
 * nothing, as `git patch-id` prints nothing for those.
 */
#ifndef FPUBENCH_PATCHID_H
#define FPUBENCH_PATCHID_H

#include <git2.h>
#include <stddef.h>

/*
 * The patch-id of the first patch in text (a mail body, `git show`
 * output): the lines before the first "diff " line are skipped, as
 * `git patch-id` skips a commit message.  Pure; never fails.
 */
void patchid_from_text(git_oid *out, const char *text, size_t len);

/* The diff `git log -p` shows for a non-merge commit; free with git_diff_free(). */
int patchid_diff_commit(git_diff **out, git_repository *repo, const git_commit *commit);

/* The patch-id of a diff made by patchid_diff_commit(). */
int patchid_from_diff(git_oid *out, git_repository *repo, git_diff *diff);

/* Both of the above; a merge gets the zero id. */
int patchid_from_commit(git_oid *out, git_repository *repo, const git_commit *commit);

/*
 * The patch-id under each of git's diff algorithms (myers, patience,
 * minimal, histogram), with and without the indent heuristic, since the
 * poster's git may have diffed otherwise: out[0] is git's default (myers,
 * indent heuristic), as patchid_from_commit() gives.  libgit2 1.5 has no
 * histogram, so those two come from `git show --histogram` run on the
 * repository; where git cannot run they are zero (no id), as a merge's
 * all are.
 */
#define PATCHID_NVARIANTS 8

int patchid_variants(git_oid out[PATCHID_NVARIANTS], git_repository *repo,
		     const git_commit *commit);

/* "patience --no-indent-heuristic", ... for out[i] above. */
const char *patchid_variant_name(size_t i);

#endif
