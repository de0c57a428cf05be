#include "tree.h"

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

#define BASE_REF "refs/fpubench/base"

/* " (held by pid N)" from the lock file, or "" while the holder has not written it yet. */
static char *lock_holder(int fd)
{
	char buf[24];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid;

	if (n <= 0)
		return xstrdup("");
	buf[n] = '\0';
	pid = strtol(buf, NULL, 10);
	return pid > 0 ? xasprintf(" (held by pid %ld)", pid) : xstrdup("");
}

/*
 * Another bench may hold the cache for a whole run: wait for it, saying so
 * once.  main()'s handlers are installed without SA_RESTART, so SIGINT and
 * SIGTERM end the wait with EINTR.
 */
static int cache_lock(struct kernel_tree *t)
{
	char *path = xasprintf("%s/lock", t->cache);
	int err = 0;

	t->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, KERNEL_CACHE_FILE_MODE);
	if (t->lock_fd < 0) {
		err = error_set_errno(ERR_CACHE, "cache directory '%s' is not writable", t->cache);
		goto out;
	}
	if (flock(t->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		char *holder = lock_holder(t->lock_fd);

		notice("waiting for the cache lock on '%s'%s", path, holder);
		free(holder);
		if (flock(t->lock_fd, LOCK_EX) < 0) {
			err = errno == EINTR
				? error_set(ERR_INTERRUPTED, "interrupted while waiting for the cache lock on '%s'", path)
				: error_set_errno(ERR_CACHE, "cannot lock '%s'", path);
			goto out;
		}
	}
	/* The pid only names the holder to a waiter: the lock holds without it, so no error. */
	if (ftruncate(t->lock_fd, 0) == 0)
		dprintf(t->lock_fd, "%ld\n", (long)getpid());
out:
	free(path);
	return err;
}

/* "= value" after a Makefile variable's name at the start of a line, trimmed; NULL if not that line. */
static const char *makefile_value(const char *line, const char *eol, const char *name, size_t *len)
{
	size_t n = strlen(name);
	const char *p = line + n;

	if ((size_t)(eol - line) < n || memcmp(line, name, n) != 0)
		return NULL;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p == eol || *p++ != '=')
		return NULL;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	while (eol > p && (eol[-1] == ' ' || eol[-1] == '\t' || eol[-1] == '\r'))
		eol--;
	*len = (size_t)(eol - p);
	return p;
}

static bool all_of(const char *s, size_t len, const char *set)
{
	for (size_t i = 0; i < len; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

int kernel_version_parse(const char *name, const char *makefile, size_t len, char *out,
			 size_t size)
{
	static const char *const keys[] = { "VERSION", "PATCHLEVEL", "SUBLEVEL", "EXTRAVERSION" };
	static const char digits[] = "0123456789";
	const char *value[4] = { NULL };
	size_t vlen[4] = { 0 };

	for (const char *p = makefile, *end = makefile + len; p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;

		for (size_t k = 0; k < 4; k++)
			if (!value[k])
				value[k] = makefile_value(p, eol, keys[k], &vlen[k]);
		p = nl ? nl + 1 : end;
	}
	/* As the Makefile's KERNELVERSION: the EXTRAVERSION is "-rc3" and the like. */
	if (!value[0] || !value[1] || !value[2] || !vlen[0] || !vlen[1] || !vlen[2] ||
	    vlen[0] > 4 || vlen[1] > 4 || vlen[2] > 6 || vlen[3] > 32 ||
	    !all_of(value[0], vlen[0], digits) || !all_of(value[1], vlen[1], digits) ||
	    !all_of(value[2], vlen[2], digits) ||
	    !all_of(value[3] ? value[3] : "", vlen[3], "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_+~"))
		return error_set(ERR_INPUT, "'%s' is not a kernel tree: its Makefile gives no VERSION, PATCHLEVEL and SUBLEVEL",
				 name);
	snprintf(out, size, "%.*s.%.*s.%.*s%.*s", (int)vlen[0], value[0], (int)vlen[1], value[1],
		 (int)vlen[2], value[2], (int)vlen[3], value[3] ? value[3] : "");
	return 0;
}

int kernel_version_check(const char *what, const char *version)
{
	int major = 0, minor = 0;

	if (sscanf(version, "%d.%d", &major, &minor) != 2 ||
	    major < TREE_OLDEST_MAJOR || (major == TREE_OLDEST_MAJOR && minor < TREE_OLDEST_MINOR))
		return error_set(ERR_INPUT, "kernel tree '%s' is Linux %s, older than %d.%d, the oldest fpubench builds",
				 what, version, TREE_OLDEST_MAJOR, TREE_OLDEST_MINOR);
	return 0;
}

/* nftw() takes no user pointer, hence the walk's state in statics. */
static git_index *walk_index;
static size_t walk_root_len;
static int walk_error;

static int walk_add(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_D && strcmp(path + walk_root_len, "/.git") == 0)
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F && type != FTW_SL)
		return FTW_CONTINUE;
	if (git_index_add_bypath(walk_index, path + walk_root_len + 1) < 0) {
		walk_error = error_set(ERR_GENERIC, "cannot add '%s' to the tree: %s", path,
				       gitutil_error());
		return FTW_STOP;
	}
	return FTW_CONTINUE;
}

