/*
 * The kernel tree on a miniature tarball: extraction, the pristine commit,
 * patches as commits, the applied-patch cache, and the config check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "error.h"
#include "fileutil.h"
#include "kernel.h"
#include "spawn.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CORE_C "arch/x86/kernel/fpu/core.c"

struct fixture {
	char dir[64];
	char *tarball;
	char *cache;
	struct kernel_tree *tree;
};

/* A core.c whose lines 129-135 are the real hunk's context, so the fixture patches apply. */
static void write_core_c(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (int i = 1; i <= 128; i++)
		fprintf(f, "/* line %d */\n", i);
	fputs("\t * Legacy FPU register saving, FNSAVE always clears FPU registers,\n"
	      "\t * so we have to reload them from the memory state.\n"
	      "\t */\n"
	      "\tasm volatile(\"fnsave %[fp]; fwait\" : [fp] \"=m\" (fpu->fpstate->regs.fsave));\n"
	      "\tfrstor(&fpu->fpstate->regs.fsave);\n"
	      "}\n"
	      "\n", f);
	fclose(f);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	strcpy(fx->dir, "/tmp/fpubench-test-kernel.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	char *src = xasprintf("%s/linux-source-6.1/arch/x86/kernel/fpu", fx->dir);
	assert_int_equal(dir_create(src, ERR_GENERIC), 0);
	char *core = xasprintf("%s/core.c", src);
	write_core_c(core);
	/* A .gitignore naming a file that is there: the pristine commit must keep it. */
	char *ignore = xasprintf("%s/linux-source-6.1/.gitignore", fx->dir);
	char *ignored = xasprintf("%s/linux-source-6.1/generated.h", fx->dir);
	assert_int_equal(file_write_atomic(ignore, "generated.h\n", 12), 0);
	assert_int_equal(file_write_atomic(ignored, "x\n", 2), 0);
	fx->tarball = xasprintf("%s/linux-source-6.1.tar.xz", fx->dir);
	const char *tar[] = { "tar", "-cJf", fx->tarball, "-C", fx->dir, "linux-source-6.1", NULL };
	assert_int_equal(spawn_run(tar, NULL, NULL, NULL), 0);
	fx->cache = xasprintf("%s/cache", fx->dir);
	assert_int_equal(kernel_tree_open(&fx->tree, fx->cache, fx->tarball), 0);
	free(src);
	free(core);
	free(ignore);
	free(ignored);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *rm[] = { "rm", "-rf", fx->dir, NULL };

	kernel_tree_free(fx->tree);
	spawn_run(rm, NULL, NULL, NULL);
	free(fx->tarball);
	free(fx->cache);
	free(fx);
	return 0;
}

static char *blob_at(git_repository *repo, const git_oid *commit_oid, const char *path)
{
	git_commit *commit;
	git_tree *tree;
	git_tree_entry *entry;
	git_blob *blob;

	assert_int_equal(git_commit_lookup(&commit, repo, commit_oid), 0);
	assert_int_equal(git_commit_tree(&tree, commit), 0);
	if (git_tree_entry_bypath(&entry, tree, path) < 0) {
		git_tree_free(tree);
		git_commit_free(commit);
		return NULL;
	}
	assert_int_equal(git_blob_lookup(&blob, repo, git_tree_entry_id(entry)), 0);
	char *text = xstrndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return text;
}

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

	assert_int_equal(kernel_tree_apply(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/fsave-regression.mbox", &oid), 0);
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
	assert_int_equal(kernel_tree_apply(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/fsave-regression.mbox", &again), 0);
	assert_true(git_oid_equal(&oid, &again));
}

static void test_plain_and_git_diffs_give_the_same_tree(void **state)
{
	struct fixture *fx = *state;
	git_oid a, b;

	assert_int_equal(kernel_tree_apply(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/fsave-regression.diff", &a), 0);
	assert_int_equal(kernel_tree_apply(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/fsave-regression.plain.diff", &b), 0);
	char *ta = blob_at(fx->tree->repo, &a, CORE_C), *tb = blob_at(fx->tree->repo, &b, CORE_C);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
}

static void test_patch_that_does_not_apply_names_file(void **state)
{
	struct fixture *fx = *state;
	git_oid oid;

	assert_int_equal(kernel_tree_apply(fx->tree, &fx->tree->base,
					   "tests/fixtures/patches/does-not-apply.patch", &oid), ERR_APPLY);
	assert_non_null(strstr(error_last(),
			       "cannot apply patch 'tests/fixtures/patches/does-not-apply.patch' to '" CORE_C "'"));
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

static void test_cache_is_locked(void **state)
{
	struct fixture *fx = *state;
	struct kernel_tree *t = NULL;

	assert_int_equal(kernel_tree_open(&t, fx->cache, fx->tarball), ERR_CACHE);
	assert_non_null(strstr(error_last(), "in use"));
}

static void test_config_check(void **state)
{
	const char *fragment = "# a comment\n"
			       "CONFIG_A=y\n"
			       "# CONFIG_B is not set\n"
			       "CONFIG_C=\"text\"\n";

	(void)state;
	assert_int_equal(kernel_config_check("f", fragment,
					     "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"text\"\n"), 0);
	/* An unset option may also be absent. */
	assert_int_equal(kernel_config_check("f", fragment, "CONFIG_C=\"text\"\nCONFIG_A=y\n"), 0);
	assert_int_equal(kernel_config_check("f", fragment, "CONFIG_C=\"text\"\n"), ERR_CONFIG);
	assert_string_equal(error_last(),
			    "config option 'CONFIG_A=y' from 'f' was dropped (not in the final .config)");
	assert_int_equal(kernel_config_check("f", fragment, "CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=\"text\"\n"),
			 ERR_CONFIG);
	assert_non_null(strstr(error_last(), "'# CONFIG_B is not set'"));
	assert_int_equal(kernel_config_check("f", fragment, "CONFIG_AB=y\nCONFIG_A=m\nCONFIG_C=\"text\"\n"),
			 ERR_CONFIG);
	assert_non_null(strstr(error_last(), "has 'CONFIG_A=m'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pristine_commit_keeps_ignored_files),
		cmocka_unit_test(test_mail_patch_becomes_commit_with_its_author),
		cmocka_unit_test(test_plain_and_git_diffs_give_the_same_tree),
		cmocka_unit_test(test_patch_that_does_not_apply_names_file),
		cmocka_unit_test(test_missing_tarball),
		cmocka_unit_test(test_cache_is_locked),
		cmocka_unit_test(test_config_check),
	};
	int failed;

	git_libgit2_init();
	failed = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return failed;
}
