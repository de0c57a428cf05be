/*
 * The miniature kernel tarball that test_cache.c (the tree cache),
 * test_apply.c (patches) and test_kbuild.c (builds and their config) share,
 * and blob_at() to read what a commit holds: a tree with
 * a stand-in Makefile (tests/fixtures/fake-kernel), so builds take no
 * time, extracted into a fresh cache per group.
 */
#ifndef FPUBENCH_TEST_TREE_FIXTURE_H
#define FPUBENCH_TEST_TREE_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "build/kbuild.h"
#include "build/tree.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CORE_C "arch/x86/kernel/fpu/core.c"

struct fixture {
	char dir[64];
	char *src;		/* the tarball's tree, a kernel tree `test --tree` takes as it is */
	char *tarball;
	char *cache;
	struct kernel_tree *tree;
};

/* A core.c whose lines 129-135 are the real hunk's context, so the fixture patches apply. */
static inline void write_core_c(const char *path)
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

static inline int setup(void **state)
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
	char *fake = xasprintf("%s/linux-source-6.1/", fx->dir);
	const char *cp[] = { "cp", "-a", "tests/fixtures/fake-kernel/.", fake, NULL };
	assert_int_equal(spawn_run(cp, NULL, NULL, NULL), 0);
	free(fake);
	fx->tarball = xasprintf("%s/linux-source-6.1.tar.xz", fx->dir);
	const char *tar[] = { "tar", "-cJf", fx->tarball, "-C", fx->dir, "linux-source-6.1", NULL };
	assert_int_equal(spawn_run(tar, NULL, NULL, NULL), 0);
	fx->cache = xasprintf("%s/cache", fx->dir);
	fx->src = xasprintf("%s/linux-source-6.1", fx->dir);
	assert_int_equal(kernel_tree_open(&fx->tree, fx->cache, fx->tarball), 0);
	free(src);
	free(core);
	free(ignore);
	free(ignored);
	*state = fx;
	return 0;
}

static inline int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *rm[] = { "rm", "-rf", fx->dir, NULL };

	kernel_tree_free(fx->tree);
	spawn_run(rm, NULL, NULL, NULL);
	free(fx->tarball);
	free(fx->cache);
	free(fx->src);
	free(fx);
	return 0;
}

/* What the code between capture_start() and capture_end() writes to stderr. */
struct capture {
	int saved;
	char *path;
};

static inline void capture_start(struct capture *c, const struct fixture *fx)
{
	int fd;

	c->path = xasprintf("%s/stderr", fx->dir);
	fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static inline char *capture_end(struct capture *c)
{
	struct strbuf sb = STRBUF_INIT;

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	assert_int_equal(file_read(c->path, &sb), 0);
	free(c->path);
	return strbuf_detach(&sb);
}

static inline mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Builds the pristine tree with the stand-in Makefile, quietly. */
static inline int build(const struct fixture *fx, const char *variant, const char *fragment,
		 struct kernel_build **out)
{
	struct capture cap;

	capture_start(&cap, fx);
	int err = kbuild_make(fx->tree, variant, &fx->tree->base, fragment, 1, NULL, out);
	free(capture_end(&cap));
	return err;
}

static inline char *fragment_path(const struct fixture *fx, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", fx->dir, name);

	assert_int_equal(file_write_atomic(path, text, strlen(text)), 0);
	return path;
}

/* The file at path in commit_oid, or NULL when the commit has none (caller frees). */
static inline char *blob_at(git_repository *repo, const git_oid *commit_oid, const char *path)
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

#endif