/*
 * The pristine tree becomes the root commit.  Files are added one by one:
 * the tarball holds files the kernel's .gitignore names, and libgit2's
 * forced git_index_add_all() trips over that .gitignore.
 */
static int tree_commit_pristine(git_repository *repo, const char *root, const char *tarball,
				const char *version, git_oid *out)
{
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_oid;
	char *message = xasprintf("Linux %s, as extracted from %s\n", version, tarball);
	int err = ERR_GENERIC;

	if (git_repository_index(&index, repo) < 0)
		goto git_fail;
	walk_index = index;
	walk_root_len = strlen(root);
	walk_error = 0;
	if (nftw(root, walk_add, 64, FTW_PHYS | FTW_ACTIONRETVAL) != 0) {
		err = walk_error ? walk_error
				 : error_set_errno(ERR_GENERIC, "cannot walk '%s'", root);
		goto out;
	}
	if (git_index_write(index) < 0 || git_index_write_tree(&tree_oid, index) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_oid) < 0 ||
	    git_signature_new(&sig, TREE_COMMITTER_NAME, TREE_COMMITTER_EMAIL, 0, 0) < 0 ||
	    git_commit_create(out, repo, "HEAD", sig, sig, NULL, message, tree, 0, NULL) < 0)
		goto git_fail;
	err = 0;
	goto out;
git_fail:
	err = error_set(ERR_GENERIC, "cannot commit the pristine tree: %s", gitutil_error());
out:
	free(message);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	return err;
}

/* tar's option for the tarball's compression, by its name. */
static const char *tar_filter(const char *tarball)
{
	static const struct {
		const char *suffix;
		const char *option;
	} filters[] = {
		{ ".xz", "--xz" }, { ".gz", "--gzip" }, { ".tgz", "--gzip" },
		{ ".bz2", "--bzip2" }, { ".zst", "--zstd" },
	};
	size_t len = strlen(tarball);

	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		size_t n = strlen(filters[i].suffix);
		if (len >= n && strcmp(tarball + len - n, filters[i].suffix) == 0)
			return filters[i].option;
	}
	return "--no-auto-compress";
}

struct extract_progress {
	int fd;
	struct stat st;
	struct progress progress;
};

static void extract_tick(void *arg)
{
	struct extract_progress *xp = arg;
	off_t at = lseek(xp->fd, 0, SEEK_CUR);
	double done = xp->st.st_size > 0 && at > 0 ? (double)at / (double)xp->st.st_size : 0;

	progress_update(&xp->progress, done, "%.0f %% of %lld MB", 100 * done,
			(long long)(xp->st.st_size >> 20));
}

/*
 * Extracts into a temporary directory and renames it, so a killed or failed
 * run (a full disk) leaves no half tree under the tree's name.
 */
