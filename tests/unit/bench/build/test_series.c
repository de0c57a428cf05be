#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "build/series.h"

#include <string.h>

static void test_parse_series_and_variants(void **state)
{
	struct series *s;

	(void)state;
	assert_int_equal(series_parse(&s, "p", "series",
				      "# comment\n\n0001-a.patch\n  0002-b.patch -p1  # why\n"), 0);
	assert_int_equal(s->npatches, 2);
	assert_string_equal(s->patches[0], "p/0001-a.patch");
	assert_string_equal(s->patches[1], "p/0002-b.patch");
	assert_int_equal(series_parse_variants(s, "variants",
					       "pristine -\nbroken 0001-a.patch\nfixed 0002-b.patch\n"), 0);
	assert_int_equal(s->nvariants, 3);
	assert_int_equal(series_find_variant(s, "pristine")->npatches, 0);
	assert_int_equal(series_find_variant(s, "broken")->npatches, 1);
	assert_int_equal(series_find_variant(s, "fixed")->npatches, 2);
	assert_null(series_find_variant(s, "other"));
	series_free(s);
}

static void test_bad_series_lines_are_named(void **state)
{
	struct series *s = NULL;

	(void)state;
	assert_int_equal(series_parse(&s, "p", "series", "a.patch\nb.patch -p0\n"), ERR_INPUT);
	assert_string_equal(error_last(), "series 'series' line 2: only 'PATCH [-p1]' is supported");
	assert_null(s);
	/* Empty and comment lines count: the number is the editor's. */
	assert_int_equal(series_parse(&s, "p", "series", "\n# c\na.patch\n\nb.patch -p0\n"), ERR_INPUT);
	assert_string_equal(error_last(), "series 'series' line 5: only 'PATCH [-p1]' is supported");
	assert_null(s);
}

static void test_bad_variants(void **state)
{
	struct series *s;

	(void)state;
	assert_int_equal(series_parse(&s, "p", "series", "a.patch\n"), 0);
	assert_int_equal(series_parse_variants(s, "v", "x b.patch\n"), ERR_INPUT);
	assert_string_equal(error_last(), "variants 'v' line 1: patch 'b.patch' is not in the series");
	assert_int_equal(series_parse_variants(s, "v2", "x a.patch\nx -\n"), ERR_INPUT);
	assert_non_null(strstr(error_last(), "defined twice"));
	series_free(s);
	assert_int_equal(series_parse(&s, "p", "series", "a.patch\n"), 0);
	assert_int_equal(series_parse_variants(s, "v3", "# nothing\n"), ERR_INPUT);
	assert_string_equal(error_last(), "variants 'v3' defines no variant");
	series_free(s);
}

static void test_load_the_real_series(void **state)
{
	struct series *s;

	(void)state;
	assert_int_equal(series_load(&s, "patches"), 0);
	assert_int_equal(s->npatches, 2);
	assert_int_equal(series_find_variant(s, "unpatched")->npatches, 1);
	assert_int_equal(series_find_variant(s, "patched")->npatches, 2);
	series_free(s);
}

static void test_missing_files(void **state)
{
	struct series *s = NULL;

	(void)state;
	assert_int_equal(series_load(&s, "tests/fixtures/no-such-dir"), ERR_NOTFOUND);
	assert_non_null(strstr(error_last(), "'tests/fixtures/no-such-dir/series'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_series_and_variants),
		cmocka_unit_test(test_bad_series_lines_are_named),
		cmocka_unit_test(test_bad_variants),
		cmocka_unit_test(test_load_the_real_series),
		cmocka_unit_test(test_missing_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
