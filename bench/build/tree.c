#include "tree.h"

#include "cache_lock.h"
#include "tarball.h"
#include "kbuild.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/notice.h"
#include "lib/progress.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>


/*
 * A tree is complete when its base ref names a readable commit and tree:
 * the ref is written last, before the rename that publishes the tree.
 */
static int tree_verify(struct kernel_tree *t)
{
	git_commit *base = NULL;
	git_tree *tree = NULL;
	int err = 0;

	if (git_repository_open(&t->repo, t->path) < 0 ||
	    git_reference_name_to_id(&t->base, t->repo, TREE_BASE_REF) < 0 ||
	    git_commit_lookup(&base, t->repo, &t->base) < 0 || git_commit_tree(&tree, base) < 0) {
		err = error_set(ERR_CACHE, "kernel tree '%s' is damaged (%s)", t->path, gitutil_error());
		git_repository_free(t->repo);
		t->repo = NULL;
	}
	git_tree_free(tree);
	git_commit_free(base);
	return err;
}

/* One rename takes a damaged tree out of use, so a run killed while deleting it leaves none. */
static int tree_discard(struct kernel_tree *t)
{
	char *aside = xasprintf("%s.damaged", t->path);
	const char *rm_argv[] = { "rm", "-rf", aside, NULL };
	int err = spawn_run(rm_argv, NULL, NULL, NULL);

	if (err == 0 && rename(t->path, aside) < 0)
		err = error_set_errno(ERR_CACHE, "cannot move damaged kernel tree '%s' aside", t->path);
	if (err == 0)
		err = spawn_run(rm_argv, NULL, NULL, NULL);
	if (err > 0)
		err = error_set(ERR_CACHE, "cannot remove '%s'", aside);
	free(aside);
	return err;
}

