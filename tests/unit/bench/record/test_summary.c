/* The summary a run or a test prints last, in place of its whole matrix. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "boot/cpu.h"
#include "record/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct matrix_kernel unpatched = { .variant = "unpatched" };
static const struct matrix_kernel patched = { .variant = "patched" };

struct cells {
	struct cpu_setup fsave, fxsave;
	struct matrix_cell cells[4];
	struct matrix m;
};

/* Four cells of a run: two met, an unexpected pass and a libvirt error. */
static void make_cells(struct cells *t)
{
	assert_int_equal(cpu_setup_parse(&t->fsave, "pentium2,-fxsr"), 0);
	assert_int_equal(cpu_setup_parse(&t->fxsave, "qemu32"), 0);
	t->cells[0] = (struct matrix_cell){
		.kernel = &unpatched, .cpu = &t->fsave, .test = "fpu_seed",
		.status = VERDICT_CRASH, .expected = VERDICT_CRASH, .met = true,
		.crash = "fpu exception in save_fpregs_to_fpstate",
		.console = "console/unpatched-pentium2_-fxsr-1.1.log",
	};
	t->cells[1] = (struct matrix_cell){
		.kernel = &unpatched, .cpu = &t->fxsave, .test = "fpu_seed",
		.status = VERDICT_PASS, .expected = VERDICT_PASS, .met = true,
		.console = "console/unpatched-qemu32-1.1.log",
	};
	t->cells[2] = (struct matrix_cell){
		.kernel = &patched, .cpu = &t->fsave, .test = "fpu_signal",
		.status = VERDICT_PASS, .expected = VERDICT_CRASH, .met = false,
		.console = "console/patched-pentium2_-fxsr-1.1.log",
	};
	t->cells[3] = (struct matrix_cell){
		.kernel = &patched, .cpu = &t->fxsave, .test = "boot",
		.status = VERDICT_ERROR, .expected = VERDICT_PASS, .met = false,
		.reason = "cannot start domain 'fpubench-r-1-3-1' (cpu 'qemu32'): internal error "
			  "(libvirt's log: /r/run/libvirt.log)",
	};
	t->m = (struct matrix){ .cells = t->cells, .ncells = 4 };
}

static char *summary_text(const struct summary *s)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	summary_print(f, s);
	fclose(f);
	return text;
}

static void test_unmet_cells_have_their_rows(void **state)
{
	struct cells t;
	char *text;

	(void)state;
	make_cells(&t);
	struct summary s = { .m = &t.m, .run_dir = "/r/run", .report = true, .new_failures = 0 };
	text = summary_text(&s);
	assert_string_equal(text,
		"4 cells, 2 met their expectation, 2 did not:\n"
		"  patched  pentium2,-fxsr  fpu_signal  pass   expected crash\n"
		"  patched  qemu32          boot        error  expected pass: cannot start domain "
		"'fpubench-r-1-3-1' (cpu 'qemu32'): internal error (libvirt's log: /r/run/libvirt.log)\n"
		"new failures since the previous run: 0\n"
		"results: /r/run\n"
		"report: /r/run/report.html\n");
	free(text);
	cpu_setup_release(&t.fsave);
	cpu_setup_release(&t.fxsave);
}

/* test: each unmet cell's console, where it has one; no comparison, no report. */
static void test_a_test_names_the_consoles(void **state)
{
	struct cells t;
	char *text;

	(void)state;
	make_cells(&t);
	struct summary s = { .m = &t.m, .run_dir = "/r/run", .consoles = true, .new_failures = -1 };
	text = summary_text(&s);
	assert_non_null(strstr(text, "  patched  pentium2,-fxsr  fpu_signal  pass   expected crash\n"
				     "    console: /r/run/console/patched-pentium2_-fxsr-1.1.log\n"
				     "  patched  qemu32          boot  "));
	assert_null(strstr(text, "unpatched"));
	assert_null(strstr(text, "new failures"));
	assert_null(strstr(text, "report"));
	assert_non_null(strstr(text, "\nresults: /r/run\n"));
	free(text);
	cpu_setup_release(&t.fsave);
	cpu_setup_release(&t.fxsave);
}

static void test_all_met_is_one_line(void **state)
{
	struct cells t;
	char *text;

	(void)state;
	make_cells(&t);
	t.m.ncells = 2;
	struct summary s = { .m = &t.m, .run_dir = "/r/run", .report = true, .new_failures = 1 };
	text = summary_text(&s);
	assert_string_equal(text, "2 cells, all met their expectation\n"
				  "new failures since the previous run: 1\n"
				  "results: /r/run\n"
				  "report: /r/run/report.html\n");
	free(text);
	cpu_setup_release(&t.fsave);
	cpu_setup_release(&t.fxsave);
}

/* One cell, as `test --test NAME` on one setup gives, and none, as an early interrupt leaves. */
static void test_one_cell_and_none(void **state)
{
	struct cells t;
	char *text;

	(void)state;
	make_cells(&t);
	t.m.ncells = 1;
	struct summary s = { .m = &t.m, .run_dir = "/r/run", .new_failures = -1 };
	text = summary_text(&s);
	assert_string_equal(text, "1 cell, which met its expectation\nresults: /r/run\n");
	free(text);
	t.m.cells = &t.cells[2];
	text = summary_text(&s);
	assert_string_equal(text, "1 cell, which did not meet its expectation:\n"
				  "  patched  pentium2,-fxsr  fpu_signal  pass  expected crash\n"
				  "results: /r/run\n");
	free(text);
	t.m.ncells = 0;
	text = summary_text(&s);
	assert_string_equal(text, "no cells\nresults: /r/run\n");
	free(text);
	cpu_setup_release(&t.fsave);
	cpu_setup_release(&t.fxsave);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unmet_cells_have_their_rows),
		cmocka_unit_test(test_a_test_names_the_consoles),
		cmocka_unit_test(test_all_met_is_one_line),
		cmocka_unit_test(test_one_cell_and_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
