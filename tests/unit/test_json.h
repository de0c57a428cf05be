/*
 * What the tests of JSON writers share: the document read back with json-c
 * and its values compared as JSON, so that a test says what a document
 * holds and not how json-c lays it out.  Include after cmocka.h.
 */
#ifndef TEST_JSON_H
#define TEST_JSON_H

#include "lib/jsonw.h"

/* The document in text; fails the test when it is not JSON. */
static inline struct json_object *test_json_parse(const char *text)
{
	enum json_tokener_error error;
	struct json_object *doc = json_tokener_parse_verbose(text, &error);

	if (error != json_tokener_success)
		fail_msg("not JSON (%s): %s", json_tokener_error_desc(error), text);
	return doc;
}

/*
 * The value at pointer (RFC 6901: "/tests/0/id", "" for the whole document)
 * equals want, a JSON text; objects are equal whatever their keys' order,
 * but 1 (an integer) is not 1.0.  A failure names the caller's line.
 */
#define test_json_expect(doc, pointer, want) \
	test_json_expect_at(doc, pointer, want, __FILE__, __LINE__)

static inline void test_json_expect_at(struct json_object *doc, const char *pointer,
				       const char *want, const char *file, int line)
{
	struct json_object *expected = test_json_parse(want), *got;

	if (json_pointer_get(doc, pointer, &got) != 0) {
		print_error("nothing at '%s'\n", pointer);
		_fail(file, line);
	}
	if (!json_object_equal(got, expected)) {
		print_error("'%s' is %s, not %s\n", pointer, json_object_to_json_string(got), want);
		_fail(file, line);
	}
	json_object_put(expected);
}

#endif
