/*
 * kbuild: out-of-tree builds of a kernel tree's commits.
 *
 * Builds go to <cache>/build/<tree key>/<variant>, so each tree of a cache
 * (trees/debian-6.1.192, trees/debian-6.12.118, a repository's work tree)
 * has its own.  The configuration is tinyconfig plus the fragment fitted
 * to the tree (kconfig.h).  A build is identified by its build id, a hash
 * of the tree commit and the fitted fragment, and for a kernel with gcov
 * (CONFIG_GCOV_KERNEL) of its absolute directory too, which its .gcda
 * paths name: a cache moved or copied elsewhere builds it again.  A
 * directory whose stamp holds the same id is not built again.  A gcov
 * kernel's build id then also hashes its bzImage: gcc stamps its objects
 * with their compile's time, so a build again in the same place is
 * another kernel.  The stamp is removed before a
 * build starts and written once it succeeded, so a failed build is never
 * used.  A struct kernel_build owns its strings; kbuild_free().
 */
#ifndef FPUBENCH_KBUILD_H
#define FPUBENCH_KBUILD_H

#include "lib/strlist.h"

#include <git2.h>
#include <stdbool.h>

struct kernel_tree;

struct kernel_build {
	char *variant;
	char *dir;		/* the O= directory */
	char *bzimage;
	char *log;		/* the build log */
	char *version;		/* the tree's Makefile at the built commit, "6.12.118" */
	char commit[GIT_OID_HEXSZ + 1];
	char build_id[17];
	int min_family;		/* the lowest CPU family the kernel runs on (kconfig_min_family) */
	struct strlist warnings;	/* options of the fragment built without */
	bool rebuilt;
	double seconds;		/* time spent building now, 0 if reused */
};

/*
 * Builds `commit` as `variant` with the config fragment, using `jobs`
 * make jobs; a NULL commit builds the work tree as it is, every time.  A
 * new build directory starts as a copy of `seed`'s (may be NULL), so that
 * a variant one patch away builds incrementally.  Errors: ERR_CONFIG (an
 * option the bench needs was dropped), ERR_INPUT or ERR_NOTFOUND (a tree
 * the bench cannot build, before anything is built), ERR_BUILD.
 */
int kbuild_make(struct kernel_tree *t, const char *variant, const git_oid *commit,
		 const char *fragment, int jobs, const struct kernel_build *seed,
		 struct kernel_build **out);

/*
 * The finished build of `variant` of this tree in the cache, to seed
 * another variant's directory; NULL if none.  Only its dir is set.  Free
 * with kbuild_free().
 */
struct kernel_build *kbuild_existing(const struct kernel_tree *t, const char *variant);

void kbuild_free(struct kernel_build *b);

/* For a child's failure message: " (its file system is full)" or "". */
const char *kbuild_full_note(const char *dir);

/* Prints the last lines of a child's log on stderr, after its one-line error. */
void kbuild_print_log_tail(const char *log);

#endif
