#include "expect.h"

#include <fnmatch.h>

static bool rule_covers(const struct expect_rule *e, const char *variant, bool fsave)
{
	if ((e->fpu == EXPECT_FPU_FSAVE && !fsave) || (e->fpu == EXPECT_FPU_FXSAVE && fsave))
		return false;
	return fnmatch(e->variant, variant, 0) == 0;
}

const struct expect_rule *expect_find(const struct expect_rule *rules, size_t n,
				      const char *variant, bool fsave, const char *test)
{
	for (size_t i = 0; i < n; i++) {
		const struct expect_rule *e = &rules[i];

		if (rule_covers(e, variant, fsave) && fnmatch(e->test, test, 0) == 0)
			return e;
	}
	return NULL;
}

size_t expect_boot_enders(const struct expect_rule *rules, size_t n, const char *variant,
			  bool fsave)
{
	size_t enders = 0;

	for (size_t i = 0; i < n; i++)
		enders += rule_covers(&rules[i], variant, fsave) &&
			  (rules[i].status == VERDICT_CRASH || rules[i].status == VERDICT_TIMEOUT);
	return enders;
}
