#include "kernel.h"

#include "lib/clock.h"
#include "lib/error.h"
#include "lib/gitutil.h"
#include "lib/fileutil.h"
#include "patchfile.h"
#include "lib/progress.h"
#include "series.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define BASE_REF "refs/fpubench/base"
#define APPLIED_REF_PREFIX "refs/fpubench/applied/"
#define COMMITTER_NAME "fpubench"
#define COMMITTER_EMAIL "fpubench@localhost"
#define BUILD_LOG_TAIL_LINES 20

/* "modules" writes Module.symvers, which out-of-tree test modules link against. */
static const char *const build_targets[] = { "bzImage", "modules" };
#define BUILD_NTARGETS (sizeof(build_targets) / sizeof(build_targets[0]))

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

		fprintf(stderr, "fpubench: waiting for the cache lock on '%s'%s\n", path, holder);
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

static void print_log_tail(const char *log)
{
	struct strbuf text = STRBUF_INIT;
	int lines = 0;
	size_t start;

	if (file_read(log, &text) < 0) {
		strbuf_release(&text);
		return;
	}
	for (start = text.len; start > 0; start--)
		if (text.buf[start - 1] == '\n' && ++lines > BUILD_LOG_TAIL_LINES)
			break;
	fprintf(stderr, "--- last lines of %s\n%s--- end of %s\n", log, text.buf + start, log);
	strbuf_release(&text);
}

/* For a child's failure: on a full disk its log may well be empty. */
static const char *full_note(const char *dir)
{
	return dir_is_full(dir) ? " (its file system is full)" : "";
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
				git_oid *out)
{
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_oid;
	char *message = xasprintf("Debian linux-source-6.1, as extracted from %s\n", tarball);
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
	    git_signature_new(&sig, COMMITTER_NAME, COMMITTER_EMAIL, 0, 0) < 0 ||
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

	fprintf(stderr, "fpubench: extracting %s into %s\n", tarball, t->path);
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
				full_note(tmp), log);
		print_log_tail(log);
		goto fail;
	}
	if (git_repository_init(&repo, tmp, 0) < 0) {
		err = error_set(ERR_GENERIC, "cannot create a repository in '%s': %s", tmp, gitutil_error());
		goto fail;
	}
	if ((err = tree_commit_pristine(repo, tmp, tarball, &base)) < 0)
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

/* A tree in the locked cache; path is where its work tree is or will be. */
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
		fprintf(stderr, "fpubench: removed '%s', which a killed fpubench left\n", lock);
	free(lock);
}

static char *cache_tree_path(const char *cache)
{
	char *abs = path_absolute(cache), *path = xasprintf("%s/linux-6.1", abs);

	free(abs);
	return path;
}

int kernel_tree_open(struct kernel_tree **out, const char *cache, const char *tarball)
{
	struct kernel_tree *t;
	char *damage = NULL;
	int err = tree_new(&t, cache, cache_tree_path(cache));

	if (err < 0)
		return err;
	tree_forget_index_lock(t);
	if (file_exists(t->path)) {
		if ((err = tree_verify(t)) == 0)
			goto out;
		damage = xstrdup(error_last());
	}
	if (!file_exists(tarball)) {
		err = error_set(ERR_NOTFOUND, "%s%skernel tarball '%s' is missing (apt-get install linux-source-6.1)",
				damage ? damage : "", damage ? "; " : "", tarball);
		goto out;
	}
	/* A damaged tree, half extracted or half deleted, is never used: it is extracted again. */
	if (damage) {
		fprintf(stderr, "fpubench: %s; extracting it again\n", damage);
		if ((err = tree_discard(t)) < 0)
			goto out;
	}
	if ((err = tree_create(t, tarball)) == 0)
		err = tree_verify(t);
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
		return error_set(ERR_USAGE, "'%s' is not a git repository: %s", repo_dir, gitutil_error());
	if (git_revparse_single(&obj, repo, rev) < 0 ||
	    git_object_peel((git_object **)&obj, obj, GIT_OBJECT_COMMIT) < 0)
		err = error_set(ERR_USAGE, "unknown revision '%s' in '%s'", rev, repo_dir);
	else
		git_oid_cpy(out, git_object_id(obj));
	git_object_free(obj);
	git_repository_free(repo);
	return err;
}

