/*
 * The cache's kernel trees (kernel_tree_open(), tarball_extract(),
 * cache_lock(), version_parse()) on the miniature tarball (test_tree_fixture.h):
 * extraction into a cache entry keyed by the tree's version, the old
 * layout's migration, the pristine commit, patches as commits, the
 * applied-patch cache, the cache lock, damaged trees and full disks, and
 * trees the bench refuses.  Builds are test_kbuild.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/clock.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "build/apply.h"
#include "build/kbuild.h"
#include "build/tree.h"
#include "lib/strlist.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "test_fsize.h"
#include "test_tree_fixture.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_pristine_commit_keeps_ignored_files(void **state)
{
	struct fixture *fx = *state;
	char *text = blob_at(fx->tree->repo, &fx->tree->base, "generated.h");

	assert_non_null(text);
	assert_string_equal(text, "x\n");
	free(text);
}

static void test_mail_patch_becomes_commit_with_its_author(void **state)
{
	struct fixture *fx = *state;
	git_oid oid, again;
	git_commit *commit;

	assert_int_equal(apply_patch_file(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/fsave-regression.mbox", NULL, &oid), 0);
	assert_int_equal(git_commit_lookup(&commit, fx->tree->repo, &oid), 0);
	assert_string_equal(git_commit_author(commit)->name, "fpubench maintainers");
	assert_int_equal(git_commit_author(commit)->when.time, 1796288400);
	assert_string_equal(git_commit_summary(commit),
			    "x86/fpu: Save the legacy x87 state with the waiting fsave again");
	assert_non_null(strstr(git_commit_message(commit), "58a992b9cbaf"));
	git_commit_free(commit);

	char *text = blob_at(fx->tree->repo, &oid, CORE_C);
	assert_non_null(strstr(text, "asm volatile(\"fsave %[fp]; fwait\""));
	free(text);

	/* The same patch on the same parent is remembered, not applied twice. */
	assert_int_equal(apply_patch_file(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/fsave-regression.mbox", NULL, &again), 0);
	assert_true(git_oid_equal(&oid, &again));
}

static void test_plain_and_git_diffs_give_the_same_tree(void **state)
{
	struct fixture *fx = *state;
	git_oid a, b;

	assert_int_equal(apply_patch_file(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/fsave-regression.diff", NULL, &a), 0);
	assert_int_equal(apply_patch_file(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/fsave-regression.plain.diff", NULL, &b), 0);
	char *ta = blob_at(fx->tree->repo, &a, CORE_C), *tb = blob_at(fx->tree->repo, &b, CORE_C);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
}

static void test_patch_that_does_not_apply_names_file(void **state)
{
	struct fixture *fx = *state;
	git_oid oid;

	assert_int_equal(apply_patch_file(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/does-not-apply.patch", NULL, &oid), ERR_APPLY);
	assert_non_null(strstr(error_last(),
			       "cannot apply patch 'tests/fixtures/patches/does-not-apply.patch' to '" CORE_C "'"));
}

/* The index.lock a killed bench left in the cache's tree goes at the next open; a user's stays. */
static void test_stale_index_lock_is_removed(void **state)
{
	struct fixture *fx = *state;
	char *lock = xasprintf("%s/trees/debian-6.1.192/.git/index.lock", fx->cache);
	char *theirs = xasprintf("%s/linux-source-6.1/.git", fx->dir);
	char *their_lock = xasprintf("%s/index.lock", theirs);
	struct kernel_tree *t = NULL;

	kernel_tree_free(fx->tree);
	fx->tree = NULL;
	assert_int_equal(file_write_atomic(lock, "", 0), 0);
	assert_int_equal(kernel_tree_open(&fx->tree, fx->cache, fx->tarball), 0);
	assert_false(file_exists(lock));

	kernel_tree_free(fx->tree);
	fx->tree = NULL;
	assert_int_equal(dir_create(theirs, ERR_GENERIC), 0);
	assert_int_equal(file_write_atomic(their_lock, "", 0), 0);
	char *dir = xasprintf("%s/linux-source-6.1", fx->dir);
	assert_int_equal(kernel_tree_open_dir(&t, fx->cache, dir), 0);
	assert_true(file_exists(their_lock));
	kernel_tree_free(t);
	free(dir);
	free(lock);
	free(theirs);
	free(their_lock);
}

static void test_missing_tarball(void **state)
{
	struct fixture *fx = *state;
	struct kernel_tree *t = NULL;
	char *cache = xasprintf("%s/other-cache", fx->dir);

	assert_int_equal(kernel_tree_open(&t, cache, "/nonexistent/linux.tar.xz"), ERR_NOTFOUND);
	assert_non_null(strstr(error_last(), "'/nonexistent/linux.tar.xz'"));
	assert_null(t);
	free(cache);
}

/* A child that holds the cache's lock; it says so on the pipe, then sleeps `hold_ms` (0: until killed). */
static pid_t lock_holder_start(const struct fixture *fx, const char *cache, int hold_ms)
{
	int ready[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct kernel_tree *t;

		close(ready[0]);
		if (kernel_tree_open_dir(&t, cache, fx->src) < 0 || write(ready[1], "x", 1) != 1)
			_exit(1);
		if (!hold_ms)
			for (;;)
				pause();
		usleep(hold_ms * 1000);
		kernel_tree_free(t);
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

static void test_cache_lock_waits_for_holder(void **state)
{
	struct fixture *fx = *state;
	char *cache = xasprintf("%s/lock-cache", fx->dir), *lock = xasprintf("%s/lock", cache);
	struct kernel_tree *t = NULL;
	struct capture cap;
	int status;

	pid_t pid = lock_holder_start(fx, cache, 500);
	capture_start(&cap, fx);
	double start = clock_seconds();
	int err = kernel_tree_open_dir(&t, cache, fx->src);
	double waited = clock_seconds() - start;
	char *said = capture_end(&cap);

	assert_int_equal(err, 0);
	assert_true(waited > 0.3);
	char *want = xasprintf("fpubench: waiting for the cache lock on '%s' (held by pid %ld)\n", lock,
			       (long)pid);
	assert_string_equal(said, want);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* The lock now names this process, for the next one to wait. */
	struct strbuf sb = STRBUF_INIT;
	char *mine = xasprintf("%ld\n", (long)getpid());
	assert_int_equal(file_read(lock, &sb), 0);
	assert_string_equal(sb.buf, mine);
	assert_int_equal(mode_of(lock), KERNEL_CACHE_FILE_MODE);
	kernel_tree_free(t);
	strbuf_release(&sb);
	free(mine);
	free(want);
	free(said);
	free(lock);
	free(cache);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_cache_lock_wait_is_interrupted(void **state)
{
	struct fixture *fx = *state;
	char *cache = xasprintf("%s/lock-cache-int", fx->dir);
	/* As main() installs its SIGINT and SIGTERM handlers: no SA_RESTART. */
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval timer = { .it_value = { .tv_usec = 200 * 1000 } };
	struct kernel_tree *t = NULL;
	struct capture cap;
	int status;

	pid_t pid = lock_holder_start(fx, cache, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &timer, NULL);
	capture_start(&cap, fx);
	int err = kernel_tree_open_dir(&t, cache, fx->src);
	free(capture_end(&cap));
	sigaction(SIGALRM, &old, NULL);

	assert_int_equal(err, ERR_INTERRUPTED);
	assert_null(t);
	assert_non_null(strstr(error_last(), "interrupted while waiting for the cache lock on '"));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	free(cache);
}

struct open_args {
	const char *cache;
	const char *tarball;
};

static int open_tree(void *arg)
{
	const struct open_args *a = arg;
	struct kernel_tree *t = NULL;
	int err = kernel_tree_open(&t, a->cache, a->tarball);

	kernel_tree_free(t);
	return err;
}

/* Neither the tree nor its temporary directory: the next run extracts afresh. */
static void assert_no_tree(const char *cache)
{
	char *tree = xasprintf("%s/trees/debian-6.1.192", cache), *tmp = xasprintf("%s/trees/debian-6.1.192.tmp", cache);

	assert_false(file_exists(tree));
	assert_false(file_exists(tmp));
	free(tree);
	free(tmp);
}

static void test_extract_on_full_disk_leaves_no_tree(void **state)
{
	struct fixture *fx = *state;
	char *src = xasprintf("%s/big", fx->dir), *big = xasprintf("%s/big/linux-source-6.1/big.bin", fx->dir);
	char *tarball = xasprintf("%s/big.tar.xz", fx->dir), *cache = xasprintf("%s/full-cache", fx->dir);
	char *log = xasprintf("%s/extract.log", cache), *zeros = calloc(1, 256 * 1024), msg[1024];
	const char *cp[] = { "cp", "-a", fx->dir, src, NULL };
	struct open_args a = { cache, tarball };
	struct strbuf sb = STRBUF_INIT;
	struct capture cap;

	/* The tree and a file bigger than the child may write. */
	assert_int_equal(dir_create(src, ERR_GENERIC), 0);
	cp[2] = xasprintf("%s/linux-source-6.1", fx->dir);
	assert_int_equal(spawn_run(cp, NULL, NULL, NULL), 0);
	assert_int_equal(file_write_atomic(big, zeros, 256 * 1024), 0);
	const char *tar[] = { "tar", "-cJf", tarball, "-C", src, "linux-source-6.1", NULL };
	assert_int_equal(spawn_run(tar, NULL, NULL, NULL), 0);

	assert_int_equal(fsize_run(64 * 1024, open_tree, &a, msg, sizeof(msg)), ERR_CACHE);
	char *want = xasprintf("cannot extract '%s' into '%s/trees/debian-6.1.192.tmp'; see '%s'", tarball, cache, log);
	assert_string_equal(msg, want);
	assert_int_equal(file_read(log, &sb), 0);
	/* tar says "Wrote only N of M bytes": the log names the file it could not write. */
	assert_non_null(strstr(sb.buf, "big.bin"));
	assert_no_tree(cache);

	/* With room again, the next run extracts it whole. */
	capture_start(&cap, fx);
	assert_int_equal(open_tree(&a), 0);
	free(capture_end(&cap));
	strbuf_release(&sb);
	free((char *)cp[2]);
	free(want);
	free(zeros);
	free(log);
	free(cache);
	free(tarball);
	free(big);
	free(src);
}

static void test_truncated_tarball_leaves_no_tree(void **state)
{
	struct fixture *fx = *state;
	char *tarball = xasprintf("%s/truncated.tar.xz", fx->dir), *cache = xasprintf("%s/trunc-cache", fx->dir);
	struct open_args a = { cache, tarball };
	struct strbuf sb = STRBUF_INIT;
	struct capture cap;

	assert_int_equal(file_read(fx->tarball, &sb), 0);
	assert_int_equal(file_write_atomic(tarball, sb.buf, sb.len / 2), 0);
	capture_start(&cap, fx);
	int err = open_tree(&a);
	free(capture_end(&cap));
	/* Cut before its top Makefile: it names no version, so nothing is extracted. */
	assert_int_equal(err, ERR_INPUT);
	assert_non_null(strstr(error_last(), "has no top Makefile: not a kernel tarball, or a damaged one"));
	assert_no_tree(cache);

	a.tarball = fx->tarball;
	capture_start(&cap, fx);
	assert_int_equal(open_tree(&a), 0);
	free(capture_end(&cap));
	strbuf_release(&sb);
	free(cache);
	free(tarball);
}

/* Opens the cache as a new run would, and returns what it said. */
static char *reopen(const struct fixture *fx, const char *cache, const char *tarball, int want_err,
		    git_oid *base)
{
	struct kernel_tree *t = NULL;
	struct capture cap;

	capture_start(&cap, fx);
	int err = kernel_tree_open(&t, cache, tarball);
	char *said = capture_end(&cap);
	assert_int_equal(err, want_err);
	if (t)
		git_oid_cpy(base, &t->base);
	kernel_tree_free(t);
	return said;
}

static void test_damaged_tree_is_extracted_again(void **state)
{
	struct fixture *fx = *state;
	char *cache = xasprintf("%s/damaged-cache", fx->dir), *tree = xasprintf("%s/trees/debian-6.1.192", cache);
	char *ref = xasprintf("%s/.git/refs/fpubench/base", tree), *aside = xasprintf("%s.damaged", tree);
	char *gitdir = xasprintf("%s/.git", tree);
	char *damaged = xasprintf("fpubench: kernel tree '%s' is damaged (", tree);
	const char *rm[] = { "rm", "-rf", gitdir, NULL };
	mode_t old_umask = umask(022);
	git_oid base, again;

	free(reopen(fx, cache, fx->tarball, 0, &base));
	assert_int_equal(mode_of(cache), KERNEL_CACHE_DIR_MODE);
	assert_int_equal(mode_of(tree), KERNEL_CACHE_DIR_MODE);
	umask(old_umask);

	/* The base ref is written last: without it the tree is not complete. */
	assert_int_equal(unlink(ref), 0);
	char *said = reopen(fx, cache, fx->tarball, 0, &again);
	assert_non_null(strstr(said, damaged));
	assert_non_null(strstr(said, "; extracting it again\n"));
	assert_true(git_oid_equal(&base, &again));
	assert_false(file_exists(aside));
	free(said);

	/* A tree with no repository at all, as one extracted in place and killed. */
	assert_int_equal(spawn_run(rm, NULL, NULL, NULL), 0);
	said = reopen(fx, cache, fx->tarball, 0, &again);
	assert_non_null(strstr(said, damaged));
	assert_true(git_oid_equal(&base, &again));
	free(said);

	/* With no tarball to name its version the tree stays untouched. */
	assert_int_equal(unlink(ref), 0);
	free(reopen(fx, cache, "/nonexistent/linux.tar.xz", ERR_NOTFOUND, &again));
	assert_string_equal(error_last(), "kernel tarball '/nonexistent/linux.tar.xz' is missing");
	assert_true(file_exists(tree));

	free(damaged);
	free(gitdir);
	free(aside);
	free(ref);
	free(tree);
	free(cache);
}

static void test_version_parse(void **state)
{
	char v[64];

	(void)state;
	const char *mk = "# SPDX\nVERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\nEXTRAVERSION =\nNAME = x\n";
	assert_int_equal(version_parse("m", mk, strlen(mk), v, sizeof(v)), 0);
	assert_string_equal(v, "6.12.118");
	const char *rc = "VERSION = 7\r\nPATCHLEVEL = 1\r\nSUBLEVEL = 0\r\nEXTRAVERSION = -rc3\r\n";
	assert_int_equal(version_parse("m", rc, strlen(rc), v, sizeof(v)), 0);
	assert_string_equal(v, "7.1.0-rc3");
	const char *none = "all:\n\ttrue\n";
	assert_int_equal(version_parse("/tmp/x", none, strlen(none), v, sizeof(v)), ERR_INPUT);
	assert_string_equal(error_last(), "'/tmp/x' is not a kernel tree: its Makefile gives no VERSION, PATCHLEVEL and SUBLEVEL");
	const char *odd = "VERSION = 6\nPATCHLEVEL = 1$(x)\nSUBLEVEL = 1\n";
	assert_int_equal(version_parse("m", odd, strlen(odd), v, sizeof(v)), ERR_INPUT);
	/* A series is what a tarball's tree keeps, whatever its stable release or rc. */
	const char *series[][2] = {
		{ "6.12.118", "6.12" }, { "7.1.0-rc3", "7.1" }, { "6.1.0", "6.1" }, { "6", "6" }, { "", "" },
	};
	for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
		version_series(series[i][0], v, sizeof(v));
		assert_string_equal(v, series[i][1]);
	}
	version_series("6.12.118", v, 3);
	assert_string_equal(v, "6.");
	assert_int_equal(version_check("t", "5.10.0"), 0);
	assert_int_equal(version_check("t", "6.1.192"), 0);
	assert_int_equal(version_check("t", "5.4.250"), ERR_INPUT);
	assert_string_equal(error_last(), "kernel tree 't' is Linux 5.4.250, older than 5.10, the oldest fpubench builds");
	assert_int_equal(version_check("t", "4.19.0"), ERR_INPUT);
}

/* A copy of the fixture's source tree under another name, with `edit` run in it by sh. */
static char *source_copy(const struct fixture *fx, const char *name, const char *edit)
{
	char *dir = xasprintf("%s/%s", fx->dir, name);
	const char *cp[] = { "cp", "-a", fx->src, dir, NULL };
	const char *sh[] = { "sh", "-c", edit, NULL };

	assert_int_equal(spawn_run(cp, NULL, NULL, NULL), 0);
	assert_int_equal(spawn_run(sh, dir, NULL, NULL), 0);
	return dir;
}

/* `test --tree` on what the bench cannot build: refused before anything else, never 125. */
static void test_tree_dir_refused(void **state)
{
	struct fixture *fx = *state;
	char *cache = xasprintf("%s/dir-cache", fx->dir);
	char *plain = source_copy(fx, "plain", "rm Makefile");
	char *old = source_copy(fx, "old", "sed -i 's/^VERSION = 6/VERSION = 4/' Makefile");
	char *arm = source_copy(fx, "arm", "rm -r arch/x86");
	/* A Makefile that cannot be read (root reads any file, not a directory). */
	char *unreadable = source_copy(fx, "unreadable", "rm Makefile && mkdir Makefile");
	struct kernel_tree *t = NULL;

	assert_int_equal(kernel_tree_open_dir(&t, cache, plain), ERR_NOTFOUND);
	char *want = xasprintf("'%s' is not a kernel tree: it has no Makefile", plain);
	assert_string_equal(error_last(), want);
	free(want);
	assert_int_equal(kernel_tree_open_dir(&t, cache, unreadable), ERR_GENERIC);
	want = xasprintf("cannot read '%s/Makefile': Is a directory", unreadable);
	assert_string_equal(error_last(), want);
	free(want);
	assert_int_equal(kernel_tree_open_dir(&t, cache, old), ERR_INPUT);
	assert_non_null(strstr(error_last(), "is Linux 4.1.192, older than 5.10"));
	assert_int_equal(kernel_tree_open_dir(&t, cache, arm), ERR_INPUT);
	assert_non_null(strstr(error_last(), "(Linux 6.1.192) has no arch/x86/Kconfig.cpu"));
	assert_null(t);
	assert_int_equal(kernel_tree_open_dir(&t, cache, fx->src), 0);
	assert_string_equal(t->version, "6.1.192");
	kernel_tree_free(t);
	free(cache);
	free(plain);
	free(old);
	free(arm);
	free(unreadable);
}

/* A tarball of the fixture's tree made to say another version. */
static char *tarball_of_version(const struct fixture *fx, const char *patchlevel)
{
	char *edit = xasprintf("sed -i 's/^PATCHLEVEL = 1$/PATCHLEVEL = %s/' Makefile", patchlevel);
	char *name = xasprintf("v%s/linux-source-6.%s", patchlevel, patchlevel);
	char *parent = xasprintf("%s/v%s", fx->dir, patchlevel);
	char *tarball = xasprintf("%s/linux-source-6.%s.tar.xz", fx->dir, patchlevel);
	char *top = strrchr(name, '/') + 1;

	assert_int_equal(dir_create(parent, ERR_GENERIC), 0);
	free(source_copy(fx, name, edit));
	const char *tar[] = { "tar", "-cJf", tarball, "-C", parent, top, NULL };
	assert_int_equal(spawn_run(tar, NULL, NULL, NULL), 0);
	free(edit);
	free(name);
	free(parent);
	return tarball;
}

/* Two tarballs, one cache: each has its own tree, named and checked by its version. */
static void test_trees_keyed_by_version(void **state)
{
	struct fixture *fx = *state;
	char *t12 = tarball_of_version(fx, "12");
	struct kernel_tree *a = NULL, *b = NULL;
	struct capture cap;
	git_oid base;

	kernel_tree_free(fx->tree);
	fx->tree = NULL;
	capture_start(&cap, fx);
	assert_int_equal(kernel_tree_open(&b, fx->cache, t12), 0);
	free(capture_end(&cap));
	assert_string_equal(b->version, "6.12.192");
	assert_string_equal(b->key, "debian-6.12.192");
	char *want = xasprintf("%s/trees/debian-6.12.192", fx->cache);
	assert_string_equal(b->path, want);
	free(want);
	kernel_tree_free(b);
	b = NULL;
	assert_int_equal(kernel_tree_open(&a, fx->cache, fx->tarball), 0);
	assert_string_equal(a->version, "6.1.192");
	git_oid_cpy(&base, &a->base);
	kernel_tree_free(a);
	a = NULL;

	/* A cached tree that is not the version its name says is refused, nothing touched. */
	char *t61 = xasprintf("%s/trees/debian-6.1.192", fx->cache), *t612 = xasprintf("%s/trees/debian-6.12.192", fx->cache);
	char *aside = xasprintf("%s.aside", t612);
	assert_int_equal(rename(t612, aside), 0);
	assert_int_equal(rename(t61, t612), 0);
	assert_int_equal(kernel_tree_open(&b, fx->cache, t12), ERR_CACHE);
	want = xasprintf("cached kernel tree '%s' holds Linux 6.1.192, not Linux 6.12.192 of '%s'; remove it",
			 t612, t12);
	assert_string_equal(error_last(), want);
	assert_true(file_exists(t612));
	assert_int_equal(rename(t612, t61), 0);
	assert_int_equal(rename(aside, t612), 0);
	assert_int_equal(kernel_tree_open(&fx->tree, fx->cache, fx->tarball), 0);
	free(want);
	free(t61);
	free(t612);
	free(aside);
	free(t12);
}

/* The old layout's unkeyed <cache>/linux-6.1 moves to its keyed name, with its builds. */
static void test_old_layout_is_migrated(void **state)
{
	struct fixture *fx = *state;
	char *frag = fragment_path(fx, "m.config", "CONFIG_X86_32=y\n");
	char *keyed = xasprintf("%s/trees/debian-6.1.192", fx->cache), *old = xasprintf("%s/linux-6.1", fx->cache);
	char *build_keyed = xasprintf("%s/build/debian-6.1.192/old", fx->cache);
	char *build_old = xasprintf("%s/build/old", fx->cache), *link = xasprintf("%s/source", build_old);
	struct kernel_build *b = NULL;
	struct capture cap;
	git_oid base;

	assert_int_equal(build(fx, "old", frag, &b), 0);
	kbuild_free(b);
	git_oid_cpy(&base, &fx->tree->base);
	kernel_tree_free(fx->tree);
	fx->tree = NULL;
	/* As the old layout had them: the tree, and a build whose `source` names it. */
	assert_int_equal(rename(keyed, old), 0);
	assert_int_equal(rename(build_keyed, build_old), 0);
	assert_int_equal(symlink(old, link), 0);

	capture_start(&cap, fx);
	int err = kernel_tree_open(&fx->tree, fx->cache, fx->tarball);
	char *said = capture_end(&cap);
	assert_int_equal(err, 0);
	char *want = xasprintf("fpubench: moved '%s' (Linux 6.1.192) to '%s'\n", old, keyed);
	assert_string_equal(said, want);
	assert_false(file_exists(old));
	assert_true(git_oid_equal(&base, &fx->tree->base));
	assert_true(file_exists(build_keyed));
	assert_false(file_exists(build_old));
	free(want);
	free(said);
	free(frag);
	free(keyed);
	free(old);
	free(build_keyed);
	free(build_old);
	free(link);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pristine_commit_keeps_ignored_files),
		cmocka_unit_test(test_mail_patch_becomes_commit_with_its_author),
		cmocka_unit_test(test_plain_and_git_diffs_give_the_same_tree),
		cmocka_unit_test(test_patch_that_does_not_apply_names_file),
		cmocka_unit_test(test_missing_tarball),
		cmocka_unit_test_setup_teardown(test_stale_index_lock_is_removed, setup, teardown),
		cmocka_unit_test(test_cache_lock_waits_for_holder),
		cmocka_unit_test(test_cache_lock_wait_is_interrupted),
		cmocka_unit_test(test_extract_on_full_disk_leaves_no_tree),
		cmocka_unit_test(test_truncated_tarball_leaves_no_tree),
		cmocka_unit_test(test_damaged_tree_is_extracted_again),
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_tree_dir_refused),
		cmocka_unit_test(test_trees_keyed_by_version),
		cmocka_unit_test(test_old_layout_is_migrated),
	};
	int failed;

	git_libgit2_init();
	failed = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return failed;
}
