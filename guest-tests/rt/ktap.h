/*
 * ktap: writes KTAP (Documentation/dev-tools/ktap.rst) to the console in
 * the form the host's scanner reads (../README.md, "Console protocol").
 *
 * Every line leaves in one write() and is drained to the UART before the
 * call returns: a test may take the kernel down right after a line, and a
 * line still in the tty buffer would be lost with the record of which test
 * was running.
 *
 * A struct ktap is one level of nesting: init's has depth 0, a test's
 * subtests have depth 1 (indented 4 spaces).  Results are numbered in
 * order; init renumbers with ktap_number_next() because tests keep their
 * table position when a boot resumes.
 */
#ifndef GT_KTAP_H
#define GT_KTAP_H

#include "fmt.h"

#include <stdbool.h>

#define KTAP_LINE_MAX 256	/* bytes of one line, newline included; longer is cut */
#define KTAP_NOTES_MAX 768	/* bytes of a check's diagnostics */

struct ktap {
	int depth;	/* indentation levels of 4 spaces */
	int planned;	/* from ktap_plan(), -1 before it */
	int next;	/* number of the next result */
	int failed;	/* "not ok" results so far */
	const char *skip;	/* why the whole test was skipped (ktap_skip_all()), or NULL */
};

void ktap_init(struct ktap *k, int depth);

/* "KTAP version 1" */
void ktap_header(const struct ktap *k);

/* "1..count" */
void ktap_plan(struct ktap *k, int count);

void ktap_number_next(struct ktap *k, int number);

/*
 * "1..0": the test does not apply here.  `reason` (a static string) is
 * kept for the test's result line, "ok K name # SKIP reason".
 */
void ktap_skip_all(struct ktap *k, const char *reason);

/* "ok N name" or "not ok N name" */
void ktap_result(struct ktap *k, bool ok, const char *name);

/* The same with a directive: "ok N name # SKIP reason", "not ok N name # TIMEOUT after 10 s". */
__attribute__((format(printf, 4, 5)))
void ktap_result_directive(struct ktap *k, bool ok, const char *name, const char *fmt, ...);

/* "# text" */
__attribute__((format(printf, 2, 3)))
void ktap_diag(const struct ktap *k, const char *fmt, ...);

/*
 * One subtest's comparisons.  KTAP puts diagnostics after the result line,
 * but the result is only known after the last comparison, so a check keeps
 * what it will say until ktap_check_end().  It points into itself: do not
 * copy one.
 */
struct ktap_check {
	bool ok;
	struct fmt_buf notes;	/* lines, each ended by '\n' */
	char storage[KTAP_NOTES_MAX];
};

void ktap_check_begin(struct ktap_check *c);

/* When `holds` is false the subtest fails, and `fmt` says how (e.g. "expected 1, got 2"). */
__attribute__((format(printf, 3, 4)))
void ktap_check_expect(struct ktap_check *c, bool holds, const char *fmt, ...);

/* Context that is printed only if the subtest fails: the values it saw. */
__attribute__((format(printf, 2, 3)))
void ktap_check_note(struct ktap_check *c, const char *fmt, ...);

/* Prints the result line, then, if it failed, the expectations and notes in order. */
void ktap_check_end(struct ktap *k, struct ktap_check *c, const char *name);

#endif