/* Points our repository's object store at the user's, so nothing is copied or written there. */
static int repo_borrow_objects(git_repository *ours, const char *repo_dir)
{
	git_repository *theirs = NULL;
	char *alternates = NULL;
	int err = 0;

	if (git_repository_open_ext(&theirs, repo_dir, 0, NULL) < 0)
		return error_set(ERR_USAGE, "'%s' is not a git repository: %s", repo_dir, gitutil_error());
	char *objects = xasprintf("%sobjects\n", git_repository_commondir(theirs));
	alternates = xasprintf("%sobjects/info/alternates", git_repository_path(ours));
	err = file_write_atomic_mode(alternates, objects, strlen(objects), KERNEL_CACHE_FILE_MODE);
	free(objects);
	free(alternates);
	git_repository_free(theirs);
	return err;
}

/* Whether two paths name the same existing directory. */
static bool same_dir(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	bool same = ra && rb && strcmp(ra, rb) == 0;

	free(ra);
	free(rb);
	return same;
}

int kernel_tree_open_repo(struct kernel_tree **out, const char *cache, const char *repo_dir)
{
	char *own = cache_tree_path(cache);
	bool is_own = same_dir(repo_dir, own);

	free(own);
	if (is_own)
		return kernel_tree_open(out, cache, "");

	char *abs_repo = path_absolute(repo_dir), *abs_cache = path_absolute(cache), hex[13];
	struct kernel_tree *t;
	git_oid key;
	int err;

	/* One work tree per repository path, so bisections of one repository share builds. */
	git_odb_hash(&key, abs_repo, strlen(abs_repo), GIT_OBJECT_BLOB);
	git_oid_tostr(hex, sizeof(hex), &key);
	err = tree_new(&t, cache, xasprintf("%s/worktrees/%s", abs_cache, hex));
	free(abs_cache);
	if (err < 0)
		goto out;
	tree_forget_index_lock(t);
	if ((err = dir_create_mode(t->path, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0)
		goto fail;
	if (git_repository_init(&t->repo, t->path, 0) < 0) {
		err = error_set(ERR_CACHE, "cannot create a repository in '%s': %s", t->path, gitutil_error());
		goto fail;
	}
	if ((err = repo_borrow_objects(t->repo, abs_repo)) < 0)
		goto fail;
	*out = t;
	goto out;
fail:
	kernel_tree_free(t);
out:
	free(abs_repo);
	return err;
}

int kernel_tree_open_dir(struct kernel_tree **out, const char *cache, const char *dir)
{
	char *path = path_absolute(dir);

	if (!file_exists(path)) {
		int err = error_set(ERR_NOTFOUND, "kernel tree '%s' is missing", dir);
		free(path);
		return err;
	}
	return tree_new(out, cache, path);
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
	free(t);
}

/* Names the first file of the diff that does not apply, for the message. */
static const char *failing_path(git_repository *repo, git_tree *tree, git_diff *diff)
{
	size_t n = git_diff_num_deltas(diff);

	for (size_t i = 0; i < n; i++) {
		git_patch *patch = NULL;
		git_buf buf = GIT_BUF_INIT_CONST(NULL, 0);
		git_diff *single = NULL;
		git_index *index = NULL;
		int bad = 1;

		if (git_patch_from_diff(&patch, diff, i) == 0 &&
		    git_patch_to_buf(&buf, patch) == 0 &&
		    git_diff_from_buffer(&single, buf.ptr, buf.size) == 0)
			bad = git_apply_to_tree(&index, repo, tree, single, NULL) < 0;
		git_index_free(index);
		git_diff_free(single);
		git_buf_dispose(&buf);
		git_patch_free(patch);
		if (bad)
			return git_diff_get_delta(diff, i)->old_file.path;
	}
	return NULL;
}

static int apply_diff(git_repository *repo, const char *name, const struct patchfile *p,
		      git_commit *parent, git_oid *out)
{
	git_diff *diff = NULL;
	git_tree *tree = NULL, *new_tree = NULL;
	git_index *index = NULL;
	git_signature *author = NULL, *committer = NULL;
	git_oid tree_oid;
	int err = ERR_APPLY;

	if (git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) < 0) {
		error_set(ERR_APPLY, "cannot apply patch '%s': %s", name, gitutil_error());
		goto out;
	}
	if (git_commit_tree(&tree, parent) < 0)
		goto git_fail;
	if (git_apply_to_tree(&index, repo, tree, diff, NULL) < 0) {
		char *why = xstrdup(gitutil_error());
		const char *path = failing_path(repo, tree, diff);

		if (path)
			error_set(ERR_APPLY, "cannot apply patch '%s' to '%s': %s", name, path, why);
		else
			error_set(ERR_APPLY, "cannot apply patch '%s': %s", name, why);
		free(why);
		goto out;
	}
	if (git_index_write_tree_to(&tree_oid, index, repo) < 0 ||
	    git_tree_lookup(&new_tree, repo, &tree_oid) < 0 ||
	    git_signature_new(&author, p->author_name, p->author_email, p->author_time,
			      p->author_tz) < 0 ||
	    /* The committer's date is the author's, so the same series gives the same shas. */
	    git_signature_new(&committer, COMMITTER_NAME, COMMITTER_EMAIL, p->author_time,
			      p->author_tz) < 0 ||
	    git_commit_create(out, repo, NULL, author, committer, NULL, p->message, new_tree, 1,
			      (const git_commit **)&parent) < 0)
		goto git_fail;
	err = 0;
	goto out;
git_fail:
	err = error_set(ERR_GENERIC, "cannot commit patch '%s': %s", name, gitutil_error());
out:
	git_signature_free(author);
	git_signature_free(committer);
	git_index_free(index);
	git_tree_free(new_tree);
	git_tree_free(tree);
	git_diff_free(diff);
	return err;
}

int kernel_tree_apply(struct kernel_tree *t, const git_oid *parent, const char *patch_path,
		      git_oid *out)
{
	struct strbuf text = STRBUF_INIT, key_text = STRBUF_INIT;
	struct patchfile p = PATCHFILE_INIT;
	git_commit *parent_commit = NULL;
	git_reference *ref = NULL;
	char parent_hex[GIT_OID_HEXSZ + 1], key_hex[GIT_OID_HEXSZ + 1];
	git_oid key;
	char *ref_name = NULL;
	int err;

	if ((err = file_read(patch_path, &text)) < 0)
		goto out;
	git_oid_tostr(parent_hex, sizeof(parent_hex), parent);
	strbuf_addf(&key_text, "%s\n", parent_hex);
	strbuf_add(&key_text, text.buf, text.len);
	git_odb_hash(&key, key_text.buf, key_text.len, GIT_OBJECT_BLOB);
	git_oid_tostr(key_hex, sizeof(key_hex), &key);
	ref_name = xasprintf(APPLIED_REF_PREFIX "%s", key_hex);
	if (git_reference_name_to_id(out, t->repo, ref_name) == 0)
		goto out;

	if ((err = patchfile_parse(&p, patch_path, text.buf, text.len)) < 0)
		goto out;
	if (git_commit_lookup(&parent_commit, t->repo, parent) < 0) {
		err = error_set(ERR_GENERIC, "cannot find commit %s: %s", parent_hex, gitutil_error());
		goto out;
	}
	if ((err = apply_diff(t->repo, patch_path, &p, parent_commit, out)) < 0)
		goto out;
	if (git_reference_create(&ref, t->repo, ref_name, out, 1, "fpubench: apply") < 0)
		err = error_set(ERR_GENERIC, "cannot create '%s': %s", ref_name, gitutil_error());
out:
	git_reference_free(ref);
	git_commit_free(parent_commit);
	patchfile_release(&p);
	strbuf_release(&text);
	strbuf_release(&key_text);
	free(ref_name);
	return err;
}

int kernel_tree_apply_series(struct kernel_tree *t, const struct series *s, size_t n,
			     git_oid *out)
{
	git_oid_cpy(out, &t->base);
	for (size_t i = 0; i < n; i++) {
		git_oid parent = *out;
		int err = kernel_tree_apply(t, &parent, s->patches[i], out);
		if (err < 0)
			return err;
	}
	return 0;
}

static int tree_checkout(struct kernel_tree *t, const git_oid *commit)
{
	git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
	git_object *obj = NULL;
	int err = 0;

	/* FORCE rewrites only the files that differ, so make sees just those change. */
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_object_lookup(&obj, t->repo, commit, GIT_OBJECT_COMMIT) < 0 ||
	    git_checkout_tree(t->repo, obj, &opts) < 0 ||
	    git_repository_set_head_detached(t->repo, commit) < 0)
		err = error_set(ERR_GENERIC, "cannot check out %s in '%s': %s",
				git_oid_tostr_s(commit), t->path, gitutil_error());
	git_object_free(obj);
	return err;
}

