/*
 * plan: what each cell of the matrix is expected to do.
 *
 * The expectations are rules over (variant, FPU save kind of the setup,
 * test); the first rule that matches gives the expected verdict.  They
 * encode the bench's premise: the "patched" kernel passes everywhere, and
 * the "unpatched" one (the fsave regression) crashes on every FSAVE setup
 * with the seed reproducer while the FXSAVE controls pass.
 */
#ifndef FPUBENCH_PLAN_H
#define FPUBENCH_PLAN_H

#include "verdict.h"

#include <stdbool.h>

/* Expected verdict for the cell; PASS when no rule speaks of it. */
enum verdict plan_expect(const char *variant, bool fsave, const char *test);

#endif
