/* Turning one boot's console into cells: crashes, resumes, plans, floods, FPU modes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "judge/console.h"
#include "judge/cell.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define FSAVE_BOOT "[    0.000000] x86/fpu: x87 FPU will use FSAVE\n"
#define FXSAVE_BOOT "[    0.000000] x86/fpu: x87 FPU will use FXSAVE\n"

struct cells {
	struct matrix_cell *c;
	size_t n;
	int resume;
};

#define STOPPED CELL_BOOT_STOPPED
#define TIMED_OUT CELL_BOOT_TIMED_OUT
#define FLOODED CELL_BOOT_FLOODED
#define FLOOD "console flood: over 16 MiB, the guest was stopped"

static void cells_from_setup(struct cells *out, const char *text, enum cell_boot_end end,
			     const struct cell_setup *setup)
{
	struct console_report *r;

	assert_int_equal(console_scan(text, strlen(text), &r), 0);
	out->c = NULL;
	out->n = 0;
	out->resume = cells_from_report(r, end, setup, 2.5, &out->c, &out->n);
	console_report_free(r);
}

/* On one of QEMU's models. */
static void cells_from(struct cells *out, const char *text, enum cell_boot_end end, bool fsave)
{
	struct cell_setup setup = { .fsave = fsave, .exact_fdiv = true };

	cells_from_setup(out, text, end, &setup);
}

static void cells_free(struct cells *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		cell_release(&cs->c[i]);
	free(cs->c);
}

static void test_good_boot_gives_one_cell_per_test(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..2\n"
			"# fpubench: begin 1 fpu_seed\nok 1 fpu_seed\n# fpubench: duration_ms 250\n"
			"# fpubench: begin 2 other\nok 2 other # SKIP needs SSE3\n"
			"# fpubench: done\n", STOPPED, true);
	assert_int_equal(cs.n, 2);
	assert_int_equal(cs.resume, 0);
	assert_string_equal(cs.c[0].test, "fpu_seed");
	assert_int_equal(cs.c[0].status, VERDICT_PASS);
	assert_true(cs.c[0].duration_s > 0.249 && cs.c[0].duration_s < 0.251);
	assert_string_equal(cs.c[0].fpu_mode, "FSAVE");
	assert_int_equal(cs.c[1].status, VERDICT_SKIP);
	/* No duration from the guest: the boot's. */
	assert_true(cs.c[1].duration_s > 2.4);
	cells_free(&cs);
}

static void test_crash_mid_plan_resumes_after_it(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..3\n"
			"# fpubench: begin 1 fpu_seed\n"
			"[    1.0] fpu exception: 0000 [#1]\n"
			"[    1.0] EIP: save_fpregs_to_fpstate+0x42/0x57\n"
			"[    1.0] Kernel panic - not syncing: Fatal exception in interrupt\n",
		   STOPPED, true);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.c[0].status, VERDICT_CRASH);
	assert_string_equal(cs.c[0].crash, "fpu exception in save_fpregs_to_fpstate");
	assert_int_equal(cs.resume, 2);
	cells_free(&cs);
}

static void test_last_test_crashing_needs_no_resume(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..1\n# fpubench: begin 1 fpu_seed\n"
			"[    1.0] fpu exception: 0000 [#1]\n", STOPPED, true);
	assert_int_equal(cs.resume, 0);
	assert_int_equal(cs.c[0].status, VERDICT_CRASH);
	cells_free(&cs);
}

static void test_hang_is_a_timeout(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..2\n# fpubench: begin 1 fpu_seed\n", TIMED_OUT, true);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.c[0].status, VERDICT_TIMEOUT);
	assert_int_equal(cs.resume, 2);
	cells_free(&cs);
}

static void test_silent_death_is_a_crash(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..1\n# fpubench: begin 1 fpu_seed\n", STOPPED, true);
	assert_int_equal(cs.c[0].status, VERDICT_CRASH);
	assert_null(cs.c[0].crash);
	assert_non_null(cs.c[0].reason);
	cells_free(&cs);
}

