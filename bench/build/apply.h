/*
 * apply: patches as commits of a kernel tree's repository, and checkouts.
 *
 * Applying a patch makes a commit that keeps the patch's author, date and
 * message; the committer's date is the author's, so the same series gives
 * the same commits.  The result is remembered under
 * refs/fpubench/applied/<hash of parent and patch>, so the same series on
 * the same base is applied once.  Patches are applied in memory
 * (git_apply_to_tree); only a build checks a commit out.
 */
#ifndef FPUBENCH_APPLY_H
#define FPUBENCH_APPLY_H

#include <git2.h>
#include <stddef.h>

struct kernel_tree;
struct series;

/* Applies one patch file on `parent`; ERR_APPLY names the patch and file. */
int kernel_tree_apply(struct kernel_tree *t, const git_oid *parent,
		      const char *patch_path, git_oid *out);

/* Applies the first n patches of the series on the base. */
int kernel_tree_apply_series(struct kernel_tree *t, const struct series *s, size_t n,
			     git_oid *out);

/* Checks `commit` out in the tree's work tree, rewriting only the files that differ. */
int kernel_tree_checkout(struct kernel_tree *t, const git_oid *commit);

#endif
