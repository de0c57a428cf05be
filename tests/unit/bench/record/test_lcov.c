/*
 * The lcov tracefile reader and the coverage summary, on real tracefiles
 * (tests/fixtures/lcov: the 486 and pentium3 setups of one coverage run).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "record/lcov.h"

#include <stdlib.h>
#include <string.h>

static struct lcov_trace *load(const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct lcov_trace *t = NULL;

	assert_int_equal(file_read(path, &text), 0);
	assert_int_equal(lcov_parse(path, text.buf, &t), 0);
	strbuf_release(&text);
	return t;
}

static bool is_fpu(const char *path)
{
	return strncmp(path, "arch/x86/", 9) == 0;
}

static void assert_has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("summary lacks '%s':\n%s", want, text);
}

static void test_parse(void **state)
{
	struct lcov_trace *t = load("tests/fixtures/lcov/fsave.info");
	const struct lcov_file *legacy;

	(void)state;
	assert_int_equal(t->nfiles, 3);
	legacy = &t->files[1];
	assert_string_equal(legacy->path, "arch/x86/kernel/fpu/legacy.h");
	assert_int_equal(legacy->nlines, 19);
	assert_int_equal(legacy->functions, 7);
	assert_int_equal(legacy->functions_hit, 3);
	assert_int_equal(legacy->fns[1].line, 55);
	assert_string_equal(legacy->fns[1].name, "fxsave_to_user_sigframe");
	/* frstor() on the 486: every restore of the FSAVE image. */
	assert_int_equal(legacy->lines[12].line, 88);
	assert_int_equal(legacy->lines[12].hits, 48602);
	lcov_trace_free(t);
}

static void test_summary(void **state)
{
	struct lcov_trace *fsave = load("tests/fixtures/lcov/fsave.info");
	struct lcov_trace *all = load("tests/fixtures/lcov/all.info");
	struct lcov_named f = { "FSAVE setups together", fsave }, a = { "every setup", all };
	struct strbuf out = STRBUF_INIT;

	(void)state;
	lcov_summary(&out, &f, 1, &f, &a, is_fpu);
	assert_has(out.buf, "FSAVE setups together\n");
	assert_has(out.buf, "  arch/x86/kernel/fpu/legacy.h                       7/19     36.8%      3/7     42.9%\n");
	assert_has(out.buf, "  arch/x86/kernel/fpu/legacy.h                      17/19     89.5%      6/7     85.7%\n");
	/* include/linux/sched.h is not FPU code: summed, not listed. */
	assert_has(out.buf, "  (other inlined code)                              11/19     57.9%      3/6     50.0%\n");
	assert_has(out.buf, "  total                                             24/45     53.3%      7/14    50.0%\n");
	assert_null(strstr(out.buf, "sched.h"));
	assert_has(out.buf, "Lines only the FXSAVE setups execute (line numbers):\n"
			    "  arch/x86/kernel/fpu/legacy.h (10): 11, 55, 58, 64, 67, 70, 72, 75, 106, 109\n");
	assert_has(out.buf, "Lines no setup executes (line numbers):\n"
			    "  arch/x86/kernel/fpu/bugs.c (1): 57\n"
			    "  arch/x86/kernel/fpu/legacy.h (2): 80, 83\n");
	strbuf_release(&out);
	lcov_trace_free(fsave);
	lcov_trace_free(all);
}

static void test_malformed(void **state)
{
	struct lcov_trace *t = NULL;

	(void)state;
	assert_int_equal(lcov_parse("x.info", "TN:\nSF:a.c\nDA:1\nend_of_record\n", &t), ERR_INPUT);
	assert_null(t);
	assert_string_equal(error_last(), "tracefile 'x.info' line 3 is not lcov's: 'DA:1'");
	assert_int_equal(lcov_parse("x.info", "TN:\nSF:a.c\nDA:1,1\n", &t), ERR_INPUT);
	assert_string_equal(error_last(), "tracefile 'x.info' ends inside the record of 'a.c'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
