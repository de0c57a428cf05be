/*
 * expect: what a cell is expected to give, from the [expect] rules of
 * fpubench.conf ("VARIANT FPU TEST = STATUS", first match wins).  A cell
 * that no rule matches is expected to pass.
 *
 * The rules are plain data owned by whoever parsed them (run/conf.h);
 * nothing here allocates.
 */
#ifndef FPUBENCH_EXPECT_H
#define FPUBENCH_EXPECT_H

#include "verdict.h"

#include <stdbool.h>
#include <stddef.h>

enum expect_fpu {
	EXPECT_FPU_ANY,
	EXPECT_FPU_FSAVE,
	EXPECT_FPU_FXSAVE,
};

struct expect_rule {
	char *variant;		/* fnmatch pattern */
	enum expect_fpu fpu;
	char *test;		/* fnmatch pattern */
	enum verdict status;
};

/*
 * The first of the n rules that matches the cell (fsave: the CPU setup
 * saves the FPU with FSAVE), or NULL when none does.
 */
const struct expect_rule *expect_find(const struct expect_rule *rules, size_t n,
				      const char *variant, bool fsave, const char *test);

/*
 * How many of the rules for the variant on such a setup expect a crash or a
 * time limit, each of which ends a boot: 0 means its tests are expected to
 * run in one boot.  A guess made before the tests are known (a rule's test
 * is a pattern), for handing out work.
 */
size_t expect_boot_enders(const struct expect_rule *rules, size_t n, const char *variant,
			  bool fsave);

#endif
