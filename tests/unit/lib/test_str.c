/* str: words, trimming and the nearest name. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/str.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void test_split_words(void **state)
{
	char line[] = " patched\t0001-a.patch  0002-b.patch\r";
	char more[] = "a b c d";
	char *words[3];

	(void)state;
	assert_int_equal(str_split_words(line, words, 3), 3);
	assert_string_equal(words[0], "patched");
	assert_string_equal(words[2], "0002-b.patch");
	assert_int_equal(str_split_words(more, words, 3), 4);	/* max + 1: too many */
}

static void test_trimmed(void **state)
{
	const char *s = " \t value  with spaces \r\n", *blank = " \t\r\n";
	char *t = xstrndup_trimmed(s, s + strlen(s));

	(void)state;
	assert_string_equal(t, "value  with spaces");
	free(t);
	t = xstrndup_trimmed(blank, blank + strlen(blank));
	assert_string_equal(t, "");
	free(t);
}

static void test_nearest(void **state)
{
	static const char *const models[] = { "486", "pentium", "pentium2", "pentium3", "qemu32" };
	static const char *const features[] = { "fpu", "fxsr", "sse", "sse2", "cmov" };

	(void)state;
	assert_string_equal(str_nearest("pentum2", models, 5), "pentium2");
	assert_string_equal(str_nearest("fxrs", features, 5), "fxsr");	/* a transposition */
	assert_string_equal(str_nearest("qemu3", models, 5), "qemu32");
	assert_null(str_nearest("athlon", models, 5));
	assert_null(str_nearest("x", features, 0));
}

static void test_equal(void **state)
{
	char a[] = "6.1", b[] = "6.1";

	(void)state;
	assert_true(str_equal(a, b));	/* by content, not by pointer */
	assert_true(str_equal(NULL, NULL));
	assert_false(str_equal(a, NULL));
	assert_false(str_equal(NULL, b));
	assert_false(str_equal("6.1", "6.12"));
}

/* The bytes need no NUL: a prefix past len is not there. */
static void test_has_prefix_reads_only_len_bytes(void **state)
{
	static const char buf[] = { 'F', 'r', 'o', 'm', ' ', 'x' };

	(void)state;
	assert_true(str_has_prefix(buf, sizeof(buf), "From "));
	assert_false(str_has_prefix(buf, 4, "From "));
	assert_true(str_has_prefix(buf, 0, ""));
	assert_false(str_has_prefix(buf, sizeof(buf), "From  "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_words),
		cmocka_unit_test(test_trimmed),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_has_prefix_reads_only_len_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