static void test_boot_that_never_reaches_init(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, "[    0.0] Linux version 6.1\n[    0.1] This kernel requires an i686 CPU\n",
		   TIMED_OUT, true);
	assert_int_equal(cs.n, 1);
	assert_string_equal(cs.c[0].test, "boot");
	assert_true(cs.c[0].no_init);
	assert_int_equal(cs.c[0].status, VERDICT_TIMEOUT);
	assert_int_equal(cs.resume, 0);
	cells_free(&cs);

	cells_from(&cs, "[    0.5] BUG: kernel NULL pointer dereference, address: 00000000\n"
			"[    0.5] EIP: start_kernel+0x1/0x2\n", STOPPED, true);
	assert_int_equal(cs.c[0].status, VERDICT_CRASH);
	assert_string_equal(cs.c[0].crash, "BUG: unable to handle kernel NULL pointer dereference in start_kernel");
	cells_free(&cs);
}

static void test_plan_mismatch_fails(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..3\n# fpubench: begin 1 a\nok 1 a\n"
			"# fpubench: done\n", STOPPED, true);
	assert_int_equal(cs.n, 2);
	assert_string_equal(cs.c[1].test, "ktap_plan");
	assert_int_equal(cs.c[1].status, VERDICT_FAIL);
	cells_free(&cs);

	/* A resumed boot owes only the tests from its start on. */
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..3\n# fpubench: resume 3\n"
			"# fpubench: begin 3 c\nok 3 c\n# fpubench: done\n", STOPPED, true);
	assert_int_equal(cs.n, 1);
	cells_free(&cs);
}

static void test_plan_reason_names_missing_and_extra(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..3\n# fpubench: begin 1 a\nok 1 a\n"
			"# fpubench: begin 2 b\nok 2 b\n# fpubench: done\n", STOPPED, true);
	assert_int_equal(cs.n, 3);
	assert_int_equal(cs.c[0].status, VERDICT_PASS);
	assert_string_equal(cs.c[2].reason,
			    "the plan announced 3 tests, the guest reported 2; missing: 3");
	cells_free(&cs);

	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..2\n# fpubench: begin 1 a\nok 1 a\n"
			"# fpubench: begin 2 b\nok 2 b\n# fpubench: begin 3 c\nok 3 c\n"
			"# fpubench: done\n", STOPPED, true);
	assert_int_equal(cs.n, 4);
	assert_string_equal(cs.c[3].test, "ktap_plan");
	assert_string_equal(cs.c[3].reason,
			    "the plan announced 2 tests, the guest reported 3; extra: 3 'c'");
	cells_free(&cs);

	/* The right count is not enough: a test twice and one missing. */
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..2\nok 1 a\nok 1 again\n"
			"# fpubench: done\n", STOPPED, true);
	assert_string_equal(cs.c[2].reason, "the plan announced 2 tests, the guest reported 2; "
			    "extra: 1 'again'; missing: 2");
	cells_free(&cs);

	/* Before the resume point is extra too. */
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..3\n# fpubench: resume 3\nok 1 a\n"
			"# fpubench: done\n", STOPPED, true);
	assert_string_equal(cs.c[1].reason, "the plan announced 3 tests and the boot resumed at 3, "
			    "the guest reported 1; extra: 1 'a'; missing: 3");
	cells_free(&cs);
}

static void test_plan_reason_is_bounded(void **state)
{
	struct cells cs;

	(void)state;
	/* A plan of INT_MAX tests is not walked, and the lists stop at five. */
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..2147483647\nok 2 b\nok 4 d\n"
			"# fpubench: done\n", STOPPED, true);
	assert_string_equal(cs.c[2].reason, "the plan announced 2147483647 tests, the guest reported 2; "
			    "missing: 1, 3, 5, 6, 7 and 2147483640 more");
	cells_free(&cs);

	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..0\nok 1 a\nok 2 b\nok 3 c\nok 4 d\n"
			"ok 5 e\nok 6 f\nok 7 g\n# fpubench: done\n", STOPPED, true);
	assert_string_equal(cs.c[7].reason, "the plan announced 0 tests, the guest reported 7; "
			    "extra: 1 'a', 2 'b', 3 'c', 4 'd', 5 'e' and 2 more");
	cells_free(&cs);

	cells_from(&cs, FSAVE_BOOT "KTAP version 1\nok 1 a\n# fpubench: done\n", STOPPED, true);
	assert_int_equal(cs.n, 2);
	assert_string_equal(cs.c[1].reason, "init printed no plan");
	cells_free(&cs);
}

