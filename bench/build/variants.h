/*
 * variants: the series' variants as named commits of a tree's repository.
 *
 * variants_commit() applies a variant's patches on the tree's base (as
 * apply_series() does, so the commits are the ones the bench
 * builds) and names the result refs/fpubench/variants/<name>, moving the
 * ref when the series changed.  So a user can write a patch against what
 * the bench calls `patched` (`git -C TREE format-patch
 * refs/fpubench/variants/patched..`), and `fpubench tree` lists them.
 */
#ifndef FPUBENCH_VARIANTS_H
#define FPUBENCH_VARIANTS_H

#include <git2.h>

struct kernel_tree;
struct series;
struct series_variant;

#define VARIANTS_REF_PREFIX "refs/fpubench/variants/"

/* The variant's commit in *out, named by its ref; ERR_APPLY when a patch does not apply. */
int variants_commit(struct kernel_tree *t, const struct series *s, const struct series_variant *v,
		    git_oid *out);

#endif
