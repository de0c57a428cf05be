/*
 * Where the binary finds its data: an installed tree (also moved, as a
 * DESTDIR install is), a build tree, both, neither; and the user's XDG
 * directories.  The layouts are built in a temporary directory from the
 * relative paths the Makefile compiles into runtime.o (RUNTIME_*).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/runtime.h"
#include "lib/spawn.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fixture {
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	strcpy(fx->dir, "/tmp/fpubench-test-runtime.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *rm[] = { "rm", "-rf", fx->dir, NULL };

	spawn_run(rm, NULL, NULL, NULL);
	free(fx);
	return 0;
}

/* Creates the file at dir/rel and its directories. */
static void touch(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);
	char *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(dir_create(path, ERR_GENERIC), 0);
	*slash = '/';
	assert_int_equal(file_write_atomic(path, "", 0), 0);
	free(path);
}

/* An installed tree under root: root/bin/fpubench and its data. */
static void make_installed(const char *root)
{
	char *bin = xasprintf("%s/bin", root);

	assert_int_equal(dir_create(bin, ERR_GENERIC), 0);
	touch(bin, RUNTIME_INSTALL_DATA "/fpubench.conf");
	touch(bin, RUNTIME_INSTALL_DATA "/patches/series");
	touch(bin, RUNTIME_INSTALL_DATA "/guest/init");
	touch(bin, RUNTIME_INSTALL_DATA "/kmod/Kbuild");
	free(bin);
}

/* The canonical path of dir/rel, which exists. */
static char *canonical(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);
	char *real = realpath(path, NULL);

	assert_non_null(real);
	free(path);
	return real;
}

/* Where `what` is for the executable `exe`, from the layout's directory `bin` (rel from it). */
static void assert_data(const char *exe, enum runtime_data what, const char *bin, const char *rel)
{
	char *want = canonical(bin, rel);
	char *got;

	assert_int_equal(runtime_data_path_for(&got, exe, what), 0);
	assert_string_equal(got, want);
	/* Canonical: no "bin/.." in a path a user reads in a message. */
	assert_null(strstr(got, "/../"));
	free(got);
	free(want);
}

static void assert_installed(const char *root)
{
	char *bin = xasprintf("%s/bin", root);
	char *exe = xasprintf("%s/fpubench", bin);

	assert_data(exe, RUNTIME_SERIES, bin, RUNTIME_INSTALL_DATA "/patches");
	assert_data(exe, RUNTIME_CONF, bin, RUNTIME_INSTALL_DATA "/fpubench.conf");
	assert_data(exe, RUNTIME_GUEST, bin, RUNTIME_INSTALL_DATA "/guest");
	assert_data(exe, RUNTIME_KMOD, bin, RUNTIME_INSTALL_DATA "/kmod");
	free(exe);
	free(bin);
}

static void test_installed(void **state)
{
	struct fixture *fx = *state;
	char *root = xasprintf("%s/usr", fx->dir);

	make_installed(root);
	assert_installed(root);
	free(root);
}

/* A DESTDIR install copied elsewhere finds its data where it now is. */
static void test_moved_install(void **state)
{
	struct fixture *fx = *state;
	char *from = xasprintf("%s/destdir/usr", fx->dir);
	char *to = xasprintf("%s/moved", fx->dir);
	char *exe = xasprintf("%s/bin/fpubench", from);
	char *got;

	make_installed(from);
	assert_int_equal(rename(from, to), 0);
	assert_installed(to);
	assert_int_equal(runtime_data_path_for(&got, exe, RUNTIME_SERIES), ERR_NOTFOUND);
	assert_null(got);
	free(exe);
	free(to);
	free(from);
}

/* The build tree: BUILD/obj/fpubench beside the checkout it was built from. */
static void make_build_tree(const char *src)
{
	char *obj = xasprintf("%s/build/obj", src);

	assert_int_equal(dir_create(obj, ERR_GENERIC), 0);
	touch(obj, RUNTIME_BUILD_SRC "/bench/fpubench.conf");
	touch(obj, RUNTIME_BUILD_SRC "/patches/series");
	touch(obj, RUNTIME_BUILD_SRC "/guest-tests/kmod/Kbuild");
	touch(obj, RUNTIME_BUILD_GUEST "/init");
	free(obj);
}

