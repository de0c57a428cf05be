#include "payload.h"

#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "initramfs.h"
#include "kbuild.h"
#include "tree.h"
#include "lib/spawn.h"
#include "lib/str.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KMOD_NAME "fpu_kmod"

const char *const payload_selftests[] = { "test_FCMOV", "test_FCOMI", "test_FISTTP" };
const unsigned payload_selftests_count = ARRAY_SIZE(payload_selftests);

static char *selftest_source(const struct kernel_tree *t, unsigned i)
{
	return xasprintf("%s/tools/testing/selftests/x86/%s.c", t->path, payload_selftests[i]);
}

static void key_of(const struct strbuf *text, char *hex, size_t size)
{
	git_oid oid;

	git_odb_hash(&oid, text->buf, text->len, GIT_OBJECT_BLOB);
	git_oid_tostr(hex, size, &oid);
}

/* Builds are keyed by the sources' content, whatever tree they come from. */
static int selftests_key(const struct kernel_tree *t, char *hex, size_t size)
{
	struct strbuf all = STRBUF_INIT;
	int err = 0;

	for (unsigned i = 0; i < payload_selftests_count && !err; i++) {
		char *src = selftest_source(t, i);
		err = file_read(src, &all);
		free(src);
	}
	key_of(&all, hex, size);
	strbuf_release(&all);
	return err;
}

/* Every source file of the module, by name and content. */
static int kmod_sources_key(const char *kmod_src, char *hex, size_t size)
{
	struct strbuf all = STRBUF_INIT, file = STRBUF_INIT;
	struct dirent **names = NULL;
	int n = scandir(kmod_src, &names, NULL, alphasort), err = 0;

	if (n < 0)
		return error_set_errno(ERR_NOTFOUND, "cannot read module sources '%s'", kmod_src);
	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", kmod_src, names[i]->d_name);

		if (!err && names[i]->d_name[0] != '.') {
			strbuf_reset(&file);
			if ((err = file_read(path, &file)) == 0) {
				strbuf_addf(&all, "%s %zu\n", names[i]->d_name, file.len);
				strbuf_add(&all, file.buf, file.len);
			}
		}
		free(path);
		free(names[i]);
	}
	free(names);
	key_of(&all, hex, size);
	strbuf_release(&file);
	strbuf_release(&all);
	return err;
}

