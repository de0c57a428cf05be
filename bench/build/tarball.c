#include "tarball.h"

#include "kbuild.h"
#include "tree.h"

#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/notice.h"
#include "lib/progress.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

	for (size_t i = 0; i < ARRAY_SIZE(filters); i++) {
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

int tarball_extract(struct kernel_tree *t, const char *tarball)
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
				kbuild_full_note(tmp), log);
		kbuild_print_log_tail(log);
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
	if (git_reference_create(&ref, repo, TREE_BASE_REF, &base, 1, "fpubench: pristine tree") < 0) {
		err = error_set(ERR_GENERIC, "cannot create '%s': %s", TREE_BASE_REF, gitutil_error());
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

int tarball_version(const struct kernel_tree *t, const char *tarball, char **out)
{
	char *abs = path_absolute(tarball), hex[17];
	char *dir = xasprintf("%s/trees/tarballs", t->cache), *memo, *stamp, *tmp;
	const char *tar_argv[] = { "tar", "-x", tar_filter(tarball), "-O", "-f", abs, "--wildcards",
				   "--no-wildcards-match-slash", "--occurrence=1", "*/Makefile", NULL };
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	int err;

	gitutil_path_key(abs, hex, sizeof(hex));
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
	if ((err = version_parse(tarball, text.buf, text.len, version, sizeof(version))) < 0)
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
