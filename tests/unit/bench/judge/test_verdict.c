/* Verdicts, expectations and the exit statuses they map to. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "judge/verdict.h"

static void test_names_round_trip(void **state)
{
	(void)state;
	for (int v = 0; v < VERDICT_COUNT; v++) {
		enum verdict back;
		assert_int_equal(verdict_parse(verdict_name((enum verdict)v), &back), 0);
		assert_int_equal(back, v);
	}
	enum verdict out;
	assert_int_equal(verdict_parse("passed", &out), -1);
	assert_string_equal(verdict_name(VERDICT_CRASH), "crash");
}

static void test_meets(void **state)
{
	(void)state;
	assert_true(verdict_meets(VERDICT_SKIP, VERDICT_PASS));
	assert_true(verdict_meets(VERDICT_CRASH, VERDICT_CRASH));
	assert_false(verdict_meets(VERDICT_PASS, VERDICT_CRASH));
	assert_false(verdict_meets(VERDICT_FAIL, VERDICT_PASS));
	assert_false(verdict_meets(VERDICT_SKIP, VERDICT_CRASH));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_meets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