/* A tree in the locked cache; path (owned, or NULL until known) is where its work tree is. */
static int tree_new(struct kernel_tree **out, const char *cache, char *path)
{
	struct kernel_tree *t = xcalloc(1, sizeof(*t));
	int err;

	t->lock_fd = -1;
	t->cache = path_absolute(cache);
	t->path = path;
	if ((err = dir_create_mode(t->cache, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0 ||
	    (err = cache_lock(t->cache, &t->lock_fd)) < 0) {
		kernel_tree_free(t);
		return err;
	}
	*out = t;
	return 0;
}

/*
 * A bench killed while libgit2 wrote the index of one of the cache's own
 * repositories leaves index.lock, and every later checkout fails on it.
 * Under the cache lock no other bench can be writing that index, so the
 * lock is stale: it goes.  Not for a user's --tree, whose git is theirs.
 */
static void tree_forget_index_lock(const struct kernel_tree *t)
{
	char *lock = xasprintf("%s/.git/index.lock", t->path);

	if (unlink(lock) == 0)
		notice("removed '%s', which a killed fpubench left", lock);
	free(lock);
}

int kernel_tree_read_file(const struct kernel_tree *t, const git_oid *commit, const char *path,
			  struct strbuf *sb)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int err = 0;

	if (!commit) {
		char *file = xasprintf("%s/%s", t->path, path);

		err = file_exists(file) ? file_read(file, sb)
					: error_set(ERR_NOTFOUND, "kernel tree '%s' has no %s", t->path, path);
		free(file);
		return err;
	}
	if (git_commit_lookup(&c, t->repo, commit) < 0 || git_commit_tree(&tree, c) < 0)
		err = error_set(ERR_GENERIC, "cannot read commit %s in '%s': %s", git_oid_tostr_s(commit),
				t->path, gitutil_error());
	else if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
		 git_blob_lookup(&blob, t->repo, git_tree_entry_id(entry)) < 0)
		err = error_set(ERR_NOTFOUND, "kernel tree '%s' has no %s at %.12s", t->path, path,
				git_oid_tostr_s(commit));
	else
		strbuf_add(sb, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(c);
	return err;
}

int kernel_tree_version(const struct kernel_tree *t, const git_oid *commit, char **out)
{
	struct strbuf text = STRBUF_INIT, kconfig = STRBUF_INIT;
	char *what = commit ? xasprintf("%s at %.12s", t->path, git_oid_tostr_s(commit)) : xstrdup(t->path);
	char version[64];
	int err;

	if ((err = kernel_tree_read_file(t, commit, "Makefile", &text)) < 0) {
		/*
		 * No top Makefile: not a kernel at all, which is a missing input.
		 * A Makefile or commit that cannot be read keeps its own message.
		 */
		if (err == ERR_NOTFOUND)
			err = error_set(ERR_NOTFOUND, "'%s' is not a kernel tree: it has no Makefile", what);
		goto out;
	}
	if ((err = version_parse(what, text.buf, text.len, version, sizeof(version))) < 0 ||
	    (err = version_check(what, version)) < 0)
		goto out;
	if (kernel_tree_read_file(t, commit, "arch/x86/Kconfig.cpu", &kconfig) < 0) {
		err = error_set(ERR_INPUT, "kernel tree '%s' (Linux %s) has no arch/x86/Kconfig.cpu: fpubench builds x86 kernels only",
				what, version);
		goto out;
	}
	*out = xstrdup(version);
out:
	strbuf_release(&text);
	strbuf_release(&kconfig);
	free(what);
	return err;
}

int kernel_tree_check_commit(git_repository *repo, const char *dir, const git_oid *commit)
{
	struct kernel_tree t = { .path = (char *)dir, .repo = repo, .lock_fd = -1 };
	char *version = NULL;
	int err = kernel_tree_version(&t, commit, &version);

	free(version);
	return err;
}

/* Checks that the cached tree holds the version its name says, at its pristine commit. */
static int tree_check_base(struct kernel_tree *t, const char *tarball)
{
	char *have = NULL;
	int err = kernel_tree_version(t, &t->base, &have);

	if (!err && strcmp(have, t->version) != 0)
		err = error_set(ERR_CACHE, "cached kernel tree '%s' holds Linux %s, not Linux %s of '%s'; remove it",
				t->path, have, t->version, tarball);
	free(have);
	return err;
}

/* Moves the build/NAME directories made from `old` (kbuild's `source` link names it) under build/KEY. */
static int cache_migrate_builds(const char *cache, const char *old, const char *key)
{
	char *builds = xasprintf("%s/build", cache), *into = xasprintf("%s/%s", builds, key);
	DIR *d = opendir(builds);
	struct dirent *e;
	int err = 0;

	while (d && !err && (e = readdir(d))) {
		char *dir = xasprintf("%s/%s", builds, e->d_name), *link = xasprintf("%s/source", dir);
		char *to = xasprintf("%s/%s", into, e->d_name), target[PATH_MAX];
		ssize_t n = readlink(link, target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = '\0';
			if (strcmp(target, old) == 0 &&
			    (err = dir_create_mode(into, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) == 0 &&
			    rename(dir, to) < 0)
				err = error_set_errno(ERR_CACHE, "cannot move '%s' to '%s'", dir, to);
		}
		free(dir);
		free(link);
		free(to);
	}
	if (d)
		closedir(d);
	free(builds);
	free(into);
	return err;
}

/*
 * The cache layout before trees were keyed held one tree, <cache>/linux-6.1,
 * whatever tarball it came from.  It moves to the name its own Makefile
 * gives it, with its builds; a damaged one, or one whose keyed name is
 * taken already, is removed.
 */
static int cache_migrate(struct kernel_tree *t)
{
	char *old = xasprintf("%s/linux-6.1", t->cache), *version = NULL;
	struct kernel_tree o = { .cache = t->cache, .path = old, .lock_fd = -1 };
	int err = 0;

	if (!file_exists(old))
		goto out;
	if (tree_verify(&o) < 0 || kernel_tree_version(&o, &o.base, &version) < 0) {
		notice("removing '%s', a damaged tree of the old cache layout: %s",
			old, error_last());
		error_clear();
		err = tree_discard(&o);
		goto out;
	}
	char *key = xasprintf("debian-%s", version), *trees = xasprintf("%s/trees", t->cache);
	char *path = xasprintf("%s/%s", trees, key);

	if (file_exists(path)) {
		notice("removing '%s': '%s' holds Linux %s already", old, path, version);
		err = tree_discard(&o);
	} else if ((err = cache_migrate_builds(t->cache, old, key)) == 0 &&
		   (err = dir_create_mode(trees, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) == 0) {
		if (rename(old, path) < 0)
			err = error_set_errno(ERR_CACHE, "cannot move '%s' to '%s'", old, path);
		else
			notice("moved '%s' (Linux %s) to '%s'", old, version, path);
	}
	free(key);
	free(trees);
	free(path);
out:
	git_repository_free(o.repo);
	free(old);
	free(version);
	return err;
}

void kernel_tree_unlock(struct kernel_tree *t)
{
	if (t)
		cache_unlock(&t->lock_fd);
}

int kernel_tree_open(struct kernel_tree **out, const char *cache, const char *tarball)
{
	struct kernel_tree *t;
	char *damage = NULL;
	int err = tree_new(&t, cache, NULL);

	if (err < 0)
		return err;
	if (!file_exists(tarball)) {
		const char *base = strrchr(tarball, '/') ? strrchr(tarball, '/') + 1 : tarball;
		const char *suffix = strstr(base, ".tar");

		/* Debian's tarballs are named after their package. */
		err = strncmp(base, "linux-source-", 13) == 0 && suffix
			? error_set(ERR_NOTFOUND, "kernel tarball '%s' is missing (apt-get install %.*s)",
				    tarball, (int)(suffix - base), base)
			: error_set(ERR_NOTFOUND, "kernel tarball '%s' is missing", tarball);
		goto out;
	}
	if ((err = cache_migrate(t)) < 0 || (err = tarball_version(t, tarball, &t->version)) < 0 ||
	    (err = version_check(tarball, t->version)) < 0)
		goto out;
	t->key = xasprintf("debian-%s", t->version);
	t->path = xasprintf("%s/trees/%s", t->cache, t->key);
	tree_forget_index_lock(t);
	if (file_exists(t->path)) {
		if ((err = tree_verify(t)) == 0) {
			err = tree_check_base(t, tarball);
			goto out;
		}
		damage = xstrdup(error_last());
		/* A damaged tree, half extracted or half deleted, is never used: it is extracted again. */
		notice("%s; extracting it again", damage);
		if ((err = tree_discard(t)) < 0)
			goto out;
	}
	char *trees = xasprintf("%s/trees", t->cache);
	err = dir_create_mode(trees, KERNEL_CACHE_DIR_MODE, ERR_CACHE);
	free(trees);
	if (!err && (err = tarball_extract(t, tarball)) == 0 && (err = tree_verify(t)) == 0)
		err = tree_check_base(t, tarball);
out:
	free(damage);
	if (err < 0) {
		kernel_tree_free(t);
		return err;
	}
	*out = t;
	return 0;
}

int kernel_tree_resolve(const char *repo_dir, const char *rev, git_oid *out)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	int err = 0;

	if (git_repository_open_ext(&repo, repo_dir, 0, NULL) < 0)
		return error_set(ERR_INPUT, "'%s' is not a git repository: %s", repo_dir, gitutil_error());
	if (git_revparse_single(&obj, repo, rev) < 0 ||
	    git_object_peel((git_object **)&obj, obj, GIT_OBJECT_COMMIT) < 0)
		err = error_set(ERR_USAGE, "unknown revision '%s' in '%s'", rev, repo_dir);
	else
		git_oid_cpy(out, git_object_id(obj));
	git_object_free(obj);
	git_repository_free(repo);
	return err;
}

/*
 * Makes or opens our repository at t->path and points its object store at
 * the user's (`objects`, their object directory now), so nothing is copied
 * or written there.  Opened again after, since libgit2 reads alternates
 * once.
 */
static int worktree_init(struct kernel_tree *t, const char *objects)
{
	char *alternates = NULL;
	int err;

	if ((err = dir_create_mode(t->path, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0)
		return err;
	if (git_repository_init(&t->repo, t->path, 0) < 0) {
		err = error_set(ERR_CACHE, "cannot create a repository in '%s': %s", t->path, gitutil_error());
		goto out;
	}
	char *line = xasprintf("%s\n", objects);
	alternates = xasprintf("%sobjects/info/alternates", git_repository_path(t->repo));
	err = file_write_atomic_mode(alternates, line, strlen(line), KERNEL_CACHE_FILE_MODE);
	free(line);
	git_repository_free(t->repo);
	t->repo = NULL;
	if (!err && git_repository_open(&t->repo, t->path) < 0)
		err = error_set(ERR_CACHE, "cannot open the repository '%s': %s", t->path, gitutil_error());
out:
	free(alternates);
	return err;
}

/*
 * Whether what the work tree is at (HEAD: its commit, tree and parents)
 * is in the repository it borrows from now; a fresh one is at nothing.  A
 * re-clone at the same path or a rewritten history that gc pruned leaves a
 * HEAD that libgit2 cannot peel: a work tree made from another repository.
 */
static bool worktree_matches(const struct kernel_tree *t, git_oid *head)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *tree = NULL;
	bool ok;

	memset(head, 0, sizeof(*head));
	if (git_repository_head_unborn(t->repo) == 1)
		return true;
	ok = git_reference_name_to_id(head, t->repo, "HEAD") == 0 &&
	     git_commit_lookup(&c, t->repo, head) == 0 && git_commit_tree(&tree, c) == 0;
	/* Its parents too: the commit may be ours (a revert), on a commit of theirs. */
	for (unsigned i = 0; ok && i < git_commit_parentcount(c); i++) {
		ok = git_commit_parent(&parent, c, i) == 0;
		git_commit_free(parent);
		parent = NULL;
	}
	git_error_clear();
	git_tree_free(tree);
	git_commit_free(c);
	return ok;
}

/* Opens a tree of the cache in place: bisecting it seeds its builds from the cache's. */
static int tree_open_cached(struct kernel_tree **out, const char *cache, const char *path)
{
	struct kernel_tree *t;
	const char *name = strrchr(path, '/') + 1;
	int err = tree_new(&t, cache, xstrdup(path));

	if (err < 0)
		return err;
	t->key = xstrdup(name);
	tree_forget_index_lock(t);
	if ((err = tree_verify(t)) < 0) {
		kernel_tree_free(t);
		return err;
	}
	*out = t;
	return 0;
}

int kernel_tree_open_repo(struct kernel_tree **out, const char *cache, const char *repo_dir)
{
	char *abs_repo = realpath(repo_dir, NULL), *abs_cache = path_absolute(cache), hex[13];
	char *trees = xasprintf("%s/trees/", abs_cache), *objects = NULL;
	git_repository *theirs = NULL;
	struct kernel_tree *t;
	git_oid head;
	int err;

	if (abs_repo && strncmp(abs_repo, trees, strlen(trees)) == 0 && !strchr(abs_repo + strlen(trees), '/')) {
		err = tree_open_cached(out, cache, abs_repo);
		goto out;
	}
	free(abs_repo);
	abs_repo = path_absolute(repo_dir);
	/* Theirs first: a --repo that is no repository is refused before anything is made. */
	if (git_repository_open_ext(&theirs, repo_dir, 0, NULL) < 0) {
		err = error_set(ERR_INPUT, "'%s' is not a git repository: %s", repo_dir, gitutil_error());
		goto out;
	}
	objects = xasprintf("%sobjects", git_repository_commondir(theirs));
	/* One work tree per repository path, so bisections of one repository share builds. */
	gitutil_path_key(abs_repo, hex, sizeof(hex));
	if ((err = tree_new(&t, cache, xasprintf("%s/worktrees/%s", abs_cache, hex))) < 0)
		goto out;
	t->key = xasprintf("git-%s", hex);
	tree_forget_index_lock(t);
	if ((err = worktree_init(t, objects)) < 0)
		goto fail;
	if (!worktree_matches(t, &head)) {
		fprintf(stderr, "fpubench: work tree '%s' is at %.12s, which '%s' no longer holds (a re-clone at that path, or a rewritten history that gc pruned); making it again\n",
			t->path, git_oid_tostr_s(&head), repo_dir);
		git_repository_free(t->repo);
		t->repo = NULL;
		if ((err = tree_discard(t)) < 0 || (err = worktree_init(t, objects)) < 0)
			goto fail;
	}
	*out = t;
	goto out;
fail:
	kernel_tree_free(t);
out:
	git_repository_free(theirs);
	free(objects);
	free(abs_repo);
	free(abs_cache);
	free(trees);
	return err;
}

int kernel_tree_open_dir(struct kernel_tree **out, const char *cache, const char *dir)
{
	char *path = path_absolute(dir), hex[9];
	struct kernel_tree *t;
	struct stat st;
	int err;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		err = error_set(ERR_NOTFOUND, "kernel tree '%s' is missing", dir);
		free(path);
		return err;
	}
	gitutil_path_key(path, hex, sizeof(hex));
	if ((err = tree_new(&t, cache, path)) < 0)
		return err;
	t->key = xasprintf("dir-%s", hex);
	if ((err = kernel_tree_version(t, NULL, &t->version)) < 0) {
		kernel_tree_free(t);
		return err;
	}
	*out = t;
	return 0;
}

void kernel_tree_free(struct kernel_tree *t)
{
	if (!t)
		return;
	git_repository_free(t->repo);
	cache_unlock(&t->lock_fd);
	free(t->cache);
	free(t->path);
	free(t->key);
	free(t->version);
	free(t);
}
