#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "provenance/changes.h"

#include <string.h>

static struct changes *parse(const char *text)
{
	return changes_parse(text, strlen(text));
}

static void test_files_and_lines(void **state)
{
	struct changes *c = parse(
		"Message.\n---\n b | 1 +\n\n"
		"diff --git a/b b/b\nindex 1..2 100644\n--- a/b\n+++ b/b\n"
		"@@ -1,3 +1,3 @@\n ctx\n-old\n+new\n ctx\n"
		"diff --git a/a b/a\ndeleted file mode 100644\n--- a/a\n+++ /dev/null\n"
		"@@ -1,2 +0,0 @@\n-x\n-y\n"
		"diff --git a/bin b/bin\nBinary files a/bin and b/bin differ\n"
		"-- \n2.39.5\n");

	(void)state;
	assert_int_equal(c->nfiles, 3);
	assert_string_equal(c->files[0].path, "a");
	assert_int_equal(c->files[0].removed, 2);
	assert_string_equal(c->files[1].path, "b");
	assert_int_equal(c->files[1].added, 1);
	assert_int_equal(c->files[1].removed, 1);
	assert_string_equal(c->files[2].path, "bin");
	assert_int_equal(c->files[2].nlines, 0);
	changes_free(c);
}

static void test_plain_diff_and_signature(void **state)
{
	/* Without hunk counts the "-- " signature would pass for a removed line. */
	struct changes *c = parse("--- f.orig\t2024-01-01\n+++ f\t2024-01-01\n@@ -1 +1 @@\n-a\n+b\n"
				  "-- \nsig\n");

	(void)state;
	assert_int_equal(c->nfiles, 1);
	assert_string_equal(c->files[0].path, "f");
	assert_int_equal(c->files[0].removed, 1);
	changes_free(c);
}

static void test_similarity_and_description(void **state)
{
	struct changes *a = parse("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n-b\n+c\n+d\n");
	struct changes *b = parse("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n-b\n+c\n+  e\n"
				  "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n");
	struct changes *same = parse("--- a/f\n+++ b/f\n@@ -7,2 +7,2 @@\n-a\n-b\n+  c\n+d\n");
	struct changes *none = parse("no diff\n");
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_true(changes_similarity(a, same) == 1.0);
	/* 3 shared lines: 2 * 3 / (4 + 6) */
	assert_true(changes_similarity(a, b) > 0.59 && changes_similarity(a, b) < 0.61);
	assert_true(changes_similarity(a, none) == 0.0);
	assert_true(changes_similarity(none, none) == 0.0);
	changes_describe(a, same, &sb);
	assert_string_equal(sb.buf, "same changes");
	strbuf_reset(&sb);
	changes_describe(a, b, &sb);
	assert_string_equal(sb.buf, "2 lines differ in f; now also touches g");
	strbuf_reset(&sb);
	changes_describe(b, a, &sb);
	assert_string_equal(sb.buf, "2 lines differ in f; no longer touches g");
	strbuf_release(&sb);
	changes_free(a);
	changes_free(b);
	changes_free(same);
	changes_free(none);
	changes_free(NULL);
}

static void test_truncated_input(void **state)
{
	static const char text[] = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n-a\n+b\n";

	(void)state;
	for (size_t n = 0; n <= sizeof(text) - 1; n++) {
		struct changes *c = changes_parse(text, n);
		changes_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_and_lines),
		cmocka_unit_test(test_plain_diff_and_signature),
		cmocka_unit_test(test_similarity_and_description),
		cmocka_unit_test(test_truncated_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