static void test_flood_fails_the_running_test_and_resumes(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..2\n# fpubench: begin 1 flood\n"
			"    # flood\n    # flood\n", FLOODED, true);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.c[0].status, VERDICT_FAIL);
	assert_string_equal(cs.c[0].reason, FLOOD);
	assert_int_equal(cs.resume, 2);
	cells_free(&cs);

	/* A failure so far stays in the reason, after the flood. */
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..1\n# fpubench: begin 1 flood\n"
			"    not ok 1 sub\n    # expected 1, got 2\n", FLOODED, true);
	assert_string_equal(cs.c[0].reason, FLOOD "; sub: expected 1, got 2");
	cells_free(&cs);

	/* A kernel that floods with oopses crashed. */
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..1\n# fpubench: begin 1 t\n"
			"[    1.0] BUG: scheduling while atomic: t/1\n", FLOODED, true);
	assert_int_equal(cs.c[0].status, VERDICT_CRASH);
	assert_string_equal(cs.c[0].crash, "BUG: scheduling while atomic in corrupted");
	cells_free(&cs);
}

static void test_flood_outside_tests_fails_the_boot(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "[    0.1] Run /init as init process\nnoise\nnoise\n", FLOODED, true);
	assert_int_equal(cs.n, 1);
	assert_string_equal(cs.c[0].test, "boot");
	assert_int_equal(cs.c[0].status, VERDICT_FAIL);
	assert_string_equal(cs.c[0].reason, "init printed no KTAP; " FLOOD);
	cells_free(&cs);

	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..2\n# fpubench: begin 1 a\nok 1 a\nnoise\n",
		   FLOODED, true);
	assert_int_equal(cs.n, 2);
	assert_int_equal(cs.c[0].status, VERDICT_PASS);
	assert_int_equal(cs.c[1].status, VERDICT_FAIL);
	assert_string_equal(cs.c[1].reason, "init stopped between tests; " FLOOD);
	cells_free(&cs);

	/* Even after "done": the log was cut, so the plan cannot be judged. */
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..1\n# fpubench: begin 1 a\nok 1 a\n"
			"# fpubench: done\nnoise\n", FLOODED, true);
	assert_int_equal(cs.n, 2);
	assert_int_equal(cs.c[1].status, VERDICT_FAIL);
	assert_string_equal(cs.c[1].reason, "init had finished; " FLOOD);
	cells_free(&cs);
}

static void test_reboots_and_silence_are_never_a_pass(void **state)
{
	struct cells cs;

	(void)state;
	/* init rebooted at once: reboot(2) ends the domain (on_reboot=destroy). */
	cells_from(&cs, FSAVE_BOOT "[    0.2] Run /init as init process\n"
			"[    0.7] reboot: Restarting system\n[    0.7] reboot: machine restart\n",
		   STOPPED, true);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.c[0].status, VERDICT_CRASH);
	assert_true(cs.c[0].no_init);
	assert_string_equal(cs.c[0].reason, "init printed no KTAP, then the guest rebooted");
	assert_int_equal(cs.resume, 0);
	cells_free(&cs);

	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..2\n# fpubench: begin 1 a\n"
			"[    0.7] reboot: Restarting system\n", STOPPED, true);
	assert_int_equal(cs.c[0].status, VERDICT_CRASH);
	assert_string_equal(cs.c[0].reason, "the guest rebooted while it ran");
	cells_free(&cs);

	/* init never printed: a timeout, and the kernel did start it. */
	cells_from(&cs, FSAVE_BOOT "[    0.2] Run /init as init process\n", TIMED_OUT, true);
	assert_int_equal(cs.c[0].status, VERDICT_TIMEOUT);
	assert_string_equal(cs.c[0].reason, "init printed no KTAP");
	cells_free(&cs);
}

