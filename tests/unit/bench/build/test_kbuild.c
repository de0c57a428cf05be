/*
 * Builds of the miniature tree (test_tree_fixture.h): the stamp that makes
 * a build reusable, failed and interrupted builds, a full disk, and the
 * config fragment fitted to the tree (kconfig: the lowest processor
 * family, options dropped by the build, warnings).
 */
#include "test_tree_fixture.h"
#include "test_fsize.h"

#include "build/kconfig.h"
#include "lib/strlist.h"

/* How often make built the variant's bzImage in `cache`. */
static int builds_in(const char *cache, const char *variant)
{
	char *path = xasprintf("%s/build/debian-6.1.192/%s/builds", cache, variant);
	struct strbuf sb = STRBUF_INIT;
	int n = 0;

	if (file_read(path, &sb) == 0)
		for (size_t i = 0; i < sb.len; i++)
			n += sb.buf[i] == '\n';
	strbuf_release(&sb);
	free(path);
	return n;
}

static int builds_of(const struct fixture *fx, const char *variant)
{
	return builds_in(fx->cache, variant);
}

static char *stamp_path(const struct fixture *fx, const char *variant)
{
	return xasprintf("%s/build/debian-6.1.192/%s/fpubench.stamp", fx->cache, variant);
}

static void test_build_is_used_only_with_its_stamp(void **state)
{
	struct fixture *fx = *state;
	char *frag = fragment_path(fx, "a.config", "CONFIG_X87=y\n"), *stamp = stamp_path(fx, "reuse");
	struct kernel_build *b = NULL;

	assert_int_equal(build(fx, "reuse", frag, &b), 0);
	assert_true(b->rebuilt);
	assert_int_equal(mode_of(b->dir), KERNEL_CACHE_DIR_MODE);
	assert_int_equal(mode_of(stamp), KERNEL_CACHE_FILE_MODE);
	kbuild_free(b);
	assert_int_equal(build(fx, "reuse", frag, &b), 0);
	assert_false(b->rebuilt);
	kbuild_free(b);
	assert_int_equal(builds_of(fx, "reuse"), 1);

	/* A stamp of another build, as an older config's or bench's, is not this build. */
	assert_int_equal(file_write_atomic(stamp, "0123456789abcdef", 16), 0);
	assert_int_equal(build(fx, "reuse", frag, &b), 0);
	assert_true(b->rebuilt);
	kbuild_free(b);
	assert_int_equal(builds_of(fx, "reuse"), 2);
	free(stamp);
	free(frag);
}

static void test_failed_build_leaves_no_stamp(void **state)
{
	struct fixture *fx = *state;
	char *frag = fragment_path(fx, "a.config", "CONFIG_X87=y\n"), *stamp = stamp_path(fx, "fail");
	struct kernel_build *b = NULL;

	assert_int_equal(build(fx, "fail", frag, &b), 0);
	kbuild_free(b);
	setenv("FAKE_FAIL", "build", 1);
	/* The same build id again would be reused; another one builds. */
	char *other = fragment_path(fx, "b.config", "CONFIG_X87=y\nCONFIG_MATH_EMULATION=y\n");
	int err = build(fx, "fail", other, &b);
	unsetenv("FAKE_FAIL");
	assert_int_equal(err, ERR_BUILD);
	assert_non_null(strstr(error_last(), "kernel build of variant 'fail' failed; see '"));
	assert_false(file_exists(stamp));
	assert_null(kbuild_existing(fx->tree, "fail"));

	/* Nor is the earlier build it replaced used any more. */
	assert_int_equal(build(fx, "fail", frag, &b), 0);
	assert_true(b->rebuilt);
	kbuild_free(b);
	free(other);
	free(stamp);
	free(frag);
}

struct build_args {
	const struct fixture *fx;
	const char *fragment;
};

static int build_full(void *arg)
{
	const struct build_args *a = arg;
	struct kernel_build *b = NULL;
	int err = kbuild_make(a->fx->tree, "full", &a->fx->tree->base, a->fragment, 1, NULL, &b);

	kbuild_free(b);
	return err;
}