/* "CONFIG_FOO=y" -> want "CONFIG_FOO=y"; "# CONFIG_FOO is not set" -> want unset. */
static int config_line_option(const char *line, size_t len, char *name, size_t name_size,
			      bool *want_unset)
{
	const char *p = line, *end = line + len;

	*want_unset = false;
	if (len > 2 && line[0] == '#' && line[1] == ' ') {
		p += 2;
		*want_unset = true;
	}
	if ((size_t)(end - p) < 8 || strncmp(p, "CONFIG_", 7) != 0)
		return 0;
	const char *q = p + 7;
	while (q < end && (*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') ||
			   (*q >= '0' && *q <= '9')))
		q++;
	if (*want_unset ? (size_t)(end - q) != 11 || strncmp(q, " is not set", 11) != 0
			: q == end || *q != '=')
		return 0;
	if ((size_t)(q - p) >= name_size)
		return 0;
	memcpy(name, p, (size_t)(q - p));
	name[q - p] = '\0';
	return 1;
}

/* The value line of option `name` in the config ("CONFIG_X=y"), or NULL. */
static const char *config_find(const char *config, const char *name, size_t *len)
{
	size_t n = strlen(name);

	for (const char *p = config; p && *p; ) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l > n && strncmp(p, name, n) == 0 && p[n] == '=') {
			*len = l;
			return p;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int kernel_config_check(const char *fragment_name, const char *fragment, const char *config)
{
	for (const char *p = fragment; p && *p; ) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char name[128];
		bool want_unset;

		if (l && p[l - 1] == '\r')
			l--;
		if (config_line_option(p, l, name, sizeof(name), &want_unset)) {
			size_t have_len = 0;
			const char *have = config_find(config, name, &have_len);
			bool ok = want_unset ? !have : have && have_len == l && strncmp(have, p, l) == 0;

			if (!ok) {
				if (have)
					return error_set(ERR_CONFIG, "config option '%.*s' from '%s' was dropped (the final .config has '%.*s')",
							 (int)l, p, fragment_name, (int)have_len, have);
				return error_set(ERR_CONFIG, "config option '%.*s' from '%s' was dropped (not in the final .config)",
						 (int)l, p, fragment_name);
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* Checks the .config the kernel is, or was, built with against the fragment. */
static int build_config_check(const struct kernel_build *b, const char *fragment,
			      const char *fragment_text)
{
	char *config = xasprintf("%s/.config", b->dir);
	struct strbuf final = STRBUF_INIT;
	int err = file_read(config, &final);

	if (!err)
		err = kernel_config_check(fragment, fragment_text, final.buf);
	strbuf_release(&final);
	free(config);
	return err;
}

static int build_config(struct kernel_tree *t, struct kernel_build *b, const char *fragment,
			const char *fragment_text, const char *fragment_hash)
{
	char *odir = xasprintf("O=%s", b->dir);
	char *config = xasprintf("%s/.config", b->dir);
	char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", t->path);
	char *stamp = xasprintf("%s/fpubench.config", b->dir);
	const char *tiny[] = { "make", "ARCH=i386", odir, "tinyconfig", NULL };
	const char *merge_argv[] = { merge, "-m", "-O", b->dir, config, fragment, NULL };
	const char *olddef[] = { "make", "ARCH=i386", odir, "olddefconfig", NULL };
	int err = 0;

	if (file_holds(stamp, fragment_hash) && file_exists(config))
		goto check;
	/* A configure that fails half way must not leave the stamp of the .config it replaces. */
	if (unlink(stamp) < 0 && errno != ENOENT) {
		err = error_set_errno(ERR_CACHE, "cannot remove '%s'", stamp);
		goto out;
	}
	if (spawn_run(tiny, t->path, b->log, NULL) != 0 ||
	    spawn_run(merge_argv, t->path, b->log, NULL) != 0 ||
	    spawn_run(olddef, t->path, b->log, NULL) != 0) {
		err = error_set(ERR_BUILD, "cannot configure variant '%s'%s; see '%s'", b->variant,
				full_note(b->dir), b->log);
		print_log_tail(b->log);
		goto out;
	}
	if ((err = file_write_atomic_mode(stamp, fragment_hash, strlen(fragment_hash),
					  KERNEL_CACHE_FILE_MODE)) < 0)
		goto out;
check:
	err = build_config_check(b, fragment, fragment_text);
out:
	free(odir);
	free(config);
	free(merge);
	free(stamp);
	return err;
}

/* What the build log says so far: kbuild's quiet lines, "  CC      path.o". */
struct build_progress {
	const char *variant;
	const char *log;
	off_t offset;		/* the log up to here is counted */
	size_t objects;
	char current[80];
	struct progress progress;
};

static void build_count_line(struct build_progress *bp, const char *line, size_t len)
{
	size_t word = 0, n = 0;

	if (len < 4 || line[0] != ' ' || line[1] != ' ')
		return;
	while (2 + word < len && line[2 + word] >= 'A' && line[2 + word] <= 'Z')
		word++;
	if (!word || 2 + word >= len || line[2 + word] != ' ')
		return;
	if ((word == 2 && (memcmp(line + 2, "CC", 2) == 0 || memcmp(line + 2, "AS", 2) == 0)))
		bp->objects++;
	/* The log is make's, but a terminal gets only plain characters from it. */
	for (size_t i = 2; i < len && n + 1 < sizeof(bp->current); i++)
		if (line[i] >= 0x20 && line[i] < 0x7f && !(line[i] == ' ' && n && bp->current[n - 1] == ' '))
			bp->current[n++] = line[i];
	bp->current[n] = '\0';
}

static void build_tick(void *arg)
{
	struct build_progress *bp = arg;
	char buf[65536];
	int fd = open(bp->log, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return;
	while ((got = pread(fd, buf, sizeof(buf), bp->offset)) > 0) {
		char *start = buf, *nl, *end = buf + got;

		/* Whole lines only; the rest is read again next time. */
		while ((nl = memchr(start, '\n', (size_t)(end - start)))) {
			build_count_line(bp, start, (size_t)(nl - start));
			start = nl + 1;
		}
		if (start == buf)
			break;
		bp->offset += start - buf;
	}
	close(fd);
	progress_update(&bp->progress, -1, "%s: %zu objects compiled, %s", bp->variant,
			bp->objects, bp->current);
}

static int build_make(struct kernel_tree *t, struct kernel_build *b, int jobs)
{
	struct build_progress bp = { .variant = b->variant, .log = b->log };
	char *odir = xasprintf("O=%s", b->dir);
	char *jflag = xasprintf("-j%d", jobs);
	char *basedir = xasprintf("CCACHE_BASEDIR=%s", t->path);
	char *ccdir = xasprintf("CCACHE_DIR=%s/ccache", t->cache);
	const char *argv[10] = { "make", "ARCH=i386", odir, jflag, "LOCALVERSION=" };
	size_t argc = 5;
	/* A fixed identity keeps builds reproducible and ccache hits high. */
	const char *env[] = { basedir, ccdir, "KBUILD_BUILD_USER=fpubench",
			      "KBUILD_BUILD_HOST=fpubench", "KBUILD_BUILD_TIMESTAMP=2011-04-06", NULL };
	int err = 0;

	if (access("/usr/bin/ccache", X_OK) == 0)
		argv[argc++] = "CC=ccache gcc";
	for (size_t i = 0; i < BUILD_NTARGETS; i++)
		argv[argc++] = build_targets[i];
	struct stat st;
	/* The log may hold earlier steps (configuring); count from here. */
	bp.offset = stat(b->log, &st) == 0 ? st.st_size : 0;
	progress_init(&bp.progress, stderr, "building");
	struct spawn_watch watch = { .stdin_fd = -1, .tick = build_tick, .arg = &bp };
	int status = spawn_run_watched(argv, t->path, b->log, env, &watch);
	progress_end(&bp.progress);
	if (status != 0) {
		err = error_set(ERR_BUILD, "kernel build of variant '%s' failed%s; see '%s'",
				b->variant, full_note(b->dir), b->log);
		print_log_tail(b->log);
	}
	free(odir);
	free(jflag);
	free(basedir);
	free(ccdir);
	return err;
}

/* Copies the seed's directory under a temporary name first: a killed copy is never used. */
static int build_dir_seed(struct kernel_build *b, const struct kernel_build *seed)
{
	char *tmp = xasprintf("%s.tmp", b->dir);
	char *stamp = xasprintf("%s/fpubench.stamp", tmp);
	const char *rm_argv[] = { "rm", "-rf", tmp, NULL };
	const char *cp_argv[] = { "cp", "-a", seed->dir, tmp, NULL };
	int err = 0;

	if (spawn_run(rm_argv, NULL, NULL, NULL) != 0 || spawn_run(cp_argv, NULL, NULL, NULL) != 0 ||
	    (unlink(stamp) < 0 && errno != ENOENT) || rename(tmp, b->dir) < 0) {
		err = error_set(ERR_CACHE, "cannot copy build directory '%s' to '%s'%s", seed->dir,
				b->dir, full_note(tmp));
		/* A failed copy on a full disk would hold its space until the next build. */
		spawn_run(rm_argv, NULL, NULL, NULL);
	}
	free(tmp);
	free(stamp);
	return err;
}

/* The HEAD commit of a work tree taken as it is, or "" when it has none. */
static void work_tree_head(const char *path, char *hex, size_t size)
{
	git_repository *repo = NULL;
	git_oid head;

	hex[0] = '\0';
	if (git_repository_open_ext(&repo, path, 0, NULL) == 0 &&
	    git_reference_name_to_id(&head, repo, "HEAD") == 0)
		git_oid_tostr(hex, size, &head);
	git_repository_free(repo);
	error_clear();
}

int kernel_build(struct kernel_tree *t, const char *variant, const git_oid *commit,
		 const char *fragment, int jobs, const struct kernel_build *seed,
		 struct kernel_build **out)
{
	struct kernel_build *b = xcalloc(1, sizeof(*b));
	struct strbuf frag = STRBUF_INIT, id_text = STRBUF_INIT;
	char *stamp = NULL, fragment_hash[GIT_OID_HEXSZ + 1], id_hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	double start = clock_seconds();
	int err;

	b->variant = xstrdup(variant);
	b->dir = xasprintf("%s/build/%s", t->cache, variant);
	b->bzimage = xasprintf("%s/arch/x86/boot/bzImage", b->dir);
	b->log = xasprintf("%s/build.log", b->dir);
	if (commit)
		git_oid_tostr(b->commit, sizeof(b->commit), commit);
	else
		work_tree_head(t->path, b->commit, sizeof(b->commit));
	if ((err = file_read(fragment, &frag)) < 0)
		goto out;
	git_odb_hash(&oid, frag.buf, frag.len, GIT_OBJECT_BLOB);
	git_oid_tostr(fragment_hash, sizeof(fragment_hash), &oid);
	strbuf_addf(&id_text, "commit %s\nconfig %s\ntargets", b->commit, fragment_hash);
	for (size_t i = 0; i < BUILD_NTARGETS; i++)
		strbuf_addf(&id_text, " %s", build_targets[i]);
	strbuf_addch(&id_text, '\n');
	git_odb_hash(&oid, id_text.buf, id_text.len, GIT_OBJECT_BLOB);
	git_oid_tostr(id_hex, sizeof(id_hex), &oid);
	memcpy(b->build_id, id_hex, sizeof(b->build_id) - 1);

	stamp = xasprintf("%s/fpubench.stamp", b->dir);
	/* A work tree taken as it is may hold any edit: make alone can tell. */
	if (commit && file_holds(stamp, b->build_id) && file_exists(b->bzimage))
		goto out;

	b->rebuilt = true;
	fprintf(stderr, "fpubench: building variant '%s' (commit %.12s) in %s\n", variant,
		*b->commit ? b->commit : "none", b->dir);
	if (!file_exists(b->dir)) {
		if (seed && (err = build_dir_seed(b, seed)) < 0)
			goto out;
		if ((err = dir_create_mode(b->dir, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0)
			goto out;
	}
	/* Gone before the directory changes and written last, so a failed build never looks done. */
	if (unlink(stamp) < 0 && errno != ENOENT) {
		err = error_set_errno(ERR_CACHE, "cannot remove '%s'", stamp);
		goto out;
	}
	unlink(b->log);
	if ((commit && (err = tree_checkout(t, commit)) < 0) ||
	    (err = build_config(t, b, fragment, frag.buf, fragment_hash)) < 0 ||
	    (err = build_make(t, b, jobs)) < 0 ||
	    /* make reruns Kconfig when a Kconfig file changed since the configure, and may drop an option. */
	    (err = build_config_check(b, fragment, frag.buf)) < 0)
		goto out;
	err = file_write_atomic_mode(stamp, b->build_id, strlen(b->build_id), KERNEL_CACHE_FILE_MODE);
	b->seconds = clock_seconds() - start;
out:
	strbuf_release(&frag);
	strbuf_release(&id_text);
	free(stamp);
	if (err < 0) {
		kernel_build_free(b);
		return err;
	}
	*out = b;
	return 0;
}

struct kernel_build *kernel_build_existing(const struct kernel_tree *t, const char *variant)
{
	struct kernel_build *b = xcalloc(1, sizeof(*b));
	char *stamp, *source;

	b->dir = xasprintf("%s/build/%s", t->cache, variant);
	stamp = xasprintf("%s/fpubench.stamp", b->dir);
	/* Kbuild leaves a `source` link to the tree in every O= directory. */
	source = xasprintf("%s/source", b->dir);
	if (!file_exists(stamp) || !same_dir(source, t->path)) {
		kernel_build_free(b);
		b = NULL;
	}
	free(stamp);
	free(source);
	return b;
}

void kernel_build_free(struct kernel_build *b)
{
	if (!b)
		return;
	free(b->variant);
	free(b->dir);
	free(b->bzimage);
	free(b->log);
	free(b);
}