/*
 * A WARNING that no test owns still fails the boot: this one, from a real
 * 486 guest's console (a generated mutant of fpregs_assert_state_consistent(),
 * 6.1.192, 2026-12-06), came at init's first return to user space, before
 * any test began; every test then passed.
 */
static void test_crash_outside_tests_is_a_boot_cell(void **state)
{
	static const char warning[] =
		"[    0.533703] Run /init as init process\n"
		"[    0.577751] ------------[ cut here ]------------\n"
		"[    0.577751] WARNING: CPU: 0 PID: 1 at ../../../trees/debian-6.1.192/arch/x86/kernel/fpu/core.c:799 fpregs_assert_state_consistent+0x25/0x28\n"
		"[    0.577751] Modules linked in:\n"
		"[    0.577751] CPU: 0 PID: 1 Comm: init Not tainted 6.1.192 #190 \n"
		"[    0.577751] EIP: fpregs_assert_state_consistent+0x25/0x28\n"
		"[    0.577751] Call Trace:\n"
		"[    0.577751]  ? exit_to_user_mode_prepare+0x56/0xc8\n"
		"[    0.577751]  ? rest_init+0x6f/0x6f\n"
		"[    0.577751]  ? syscall_exit_to_user_mode+0x12/0x19\n"
		"[    0.577751]  ? ret_from_fork+0x10/0x30\n"
		"[    0.577751] ---[ end trace 0000000000000000 ]---\n";
	struct cells cs;

	(void)state;
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..1\n# fpubench: begin 1 fpu_seed\n"
			"ok 1 fpu_seed\n# fpubench: done\n", STOPPED, true);
	assert_int_equal(cs.n, 1);
	cells_free(&cs);

	char *text = malloc(sizeof(warning) + 200);

	assert_non_null(text);
	strcpy(text, FSAVE_BOOT);
	strcat(text, warning);
	strcat(text, "KTAP version 1\n1..1\n# fpubench: begin 1 fpu_seed\nok 1 fpu_seed\n"
		     "# fpubench: done\n");
	cells_from(&cs, text, STOPPED, true);
	assert_int_equal(cs.n, 2);
	assert_string_equal(cs.c[0].test, "fpu_seed");
	assert_int_equal(cs.c[0].status, VERDICT_PASS);
	assert_string_equal(cs.c[1].test, "boot");
	assert_int_equal(cs.c[1].status, VERDICT_CRASH);
	assert_string_equal(cs.c[1].crash, "WARNING in fpregs_assert_state_consistent");
	assert_string_equal(cs.c[1].fpu_mode, "FSAVE");
	cells_free(&cs);
	free(text);
}

static void test_wrong_fpu_mode_is_an_error(void **state)
{
	struct cells cs;

	(void)state;
	cells_from(&cs, FXSAVE_BOOT "KTAP version 1\n1..2\n# fpubench: begin 1 a\n", STOPPED, true);
	assert_int_equal(cs.c[0].status, VERDICT_ERROR);
	assert_non_null(strstr(cs.c[0].reason, "use FSAVE, it reported FXSAVE"));
	/* Nothing is learnt from a wrong setup, so nothing is resumed. */
	assert_int_equal(cs.resume, 0);
	cells_free(&cs);
}

static size_t cells_named(const struct cells *cs, const char *test)
{
	size_t n = 0;

	for (size_t i = 0; i < cs->n; i++)
		n += strcmp(cs->c[i].test, test) == 0;
	return n;
}

/*
 * tests/fixtures/console/fdiv-claim-486.log: a real boot of 6.1 whose
 * fpu__init_check_bugs() reports the erratum whatever the check finds
 * (`if (fdiv_bug)` made `if (1)`), on the 486 with fpu_seed selected.
 */
