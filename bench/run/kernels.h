/*
 * kernels: the kernels a `run` or a `test` boots, built into the session
 * (session_add_kernel()), from one of:
 *
 *   - a git tree's branch as it is (a nightly's [tree] of source git): one
 *     kernel named after the tree;
 *   - a directory as it is checked out (`test --tree`): one kernel, whose
 *     build directory is named after the directory's path, so that `git
 *     bisect run` builds incrementally;
 *   - `patched` (KERNELS_TEST_VARIANT) with patch files on top (`test`),
 *     each patch its own commit, or its gcov variant (`test --coverage`);
 *   - the series' variants on a tarball's tree (`run`), all or those named.
 *
 * The variants' commits are named (variants_commit()).  0, or the error of
 * the step that failed; an unknown variant is ERR_USAGE naming the series.
 */
#ifndef FPUBENCH_KERNELS_H
#define FPUBENCH_KERNELS_H

#include "session.h"

#include <stdbool.h>
#include <stddef.h>

/* What `test` and a new build directory start from. */
#define KERNELS_TEST_VARIANT "patched"

struct kernels_request {
	const char *git_name, *git_repo, *git_branch;	/* a git tree; NULL branch: HEAD */
	const char *dir;			/* a directory as it is */
	const char *tarball;
	const char *patches;			/* the series' directory */
	const char *fragment;
	bool test;				/* patched, with the patch files on top */
	const char *const *patch_paths;		/* where each patch is read from */
	const char *const *patch_names;		/* and its name in messages ("-": stdin) */
	size_t npatches;
	const char *coverage;			/* test --coverage: the gcov variant, or NULL */
	const char *const *variants;		/* run: the variants named; none: all */
	size_t nvariants;
};

int kernels_add(struct session *s, const struct kernels_request *rq);

#endif
