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

/*
 * On "unpatched" every #MF of a task on an FSAVE CPU oopses the kernel:
 * math_error() syncs the state with fsave, which raises the exception
 * again in save_fpregs_to_fpstate().  So does a context switch, exit or
 * kernel_fpu_begin() while an exception is pending.  Each test below
 * reaches one of these (guest-tests/README.md says which subtest); the
 * others never leave an exception pending and pass.  Tests that need a
 * CPU feature SKIP without it, which meets PASS.
 */
static const struct expect_rule rules[] = {
	{ "unpatched", FSAVE_ONLY, "fpu_addr", VERDICT_CRASH },
	{ "unpatched", FSAVE_ONLY, "fpu_edges", VERDICT_CRASH },
	{ "unpatched", FSAVE_ONLY, "fpu_frame", VERDICT_CRASH },
	{ "unpatched", FSAVE_ONLY, "fpu_kmod", VERDICT_CRASH },
	{ "unpatched", FSAVE_ONLY, "fpu_load", VERDICT_CRASH },
	{ "unpatched", FSAVE_ONLY, "fpu_seed", VERDICT_CRASH },
	{ "unpatched", FSAVE_ONLY, "fpu_sicode", VERDICT_CRASH },
	{ "unpatched", FSAVE_ONLY, "fpu_survive", VERDICT_CRASH },
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
