/*
 * The list of unreached lines and its part of the coverage summary, on a
 * real tracefile and the sources it was made from (tests/fixtures/lcov:
 * fsave.info of one coverage run, and src/, the two files of Linux
 * 6.1.192 it covers that are FPU code).
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
#include "record/unreached.h"

#include <stdlib.h>
#include <string.h>

#define LEGACY "arch/x86/kernel/fpu/legacy.h"
#define BUGS "arch/x86/kernel/fpu/bugs.c"

/* legacy.h's fxsave_to_user_sigframe() line, with other spaces than the source's tab. */
static const char list_text[] =
	"# a comment, then a blank line\n"
	"\n"
	"reason fxsr   FXSR only:  the kernel uses fnsave\n"
	"reason sse SSE only\n"
	LEGACY " fxrstor fxsr *\n"
	LEGACY "  fxsave_to_user_sigframe fxsr  return user_insn(fxsave %[fx],   [fx] \"=m\" (*fx), \"m\" (*fx)); \n"
	LEGACY " - sse asm volatile(\"ldmxcsr %0\" :: \"m\" (mxcsr));\n"
	/* fxsave() has no FN: record, so its lines count as frstor_from_user_sigframe()'s. */
	LEGACY " frstor_from_user_sigframe fxsr } @1\n"
	LEGACY " frstor_from_user_sigframe fxsr } @2\n"
	BUGS " fpu__init_check_bugs sse pr_warn(\"no such line\");\n";

static bool is_fpu(const char *path)
{
	return strncmp(path, "arch/x86/", 9) == 0;
}

static void assert_has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("summary lacks '%s':\n%s", want, text);
}

static struct lcov_trace *load_trace(void)
{
	struct strbuf text = STRBUF_INIT;
	struct lcov_trace *t = NULL;

	assert_int_equal(file_read("tests/fixtures/lcov/fsave.info", &text), 0);
	assert_int_equal(lcov_parse("fsave.info", text.buf, &t), 0);
	strbuf_release(&text);
	return t;
}

static void test_function_at(void **state)
{
	struct lcov_trace *t = load_trace();
	const struct lcov_file *legacy = lcov_trace_find(t, LEGACY);

	(void)state;
	assert_non_null(legacy);
	assert_null(lcov_function_at(legacy, 11));
	assert_string_equal(lcov_function_at(legacy, 55)->name, "fxsave_to_user_sigframe");
	assert_string_equal(lcov_function_at(legacy, 70)->name, "fxrstor");
	assert_int_equal(lcov_function_at(legacy, 70)->line, 64);
	assert_string_equal(lcov_function_at(legacy, 109)->name, "frstor_from_user_sigframe");
	lcov_trace_free(t);
}

static void test_summary(void **state)
{
	struct lcov_trace *t = load_trace();
	struct strbuf legacy = STRBUF_INIT, bugs = STRBUF_INIT, out = STRBUF_INIT;
	struct unreached_list *list = NULL;
	struct unreached_source src[2];

	(void)state;
	assert_int_equal(file_read("tests/fixtures/lcov/src/" LEGACY, &legacy), 0);
	assert_int_equal(file_read("tests/fixtures/lcov/src/" BUGS, &bugs), 0);
	src[0] = (struct unreached_source){ LEGACY, legacy.buf };
	src[1] = (struct unreached_source){ BUGS, bugs.buf };
	assert_int_equal(unreached_parse("u.list", list_text, &list), 0);
	unreached_summary(&out, t, list, "u.list", src, 2, is_fpu);
	assert_has(out.buf, "Lines no FSAVE setup executes, explained by u.list (reason: line numbers):\n"
			    "  " LEGACY " (6 of 12)\n"
			    "    sse (1): 11\n"
			    "    fxsr (5): 58, 64, 67, 70, 109\n"
			    "\nLines no FSAVE setup executes that u.list does not explain "
			    "(function: line numbers):\n"
			    "  " BUGS " (1)\n"
			    "    fpu__init_check_bugs: 57\n"
			    "  " LEGACY " (6)\n"
			    "    fxsave_to_user_sigframe: 55\n"
			    "    fxrstor_safe: 72, 75\n"
			    "    fxrstor_from_user_sigframe: 80, 83\n"
			    "    frstor_from_user_sigframe: 106\n");
	/*
	 * The stale entries (line 101's "}" ends frstor_from_user_sigframe(), which
	 * ran), and the reasons as the list spells them, spaces squeezed.
	 */
	assert_has(out.buf, "Entries of u.list that explain no line:\n"
			    "  " LEGACY " frstor_from_user_sigframe } @1\n"
			    "  " BUGS " fpu__init_check_bugs pr_warn(\"no such line\");\n");
	assert_has(out.buf, "  fxsr       FXSR only: the kernel uses fnsave\n");
	/* include/linux/sched.h is not FPU code. */
	assert_null(strstr(out.buf, "sched.h"));
	unreached_list_free(list);
	strbuf_release(&legacy);
	strbuf_release(&bugs);
	strbuf_release(&out);
	lcov_trace_free(t);
}