static void test_build_on_full_disk_leaves_no_stamp(void **state)
{
	struct fixture *fx = *state;
	char *frag = fragment_path(fx, "a.config", "CONFIG_X87=y\n"), *stamp = stamp_path(fx, "full");
	char *bzimage = xasprintf("%s/build/debian-6.1.192/full/arch/x86/boot/bzImage", fx->cache), msg[1024];
	struct build_args a = { fx, frag };
	struct kernel_build *b = NULL;

	setenv("FAKE_SIZE", "262144", 1);
	int err = fsize_run(64 * 1024, build_full, &a, msg, sizeof(msg));
	unsetenv("FAKE_SIZE");
	assert_int_equal(err, ERR_BUILD);
	assert_non_null(strstr(msg, "kernel build of variant 'full' failed"));
	/* A bzImage cut short is there, but without its stamp it is never booted. */
	assert_true(file_exists(bzimage));
	assert_false(file_exists(stamp));

	assert_int_equal(build(fx, "full", frag, &b), 0);
	assert_true(b->rebuilt);
	assert_true(file_exists(stamp));
	kbuild_free(b);
	free(bzimage);
	free(stamp);
	free(frag);
}

static void test_failed_configure_is_done_again(void **state)
{
	struct fixture *fx = *state;
	char *a = fragment_path(fx, "a.config", "CONFIG_X87=y\n");
	char *other = fragment_path(fx, "b.config", "CONFIG_X87=y\nCONFIG_MATH_EMULATION=y\n");
	struct kernel_build *b = NULL;

	assert_int_equal(build(fx, "cfg", a, &b), 0);
	kbuild_free(b);
	/* Killed or out of disk half way, after tinyconfig replaced a's .config. */
	setenv("FAKE_FAIL", "config", 1);
	int err = build(fx, "cfg", other, &b);
	unsetenv("FAKE_FAIL");
	assert_int_equal(err, ERR_BUILD);
	assert_non_null(strstr(error_last(), "cannot configure variant 'cfg'; see '"));

	/* a's config stamp must not vouch for that .config now. */
	assert_int_equal(build(fx, "cfg", a, &b), 0);
	assert_true(b->rebuilt);
	kbuild_free(b);
	free(other);
	free(a);
}

static void test_option_dropped_by_the_build_is_caught(void **state)
{
	struct fixture *fx = *state;
	char *frag = fragment_path(fx, "a.config", "CONFIG_SERIAL_8250=y\n"), *stamp = stamp_path(fx, "drop");
	struct kernel_build *b = NULL;

	/* make reruns Kconfig when a Kconfig file changed, after the first check. */
	setenv("FAKE_DROP", "CONFIG_SERIAL_8250", 1);
	int err = build(fx, "drop", frag, &b);
	unsetenv("FAKE_DROP");
	assert_int_equal(err, ERR_CONFIG);
	char *want = xasprintf("config option 'CONFIG_SERIAL_8250=y' from '%s' was dropped by Linux 6.1.192 (not in the final .config)",
			       frag);
	assert_string_equal(error_last(), want);
	assert_false(file_exists(stamp));
	assert_int_equal(builds_of(fx, "drop"), 1);

	/* The next run says so again at once, without building. */
	assert_int_equal(build(fx, "drop", frag, &b), ERR_CONFIG);
	assert_string_equal(error_last(), want);
	assert_false(file_exists(stamp));
	assert_int_equal(builds_of(fx, "drop"), 1);
	free(want);
	free(stamp);
	free(frag);
}