static void test_build_tree(void **state)
{
	struct fixture *fx = *state;
	char *src = xasprintf("%s/src", fx->dir);
	char *obj = xasprintf("%s/build/obj", src);
	char *exe = xasprintf("%s/fpubench", obj);

	make_build_tree(src);
	assert_data(exe, RUNTIME_SERIES, obj, RUNTIME_BUILD_SRC "/patches");
	assert_data(exe, RUNTIME_CONF, obj, RUNTIME_BUILD_SRC "/bench/fpubench.conf");
	assert_data(exe, RUNTIME_GUEST, obj, RUNTIME_BUILD_GUEST);
	assert_data(exe, RUNTIME_KMOD, obj, RUNTIME_BUILD_SRC "/guest-tests/kmod");
	free(exe);
	free(obj);
	free(src);
}

/* A guest not built yet is still named, for the error that says to build it. */
static void test_build_tree_without_guest(void **state)
{
	struct fixture *fx = *state;
	char *obj = xasprintf("%s/build/obj", fx->dir);
	char *exe = xasprintf("%s/fpubench", obj);
	char *want = xasprintf("%s/%s", obj, RUNTIME_BUILD_GUEST);
	char *got;

	assert_int_equal(dir_create(obj, ERR_GENERIC), 0);
	touch(obj, RUNTIME_BUILD_SRC "/bench/fpubench.conf");
	assert_int_equal(runtime_data_path_for(&got, exe, RUNTIME_GUEST), 0);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(exe);
	free(obj);
}

/* An installed tree wins over a checkout that happens to sit where a build tree would. */
static void test_installed_first(void **state)
{
	struct fixture *fx = *state;
	char *root = xasprintf("%s/usr", fx->dir);
	char *bin = xasprintf("%s/bin", root);

	make_installed(root);
	touch(bin, RUNTIME_BUILD_SRC "/bench/fpubench.conf");
	assert_installed(root);
	free(bin);
	free(root);
}

static void test_neither(void **state)
{
	struct fixture *fx = *state;
	char *exe = xasprintf("%s/bin/fpubench", fx->dir);
	char *got;

	assert_int_equal(runtime_data_path_for(&got, exe, RUNTIME_CONF), ERR_NOTFOUND);
	assert_null(got);
	assert_non_null(strstr(error_last(), exe));
	assert_non_null(strstr(error_last(), RUNTIME_INSTALL_DATA "/fpubench.conf"));
	free(exe);
}

static void assert_user_dir(enum runtime_user which, const char *want)
{
	char *got = runtime_user_dir(which);

	assert_string_equal(got, want);
	free(got);
}

static void test_user_dirs(void **state)
{
	(void)state;
	setenv("HOME", "/home/u", 1);
	unsetenv("XDG_DATA_HOME");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("FPUBENCH_CACHE");
	assert_user_dir(RUNTIME_USER_DATA, "/home/u/.local/share/fpubench");
	assert_user_dir(RUNTIME_USER_CACHE, "/home/u/.cache/fpubench");
	/* An empty or relative variable is an unset one, as the XDG specification says. */
	setenv("XDG_DATA_HOME", "", 1);
	setenv("XDG_CACHE_HOME", "", 1);
	assert_user_dir(RUNTIME_USER_DATA, "/home/u/.local/share/fpubench");
	assert_user_dir(RUNTIME_USER_CACHE, "/home/u/.cache/fpubench");
	setenv("XDG_DATA_HOME", "data", 1);
	setenv("XDG_CACHE_HOME", "cache", 1);
	assert_user_dir(RUNTIME_USER_DATA, "/home/u/.local/share/fpubench");
	assert_user_dir(RUNTIME_USER_CACHE, "/home/u/.cache/fpubench");
	setenv("XDG_DATA_HOME", "/x/data", 1);
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	assert_user_dir(RUNTIME_USER_DATA, "/x/data/fpubench");
	assert_user_dir(RUNTIME_USER_CACHE, "/x/cache/fpubench");
	setenv("FPUBENCH_CACHE", "/c", 1);
	assert_user_dir(RUNTIME_USER_CACHE, "/c");
	assert_user_dir(RUNTIME_USER_DATA, "/x/data/fpubench");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_installed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moved_install, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_tree_without_guest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_installed_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_neither, setup, teardown),
		cmocka_unit_test(test_user_dirs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
