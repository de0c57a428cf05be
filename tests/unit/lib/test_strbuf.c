#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void expect_json(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_json(&sb, in);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_json_escapes(void **state)
{
	(void)state;
	expect_json("plain", "plain");
	expect_json("a\"b\\c\nd\te", "a\\\"b\\\\c\\nd\\te");
	expect_json("\x01\x1b[0m\x7f", "\\u0001\\u001b[0m\\u007f");
	/* UTF-8 passes whole; broken sequences are escaped byte by byte. */
	expect_json("J\xc3\xbcrgen \xe2\x82\xac \xf0\x9f\x90\xa7", "J\xc3\xbcrgen \xe2\x82\xac \xf0\x9f\x90\xa7");
	expect_json("\xc3", "\\u00c3");
	expect_json("\xc3(", "\\u00c3(");
	expect_json("\xc0\xaf", "\\u00c0\\u00af");		/* overlong '/' */
	expect_json("\xed\xa0\x80", "\\u00ed\\u00a0\\u0080");	/* a surrogate */
	expect_json("\xf5\x80\x80\x80", "\\u00f5\\u0080\\u0080\\u0080");
}

static void test_growth_and_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i);
	assert_int_equal(sb.buf[sb.len], '\0');
	assert_int_equal(strncmp(sb.buf, "0,1,2,", 6), 0);
	s = strbuf_detach(&sb);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	free(s);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_growth_and_detach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
