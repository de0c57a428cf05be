/*
 * The KTAP line reader.  Every line is parsed from a heap copy of exactly
 * its length, without a terminating NUL, so that ASan catches a read past it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "judge/ktap.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static char *copy;

static struct ktap_line parse_bytes(const char *bytes, size_t len)
{
	struct ktap_line l;

	free(copy);
	copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, bytes, len);
	ktap_parse_line(&l, copy, len);
	return l;
}

static struct ktap_line parse(const char *s)
{
	return parse_bytes(s, strlen(s));
}

static void assert_span(struct ktap_span s, const char *want)
{
	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.ptr, want, s.len);
}

static int teardown(void **state)
{
	(void)state;
	free(copy);
	copy = NULL;
	return 0;
}

static void test_version_and_plan(void **state)
{
	struct ktap_line l;

	(void)state;
	l = parse("KTAP version 1");
	assert_int_equal(l.kind, KTAP_VERSION);
	assert_int_equal(l.number, 1);
	assert_int_equal(l.depth, 0);
	assert_false(l.printk);
	l = parse("TAP version 14");
	assert_int_equal(l.kind, KTAP_VERSION);
	assert_int_equal(l.number, 14);
	assert_int_equal(parse("KTAP version one").kind, KTAP_OTHER);
	assert_int_equal(parse("KTAP version 1 extra").kind, KTAP_OTHER);

	l = parse("1..4");
	assert_int_equal(l.kind, KTAP_PLAN);
	assert_int_equal(l.number, 4);
	l = parse("1..0 # SKIP no tests");
	assert_int_equal(l.kind, KTAP_PLAN);
	assert_int_equal(l.number, 0);
	assert_int_equal(parse("1..").kind, KTAP_OTHER);
	assert_int_equal(parse("1..4x").kind, KTAP_OTHER);
	assert_int_equal(parse("2..4").kind, KTAP_OTHER);
}

static void test_numbers_past_int_max_are_not_ktap(void **state)
{
	(void)state;
	assert_int_equal(parse("1..2147483647").number, INT_MAX);
	assert_int_equal(parse("1..2147483648").kind, KTAP_OTHER);
	assert_int_equal(parse("ok 99999999999999999999 x").kind, KTAP_OTHER);
}

static void test_results(void **state)
{
	struct ktap_line l;

	(void)state;
	l = parse("ok 1 fwait");
	assert_int_equal(l.kind, KTAP_RESULT);
	assert_true(l.ok);
	assert_int_equal(l.number, 1);
	assert_span(l.name, "fwait");
	assert_int_equal(l.directive, KTAP_DIRECTIVE_NONE);
	assert_int_equal(l.text.len, 0);

	l = parse("not ok 12 wait4");
	assert_int_equal(l.kind, KTAP_RESULT);
	assert_false(l.ok);
	assert_int_equal(l.number, 12);
	assert_span(l.name, "wait4");

	/* TAP's optional dash, and a description with blanks in it. */
	l = parse("ok 3 - fpu state survives fork  ");
	assert_span(l.name, "fpu state survives fork");

	/* A '#' inside a word is part of the name. */
	l = parse("ok 4 test#2");
	assert_span(l.name, "test#2");
	assert_int_equal(l.directive, KTAP_DIRECTIVE_NONE);

	l = parse("ok 5");
	assert_int_equal(l.kind, KTAP_RESULT);
	assert_int_equal(l.name.len, 0);

	assert_int_equal(parse("okay 1 x").kind, KTAP_OTHER);
	assert_int_equal(parse("ok x").kind, KTAP_OTHER);
	assert_int_equal(parse("ok 1x").kind, KTAP_OTHER);
	assert_int_equal(parse("not ok").kind, KTAP_OTHER);
	assert_int_equal(parse("notok 1 x").kind, KTAP_OTHER);
}

