#include "expect.h"

#include <fnmatch.h>

const struct expect_rule *expect_find(const struct expect_rule *rules, size_t n,
				      const char *variant, bool fsave, const char *test)
{
	for (size_t i = 0; i < n; i++) {
		const struct expect_rule *e = &rules[i];

		if ((e->fpu == EXPECT_FPU_FSAVE && !fsave) || (e->fpu == EXPECT_FPU_FXSAVE && fsave))
			continue;
		if (fnmatch(e->variant, variant, 0) == 0 && fnmatch(e->test, test, 0) == 0)
			return e;
	}
	return NULL;
}
