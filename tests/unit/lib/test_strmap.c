#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/strmap.h"

#include <stdio.h>

static void test_lists_keep_order_and_drop_repeats(void **state)
{
	struct strmap m = { 0 };
	const struct strmap_entry *e;

	(void)state;
	assert_null(strmap_get(&m, "a"));
	strmap_add(&m, "a", 3);
	strmap_add(&m, "b", 1);
	strmap_add(&m, "a", 3);
	strmap_add(&m, "a", 0);
	strmap_add(&m, "a", 3);
	e = strmap_get(&m, "a");
	assert_non_null(e);
	assert_int_equal(e->n, 3);
	assert_int_equal(e->v[0], 3);
	assert_int_equal(e->v[1], 0);
	assert_int_equal(e->v[2], 3);
	assert_null(strmap_get(&m, NULL));
	assert_null(strmap_get(&m, "c"));
	strmap_release(&m);
	assert_null(strmap_get(&m, "a"));
}

/* Many keys: the table grows and every key still finds its own list. */
static void test_growth_keeps_every_key(void **state)
{
	struct strmap m = { 0 };
	char key[32];

	(void)state;
	for (size_t i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "<%zu@example.org>", i);
		strmap_add(&m, key, i);
	}
	assert_int_equal(m.used, 5000);
	assert_true(m.nslots >= 2 * m.used);
	for (size_t i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "<%zu@example.org>", i);
		const struct strmap_entry *e = strmap_get(&m, key);
		assert_non_null(e);
		assert_int_equal(e->n, 1);
		assert_int_equal(e->v[0], i);
	}
	strmap_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists_keep_order_and_drop_repeats),
		cmocka_unit_test(test_growth_keeps_every_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