static void test_directives(void **state)
{
	struct ktap_line l;

	(void)state;
	l = parse("ok 2 other_test # SKIP needs SSE3");
	assert_int_equal(l.directive, KTAP_DIRECTIVE_SKIP);
	assert_span(l.name, "other_test");
	assert_span(l.text, "needs SSE3");

	l = parse("not ok 2 fpu_ctxsw # TIMEOUT after 10 s");
	assert_int_equal(l.directive, KTAP_DIRECTIVE_TIMEOUT);
	assert_span(l.text, "after 10 s");

	l = parse("not ok 3 x # TODO not fixed yet");
	assert_int_equal(l.directive, KTAP_DIRECTIVE_TODO);
	assert_span(l.text, "not fixed yet");

	/* TAP takes keywords in any case; a keyword must be a whole word. */
	assert_int_equal(parse("ok 1 x # skip").directive, KTAP_DIRECTIVE_SKIP);
	l = parse("not ok 1 x # SKIPPED");
	assert_int_equal(l.directive, KTAP_DIRECTIVE_OTHER);
	assert_span(l.text, "SKIPPED");

	l = parse("not ok 3 fpu_signal_frame # killed by signal 9");
	assert_int_equal(l.directive, KTAP_DIRECTIVE_OTHER);
	assert_span(l.text, "killed by signal 9");

	/* No name, straight to the directive. */
	l = parse("ok 6 # SKIP");
	assert_int_equal(l.name.len, 0);
	assert_int_equal(l.directive, KTAP_DIRECTIVE_SKIP);
	assert_int_equal(l.text.len, 0);

	assert_int_equal(parse("ok 7 x #   ").directive, KTAP_DIRECTIVE_NONE);
}

static void test_diagnostics(void **state)
{
	struct ktap_line l;

	(void)state;
	l = parse("# expected si_code 3 (FPE_FLTDIV), got 0");
	assert_int_equal(l.kind, KTAP_DIAG);
	assert_span(l.text, "expected si_code 3 (FPE_FLTDIV), got 0");
	l = parse("#");
	assert_int_equal(l.kind, KTAP_DIAG);
	assert_int_equal(l.text.len, 0);
	/* The kernel's page fault lines are not diagnostics. */
	assert_int_equal(parse("#PF: supervisor read access in kernel mode").kind, KTAP_OTHER);
}

static void test_indentation(void **state)
{
	struct ktap_line l;

	(void)state;
	l = parse("    ok 1 fwait");
	assert_int_equal(l.kind, KTAP_RESULT);
	assert_int_equal(l.depth, 1);
	assert_span(l.body, "    ok 1 fwait");
	l = parse("        # nested");
	assert_int_equal(l.kind, KTAP_DIAG);
	assert_int_equal(l.depth, 2);
	/* A tab is one level, alone or after spaces. */
	assert_int_equal(parse("\tok 1 x").depth, 1);
	assert_int_equal(parse("    \t1..2").depth, 2);
	/* Stray spaces are not KTAP: call trace lines start with one. */
	l = parse("  ok 1 x");
	assert_int_equal(l.kind, KTAP_OTHER);
	assert_int_equal(parse("     ok 1 x").kind, KTAP_OTHER);
	assert_int_equal(parse(" fpu_sync_fpstate+0x2b/0x40").kind, KTAP_OTHER);
}

static void test_printk_timestamp_is_stripped(void **state)
{
	struct ktap_line l;

	(void)state;
	l = parse("[    1.234567] KTAP version 1");
	assert_true(l.printk);
	assert_int_equal(l.kind, KTAP_VERSION);
	assert_span(l.body, "KTAP version 1");

	l = parse("[    1.234567]     not ok 2 fnsave_in_softirq");
	assert_true(l.printk);
	assert_int_equal(l.depth, 1);
	assert_int_equal(l.kind, KTAP_RESULT);

	l = parse("[12345.000001] x86/fpu: x87 FPU will use FSAVE\r");
	assert_true(l.printk);
	assert_span(l.body, "x86/fpu: x87 FPU will use FSAVE");

	l = parse("[1.5]ok 1 x");
	assert_true(l.printk);
	assert_int_equal(l.kind, KTAP_RESULT);

	/* Only the form CONFIG_PRINTK_TIME prints counts. */
	l = parse("[ 12.x] ok 1 x");
	assert_false(l.printk);
	assert_int_equal(l.kind, KTAP_OTHER);
	assert_false(parse("[    1234567] ok 1 x").printk);
	assert_false(parse("[    1.234567").printk);
	assert_false(parse("[").printk);
	assert_false(parse("[    1.").printk);
}

static void test_line_ends_are_dropped(void **state)
{
	struct ktap_line l;

	(void)state;
	l = parse("ok 1 fwait\r\n");
	assert_span(l.name, "fwait");
	l = parse("not ok 2 x # SKIP why\r\r\n");
	assert_span(l.text, "why");
	l = parse("KTAP version 1\r");
	assert_int_equal(l.kind, KTAP_VERSION);
	assert_int_equal(parse("\r\n").kind, KTAP_OTHER);
	assert_int_equal(parse("").kind, KTAP_OTHER);
	ktap_parse_line(&l, NULL, 0);
	assert_int_equal(l.kind, KTAP_OTHER);
	assert_int_equal(l.body.len, 0);
}

