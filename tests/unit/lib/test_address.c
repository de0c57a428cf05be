#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/address.h"
#include "lib/array.h"

#include <stdlib.h>

/* The forms of mail headers and of trailers (Cc: <stable@vger.kernel.org> # 5.10+). */
static void test_the_forms_people_write(void **state)
{
	static const struct {
		const char *value, *name, *email;
	} cases[] = {
		{ "Zoe Unal <zoe@example.org>", "Zoe Unal", "zoe@example.org" },
		{ "\"Maintainer, Carol\" <carol@example.org>", "Maintainer, Carol", "carol@example.org" },
		{ "\"A \\\"B\\\" C\" <abc@example.org>", "A \"B\" C", "abc@example.org" },
		{ "bob@example.org (Bob Reviewer)", "Bob Reviewer", "bob@example.org" },
		{ "  <stable@vger.kernel.org> # 5.10+", "", "stable@vger.kernel.org" },
		{ "stable@vger.kernel.org # 5.10+", "", "stable@vger.kernel.org" },
		{ "x86@kernel.org", "", "x86@kernel.org" },
		{ "", "", "" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *name, *email;

		address_split(cases[i].value, &name, &email);
		assert_string_equal(name, cases[i].name);
		assert_string_equal(email, cases[i].email);
		free(name);
		free(email);
	}
}

static void test_plain_addresses(void **state)
{
	(void)state;
	assert_true(address_is_plain("zoe@example.org"));
	assert_false(address_is_plain("zoe.example.org"));
	assert_false(address_is_plain("zoe@example.org, bob@example.org"));
	assert_false(address_is_plain("Zoe <zoe@example.org>"));
	assert_false(address_is_plain("zoe @example.org"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_forms_people_write),
		cmocka_unit_test(test_plain_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
