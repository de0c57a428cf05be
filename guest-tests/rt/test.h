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
 * What a test guards is data, as LTP's tst_test tags: `tags` holds
 * GT_GIT("f994d99cf140"), an upstream commit whose fix the test checks
 * (the bench names it in `test --list`, report.html and KCIDB), and
 * GT_FUNC("fpu__restore_sig"), each kernel function whose contract it
 * checks (GT_NO_TAGS: none, for a test of the CPU alone); `guards` says
 * the contract in one sentence.  init prints them as
 * "# guards: ..." and "# tags: ..." right after the subtests' header, so a
 * reader of a failing cell's console knows what broke; each must fit one
 * KTAP line (KTAP_LINE_MAX) with its indentation.
 */
#ifndef GT_TEST_H
#define GT_TEST_H

#include "ktap.h"

/* A tag: "linux-git" and a commit id, or "function" and a kernel function's name. */
struct gt_tag {
	const char *name;
	const char *value;
};

struct gt_test {
	const char *name;		/* the KTAP name, e.g. "fpu_seed" */
	unsigned int timeout_s;		/* init kills the test after this */
	void (*run)(struct ktap *subtests);
	const struct gt_tag *tags;	/* GT_TAGS(...): ended by { NULL, NULL } */
	const char *guards;		/* the contract, a static string */
};

#ifdef GT_LIST_TESTS
/*
 * The Makefile's tests.list, from the preprocessor: each test's name, its
 * tags as NAME=VALUE words and its guards, in tokens the Makefile's sed reads.
 */
#define GT_GIT(commit_) gt_tag "linux-git" commit_
#define GT_FUNC(function_) gt_tag "function" function_
#define GT_TAGS(...) gt_tags __VA_ARGS__ gt_end_tags
#define GT_NO_TAGS gt_tags gt_end_tags
#define GT_TEST(name_, timeout_s_, run_, tags_, guards_) gt_list_entry name_ tags_ guards_
#else
#define GT_GIT(commit_) { "linux-git", (commit_) }
#define GT_FUNC(function_) { "function", (function_) }
#define GT_TAGS(...) ((const struct gt_tag[]){ __VA_ARGS__, { 0, 0 } })
#define GT_NO_TAGS ((const struct gt_tag[]){ { 0, 0 } })
#define GT_TEST(name_, timeout_s_, run_, tags_, guards_)                            \
	static const struct gt_test gt_test_##run_                                  \
		__attribute__((used, section("gt_tests"),                          \
			       aligned(__alignof__(struct gt_test)))) = {           \
		.name = (name_),                                                    \
		.timeout_s = (timeout_s_),                                          \
		.run = (run_),                                                      \
		.tags = tags_,                                                      \
		.guards = (guards_),                                                \
	}
#endif

/* For tests' tables of cases. */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern const struct gt_test __start_gt_tests[];
extern const struct gt_test __stop_gt_tests[];

#endif