int payload_build_selftests(struct kernel_tree *t, char **dir_out)
{
	char key[13];
	char *dir, *tmp, *log;
	int err;

	if ((err = selftests_key(t, key, sizeof(key))) < 0)
		return err;
	dir = xasprintf("%s/selftests/%s", t->cache, key);
	tmp = xasprintf("%s.tmp", dir);
	log = xasprintf("%s.log", tmp);
	if (file_exists(dir))
		goto out;

	/* Built into a temporary directory and renamed: a killed build is not reused. */
	const char *rm[] = { "rm", "-rf", tmp, NULL };
	if (spawn_run(rm, NULL, NULL, NULL) != 0) {
		err = error_set(ERR_CACHE, "cannot clear '%s' to build the selftests in", tmp);
		goto out;
	}
	if ((err = dir_create_mode(tmp, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0)
		goto out;
	unlink(log);
	for (unsigned i = 0; i < payload_selftests_count && !err; i++) {
		char *src = selftest_source(t, i);
		char *bin = xasprintf("%s/%s", tmp, payload_selftests[i]);
		const char *argv[] = { "gcc", "-m32", "-static", "-O2", "-o", bin, src, "-lm", NULL };

		if (spawn_run(argv, NULL, log, NULL) != 0)
			err = error_set(ERR_BUILD, "cannot build selftest '%s'; see '%s'", src, log);
		free(src);
		free(bin);
	}
	if (!err && rename(tmp, dir) < 0)
		err = error_set_errno(ERR_CACHE, "cannot rename '%s' to '%s'", tmp, dir);
out:
	free(tmp);
	free(log);
	if (err) {
		free(dir);
		return err;
	}
	*dir_out = dir;
	return 0;
}

int payload_build_kmod(const struct kernel_build *b, const char *kmod_src, char **ko_out)
{
	char *dir = xasprintf("%s/fpubench-kmod", b->dir);
	char *log = xasprintf("%s/build.log", dir);
	char *src_files = xasprintf("%s/.", kmod_src);
	char *mdir = xasprintf("M=%s", dir);
	char *ko = xasprintf("%s/" KMOD_NAME ".ko", dir);
	char *stamp = xasprintf("%s/fpubench.stamp", dir);
	char *built = NULL, *want = NULL;
	const char *rm[] = { "rm", "-rf", dir, NULL };
	const char *cp[] = { "cp", "-a", src_files, dir, NULL };
	const char *make[] = { "make", "ARCH=i386", mdir, "modules", NULL };
	char sources[GIT_OID_HEXSZ + 1];
	struct strbuf had = STRBUF_INIT;
	bool stamped, same_sources;
	int err;

	if ((err = kmod_sources_key(kmod_src, sources, sizeof(sources))) < 0)
		goto out;
	/* The stamp says which sources were built, and for which kernel build. */
	built = xasprintf("sources %s\n", sources);
	want = xasprintf("%skernel %s\n", built, b->build_id);
	stamped = file_read(stamp, &had) == 0;
	error_clear();
	if (stamped && strcmp(had.buf, want) == 0 && file_exists(ko))
		goto out;
	/*
	 * The same sources built for an earlier kernel of this directory (a
	 * variant one patch on, a bisection's next step): Kbuild rebuilds what
	 * the kernel's change reaches, by the objects' recorded commands and
	 * dependencies, as it does for the kernel.  Other sources, or a build
	 * cut short (no stamp), start from a fresh copy: Kbuild writes its
	 * objects next to the sources.
	 */
	same_sources = stamped && str_has_prefix(had.buf, had.len, built);
	unlink(stamp);
	if (!same_sources &&
	    (spawn_run(rm, NULL, NULL, NULL) != 0 ||
	     (err = dir_create_mode(dir, KERNEL_CACHE_DIR_MODE, ERR_CACHE)) < 0 ||
	     spawn_run(cp, NULL, NULL, NULL) != 0)) {
		err = err ? err : error_set(ERR_CACHE, "cannot copy '%s' to '%s'", kmod_src, dir);
		goto out;
	}
	/* The O= directory's generated Makefile builds external modules against it; the log says what this build did. */
	unlink(log);
	if (spawn_run(make, b->dir, log, NULL) != 0 || !file_exists(ko))
		err = error_set(ERR_BUILD, "cannot build module '%s' for variant '%s'; see '%s'",
				kmod_src, b->variant, log);
	else
		/* Written last: a module cut short by a kill has no stamp. */
		err = file_write_atomic(stamp, want, strlen(want));
out:
	strbuf_release(&had);
	free(built);
	free(want);
	free(stamp);
	free(dir);
	free(log);
	free(src_files);
	free(mdir);
	if (err) {
		free(ko);
		return err;
	}
	*ko_out = ko;
	return 0;
}

int payload_write_initramfs(const char *path, const char *init, const char *selftests_dir,
			    const char *ko)
{
	struct initramfs_entry entries[3 + ARRAY_SIZE(payload_selftests)];
	char *bins[ARRAY_SIZE(payload_selftests)];
	char *names[ARRAY_SIZE(payload_selftests)];
	size_t n = 0;
	int err;

	entries[n++] = (struct initramfs_entry){ "init", init, 0755 };
	if (ko)
		entries[n++] = (struct initramfs_entry){ KMOD_NAME ".ko", ko, 0644 };
	entries[n++] = (struct initramfs_entry){ "selftests", NULL, 0755 };
	for (unsigned i = 0; i < payload_selftests_count; i++) {
		bins[i] = xasprintf("%s/%s", selftests_dir, payload_selftests[i]);
		names[i] = xasprintf("selftests/%s", payload_selftests[i]);
		entries[n++] = (struct initramfs_entry){ names[i], bins[i], 0755 };
	}
	err = initramfs_write(path, entries, n);
	for (unsigned i = 0; i < payload_selftests_count; i++) {
		free(bins[i]);
		free(names[i]);
	}
	return err;
}

/* One line of tests.list: NAME, a tab, TAGS, a tab, GUARDS; a line of another shape is skipped. */
static bool test_parse(struct payload_test *t, char *line)
{
	char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;

	if (!tab2 || tab1 == line)
		return false;
	*tab1 = *tab2 = '\0';
	t->name = xstrdup(line);
	t->tags = xstrdup(tab1 + 1);
	t->guards = xstrdup(tab2 + 1);
	return true;
}

int payload_read_tests(const char *guest_dir, struct payload_test **out, size_t *n)
{
	char *path = xasprintf("%s/tests.list", guest_dir);
	struct strbuf list = STRBUF_INIT;
	int err;

	*out = NULL;
	*n = 0;
	if (!file_exists(path))
		err = error_set(ERR_NOTFOUND, "no test list '%s' (run make first)", path);
	else if ((err = file_read(path, &list)) == 0) {
		for (char *line = list.buf, *next; *line; line = next) {
			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = '\0';
			*out = xrealloc(*out, (*n + 1) * sizeof(**out));
			if (test_parse(&(*out)[*n], line))
				(*n)++;
		}
	}
	strbuf_release(&list);
	free(path);
	return err;
}

void payload_tests_free(struct payload_test *tests, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(tests[i].name);
		free(tests[i].tags);
		free(tests[i].guards);
	}
	free(tests);
}

char *payload_test_tag(const struct payload_test *t, const char *kind)
{
	struct strbuf sb = STRBUF_INIT;
	size_t klen = strlen(kind);

	for (const char *p = t->tags; *p; p += strspn(p, " ")) {
		size_t len = strcspn(p, " ");

		if (len > klen && strncmp(p, kind, klen) == 0 && p[klen] == '=')
			strbuf_addf(&sb, "%s%.*s", sb.len ? " " : "", (int)(len - klen - 1), p + klen + 1);
		p += len;
	}
	return strbuf_detach(&sb);
}