static void test_fdiv_erratum_on_an_exact_fpu_fails(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct cell_setup board = { .fsave = true, .exact_fdiv = false };
	struct cells cs;

	(void)state;
	assert_int_equal(file_read("tests/fixtures/console/fdiv-claim-486.log", &text), 0);
	cells_from(&cs, text.buf, STOPPED, true);
	assert_int_equal(cells_named(&cs, "fdiv_check"), 1);
	for (size_t i = 0; i < cs.n; i++) {
		bool fdiv = strcmp(cs.c[i].test, "fdiv_check") == 0;

		assert_int_equal(cs.c[i].status, fdiv ? VERDICT_FAIL
				 : strcmp(cs.c[i].test, "fpu_seed") == 0 ? VERDICT_PASS : VERDICT_SKIP);
		if (fdiv)
			assert_non_null(strstr(cs.c[i].reason, "FDIV erratum"));
		assert_string_equal(cs.c[i].fpu_mode, "FSAVE");
	}
	cells_free(&cs);

	/* A board may be a Pentium that has the erratum. */
	cells_from_setup(&cs, text.buf, STOPPED, &board);
	assert_int_equal(cells_named(&cs, "fdiv_check"), 0);
	cells_free(&cs);
	strbuf_release(&text);

	/* A resumed boot repeats the pair's boot lines: judged once, on its first boot. */
	cells_from(&cs, FSAVE_BOOT "[    0.044000] Hmm, FPU with FDIV bug\n"
		   "KTAP version 1\n1..2\n# fpubench: resume 2\n# fpubench: begin 2 b\nok 2 b\n"
		   "# fpubench: done\n", STOPPED, true);
	assert_int_equal(cells_named(&cs, "fdiv_check"), 0);
	assert_int_equal(cs.n, 1);
	cells_free(&cs);

	/* Only the kernel's own line counts, not a test's output. */
	cells_from(&cs, FSAVE_BOOT "KTAP version 1\n1..1\n# fpubench: begin 1 a\nHmm, FPU with FDIV bug\n"
		   "ok 1 a\n# fpubench: done\n", STOPPED, true);
	assert_int_equal(cells_named(&cs, "fdiv_check"), 0);
	cells_free(&cs);
}

/*
 * tests/fixtures/console/fpu-path-missing-pentium.log: a real boot of 6.1
 * whose fpu__init_system_xstate() takes the XSAVE way on a CPU without it
 * (`if (!boot_cpu_has(X86_FEATURE_XSAVE))` made `if (0)`, the generated
 * mutant ac331761e5f4abeb): a WARNING, no FPU path said, every test passing.
 */
static void test_no_fpu_path_is_the_kernel_s(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct cells cs;
	size_t errors = 0;

	(void)state;
	assert_int_equal(file_read("tests/fixtures/console/fpu-path-missing-pentium.log", &text), 0);
	cells_from(&cs, text.buf, STOPPED, true);
	assert_int_equal(cells_named(&cs, "fpu_path"), 1);
	for (size_t i = 0; i < cs.n; i++) {
		errors += cs.c[i].status == VERDICT_ERROR;
		if (strcmp(cs.c[i].test, "fpu_path") == 0)
			assert_int_equal(cs.c[i].status, VERDICT_FAIL);
		if (strcmp(cs.c[i].test, "boot") == 0) {
			assert_int_equal(cs.c[i].status, VERDICT_CRASH);
			assert_string_equal(cs.c[i].crash, "WARNING in fpu__init_system_xstate");
		}
	}
	/* The kernel's fault, not the bench's: nothing for a bisection to abort on. */
	assert_int_equal(errors, 0);
	cells_free(&cs);
	strbuf_release(&text);

	/* Said once a pair: a resumed boot repeats the boot lines. */
	cells_from(&cs, "KTAP version 1\n1..2\n# fpubench: resume 2\n# fpubench: begin 2 b\nok 2 b\n"
		   "# fpubench: done\n", STOPPED, true);
	assert_int_equal(cells_named(&cs, "fpu_path"), 0);
	cells_free(&cs);
}

