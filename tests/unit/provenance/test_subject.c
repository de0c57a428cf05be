#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "provenance/subject.h"
#include "lib/array.h"

#include <stdlib.h>
#include <string.h>

struct expect {
	const char *raw;
	const char *normalized;
	unsigned version, index, total;
	bool rfc, resend, patch, reply;
};

static void test_tags_and_prefixes(void **state)
{
	static const struct expect cases[] = {
		{ "[PATCH v3 2/5] x86/fpu: Fix it", "x86/fpu: Fix it", 3, 2, 5, false, false, true, false },
		{ "[RFC PATCH] mm: Try this", "mm: Try this", 1, 0, 0, true, false, true, false },
		{ "[PATCH RESEND] a: b", "a: b", 1, 0, 0, false, true, true, false },
		{ "[RESEND PATCH v2 1/1] a: b", "a: b", 2, 1, 1, false, true, true, false },
		{ "[tip: x86/urgent] x86-32, fpu: Fix", "x86-32, fpu: Fix", 1, 0, 0, false, false, false, false },
		{ "Re: [PATCH v2 0/3] series", "series", 2, 0, 3, false, false, true, true },
		{ "RE: Fwd: AW: [PATCH] a", "a", 1, 0, 0, false, false, true, true },
		{ "Re[2]: [PATCH] a", "a", 1, 0, 0, false, false, true, true },
		{ "Re : [PATCH] a", "a", 1, 0, 0, false, false, true, true },
		{ "[PATCHv4] a", "a", 4, 0, 0, false, false, true, false },
		{ "[PATCH-v4 03/12] a", "a", 4, 3, 12, false, false, true, false },
		{ "[PATCH V2 net-next 3/4] net: a", "net: a", 2, 3, 4, false, false, true, false },
		{ "[RFC][PATCH 0/2] a", "a", 1, 0, 2, true, false, true, false },
		{ "[RFCv2 PATCH] a", "a", 2, 0, 0, true, false, true, false },
		{ "[PATCH 00/12] a", "a", 1, 0, 12, false, false, true, false },
		{ "  x86:   tidy \t up  ", "x86: tidy up", 1, 0, 0, false, false, false, false },
		{ "[GIT PULL] x86 fixes", "x86 fixes", 1, 0, 0, false, false, false, false },
		{ "[PATCH 3/2] a", "a", 1, 0, 0, false, false, true, false },
		{ "[PATCH v99999] a", "a", 1, 0, 0, false, false, true, false },
		{ "[PATCH vhost] a", "a", 1, 0, 0, false, false, true, false },
		{ "[RFCOMM] a", "a", 1, 0, 0, false, false, false, false },
		{ "[unterminated a", "[unterminated a", 1, 0, 0, false, false, false, false },
		{ "Regression in x86", "Regression in x86", 1, 0, 0, false, false, false, false },
		{ "x86: [fix] inside", "x86: [fix] inside", 1, 0, 0, false, false, false, false },
		{ "[v2] a", "a", 2, 0, 0, false, false, false, false },
		{ "", "", 1, 0, 0, false, false, false, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct expect *e = &cases[i];
		struct subject s;
		subject_parse(&s, e->raw);
		if (strcmp(s.normalized, e->normalized) != 0 || s.version != e->version ||
		    s.index != e->index || s.total != e->total || s.rfc != e->rfc ||
		    s.resend != e->resend || s.patch != e->patch || s.reply != e->reply)
			fail_msg("'%s': '%s' v%u %u/%u rfc=%d resend=%d patch=%d reply=%d", e->raw,
				 s.normalized, s.version, s.index, s.total, s.rfc, s.resend, s.patch,
				 s.reply);
		subject_release(&s);
	}
}

static void test_key_folds_ascii_case(void **state)
{
	char *key = subject_key("x86/FPU: Fix \xc3\x84rger");

	(void)state;
	assert_string_equal(key, "x86/fpu: fix \xc3\x84rger");
	free(key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tags_and_prefixes),
		cmocka_unit_test(test_key_folds_ascii_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
