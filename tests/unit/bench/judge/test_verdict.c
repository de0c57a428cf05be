/* Verdicts, expectations and the exit statuses they map to. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/array.h"
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

static void test_exit_statuses(void **state)
{
	(void)state;
	assert_int_equal(error_exit_status(0), EXIT_OK);
	/* git bisect run: 125 skips, 128 and up aborts. */
	assert_int_equal(error_exit_status(ERR_APPLY), 125);
	assert_int_equal(error_exit_status(ERR_BUILD), 125);
	assert_true(error_exit_status(ERR_USAGE) >= 128);
	assert_true(error_exit_status(ERR_LIBVIRT) >= 128);
	assert_true(error_exit_status(ERR_GENERIC) >= 128);
	/* A missing input and a malformed one are both bad input; every other kind has its own status. */
	assert_int_equal(error_exit_status(ERR_NOTFOUND), 128);
	assert_int_equal(error_exit_status(ERR_INPUT), 128);
	const int codes[] = { ERR_NOTFOUND, ERR_CONFIG, ERR_CPU, ERR_CACHE, ERR_LIBVIRT,
			      ERR_USAGE, ERR_GENERIC };
	for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
		for (size_t j = i + 1; j < ARRAY_SIZE(codes); j++)
			assert_int_not_equal(error_exit_status(codes[i]), error_exit_status(codes[j]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_meets),
		cmocka_unit_test(test_exit_statuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