/* The cells of a fixture's console on a setup that claims FSAVE (fsave) or FXSAVE; counts the errors. */
static size_t fixture_cells(struct cells *cs, const char *fixture, bool fsave)
{
	struct strbuf text = STRBUF_INIT;
	size_t errors = 0;

	assert_int_equal(file_read(fixture, &text), 0);
	cells_from(cs, text.buf, STOPPED, fsave);
	for (size_t i = 0; i < cs->n; i++)
		errors += cs->c[i].status == VERDICT_ERROR;
	strbuf_release(&text);
	return errors;
}

/*
 * tests/fixtures/console/fpu-path-nofxsr-ignored-pentium3.log: a real boot
 * on `pentium3:nofxsr` of 6.1 whose cpu_parse_early_param() ignores
 * `nofxsr` (its setup_clear_cpu_cap(X86_FEATURE_FXSR) deleted): the kernel
 * uses FXSAVE with nofxsr on its command line, and every test passes.
 */
static void test_other_fpu_path_is_the_kernel_s_when_it_was_told(void **state)
{
	struct cells cs;

	(void)state;
	assert_int_equal(fixture_cells(&cs, "tests/fixtures/console/fpu-path-nofxsr-ignored-pentium3.log", true), 0);
	assert_int_equal(cells_named(&cs, "fpu_path"), 1);
	for (size_t i = 0; i < cs.n; i++) {
		if (strcmp(cs.c[i].test, "fpu_path") == 0) {
			assert_int_equal(cs.c[i].status, VERDICT_FAIL);
			assert_non_null(strstr(cs.c[i].reason, "FXSAVE though its command line says nofxsr"));
			assert_non_null(strstr(cs.c[i].reason, "the setup wants FSAVE"));
		} else {
			assert_true(cs.c[i].status == VERDICT_PASS || cs.c[i].status == VERDICT_SKIP);
		}
		assert_string_equal(cs.c[i].fpu_mode, "FXSAVE");
	}
	cells_free(&cs);
}

/*
 * Real boots of the pristine 6.1 on `pentium3` (FXSAVE, the CPU has FXSR)
 * and `pentium2,-fxsr` (FSAVE, it has none), judged as if their setups
 * claimed the other path: each kernel did what its CPU and command line
 * said, so the setup was not applied, and every cell is the bench's error.
 */
static void test_other_fpu_path_is_the_setup_s_when_the_kernel_was_right(void **state)
{
	struct cells cs;
	size_t errors;

	(void)state;
	errors = fixture_cells(&cs, "tests/fixtures/console/fpu-path-fxsave-pentium3.log", true);
	assert_int_equal(errors, cs.n);
	assert_int_equal(cells_named(&cs, "fpu_path"), 0);
	assert_int_equal(cs.resume, 0);
	cells_free(&cs);
	errors = fixture_cells(&cs, "tests/fixtures/console/fpu-path-fsave-pentium2-fxsr.log", false);
	assert_int_equal(errors, cs.n);
	assert_int_equal(cells_named(&cs, "fpu_path"), 0);
	cells_free(&cs);
	/* As claimed, they pass. */
	assert_int_equal(fixture_cells(&cs, "tests/fixtures/console/fpu-path-fxsave-pentium3.log", false), 0);
	assert_int_equal(cells_named(&cs, "fpu_path"), 0);
	cells_free(&cs);
	assert_int_equal(fixture_cells(&cs, "tests/fixtures/console/fpu-path-fsave-pentium2-fxsr.log", true), 0);
	cells_free(&cs);
}

