#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/strbuf.h"
#include "lib/strlist.h"

static void test_push_unique_and_release(void **state)
{
	struct strlist l = STRLIST_INIT;

	(void)state;
	for (int i = 0; i < 20; i++)
		strlist_push(&l, xasprintf("%d", i));
	strlist_push_unique(&l, "3");
	strlist_push_unique(&l, "new");
	assert_int_equal(l.n, 21);
	assert_true(strlist_contains(&l, "new"));
	assert_false(strlist_contains(&l, "absent"));
	strlist_release(&l);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
	strlist_release(&l);
}

static void test_a_choice_selects_its_names_and_none_selects_all(void **state)
{
	static const char *const chosen[] = { "fpu_seed", "fpu_load" };

	(void)state;
	assert_true(strv_selects(chosen, 2, "fpu_load"));
	assert_false(strv_selects(chosen, 2, "fpu_frame"));
	assert_false(strv_selects(chosen, 2, "fpu_"));
	assert_true(strv_selects(NULL, 0, "fpu_frame"));
	assert_false(strv_contains(NULL, 0, "fpu_frame"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_unique_and_release),
		cmocka_unit_test(test_a_choice_selects_its_names_and_none_selects_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
