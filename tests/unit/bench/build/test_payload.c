/* payload: the selftests' build directory, and what happens when a step of it fails. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "build/tree.h"
#include "build/payload.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	struct kernel_tree tree;
	char *path_env;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	strcpy(fx->dir, "/tmp/fpubench-test-payload.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	fx->tree.path = xasprintf("%s/linux", fx->dir);
	fx->tree.cache = xasprintf("%s/cache", fx->dir);
	for (unsigned i = 0; i < payload_selftests_count; i++) {
		char *src = xasprintf("%s/tools/testing/selftests/x86/%s.c", fx->tree.path,
				      payload_selftests[i]);
		char *dir = xstrdup(src);

		*strrchr(dir, '/') = '\0';
		assert_int_equal(dir_create(dir, ERR_GENERIC), 0);
		assert_int_equal(file_write_atomic(src, "int main(void) { return 0; }\n", 29), 0);
		free(src);
		free(dir);
	}
	fx->path_env = xstrdup(getenv("PATH"));
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *rm[] = { "rm", "-rf", fx->dir, NULL };

	setenv("PATH", fx->path_env, 1);
	assert_int_equal(spawn_run(rm, NULL, NULL, NULL), 0);
	free(fx->tree.path);
	free(fx->tree.cache);
	free(fx->path_env);
	free(fx);
	return 0;
}

/* An `rm` first in PATH that always fails, as one would on a read-only cache. */
static void failing_rm_first_in_path(struct fixture *fx)
{
	char *bin = xasprintf("%s/bin", fx->dir), *rm = xasprintf("%s/rm", bin);
	char *path = xasprintf("%s:%s", bin, fx->path_env);

	assert_int_equal(dir_create(bin, ERR_GENERIC), 0);
	assert_int_equal(file_write_atomic(rm, "#!/bin/sh\nexit 1\n", 17), 0);
	assert_int_equal(chmod(rm, 0755), 0);
	setenv("PATH", path, 1);
	free(bin);
	free(rm);
	free(path);
}

/*
 * The temporary directory cannot be cleared: that is an error, not a
 * success with a directory that does not exist.
 */
static void test_a_failed_clean_up_is_an_error(void **state)
{
	struct fixture *fx = *state;
	char *dir = NULL;

	failing_rm_first_in_path(fx);
	assert_int_equal(payload_build_selftests(&fx->tree, &dir), ERR_CACHE);
	assert_null(dir);
	assert_non_null(strstr(error_last(), "cannot clear"));
}

static void test_the_selftests_are_built_once(void **state)
{
	struct fixture *fx = *state;
	char *dir = NULL, *again = NULL;

	assert_int_equal(payload_build_selftests(&fx->tree, &dir), 0);
	assert_true(file_exists(dir));
	for (unsigned i = 0; i < payload_selftests_count; i++) {
		char *bin = xasprintf("%s/%s", dir, payload_selftests[i]);
		assert_true(file_exists(bin));
		free(bin);
	}
	/* Built already: even a broken rm is not needed again. */
	failing_rm_first_in_path(fx);
	assert_int_equal(payload_build_selftests(&fx->tree, &again), 0);
	assert_string_equal(dir, again);
	free(dir);
	free(again);
}

/* tests.list as guest-tests/Makefile writes it: a test with tags, one without, and a bad line. */
static void test_the_test_list_gives_tags_and_guards(void **state)
{
	char dir[] = "/tmp/fpubench-test-list.XXXXXX";
	static const char list[] =
		"fpu_seed\tlinux-git=f994d99cf140 function=save_fpregs_to_fpstate\tfnsave, not fsave\n"
		"not a test line\n"
		"x86_test_FCMOV\t\ttools/testing/selftests/x86/test_FCMOV.c: fcmovCC\n";
	struct payload_test *t;
	size_t n;
	char *path, *v;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(payload_read_tests(dir, &t, &n), ERR_NOTFOUND);
	assert_non_null(strstr(error_last(), "tests.list' (run make first)"));
	path = xasprintf("%s/tests.list", dir);
	assert_int_equal(file_write_atomic(path, list, sizeof(list) - 1), 0);
	assert_int_equal(payload_read_tests(dir, &t, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(t[0].name, "fpu_seed");
	assert_string_equal(t[0].guards, "fnsave, not fsave");
	assert_string_equal(v = payload_test_tag(&t[0], "linux-git"), "f994d99cf140");
	free(v);
	assert_string_equal(v = payload_test_tag(&t[0], "function"), "save_fpregs_to_fpstate");
	free(v);
	assert_string_equal(v = payload_test_tag(&t[0], "linux"), "");
	free(v);
	assert_string_equal(t[1].name, "x86_test_FCMOV");
	assert_string_equal(v = payload_test_tag(&t[1], "linux-git"), "");
	free(v);
	payload_tests_free(t, n);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_failed_clean_up_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_selftests_are_built_once, setup, teardown),
		cmocka_unit_test(test_the_test_list_gives_tags_and_guards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
