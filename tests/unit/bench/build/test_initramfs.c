#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/fileutil.h"
#include "build/initramfs.h"
#include "lib/spawn.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cpio(1) itself reads the archive back: the format is newc, and nothing else. */
static void test_archive_unpacks_with_cpio(void **state)
{
	char dir[] = "/tmp/fpubench-test-initramfs.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	char *src = xasprintf("%s/payload", dir), *cpio = xasprintf("%s/a.cpio", dir);
	char *out = xasprintf("%s/out", dir), *got = xasprintf("%s/out/tests/init", dir);
	assert_int_equal(file_write_atomic(src, "odd-sized\n", 10), 0);
	const struct initramfs_entry entries[] = {
		{ "tests", NULL, 0755 },
		{ "tests/init", src, 0755 },
	};
	assert_int_equal(initramfs_write(cpio, entries, 2), 0);

	struct strbuf text = STRBUF_INIT;
	assert_int_equal(file_read(cpio, &text), 0);
	assert_int_equal(text.len % 4, 0);
	assert_memory_equal(text.buf, "070701", 6);
	assert_non_null(memmem(text.buf, text.len, "TRAILER!!!", 10));
	strbuf_release(&text);

	assert_int_equal(dir_create(out, ERR_GENERIC), 0);
	char *in = xasprintf("--file=%s", cpio);
	const char *argv[] = { "cpio", "-id", "--quiet", in, NULL };
	assert_int_equal(spawn_run(argv, out, NULL, NULL), 0);
	assert_int_equal(file_read(got, &text), 0);
	assert_string_equal(text.buf, "odd-sized\n");
	assert_int_equal(access(got, X_OK), 0);
	strbuf_release(&text);

	const char *rm[] = { "rm", "-rf", dir, NULL };
	spawn_run(rm, NULL, NULL, NULL);
	free(src);
	free(cpio);
	free(out);
	free(got);
	free(in);
}

static void test_missing_source_is_named(void **state)
{
	const struct initramfs_entry entries[] = { { "init", "/nonexistent/init", 0755 } };

	(void)state;
	assert_int_equal(initramfs_write("/tmp/never.cpio", entries, 1), ERR_NOTFOUND);
	assert_non_null(strstr(error_last(), "'/nonexistent/init'"));
	assert_false(file_exists("/tmp/never.cpio"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_archive_unpacks_with_cpio),
		cmocka_unit_test(test_missing_source_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
