/*
 * verdict: the outcome of one cell (kernel variant x CPU setup x test).
 *
 * Verdicts are plain enum values; verdict_name() returns a static string
 * and verdict_parse() maps it back.  The order of the enum is the order of
 * severity used when several outcomes compete for one cell (a crash beats
 * a failure, which beats a pass).
 */
#ifndef FPUBENCH_VERDICT_H
#define FPUBENCH_VERDICT_H

#include <stdbool.h>

enum verdict {
	VERDICT_PASS,
	VERDICT_SKIP,
	VERDICT_FAIL,
	VERDICT_TIMEOUT,
	VERDICT_CRASH,
	VERDICT_ERROR,		/* the bench, not the kernel, went wrong */
};

#define VERDICT_COUNT (VERDICT_ERROR + 1)

/* "pass", "skip", ...; never NULL for a valid verdict. */
const char *verdict_name(enum verdict v);

/* 0 and *out set, or -1 for an unknown name. */
int verdict_parse(const char *name, enum verdict *out);


/*
 * Whether an observed verdict meets an expectation.  A skip meets a pass
 * expectation: a test that cannot run on a CPU says so and is not a failure.
 */
bool verdict_meets(enum verdict observed, enum verdict expected);

#endif