/* An option the bench can do without is a warning, in the build and in its log. */
static void test_option_not_needed_is_a_warning(void **state)
{
	struct fixture *fx = *state;
	char *frag = fragment_path(fx, "w.config", "CONFIG_X87=y\n");
	struct kernel_build *b = NULL;
	struct strbuf log = STRBUF_INIT;

	setenv("FAKE_DROP", "CONFIG_X87", 1);
	int err = build(fx, "warn", frag, &b);
	unsetenv("FAKE_DROP");
	assert_int_equal(err, 0);
	char *want = xasprintf("config option 'CONFIG_X87=y' from '%s' was dropped by Linux 6.1.192 (not in the final .config); built without it",
			       frag);
	assert_int_equal(b->warnings.n, 1);
	assert_string_equal(b->warnings.v[0], want);
	assert_int_equal(file_read(b->log, &log), 0);
	assert_non_null(strstr(log.buf, want));
	kbuild_free(b);

	/* A reused build still carries it, for the report. */
	assert_int_equal(build(fx, "warn", frag, &b), 0);
	assert_false(b->rebuilt);
	assert_int_equal(b->warnings.n, 1);
	kbuild_free(b);
	strbuf_release(&log);
	free(want);
	free(frag);
}

/* The fragment names no processor family: the build gets the tree's lowest, and knows its CPU. */
static void test_build_gets_the_lowest_family(void **state)
{
	struct fixture *fx = *state;
	char *frag = fragment_path(fx, "f.config", "CONFIG_X86_32=y\n");
	struct kernel_build *b = NULL;
	struct strbuf text = STRBUF_INIT;

	assert_int_equal(build(fx, "family", frag, &b), 0);
	assert_string_equal(b->version, "6.1.192");
	assert_int_equal(b->min_family, 4);
	char *merged = xasprintf("%s/fpubench.fragment", b->dir);
	assert_int_equal(file_read(merged, &text), 0);
	assert_non_null(strstr(text.buf, "CONFIG_X86_32=y\n"));
	assert_non_null(strstr(text.buf, "\nCONFIG_M486=y\n"));
	kbuild_free(b);
	strbuf_release(&text);
	free(merged);
	free(frag);
}

/* Builds `variant` of the tree in `cache`, its own open (the cache's lock). */
static struct kernel_build *build_in(const struct fixture *fx, const char *cache, const char *variant,
				     const char *frag)
{
	struct kernel_tree *t = NULL;
	struct kernel_build *b = NULL;
	struct capture cap;

	assert_int_equal(kernel_tree_open(&t, cache, fx->tarball), 0);
	capture_start(&cap, fx);
	int err = kbuild_make(t, variant, &t->base, frag, 1, NULL, &b);
	free(capture_end(&cap));
	assert_int_equal(err, 0);
	kernel_tree_free(t);
	return b;
}

/*
 * A gcov kernel compiles its build directory in (the .gcda paths its
 * guests send back): in a copy of the cache it is built again, in the
 * copy's directory; a kernel without gcov is used as it is.  The original
 * cache keeps using its own.
 */
static void test_gcov_build_is_built_again_in_a_copied_cache(void **state)
{
	struct fixture *fx = *state;
	char *gcov = fragment_path(fx, "gcov.config", "CONFIG_X87=y\nCONFIG_DEBUG_FS=y\nCONFIG_GCOV_KERNEL=y\n");
	char *plain = fragment_path(fx, "plain.config", "CONFIG_X87=y\n");
	char *copy = xasprintf("%s/copied-cache", fx->dir);
	char *copy_dir = xasprintf("%s/build/debian-6.1.192/cov", copy);
	struct kernel_build *b = NULL;
	char id[sizeof(b->build_id)];

	kernel_tree_free(fx->tree);
	fx->tree = NULL;
	b = build_in(fx, fx->cache, "cov", gcov);
	memcpy(id, b->build_id, sizeof(id));
	kbuild_free(b);
	kbuild_free(build_in(fx, fx->cache, "plain", plain));
	const char *cp[] = { "cp", "-a", fx->cache, copy, NULL };
	assert_int_equal(spawn_run(cp, NULL, NULL, NULL), 0);

	b = build_in(fx, copy, "cov", gcov);
	assert_true(b->rebuilt);
	assert_string_equal(b->dir, copy_dir);
	assert_string_not_equal(b->build_id, id);
	kbuild_free(b);
	assert_int_equal(builds_in(copy, "cov"), 2);
	b = build_in(fx, copy, "plain", plain);
	assert_false(b->rebuilt);
	kbuild_free(b);
	/* Built once in the copy, it is used there. */
	b = build_in(fx, copy, "cov", gcov);
	assert_false(b->rebuilt);
	kbuild_free(b);
	b = build_in(fx, fx->cache, "cov", gcov);
	assert_false(b->rebuilt);
	assert_string_equal(b->build_id, id);
	kbuild_free(b);
	assert_int_equal(builds_of(fx, "cov"), 1);
	assert_int_equal(builds_in(copy, "plain"), 1);

	assert_int_equal(kernel_tree_open(&fx->tree, fx->cache, fx->tarball), 0);
	free(copy_dir);
	free(copy);
	free(plain);
	free(gcov);
}

