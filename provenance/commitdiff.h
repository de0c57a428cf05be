/*
 * commitdiff: the diff of a commit against its first parent as `git log -p`
 * makes it, which patch-ids hash: renames found with git's own similarity
 * (diffcore-delta's spans, a 50 % threshold, diff.renameLimit 1000), a
 * commit a shallow clone cut its history at diffed as a root, and only the
 * paths that changed given to libgit2 (its tree-to-tree diff would read
 * every tree otherwise).  *out is the caller's, freed with git_diff_free().
 */
#ifndef FPUBENCH_COMMITDIFF_H
#define FPUBENCH_COMMITDIFF_H

#include <git2.h>
#include <stdint.h>

/* flags: git_diff_option_t bits, e.g. GIT_DIFF_INDENT_HEURISTIC.  0 or ERR_GENERIC. */
int commitdiff_make(git_diff **out, git_repository *repo, const git_commit *commit,
		    uint32_t flags);

/*
 * The parents git sees: none for a commit a shallow clone cut its history
 * at (listed in the repository's "shallow" file).
 */
unsigned commitdiff_parents(git_repository *repo, const git_commit *commit);

#endif