static void test_html(void **state)
{
	struct lcov_trace *t = load_trace();
	struct strbuf legacy = STRBUF_INIT;
	struct unreached_list *list = NULL;
	struct unreached_source src;
	char *page = NULL;

	(void)state;
	assert_int_equal(file_read("tests/fixtures/lcov/src/" LEGACY, &legacy), 0);
	src = (struct unreached_source){ LEGACY, legacy.buf };
	assert_int_equal(unreached_parse("u.list", list_text, &list), 0);
	assert_int_equal(unreached_html(t, list, "u.list", &src, 1, is_fpu, &page), 0);
	assert_has(page, "<h2>" LEGACY "</h2><p>6 explained, 6 not</p>");
	assert_has(page, "<li><code>fxsr</code> (5): <a href=\"" LEGACY ".gcov.html#58\">58</a>, ");
	assert_has(page, "<a href=\"" LEGACY ".gcov.html#109\">109</a></li>");
	assert_has(page, "<strong>not explained</strong><ul><li><code>fxrstor_safe</code>: ");
	assert_has(page, "<li>" BUGS " fpu__init_check_bugs pr_warn(&quot;no such line&quot;);</li>");
	assert_has(page, "<dt>fxsr</dt><dd>FXSR only: the kernel uses fnsave</dd>");
	free(page);
	unreached_list_free(list);
	strbuf_release(&legacy);
	lcov_trace_free(t);
}

static void test_no_list(void **state)
{
	struct lcov_trace *t = load_trace();
	struct strbuf out = STRBUF_INIT;

	(void)state;
	unreached_summary(&out, t, NULL, "gone.list", NULL, 0, is_fpu);
	assert_has(out.buf, "  no list: 'gone.list' could not be read\n");
	/* Without sources a line is still sorted by its function. */
	assert_has(out.buf, "  " LEGACY " (12)\n    -: 11\n    fxsave_to_user_sigframe: 55, 58\n");
	strbuf_release(&out);
	lcov_trace_free(t);
}

static void test_malformed(void **state)
{
	struct unreached_list *list = NULL;

	(void)state;
	assert_int_equal(unreached_parse("u.list", "reason a A\nf.c fn b x;\n", &list), ERR_INPUT);
	assert_null(list);
	assert_string_equal(error_last(), "unreached list 'u.list' line 2: unknown reason 'b'");
	assert_int_equal(unreached_parse("u.list", "reason a A\nf.c fn a\n", &list), ERR_INPUT);
	assert_string_equal(error_last(), "unreached list 'u.list' line 2 is not an entry: 'f.c fn a'");
	assert_int_equal(unreached_parse("u.list", "reason a\n", &list), ERR_INPUT);
	assert_string_equal(error_last(), "unreached list 'u.list' line 1 is not an entry: 'reason a'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function_at),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_no_list),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