/*
 * gcc stamps gcov objects with their compile's time, so a gcov kernel built
 * again in the same place is another kernel: its id hashes the bzImage (a
 * changed one stands for that build), so that a guest saved from the
 * earlier one is never restored with it.  Other kernels' ids do not change.
 */
static void test_gcov_build_id_hashes_its_bzimage(void **state)
{
	struct fixture *fx = *state;
	char *gcov = fragment_path(fx, "gcov.config", "CONFIG_X87=y\nCONFIG_GCOV_KERNEL=y\n");
	char *plain = fragment_path(fx, "plain.config", "CONFIG_X87=y\n");
	const char *variants[] = { "seal-gcov", "seal-plain" }, *frags[] = { gcov, plain };

	for (size_t i = 0; i < 2; i++) {
		struct kernel_build *b = NULL;
		char id[sizeof(b->build_id)];

		assert_int_equal(build(fx, variants[i], frags[i], &b), 0);
		memcpy(id, b->build_id, sizeof(id));
		kbuild_free(b);
		assert_int_equal(build(fx, variants[i], frags[i], &b), 0);
		assert_false(b->rebuilt);
		assert_string_equal(b->build_id, id);
		assert_int_equal(file_write_atomic(b->bzimage, "another build\n", 14), 0);
		kbuild_free(b);
		assert_int_equal(build(fx, variants[i], frags[i], &b), 0);
		assert_false(b->rebuilt);
		if (i == 0)
			assert_string_not_equal(b->build_id, id);
		else
			assert_string_equal(b->build_id, id);
		kbuild_free(b);
	}
	free(plain);
	free(gcov);
}

static const struct kconfig_family *lowest_of(const char *fixture)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("tests/fixtures/kconfig/%s", fixture);

	assert_int_equal(file_read(path, &sb), 0);
	const struct kconfig_family *f = kconfig_lowest_family(sb.buf, sb.len);
	strbuf_release(&sb);
	free(path);
	return f;
}

/* Real trees' Kconfig.cpu: 6.1 and 6.12 offer the 486; without it the lowest is the 586. */
static void test_lowest_family_of_real_trees(void **state)
{
	(void)state;
	assert_string_equal(lowest_of("Kconfig.cpu-6.1")->option, "CONFIG_M486");
	assert_string_equal(lowest_of("Kconfig.cpu-6.12")->option, "CONFIG_M486");
	const struct kconfig_family *f = lowest_of("Kconfig.cpu-no-486");
	assert_string_equal(f->option, "CONFIG_M586");
	assert_int_equal(f->family, 5);
	/* "config M4860" or a help text's "M486" is not the option. */
	const char *near = "\thelp\n\t  M486\nconfig M4860\nconfig M486 \n";
	assert_string_equal(kconfig_lowest_family(near, strlen(near))->option, "CONFIG_M486");
	assert_null(kconfig_lowest_family("config MK8\n", 11));
}

