/*
 * Atomic writes on a full disk (RLIMIT_FSIZE, and a small tmpfs where the
 * test may mount one), the modes of what the helpers create, and stamps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "test_fsize.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIG (256 * 1024)

struct fixture {
	char dir[64];
	char *path;
	char *big;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	strcpy(fx->dir, "/tmp/fpubench-test-fileutil.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	fx->path = xasprintf("%s/result.json", fx->dir);
	fx->big = malloc(BIG);
	memset(fx->big, 'x', BIG);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *rm[] = { "rm", "-rf", fx->dir, NULL };
	char *mnt = xasprintf("%s/tmpfs", fx->dir);

	/* Here, so that a failed assertion leaves no tmpfs mounted. */
	umount2(mnt, MNT_DETACH);
	free(mnt);
	spawn_run(rm, NULL, NULL, NULL);
	free(fx->path);
	free(fx->big);
	free(fx);
	return 0;
}

/* The names in dir other than . and .., one a line. */
static char *dir_names(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			strbuf_addf(&sb, "%s\n", e->d_name);
	closedir(d);
	return strbuf_detach(&sb);
}

static int write_big(void *arg)
{
	struct fixture *fx = arg;

	return file_write_atomic(fx->path, fx->big, BIG);
}

static void test_write_past_file_size_limit(void **state)
{
	struct fixture *fx = *state;
	char msg[1024];

	assert_int_equal(file_write_atomic(fx->path, "old\n", 4), 0);
	assert_int_equal(fsize_run(BIG / 4, write_big, fx, msg, sizeof(msg)), ERR_GENERIC);
	char *want = xasprintf("cannot write '%s': File too large", fx->path);
	assert_string_equal(msg, want);
	free(want);

	/* The old content stays, and no temporary file is left. */
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(file_read(fx->path, &sb), 0);
	assert_string_equal(sb.buf, "old\n");
	strbuf_release(&sb);
	char *names = dir_names(fx->dir);
	assert_string_equal(names, "result.json\n");
	free(names);

	/* Within the limit it writes. */
	assert_int_equal(fsize_run(2 * BIG, write_big, fx, msg, sizeof(msg)), 0);
	assert_true(file_exists(fx->path));
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* A stamp matches only its whole text; a missing one matches nothing and leaves no error. */
static void test_file_holds(void **state)
{
	struct fixture *fx = *state;

	assert_false(file_holds(fx->path, "abc"));
	assert_null(strstr(error_last(), "result.json"));
	assert_int_equal(file_write_atomic(fx->path, "abc", 3), 0);
	assert_true(file_holds(fx->path, "abc"));
	assert_false(file_holds(fx->path, "ab"));
	assert_false(file_holds(fx->path, "abcd"));
	assert_false(file_holds(fx->path, ""));
}

static void test_modes(void **state)
{
	struct fixture *fx = *state;
	char *a = xasprintf("%s/a", fx->dir), *abc = xasprintf("%s/a/b/c", fx->dir);
	char *pub = xasprintf("%s/public", fx->dir), *priv = xasprintf("%s/private", fx->dir);
	char *open_dir = xasprintf("%s/open", fx->dir);
	mode_t old = umask(022);

	assert_int_equal(dir_create_mode(abc, 0700, ERR_CACHE), 0);
	assert_int_equal(mode_of(a), 0700);
	assert_int_equal(mode_of(abc), 0700);
	assert_int_equal(dir_create(open_dir, ERR_CACHE), 0);
	assert_int_equal(mode_of(open_dir), 0755);
	assert_int_equal(file_write_atomic(pub, "x", 1), 0);
	assert_int_equal(mode_of(pub), 0644);
	assert_int_equal(file_write_atomic_mode(priv, "x", 1, 0600), 0);
	assert_int_equal(mode_of(priv), 0600);
	umask(old);
	free(a);
	free(abc);
	free(pub);
	free(priv);
	free(open_dir);
}

/* The big payload as a file of its own, in the fixture's directory. */
static char *big_source(struct fixture *fx)
{
	char *src = xasprintf("%s/payload", fx->dir);

	assert_int_equal(file_write_atomic(src, fx->big, BIG), 0);
	return src;
}

/* Pieces from memory and from files, the files longer than one sendfile may move. */
static void test_write_in_pieces(void **state)
{
	struct fixture *fx = *state;
	char *src = big_source(fx);
	struct file_atomic f;
	struct strbuf sb = STRBUF_INIT;

	file_atomic_begin(&f, fx->path, 0600);
	file_atomic_add(&f, "head", 4);
	file_atomic_add_file(&f, src, BIG);
	file_atomic_add_file(&f, src, 3);
	assert_int_equal(f.len, 4 + BIG + 3);
	assert_int_equal(file_atomic_commit(&f), 0);

	assert_int_equal(file_read(fx->path, &sb), 0);
	assert_int_equal(sb.len, 4 + BIG + 3);
	assert_memory_equal(sb.buf, "head", 4);
	assert_memory_equal(sb.buf + 4, fx->big, BIG);
	assert_memory_equal(sb.buf + 4 + BIG, "xxx", 3);
	strbuf_release(&sb);
	free(src);
}

struct copy_args {
	struct fixture *fx;
	const char *source;
	size_t len;
};

static int copy_file(void *arg)
{
	struct copy_args *a = arg;
	struct file_atomic f;

	file_atomic_begin(&f, a->fx->path, 0644);
	file_atomic_add(&f, "head", 4);
	file_atomic_add_file(&f, a->source, a->len);
	return file_atomic_commit(&f);
}

/* A copy that fails, on a full disk or from a file shorter than said, leaves the old file alone. */
static void test_copy_fails_whole(void **state)
{
	struct fixture *fx = *state;
	char *src = big_source(fx), msg[1024];
	struct copy_args full = { fx, src, BIG }, shorter = { fx, src, BIG + 1 };
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(file_write_atomic(fx->path, "old\n", 4), 0);
	assert_int_equal(fsize_run(BIG / 4, copy_file, &full, msg, sizeof(msg)), ERR_GENERIC);
	char *want = xasprintf("cannot copy '%s' into '%s': File too large", src, fx->path);
	assert_string_equal(msg, want);
	free(want);

	assert_int_equal(copy_file(&shorter), ERR_GENERIC);
	want = xasprintf("'%s' is shorter than its %d bytes", src, BIG + 1);
	assert_string_equal(error_last(), want);
	free(want);

	assert_int_equal(file_read(fx->path, &sb), 0);
	assert_string_equal(sb.buf, "old\n");
	strbuf_release(&sb);
	char *names = dir_names(fx->dir);
	assert_null(strstr(names, ".tmp."));
	free(names);
	free(src);
}

/* ENOSPC for real, on a 4 MiB tmpfs; skipped where the test may not mount. */
static void test_full_tmpfs(void **state)
{
	struct fixture *fx = *state;
	char *mnt = xasprintf("%s/tmpfs", fx->dir), *path = xasprintf("%s/tmpfs/big", fx->dir);
	char *fill = xasprintf("%s/tmpfs/fill", fx->dir);
	size_t len = 8 * 1024 * 1024;
	char *data = calloc(1, len);

	assert_int_equal(dir_create(mnt, ERR_GENERIC), 0);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=4m") < 0) {
		free(mnt);
		free(path);
		free(fill);
		free(data);
		skip();
	}
	assert_false(dir_is_full(mnt));
	assert_int_equal(file_write_atomic(path, data, len), ERR_GENERIC);
	char *want = xasprintf("cannot write '%s': No space left on device", path);
	assert_string_equal(error_last(), want);
	char *names = dir_names(mnt);
	assert_string_equal(names, "");
	free(names);
	assert_false(dir_is_full(mnt));

	/* Filled up, it says so: a child that failed there may have logged nothing. */
	FILE *f = fopen(fill, "w");
	assert_non_null(f);
	while (fwrite(data, 1, len, f) == len)
		;
	fclose(f);
	assert_true(dir_is_full(mnt));
	free(want);
	free(mnt);
	free(path);
	free(fill);
	free(data);
}

