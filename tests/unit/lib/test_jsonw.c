/* jsonw: what json-c writes for the bench, from any bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/array.h"
#include "lib/jsonw.h"

#include <string.h>

static void test_strings_become_valid_json(void **state)
{
	struct json_object *o = json_object_new_object();

	(void)state;
	json_object_object_add(o, "path", jsonw_string("/a/b \"q\"\n\x01"));
	json_object_object_add(o, "broken", jsonw_string("caf\xe9 \xc3\xa9"));
	json_object_object_add(o, "none", jsonw_string(NULL));
	assert_string_equal(jsonw_text(o), "{\n"
					    "  \"path\": \"/a/b \\\"q\\\"\\n\\u0001\",\n"
					    "  \"broken\": \"caf\xef\xbf\xbd \xc3\xa9\",\n"
					    "  \"none\": null\n"
					    "}");
	/* What it wrote reads back as the same document. */
	struct json_object *back = json_tokener_parse(jsonw_text(o));
	assert_non_null(back);
	assert_string_equal(json_object_get_string(json_object_object_get(back, "broken")),
			    "caf\xef\xbf\xbd \xc3\xa9");
	json_object_put(back);
	json_object_put(o);
}

#define FFFD "\xef\xbf\xbd"

/* Quotes, control bytes and broken UTF-8: the text holds no raw control byte and reads back. */
static void test_any_bytes_read_back(void **state)
{
	static const struct {
		const char *in, *back;
	} cases[] = {
		{ "a\"b\\c\nd\te", "a\"b\\c\nd\te" },
		{ "\x01\x1b[0m\x7f", "\x01\x1b[0m\x7f" },
		{ "J\xc3\xbcrgen \xe2\x82\xac \xf0\x9f\x90\xa7", "J\xc3\xbcrgen \xe2\x82\xac \xf0\x9f\x90\xa7" },
		{ "\xc3(", FFFD "(" },
		{ "\xc0\xaf", FFFD FFFD },			/* overlong '/' */
		{ "\xed\xa0\x80", FFFD FFFD FFFD },		/* a surrogate */
		{ "\xf5\x80\x80\x80", FFFD FFFD FFFD FFFD },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct json_object *o = jsonw_string(cases[i].in);
		const char *text = jsonw_text(o);

		for (const char *p = text; *p; p++)
			assert_false((unsigned char)*p < 0x20);
		struct json_object *back = json_tokener_parse(text);
		assert_non_null(back);
		assert_string_equal(json_object_get_string(back), cases[i].back);
		json_object_put(back);
		json_object_put(o);
	}
}

/* Seconds and confidences keep the digits asked for, and read back as the number. */
static void test_fixed_numbers(void **state)
{
	struct json_object *a = json_object_new_array();

	(void)state;
	json_object_array_add(a, jsonw_fixed(1.5, 3));
	json_object_array_add(a, jsonw_fixed(0.87654, 2));
	json_object_array_add(a, jsonw_fixed(-1, 1));
	assert_string_equal(jsonw_text(a), "[\n  1.500,\n  0.88,\n  -1.0\n]");
	struct json_object *back = json_tokener_parse(jsonw_text(a));
	assert_non_null(back);
	assert_float_equal(json_object_get_double(json_object_array_get_idx(back, 0)), 1.5, 0);
	json_object_put(back);
	json_object_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings_become_valid_json),
		cmocka_unit_test(test_any_bytes_read_back),
		cmocka_unit_test(test_fixed_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
