/*
 * fpu_fresh: a new program starts with a clean x87 state.
 *
 * Guards execve's fpu_flush_thread() and fpu__clear_user_states() in
 * arch/x86/kernel/fpu/core.c (through flush_thread() in
 * arch/x86/kernel/process.c): whatever the old program left, the new one
 * starts in the state fninit gives (init_fpstate: FCW 0x037f, FSW 0, tag
 * word 0xffff, every register empty).  The new program is rt/fresh.c's
 * probe, which saves the state before any other x87 instruction.
 *
 *   from_clean  the old program ran fninit;
 *   from_busy   it left FCW 0x0c7f (round toward zero, 24-bit precision,
 *               masked), flags C1|PE|UE and pi, e and 1e10 on the stack.
 * (A pending exception at execve is fpu_edges' job.)
 */
#include "rt/fpstate.h"
#include "rt/fresh.h"
#include "rt/ktap.h"
#include "rt/test.h"

static const long double fresh_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10 };

struct fresh_case {
	const char *name;
	struct fpstate_spec spec;
};

static const struct fresh_case fresh_cases[] = {
	{ "from_clean", { .cw = X87_CW_DEFAULT } },
	{ "from_busy", { .cw = 0x0c7f, .sw_flags = X87_SW_C1 | X87_SW_PE | X87_SW_UE,
			 .count = ARRAY_SIZE(fresh_values), .values = fresh_values } },
};

static void fresh_run(struct ktap *subtests)
{
	ktap_plan(subtests, (int)ARRAY_SIZE(fresh_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(fresh_cases); i++) {
		struct ktap_check check;

		ktap_check_begin(&check);
		fresh_run_probe(&check, &fresh_cases[i].spec);
		ktap_check_end(subtests, &check, fresh_cases[i].name);
	}
}

GT_TEST("fpu_fresh", 10, fresh_run,
	GT_TAGS(GT_FUNC("fpu_flush_thread")),
	"fpu_flush_thread() in arch/x86/kernel/fpu/core.c: a new image starts with "
	"init_fpstate");
