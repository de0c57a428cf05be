/*
 * The coverage data decoder.  tests/fixtures/gcda/486.log is a real
 * console (see the README beside it); the damaged consoles are made from
 * it here, one fault each, so that each rejection is tied to its cause.
 * Every scan reads a heap copy of exactly the console's length, without a
 * terminating NUL, so that ASan catches a read past it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "judge/gcda.h"
#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define FIXTURE "tests/fixtures/gcda/486.log"
/* What the fixture's boot sent: its gcda-done line. */
#define FIXTURE_FILES 12

static struct strbuf console = STRBUF_INIT;

static int load(void **state)
{
	(void)state;
	strbuf_reset(&console);
	return file_read(FIXTURE, &console);
}

static int unload(void **state)
{
	(void)state;
	strbuf_release(&console);
	return 0;
}

static int scan(const char *text, size_t len, struct gcda_set **out)
{
	char *copy = malloc(len ? len : 1);
	int err;

	assert_non_null(copy);
	memcpy(copy, text, len);
	*out = NULL;
	err = gcda_scan("486.log", copy, len, out);
	free(copy);
	return err;
}

/* The console with `from` (its first occurrence at or after `after`) replaced by `to`. */
static char *edit(const char *from, const char *to, const char *after, size_t *len)
{
	const char *start = strstr(console.buf, after);
	const char *at = start ? strstr(start, from) : NULL;
	struct strbuf out = STRBUF_INIT;

	assert_non_null(at);
	strbuf_add(&out, console.buf, (size_t)(at - console.buf));
	strbuf_addstr(&out, to);
	strbuf_addstr(&out, at + strlen(from));
	*len = out.len;
	return strbuf_detach(&out);
}

static void assert_rejected(const char *text, size_t len, const char *message)
{
	struct gcda_set *set;

	assert_int_equal(scan(text, len, &set), ERR_INPUT);
	assert_null(set);
	if (!strstr(error_last(), message))
		fail_msg("message '%s' lacks '%s'", error_last(), message);
	assert_non_null(strstr(error_last(), "console '486.log'"));
}

static void test_real_console(void **state)
{
	struct gcda_set *set;

	(void)state;
	assert_int_equal(scan(console.buf, console.len, &set), 0);
	assert_true(set->sent);
	assert_int_equal(set->nfiles, FIXTURE_FILES);
	for (size_t i = 0; i < set->nfiles; i++) {
		const struct gcda_file *f = &set->files[i];

		/* gcov's data file magic, "gcda" as a little-endian word, then gcc 12.2's version, "B22*". */
		assert_true(f->len > 12);
		assert_memory_equal(f->data, "adcg*22B", 8);
		assert_non_null(strstr(f->path, "/patched-gcov/"));
		assert_string_equal(f->path + strlen(f->path) - 5, ".gcda");
	}
	gcda_set_free(set);
}

static void test_no_data(void **state)
{
	const char *text = "KTAP version 1\n1..1\nok 1 fpu_seed\n# fpubench: done\n";
	struct gcda_set *set;

	(void)state;
	assert_int_equal(scan(text, strlen(text), &set), 0);
	assert_false(set->sent);
	assert_int_equal(set->nfiles, 0);
	gcda_set_free(set);
}

/* The guest died, or the host stopped it, in the middle of the last file. */
static void test_truncated(void **state)
{
	const char *last = strstr(console.buf, "# fpubench: gcda-done");
	size_t len;

	(void)state;
	assert_non_null(last);
	/* Back to the middle of the last data line before the last gcda-end. */
	len = (size_t)(last - console.buf);
	while (len && strncmp(console.buf + len, "# fpubench: gcda-end", 20) != 0)
		len--;
	len -= 40;
	assert_rejected(console.buf, len, "is cut short (the console ends)");
	/* Every file whole, but no gcda-done: the guest may have had more. */
	assert_rejected(console.buf, (size_t)(last - console.buf), "no gcda-done after");
}

/* One hex digit changed in the first file's first data line. */
static void test_corrupted(void **state)
{
	const char *line = strstr(console.buf, "\n# gcda ");
	char digit, changed[2] = { 0 }, from[2] = { 0 };
	size_t len;
	char *text;

	(void)state;
	assert_non_null(line);
	digit = line[8 + 20];
	from[0] = digit;
	changed[0] = digit == '0' ? '1' : '0';
	text = edit(from, changed, line + 8 + 20, &len);
	assert_rejected(text, len, "arrived damaged (CRC-32");
	free(text);

	/* Not hex at all; a line cut in half; a file one byte short of its length. */
	text = edit(from, "g", line + 8 + 20, &len);
	assert_rejected(text, len, "is not hex");
	free(text);
	text = edit(from, "", line + 8 + 20, &len);
	assert_rejected(text, len, "hex digits");
	free(text);
}