/* Each way a kernel's path can contradict what it was given, and the ways it cannot be told. */
static void test_other_fpu_path_rules(void **state)
{
	static const struct {
		const char *path, *cmdline, *cpu;
		bool fsave;	/* what the setup claims */
		const char *fault;	/* the fpu_path cell's reason, or NULL: every cell an error */
	} rows[] = {
		{ "FXSAVE", "console=ttyS0 nofxsr", "fxsr=1", true, "though its command line says nofxsr" },
		{ "FXSAVE", "console=ttyS0", "fxsr=0", true, "FXSAVE on a CPU without FXSR" },
		{ "FXSAVE", "console=ttyS0", "cpuid=0", true, "FXSAVE on a CPU without FXSR" },
		{ "FSAVE", "console=ttyS0", "fxsr=1", false, "FSAVE on a CPU with FXSR" },
		{ "FXSAVE", "console=ttyS0", "fxsr=1", true, NULL },	/* -fxsr not applied */
		{ "FXSAVE", "console=ttyS0 nofxsrx", "fxsr=1", true, NULL },	/* not the word */
		{ "FSAVE", "console=ttyS0 nofxsr", "fxsr=1", false, NULL },	/* nofxsr given by mistake */
		{ "FSAVE", "console=ttyS0", "fxsr=0", false, NULL },	/* the CPU lacks it */
		{ "FXSAVE", "console=ttyS0 nofxsr", NULL, true, NULL },	/* no cpu line */
		{ "FXSAVE", "console=ttyS0 nofxsr", "fxsr=2", true, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *cpu = !rows[i].cpu ? xstrdup("")
			    : strcmp(rows[i].cpu, "cpuid=0") == 0 ? xstrdup("# fpubench: cpu cpuid=0\n")
			    : xasprintf("# fpubench: cpu vendor=GenuineIntel family=6 model=7 fpu=1 %s sse=0\n",
					rows[i].cpu);
		char *text = xasprintf("[    0.000000] Kernel command line: %s\n"
				       "[    0.040000] x86/fpu: x87 FPU will use %s\n"
				       "KTAP version 1\n1..1\n%s# fpubench: begin 1 a\nok 1 a\n# fpubench: done\n",
				       rows[i].cmdline, rows[i].path, cpu);
		struct cells cs;

		cells_from(&cs, text, STOPPED, rows[i].fsave);
		if (rows[i].fault) {
			assert_int_equal(cells_named(&cs, "fpu_path"), 1);
			assert_int_equal(cs.c[cs.n - 1].status, VERDICT_FAIL);
			assert_non_null(strstr(cs.c[cs.n - 1].reason, rows[i].fault));
			assert_int_equal(cs.c[0].status, VERDICT_PASS);
		} else {
			assert_int_equal(cells_named(&cs, "fpu_path"), 0);
			assert_int_equal(cs.c[0].status, VERDICT_ERROR);
		}
		cells_free(&cs);
		free(text);
		free(cpu);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_boot_gives_one_cell_per_test),
		cmocka_unit_test(test_other_fpu_path_is_the_kernel_s_when_it_was_told),
		cmocka_unit_test(test_other_fpu_path_is_the_setup_s_when_the_kernel_was_right),
		cmocka_unit_test(test_other_fpu_path_rules),
		cmocka_unit_test(test_crash_mid_plan_resumes_after_it),
		cmocka_unit_test(test_last_test_crashing_needs_no_resume),
		cmocka_unit_test(test_hang_is_a_timeout),
		cmocka_unit_test(test_silent_death_is_a_crash),
		cmocka_unit_test(test_boot_that_never_reaches_init),
		cmocka_unit_test(test_plan_mismatch_fails),
		cmocka_unit_test(test_plan_reason_names_missing_and_extra),
		cmocka_unit_test(test_plan_reason_is_bounded),
		cmocka_unit_test(test_flood_fails_the_running_test_and_resumes),
		cmocka_unit_test(test_flood_outside_tests_fails_the_boot),
		cmocka_unit_test(test_reboots_and_silence_are_never_a_pass),
		cmocka_unit_test(test_wrong_fpu_mode_is_an_error),
		cmocka_unit_test(test_crash_outside_tests_is_a_boot_cell),
		cmocka_unit_test(test_fdiv_erratum_on_an_exact_fpu_fails),
		cmocka_unit_test(test_no_fpu_path_is_the_kernel_s),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