static int tree_create(struct kernel_tree *t, const char *tarball)
{
	char *tmp = xasprintf("%s.tmp", t->path);
	char *log = xasprintf("%s/extract.log", t->cache);
	const char *rm_argv[] = { "rm", "-rf", tmp, NULL };
	/*
	 * tar reads the tarball from our descriptor, whose offset says how far
	 * it got; from stdin it cannot guess the compression, so it is told.
	 */
	const char *tar_argv[] = { "tar", "-x", tar_filter(tarball), "-f", "-", "-C", tmp,
				   "--strip-components=1", NULL };
	struct extract_progress xp = { .fd = -1 };
	git_repository *repo = NULL;
	git_oid base;
	int err;

	notice("extracting %s into %s", tarball, t->path);
	unlink(log);
	if ((err = spawn_run(rm_argv, NULL, NULL, NULL)) != 0 ||
	    (err = dir_create_mode(tmp, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0)
		goto fail;
	if ((xp.fd = open(tarball, O_RDONLY | O_CLOEXEC)) < 0 || fstat(xp.fd, &xp.st) < 0) {
		err = error_set_errno(ERR_NOTFOUND, "cannot read kernel tarball '%s'", tarball);
		goto fail;
	}
	progress_init(&xp.progress, stderr, "extracting");
	struct spawn_watch watch = { .stdin_fd = xp.fd, .tick = extract_tick, .arg = &xp };
	err = spawn_run_watched(tar_argv, NULL, log, NULL, &watch);
	progress_end(&xp.progress);
	close(xp.fd);
	xp.fd = -1;
	if (err != 0) {
		err = error_set(ERR_CACHE, "cannot extract '%s' into '%s'%s; see '%s'", tarball, tmp,
				kernel_full_note(tmp), log);
		kernel_print_log_tail(log);
		goto fail;
	}
	if (git_repository_init(&repo, tmp, 0) < 0) {
		err = error_set(ERR_GENERIC, "cannot create a repository in '%s': %s", tmp, gitutil_error());
		goto fail;
	}
	if ((err = tree_commit_pristine(repo, tmp, tarball, t->version, &base)) < 0)
		goto fail;
	/* Written last: tree_verify() takes the ref for the sign of a complete tree. */
	git_reference *ref = NULL;
	if (git_reference_create(&ref, repo, BASE_REF, &base, 1, "fpubench: pristine tree") < 0) {
		err = error_set(ERR_GENERIC, "cannot create '%s': %s", BASE_REF, gitutil_error());
		goto fail;
	}
	git_reference_free(ref);
	git_repository_free(repo);
	repo = NULL;
	if (rename(tmp, t->path) < 0) {
		err = error_set_errno(ERR_CACHE, "cannot rename '%s' to '%s'", tmp, t->path);
		goto fail;
	}
	goto out;
fail:
	if (xp.fd >= 0)
		close(xp.fd);
	git_repository_free(repo);
	spawn_run(rm_argv, NULL, NULL, NULL);
	if (err > 0)
		err = error_set(ERR_GENERIC, "cannot clear '%s'", tmp);
out:
	free(tmp);
	free(log);
	return err;
}

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
	    git_reference_name_to_id(&t->base, t->repo, BASE_REF) < 0 ||
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
	    (err = cache_lock(t)) < 0) {
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

/* A short stable name for a path, for cache entries named after it. */
static void path_key(const char *path, char *hex, size_t size)
{
	git_oid key;

	git_odb_hash(&key, path, strlen(path), GIT_OBJECT_BLOB);
	git_oid_tostr(hex, size, &key);
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
	if ((err = kernel_version_parse(what, text.buf, text.len, version, sizeof(version))) < 0 ||
	    (err = kernel_version_check(what, version)) < 0)
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

/*
 * The tarball's version: remembered by its path, size and mtime in
 * <cache>/trees/tarballs, else read from its top Makefile, which tar
 * reaches after the Documentation (1.3 s for 6.12, against 12 s to
 * extract it all).
 */
static int tarball_version(const struct kernel_tree *t, const char *tarball, char **out)
{
	char *abs = path_absolute(tarball), hex[17];
	char *dir = xasprintf("%s/trees/tarballs", t->cache), *memo, *stamp, *tmp;
	const char *tar_argv[] = { "tar", "-x", tar_filter(tarball), "-O", "-f", abs, "--wildcards",
				   "--no-wildcards-match-slash", "--occurrence=1", "*/Makefile", NULL };
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	int err;

	path_key(abs, hex, sizeof(hex));
	memo = xasprintf("%s/%s", dir, hex);
	tmp = xasprintf("%s.makefile", memo);
	if (stat(abs, &st) < 0) {
		err = error_set_errno(ERR_NOTFOUND, "cannot read kernel tarball '%s'", tarball);
		stamp = NULL;
		goto out;
	}
	stamp = xasprintf("%lld %lld.%09ld ", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			  st.st_mtim.tv_nsec);
	if (file_read(memo, &text) == 0 && strncmp(text.buf, stamp, strlen(stamp)) == 0 &&
	    text.len > strlen(stamp) + 1 && text.buf[text.len - 1] == '\n') {
		*out = xstrndup(text.buf + strlen(stamp), text.len - strlen(stamp) - 1);
		err = 0;
		goto out;
	}
	error_clear();
	strbuf_reset(&text);
	unlink(tmp);
	if ((err = dir_create_mode(dir, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0)
		goto out;
	if (spawn_run(tar_argv, NULL, tmp, NULL) != 0 || file_read(tmp, &text) < 0) {
		err = error_set(ERR_INPUT, "kernel tarball '%s' has no top Makefile: not a kernel tarball, or a damaged one",
				tarball);
		goto out;
	}
	char version[64];
	if ((err = kernel_version_parse(tarball, text.buf, text.len, version, sizeof(version))) < 0)
		goto out;
	strbuf_reset(&text);
	strbuf_addf(&text, "%s%s\n", stamp, version);
	if ((err = file_write_atomic_mode(memo, text.buf, text.len, KERNEL_CACHE_FILE_MODE)) == 0)
		*out = xstrdup(version);
out:
	unlink(tmp);
	strbuf_release(&text);
	free(abs);
	free(dir);
	free(memo);
	free(stamp);
	free(tmp);
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
	if (t && t->lock_fd >= 0) {
		close(t->lock_fd);	/* which drops the flock */
		t->lock_fd = -1;
	}
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
	    (err = kernel_version_check(tarball, t->version)) < 0)
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
	if (!err && (err = tree_create(t, tarball)) == 0 && (err = tree_verify(t)) == 0)
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
	path_key(abs_repo, hex, sizeof(hex));
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
	path_key(path, hex, sizeof(hex));
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
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	free(t->cache);
	free(t->path);
	free(t->key);
	free(t->version);
	free(t);
}
