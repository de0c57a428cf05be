/*
 * The cache's work trees of a user's repository (kernel_tree_open_repo()),
 * checked against the repository found at its path at every open: a
 * re-clone at the same path, and a history rewritten and pruned by
 * `git gc`, on small repositories that real git makes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "build/apply.h"
#include "build/tree.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	char *upstream;	/* what the user clones */
	char *repo;	/* the user's repository */
	char *cache;
	char *out;	/* what git printed last */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	strcpy(fx->dir, "/tmp/fpubench-test-tree.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	fx->upstream = xasprintf("%s/upstream", fx->dir);
	fx->repo = xasprintf("%s/linux", fx->dir);
	fx->cache = xasprintf("%s/cache", fx->dir);
	fx->out = xasprintf("%s/git.out", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *rm[] = { "rm", "-rf", fx->dir, NULL };

	spawn_run(rm, NULL, NULL, NULL);
	free(fx->upstream);
	free(fx->repo);
	free(fx->cache);
	free(fx->out);
	free(fx);
	return 0;
}

/* Runs git in the repository dir; its first line of output is the result. */
static void git(struct fixture *fx, const char *dir, const char *const *args, git_oid *out)
{
	const char *argv[16] = { "git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", dir };
	size_t n = 7;
	struct strbuf text = STRBUF_INIT;

	for (; *args; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	unlink(fx->out);
	assert_int_equal(spawn_run(argv, NULL, fx->out, NULL), 0);
	if (out) {
		assert_int_equal(file_read(fx->out, &text), 0);
		assert_true(text.len >= GIT_OID_HEXSZ);
		text.buf[GIT_OID_HEXSZ] = '\0';
		assert_int_equal(git_oid_fromstr(out, text.buf), 0);
	}
	strbuf_release(&text);
}

/* A commit of the file f holding text, on the branch checked out in dir. */
static void commit(struct fixture *fx, const char *dir, const char *text, git_oid *out)
{
	char *f = xasprintf("%s/f", dir);

	assert_int_equal(file_write_atomic(f, text, strlen(text)), 0);
	git(fx, dir, (const char *const[]){ "add", "f", NULL }, NULL);
	git(fx, dir, (const char *const[]){ "commit", "-q", "-m", text, NULL }, NULL);
	git(fx, dir, (const char *const[]){ "rev-parse", "HEAD", NULL }, out);
	free(f);
}

/* dir removed and made a new repository. */
static void rm_init(const char *dir)
{
	const char *rm[] = { "rm", "-rf", dir, NULL };
	const char *init[] = { "git", "init", "-q", dir, NULL };

	assert_int_equal(spawn_run(rm, NULL, NULL, NULL), 0);
	assert_int_equal(spawn_run(init, NULL, NULL, NULL), 0);
}

/* Upstream starts again with one commit of text (another repository at its path). */
static void upstream_new(struct fixture *fx, const char *text, git_oid *out)
{
	rm_init(fx->upstream);
	commit(fx, fx->upstream, text, out);
}

/* The user's repository deleted and cloned again from upstream at the same path. */
static void clone_again(struct fixture *fx)
{
	const char *rm[] = { "rm", "-rf", fx->repo, NULL };
	const char *clone[] = { "git", "clone", "-q", fx->upstream, fx->repo, NULL };

	assert_int_equal(spawn_run(rm, NULL, NULL, NULL), 0);
	assert_int_equal(spawn_run(clone, NULL, NULL, NULL), 0);
}

/*
 * Opens the cache's work tree of the repository, checks commit out and
 * checks that f holds want there, and whether the open said it made the
 * work tree again.
 */
static void check_reads(struct fixture *fx, const git_oid *commit, const char *want, bool remade)
{
	char *said = xasprintf("%s/stderr", fx->dir), *f;
	struct strbuf text = STRBUF_INIT, err_text = STRBUF_INIT;
	struct kernel_tree *t;
	int saved, fd = open(said, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	int err = kernel_tree_open_repo(&t, fx->cache, fx->repo);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	assert_int_equal(err, 0);
	assert_int_equal(file_read(said, &err_text), 0);
	assert_int_equal(strstr(err_text.buf, "no longer holds") != NULL, remade);
	if (apply_checkout(t, commit) < 0)
		fail_msg("%s", error_last());
	f = xasprintf("%s/f", t->path);
	assert_int_equal(file_read(f, &text), 0);
	assert_string_equal(text.buf, want);
	free(f);
	free(said);
	strbuf_release(&text);
	strbuf_release(&err_text);
	kernel_tree_free(t);
}

/* The case: bisect a clone, delete it, clone again at the same path, bisect again. */
static void test_reclone_at_the_same_path(void **state)
{
	struct fixture *fx = *state;
	git_oid first, second;

	upstream_new(fx, "first\n", &first);
	clone_again(fx);
	check_reads(fx, &first, "first\n", false);
	/* The same history cloned again holds what the work tree is at: it stays. */
	clone_again(fx);
	check_reads(fx, &first, "first\n", false);
	/* Another history at the same path: the work tree is made again, once. */
	upstream_new(fx, "second\n", &second);
	clone_again(fx);
	check_reads(fx, &second, "second\n", true);
	check_reads(fx, &second, "second\n", false);
}

/* A force-push and a gc take away the commit the work tree was at. */
static void test_commit_pruned_by_gc(void **state)
{
	struct fixture *fx = *state;
	git_oid one, two;

	upstream_new(fx, "one\n", &one);
	clone_again(fx);
	commit(fx, fx->repo, "two\n", &two);
	check_reads(fx, &two, "two\n", false);
	git(fx, fx->repo, (const char *const[]){ "reset", "-q", "--hard", "HEAD^", NULL }, NULL);
	git(fx, fx->repo, (const char *const[]){ "reflog", "expire", "--expire=now", "--all", NULL }, NULL);
	git(fx, fx->repo, (const char *const[]){ "gc", "-q", "--prune=now", NULL }, NULL);
	check_reads(fx, &one, "one\n", true);
}

/* A repository that is no longer there is the user's error, named as they gave it. */
static void test_repository_gone(void **state)
{
	struct fixture *fx = *state;
	struct kernel_tree *t = NULL;
	git_oid one;

	upstream_new(fx, "one\n", &one);
	clone_again(fx);
	check_reads(fx, &one, "one\n", false);
	const char *rm[] = { "rm", "-rf", fx->repo, NULL };
	assert_int_equal(spawn_run(rm, NULL, NULL, NULL), 0);
	assert_int_equal(kernel_tree_open_repo(&t, fx->cache, fx->repo), ERR_INPUT);
	assert_non_null(strstr(error_last(), fx->repo));
	error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reclone_at_the_same_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_pruned_by_gc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repository_gone, setup, teardown),
	};
	int failed;

	git_libgit2_init();
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return failed;
}
