#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

static size_t utf8_length(const char *s)
{
	return strbuf_utf8_length((const unsigned char *)s, strlen(s));
}

/* Whole sequences only: what is cut, overlong, a surrogate or past U+10FFFF is none. */
static void test_utf8_length(void **state)
{
	(void)state;
	assert_int_equal(utf8_length("J"), 1);
	assert_int_equal(utf8_length("\x01"), 1);
	assert_int_equal(utf8_length("\xc3\xbc"), 2);
	assert_int_equal(utf8_length("\xe2\x82\xac"), 3);
	assert_int_equal(utf8_length("\xf0\x9f\x90\xa7"), 4);
	assert_int_equal(utf8_length(""), 0);
	assert_int_equal(utf8_length("\xc3"), 0);
	assert_int_equal(utf8_length("\xc3("), 0);
	assert_int_equal(utf8_length("\xc0\xaf"), 0);		/* overlong '/' */
	assert_int_equal(utf8_length("\xed\xa0\x80"), 0);	/* a surrogate */
	assert_int_equal(utf8_length("\xf5\x80\x80\x80"), 0);
	/* Within `left` bytes: a sequence cut by the end of the buffer is none either. */
	assert_int_equal(strbuf_utf8_length((const unsigned char *)"\xe2\x82\xac", 2), 0);
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
		cmocka_unit_test(test_utf8_length),
		cmocka_unit_test(test_growth_and_detach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
