/*
 * test: how a reproducer registers itself with init.
 *
 * GT_TEST() puts a descriptor into the `gt_tests` section; the linker
 * gathers them between __start_gt_tests and __stop_gt_tests, in link order
 * (the Makefile links the fpu-*.c files sorted by name).  So adding a test
 * is adding a file; init.c does not change.
 *
 * init runs each test's function in a child process of its own, after
 * printing "KTAP version 1" at the subtests' depth.  The function prints
 * its plan and subtests on `subtests`; the child then prints the test's
 * result line: "not ok" when a subtest failed or the count differs from
 * the plan.
 *
 * `guards` names the upstream commit the test guards, or, where no single
 * commit introduced the contract, the kernel code and contract it guards.
 * init prints it as "# guards: ..." right after the subtests' header, so
 * a reader of a failing cell's console knows what broke; it must fit one
 * KTAP line (KTAP_LINE_MAX) with its indentation.
 */
#ifndef GT_TEST_H
#define GT_TEST_H

#include "ktap.h"

struct gt_test {
	const char *name;		/* the KTAP name, e.g. "fpu_seed" */
	unsigned int timeout_s;		/* init kills the test after this */
	void (*run)(struct ktap *subtests);
	const char *guards;		/* a static string, e.g. "f994d99cf140 (...)" */
};

#ifdef GT_LIST_TESTS
/* The Makefile's tests.list: each test's name and guards, from the preprocessor. */
#define GT_TEST(name_, timeout_s_, run_, guards_) gt_list_entry name_ guards_
#else
#define GT_TEST(name_, timeout_s_, run_, guards_)                                   \
	static const struct gt_test gt_test_##run_                                  \
		__attribute__((used, section("gt_tests"),                          \
			       aligned(__alignof__(struct gt_test)))) = {           \
		.name = (name_),                                                    \
		.timeout_s = (timeout_s_),                                          \
		.run = (run_),                                                      \
		.guards = (guards_),                                                \
	}
#endif

/* For tests' tables of cases. */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern const struct gt_test __start_gt_tests[];
extern const struct gt_test __stop_gt_tests[];

#endif