static void test_bad_blocks(void **state)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "# fpubench: gcda /a/../etc/x.gcda\n", "is not an absolute .gcda path" },
		{ "# fpubench: gcda relative/x.gcda\n", "is not an absolute .gcda path" },
		{ "# fpubench: gcda /b/x.gcno\n", "is not an absolute .gcda path" },
		{ "# gcda 00\n", "data outside a block" },
		{ "# fpubench: gcda-end 0 00000000\n", "gcda-end outside a block" },
		{ "# fpubench: gcda /b/x.gcda\n# fpubench: gcda /b/y.gcda\n", "'/b/x.gcda' is cut short (no gcda-end)" },
		{ "# fpubench: gcda /b/x.gcda\n# fpubench: gcda-end 0 zzzzzzzz\n", "malformed gcda-end" },
		{ "# fpubench: gcda /b/x.gcda\n# gcda 0000\n# fpubench: gcda-end 3 00000000\n",
		  "arrived with 2 bytes of 3" },
		{ "# fpubench: gcda /b/x.gcda\n# fpubench: gcda-end 0 00000000\n"
		  "# fpubench: gcda /b/x.gcda\n", "is sent twice" },
		{ "# fpubench: gcda /b/x.gcda\n# fpubench: gcda-end 0 00000000\n"
		  "# fpubench: gcda-done 2\n", "does not count the 1 files sent" },
		{ "# fpubench: gcda-error cannot mount debugfs (error -19)\n",
		  "could not send its gcov data: cannot mount debugfs (error -19)" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_rejected(cases[i].text, strlen(cases[i].text), cases[i].message);
}

/* A printk line between two data lines is skipped; "\r\n" line ends are the tty's. */
static void test_interleaved(void **state)
{
	const unsigned char data[] = { 1, 2, 3 };
	char text[256];
	struct gcda_set *set;

	(void)state;
	snprintf(text, sizeof(text),
		 "# fpubench: gcda /b/x.gcda\r\n# gcda 0102\r\n[    3.100000] random: crng init done\r\n"
		 "# gcda 03\r\n# fpubench: gcda-end 3 %08lx\r\n# fpubench: gcda-done 1\r\n",
		 crc32(0, data, 3));
	assert_int_equal(scan(text, strlen(text), &set), 0);
	assert_int_equal(set->nfiles, 1);
	assert_string_equal(set->files[0].path, "/b/x.gcda");
	assert_int_equal(set->files[0].len, 3);
	assert_memory_equal(set->files[0].data, data, 3);
	gcda_set_free(set);
}

/*
 * The real console's files are in the directory its kernel was built in;
 * the same kernel's data read from a copy of its cache are not (kbuild
 * builds it again there), nor are hostile paths that merely start alike.
 */
static void test_path_in(void **state)
{
	const char *built = "/root/.cache/fpubench/build/debian-6.1.192/patched-gcov";
	struct gcda_set *set;

	(void)state;
	assert_int_equal(scan(console.buf, console.len, &set), 0);
	assert_string_equal(gcda_path_in(&set->files[0], built), "arch/x86/kernel/process_32.gcda");
	for (size_t i = 0; i < set->nfiles; i++) {
		assert_non_null(gcda_path_in(&set->files[i], built));
		assert_null(gcda_path_in(&set->files[i], "/work/cache-copy/build/debian-6.1.192/patched-gcov"));
	}
	gcda_set_free(set);

	static const char *const hostile[] = {
		"/root/.cache/fpubench/build/debian-6.1.192/patched-gcov2/arch/x86/kernel/traps.gcda",
		"/root/.cache/fpubench/build/debian-6.1.192/patched-gcov.gcda",
		"/root/.cache/fpubench/build/debian-6.1.192/patched/arch/x86/kernel/traps.gcda",
		"/etc/x.gcda",
	};
	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
		struct gcda_file f = { .path = (char *)hostile[i] };

		assert_null(gcda_path_in(&f, built));
	}
	/* A ".." that would climb out never gets this far. */
	const char *climb = "# fpubench: gcda /root/.cache/fpubench/build/debian-6.1.192/patched-gcov/../x.gcda\n";
	assert_int_equal(scan(climb, strlen(climb), &set), ERR_INPUT);
	assert_non_null(strstr(error_last(), "is not an absolute .gcda path"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_console),
		cmocka_unit_test(test_no_data),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupted),
		cmocka_unit_test(test_bad_blocks),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_path_in),
	};

	return cmocka_run_group_tests(tests, load, unload);
}
