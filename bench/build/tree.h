/*
 * tree: the kernel trees the bench builds, and the cache that holds them.
 *
 * A kernel tarball (Debian's linux-source-X.Y, or any kernel.org tarball)
 * is extracted once into <cache>/trees/<source>-<version>, e.g.
 * trees/debian-6.1.192, and made a git repository (libgit2) whose first
 * commit is the pristine source, kept at refs/fpubench/base.  The version
 * is the one the tree's top Makefile gives (VERSION, PATCHLEVEL, SUBLEVEL,
 * EXTRAVERSION); a tarball's is read from the tarball once and remembered
 * by its path, size and mtime, so a changed tarball is read again.  Every
 * open checks the cached tree against the version asked for, so what is
 * built is what was named.  A cache of the old layout (one unkeyed
 * <cache>/linux-6.1) is moved to its keyed name at the first open.
 *
 * A tree the bench cannot build (no kernel Makefile, older than 5.10, no
 * arch/x86) is refused before anything is built, with ERR_NOTFOUND (not a
 * kernel tree) or ERR_INPUT (one it cannot handle).
 *
 * Only one bench may use a cache at a time: every kernel_tree_open*()
 * waits for an exclusive lock (saying so on stderr) that kernel_tree_free()
 * drops.  A struct kernel_tree owns its strings and repository.
 */
#ifndef FPUBENCH_TREE_H
#define FPUBENCH_TREE_H

#include "version.h"

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* The cache holds the bench's own state: what it creates there is private. */
#define KERNEL_CACHE_DIR_MODE 0700
#define KERNEL_CACHE_FILE_MODE 0600

/* The pristine tree's commit: written last, so its presence says the tree is complete. */
#define TREE_BASE_REF "refs/fpubench/base"

/* Who commits the pristine tree and each patch. */
#define TREE_COMMITTER_NAME "fpubench"
#define TREE_COMMITTER_EMAIL "fpubench@localhost"


struct kernel_tree {
	char *cache;		/* the cache root, absolute */
	char *path;		/* the work tree that builds read */
	char *key;		/* names its builds: "debian-6.1.192", "git-…", "dir-…" */
	char *version;		/* the Makefile's, for a tarball's tree; NULL otherwise */
	git_repository *repo;	/* NULL for a plain directory */
	git_oid base;		/* the tarball's pristine commit; zero otherwise */
	int lock_fd;
};

/*
 * Opens the tree of `tarball` in `cache`, extracting and committing it
 * first when the cache has none, or one that is damaged (it says so on
 * stderr, and deletes that one).  Errors: ERR_CACHE (not writable, or the
 * cached tree is not the tarball's version), ERR_NOTFOUND (no tarball, or
 * no kernel in it), ERR_INPUT (a kernel the bench cannot build),
 * ERR_INTERRUPTED (a signal ended the wait for the lock).
 */
int kernel_tree_open(struct kernel_tree **out, const char *cache, const char *tarball);

/*
 * Lets another bench have the cache before this one ends (a child
 * `fpubench bisect`, say); the tree must not be built or read after.
 */
void kernel_tree_unlock(struct kernel_tree *t);

/*
 * Opens any kernel git repository without touching it: the bench checks
 * commits out in its own repository under <cache>/worktrees, keyed by the
 * repository's path, which borrows the objects of `repo_dir` (git's
 * alternates, like `git clone --shared`).  Every open points it at the
 * repository found at that path now and checks that what it is at (HEAD,
 * its tree and parents) is there; a work tree of another repository (a
 * re-clone at the same path, a rewritten history that gc pruned) is said
 * on stderr and made again.  Its builds need no such check: a build id
 * holds the commit id, so only the same content reuses one.  A tree of
 * the cache is the bench's already and is used in place, so its builds
 * seed the bisection's.  Revisions are resolved in `repo_dir` itself with
 * kernel_tree_resolve().  ERR_INPUT names `repo_dir` when it is no git
 * repository, before anything is made.
 */
int kernel_tree_open_repo(struct kernel_tree **out, const char *cache, const char *repo_dir);

/*
 * Uses the directory as it is checked out, with no git at all (`test
 * --tree`), once kernel_tree_version() accepts it.
 */
int kernel_tree_open_dir(struct kernel_tree **out, const char *cache, const char *dir);

/* Resolves a revision of the repository at repo_dir: ERR_INPUT when it is no repository, ERR_USAGE for an unknown revision. */
int kernel_tree_resolve(const char *repo_dir, const char *rev, git_oid *out);

void kernel_tree_free(struct kernel_tree *t);

/* A file of `commit` (NULL: of the work tree as it is), appended to sb; ERR_NOTFOUND if none. */
int kernel_tree_read_file(const struct kernel_tree *t, const git_oid *commit, const char *path,
			  struct strbuf *sb);

/*
 * The version of `commit` (NULL: of the work tree as it is) after checking
 * that the bench can build it: a kernel Makefile, 5.10 or newer, arch/x86.
 * *out is allocated.  ERR_NOTFOUND (no Makefile) or ERR_INPUT name the tree.
 */
int kernel_tree_version(const struct kernel_tree *t, const git_oid *commit, char **out);

/*
 * The same check of a commit of any repository, before the cache makes
 * anything of it: messages name `dir`, the repository as the user gave it.
 */
int kernel_tree_check_commit(git_repository *repo, const char *dir, const git_oid *commit);

#endif