/* Scratch files follow TMPDIR, as mktemp(1) does; an empty one means unset. */
/* An output path is checked before the work: its directory must be there and writable. */
static void test_output_check_names_the_path(void **state)
{
	struct fixture *fx = *state;
	char *missing = xasprintf("%s/no-such-dir/x.json", fx->dir);

	assert_int_equal(file_output_check("-", "--json"), 0);
	assert_int_equal(file_output_check(fx->path, "--json"), 0);
	assert_int_equal(file_output_check("relative.json", "--json"), 0);
	assert_int_equal(file_output_check("", "--json"), ERR_INPUT);
	assert_int_equal(file_output_check(missing, "--json"), ERR_INPUT);
	assert_non_null(strstr(error_last(), "cannot write --json '"));
	assert_non_null(strstr(error_last(), "no-such-dir/x.json': no directory '"));
	assert_int_equal(file_output_check(fx->dir, "--json"), ERR_INPUT);
	assert_non_null(strstr(error_last(), "it is a directory"));
	assert_int_equal(file_output_check("/x.json", "--json"), geteuid() == 0 ? 0 : ERR_INPUT);
	free(missing);
}

static void test_path_temp(void **state)
{
	char *path;

	(void)state;
	setenv("TMPDIR", "/var/tmp", 1);
	path = path_temp("x.patch");
	assert_string_equal(path, "/var/tmp/x.patch");
	free(path);
	setenv("TMPDIR", "", 1);
	path = path_temp("x.patch");
	assert_string_equal(path, "/tmp/x.patch");
	free(path);
	unsetenv("TMPDIR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_past_file_size_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_tmpfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_in_pieces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_fails_whole, setup, teardown),
			cmocka_unit_test_setup_teardown(test_output_check_names_the_path, setup, teardown),
			cmocka_unit_test(test_path_temp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