static void test_reads_only_len_bytes(void **state)
{
	struct ktap_line l;

	(void)state;
	/* The bytes past len would make it a result. */
	l = parse_bytes("ok 1 fwait", 2);
	assert_int_equal(l.kind, KTAP_OTHER);
	l = parse_bytes("1..42", 4);
	assert_int_equal(l.kind, KTAP_PLAN);
	assert_int_equal(l.number, 4);
	l = parse_bytes("[    1.2] ok 1", 7);
	assert_false(l.printk);
}

static void test_nuls_and_high_bytes_stay_in_spans(void **state)
{
	static const char line[] = "ok 1 a\0b\xff # SKIP \0why";
	struct ktap_line l;

	(void)state;
	l = parse_bytes(line, sizeof(line) - 1);
	assert_int_equal(l.kind, KTAP_RESULT);
	assert_int_equal(l.name.len, 4);
	assert_memory_equal(l.name.ptr, "a\0b\xff", 4);
	assert_int_equal(l.directive, KTAP_DIRECTIVE_SKIP);
	assert_int_equal(l.text.len, 4);
	/* A NUL is not a blank: "ok\0001" is no result. */
	assert_int_equal(parse_bytes("ok\0001 x", 7).kind, KTAP_OTHER);
}

/* Terminal escapes are bytes like any other: they neither end a name nor start a directive. */
static void test_escape_sequences_keep_the_line_kind(void **state)
{
	struct ktap_line l;

	(void)state;
	l = parse("ok 1 gar\x1b[2Jbage\x1b]0;#t\x07 # SKIP \x1b]52;c;eA==\x07");
	assert_int_equal(l.kind, KTAP_RESULT);
	assert_span(l.name, "gar\x1b[2Jbage\x1b]0;#t\x07");
	assert_int_equal(l.directive, KTAP_DIRECTIVE_SKIP);
	assert_span(l.text, "\x1b]52;c;eA==\x07");
	/* An escape before the indentation or the keyword makes the line no KTAP. */
	assert_int_equal(parse("\x1b[2J    ok 1 a").kind, KTAP_OTHER);
	assert_int_equal(parse("\x1b[Hnot ok 1 a").kind, KTAP_OTHER);
	/* A timestamp forged with escapes inside is no timestamp. */
	l = parse("[    1.0\x1b[0m] BUG: x");
	assert_false(l.printk);
}

static void test_overlong_lines(void **state)
{
	size_t n = 1 << 20;
	char *big = malloc(n);
	struct ktap_line l;

	(void)state;
	assert_non_null(big);
	memcpy(big, "not ok 7 ", 9);
	memset(big + 9, 'x', n - 9);
	l = parse_bytes(big, n);
	assert_int_equal(l.kind, KTAP_RESULT);
	assert_int_equal(l.name.len, n - 9);

	memset(big, ' ', n);
	memcpy(big + n - 4, "ok 1", 4);
	l = parse_bytes(big, n);
	assert_int_equal(l.kind, KTAP_RESULT);
	assert_int_equal(l.depth, (int)((n - 4) / 4));

	memset(big, '[', n);
	assert_int_equal(parse_bytes(big, n).kind, KTAP_OTHER);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_version_and_plan, teardown),
		cmocka_unit_test_teardown(test_numbers_past_int_max_are_not_ktap, teardown),
		cmocka_unit_test_teardown(test_results, teardown),
		cmocka_unit_test_teardown(test_directives, teardown),
		cmocka_unit_test_teardown(test_diagnostics, teardown),
		cmocka_unit_test_teardown(test_indentation, teardown),
		cmocka_unit_test_teardown(test_printk_timestamp_is_stripped, teardown),
		cmocka_unit_test_teardown(test_line_ends_are_dropped, teardown),
		cmocka_unit_test_teardown(test_reads_only_len_bytes, teardown),
		cmocka_unit_test_teardown(test_nuls_and_high_bytes_stay_in_spans, teardown),
		cmocka_unit_test_teardown(test_escape_sequences_keep_the_line_kind, teardown),
		cmocka_unit_test_teardown(test_overlong_lines, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
