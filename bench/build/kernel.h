/*
 * kernel: the cached kernel tree, its variants as commits, and their builds.
 *
 * The tree is Debian's linux-source-6.1 extracted once into the cache and
 * made a git repository (libgit2) whose first commit is the pristine
 * source, kept at refs/fpubench/base.  Applying a patch makes a commit that
 * keeps the patch's author, date and message; the result is remembered
 * under refs/fpubench/applied/<hash of parent and patch>, so the same
 * series on the same base is applied once.
 *
 * Builds are out of tree, one directory per variant under <cache>/build.
 * A build is identified by its build id, a hash of the tree commit and the
 * config fragment; a directory whose stamp holds the same id is not built
 * again.  The stamp is removed before a build starts and written once it
 * succeeded, so a failed build is never used.  Only one bench may use a
 * cache at a time: kernel_tree_open() and its kind wait for an exclusive
 * lock (saying so on stderr) that kernel_tree_free() drops.
 */
#ifndef FPUBENCH_KERNEL_H
#define FPUBENCH_KERNEL_H

#include <git2.h>
#include <stdbool.h>

struct series;

/* The cache holds the bench's own state: what it creates there is private. */
#define KERNEL_CACHE_DIR_MODE 0700
#define KERNEL_CACHE_FILE_MODE 0600

struct kernel_tree {
	char *cache;		/* the cache root */
	char *path;		/* the work tree that builds read */
	git_repository *repo;	/* NULL for a plain directory */
	git_oid base;		/* the Debian tree's pristine commit; zero otherwise */
	int lock_fd;
};

struct kernel_build {
	char *variant;
	char *dir;		/* the O= directory */
	char *bzimage;
	char *log;		/* the build log */
	char commit[GIT_OID_HEXSZ + 1];
	char build_id[17];
	bool rebuilt;
	double seconds;		/* time spent building now, 0 if reused */
};

/*
 * Opens the tree in `cache`, extracting `tarball` and committing it first
 * when the cache has none, or one that is damaged (it says so on stderr,
 * and deletes that one).  Errors: ERR_CACHE (not writable), ERR_NOTFOUND
 * (no tarball), ERR_INTERRUPTED (a signal ended the wait for the lock).
 */
int kernel_tree_open(struct kernel_tree **out, const char *cache, const char *tarball);

/*
 * Opens any kernel git repository for bisection without touching it: the
 * bench checks commits out in its own repository under <cache>/worktrees,
 * which borrows the objects of `repo_dir` (git's alternates, like `git
 * clone --shared`).  The cache's own tree is the bench's already and is
 * used in place, so its builds seed the bisection's.  Revisions are
 * resolved in `repo_dir` itself with kernel_tree_resolve().
 */
int kernel_tree_open_repo(struct kernel_tree **out, const char *cache, const char *repo_dir);

/* Uses the directory as it is checked out, with no git at all (`test --tree`). */
int kernel_tree_open_dir(struct kernel_tree **out, const char *cache, const char *dir);

/* Resolves a revision of the repository at repo_dir (ERR_USAGE naming it). */
int kernel_tree_resolve(const char *repo_dir, const char *rev, git_oid *out);

void kernel_tree_free(struct kernel_tree *t);

/* Applies one patch file on `parent`; ERR_APPLY names the patch and file. */
int kernel_tree_apply(struct kernel_tree *t, const git_oid *parent,
		      const char *patch_path, git_oid *out);

/* Applies the first n patches of the series on the base. */
int kernel_tree_apply_series(struct kernel_tree *t, const struct series *s, size_t n,
			     git_oid *out);

/*
 * Builds `commit` as `variant` with the config fragment, using `jobs`
 * make jobs; a NULL commit builds the work tree as it is, every time.  A new build directory starts as a copy of `seed`'s (may be
 * NULL), so that a variant one patch away builds incrementally.
 * Errors: ERR_CONFIG (an option of the fragment was dropped), ERR_BUILD.
 */
int kernel_build(struct kernel_tree *t, const char *variant, const git_oid *commit,
		 const char *fragment, int jobs, const struct kernel_build *seed,
		 struct kernel_build **out);

/*
 * The finished build of `variant` in the cache if it was built from this
 * tree's work tree, to seed another variant's directory; NULL if none.
 * Only its dir is set.  Free with kernel_build_free().
 */
struct kernel_build *kernel_build_existing(const struct kernel_tree *t, const char *variant);

void kernel_build_free(struct kernel_build *b);

/*
 * Checks that every option the fragment sets is in the final config text.
 * Pure, for unit tests; ERR_CONFIG names the first dropped option.
 */
int kernel_config_check(const char *fragment_name, const char *fragment,
			const char *config);

#endif