static void test_fragment_and_min_family(void **state)
{
	(void)state;
	char *f = kconfig_fragment("CONFIG_X86_32=y", &kconfig_families[1]);
	assert_string_equal(f, "CONFIG_X86_32=y\n# The lowest processor family this tree offers (fpubench's choice).\nCONFIG_M586=y\n");
	free(f);
	/* A fragment that names a family keeps it. */
	f = kconfig_fragment("CONFIG_M686=y\n", &kconfig_families[0]);
	assert_string_equal(f, "CONFIG_M686=y\n");
	free(f);
	/* 6.1's M586 keeps the minimum family at 4 but is compiled for the i586. */
	assert_int_equal(kconfig_min_family("CONFIG_M586=y\nCONFIG_X86_MINIMUM_CPU_FAMILY=4\n"), 5);
	assert_int_equal(kconfig_min_family("CONFIG_M486=y\nCONFIG_X86_MINIMUM_CPU_FAMILY=4\n"), 4);
	assert_int_equal(kconfig_min_family("CONFIG_MPENTIUMII=y\nCONFIG_X86_MINIMUM_CPU_FAMILY=6\n"), 6);
	assert_int_equal(kconfig_min_family("CONFIG_TINY=y\n"), 0);
	assert_true(kconfig_sets("CONFIG_X87=y\nCONFIG_GCOV_KERNEL=y\n", "CONFIG_GCOV_KERNEL"));
	assert_false(kconfig_sets("# CONFIG_GCOV_KERNEL is not set\n", "CONFIG_GCOV_KERNEL"));
	assert_false(kconfig_sets("CONFIG_GCOV_KERNEL=m\nCONFIG_GCOV_KERNEL_X=y\n", "CONFIG_GCOV_KERNEL"));
}

static void test_config_check(void **state)
{
	const char *fragment = "# a comment\n"
			       "CONFIG_TTY=y\n"
			       "# CONFIG_MATH_EMULATION is not set\n"
			       "CONFIG_C=\"text\"\n";
	struct strlist w = STRLIST_INIT;

	(void)state;
	assert_int_equal(kconfig_check("f", fragment, "CONFIG_TTY=y\n# CONFIG_MATH_EMULATION is not set\nCONFIG_C=\"text\"\n",
				       "6.1.192", &w), 0);
	/* An unset option may also be absent. */
	assert_int_equal(kconfig_check("f", fragment, "CONFIG_C=\"text\"\nCONFIG_TTY=y\n", "6.1.192", &w), 0);
	assert_int_equal(w.n, 0);
	assert_int_equal(kconfig_check("f", fragment, "CONFIG_C=\"text\"\n", "6.12.118", &w), ERR_CONFIG);
	assert_string_equal(error_last(),
			    "config option 'CONFIG_TTY=y' from 'f' was dropped by Linux 6.12.118 (not in the final .config)");
	assert_int_equal(kconfig_check("f", fragment, "CONFIG_TTY=y\nCONFIG_MATH_EMULATION=y\nCONFIG_C=\"text\"\n",
				       "6.1.192", &w), ERR_CONFIG);
	assert_non_null(strstr(error_last(), "'# CONFIG_MATH_EMULATION is not set'"));
	assert_non_null(strstr(error_last(), "has 'CONFIG_MATH_EMULATION=y'"));
	/* What the bench can do without is a warning naming the option and the version. */
	assert_int_equal(kconfig_check("f", fragment, "CONFIG_TTY=y\nCONFIG_C=\"other\"\n", "7.1.0", &w), 0);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.v[0], "config option 'CONFIG_C=\"text\"' from 'f' was dropped by Linux 7.1.0 (the final .config has 'CONFIG_C=\"other\"'); built without it");
	strlist_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_is_used_only_with_its_stamp),
		cmocka_unit_test(test_failed_build_leaves_no_stamp),
		cmocka_unit_test(test_build_on_full_disk_leaves_no_stamp),
		cmocka_unit_test(test_failed_configure_is_done_again),
		cmocka_unit_test(test_option_dropped_by_the_build_is_caught),
		cmocka_unit_test(test_option_not_needed_is_a_warning),
		cmocka_unit_test(test_build_gets_the_lowest_family),
		cmocka_unit_test(test_gcov_build_is_built_again_in_a_copied_cache),
		cmocka_unit_test(test_gcov_build_id_hashes_its_bzimage),
		cmocka_unit_test(test_lowest_family_of_real_trees),
		cmocka_unit_test(test_fragment_and_min_family),
		cmocka_unit_test(test_config_check),
	};
	int failed;

	git_libgit2_init();
	failed = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return failed;
}
