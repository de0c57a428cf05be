#include "plan.h"

#include <fnmatch.h>
#include <stddef.h>

enum fpu_kind { ANY_FPU, FSAVE_ONLY };

struct expect_rule {
	const char *variant;	/* fnmatch patterns */
	enum fpu_kind fpu;
	const char *test;
	enum verdict expected;
};

static const struct expect_rule rules[] = {
	{ "unpatched", FSAVE_ONLY, "fpu_seed", VERDICT_CRASH },
	{ "*", ANY_FPU, "*", VERDICT_PASS },
};

enum verdict plan_expect(const char *variant, bool fsave, const char *test)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct expect_rule *r = &rules[i];

		if (r->fpu == FSAVE_ONLY && !fsave)
			continue;
		if (fnmatch(r->variant, variant, 0) == 0 && fnmatch(r->test, test, 0) == 0)
			return r->expected;
	}
	return VERDICT_PASS;
}
