/*
 * The console scanner: fixtures in tests/fixtures/console (synth-*.log are
 * written by hand after real oopses and guest-tests/PROTOCOL.md; misbehave-*.log are
 * real consoles of guest-tests/misbehave payloads, fdiv-claim-486.log a real
 * boot of a 6.1 mutant), inline logs for the edge cases, and the crash title
 * rules one by one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "judge/console.h"
#include "judge/crash.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define FIXTURES "tests/fixtures/console/"

/* Scans a fixture, by path from the repository root (tests run there). */
static struct console_report *scan_fixture(const char *name)
{
	struct strbuf text = STRBUF_INIT;
	struct console_report *r = NULL;
	char *path = xasprintf(FIXTURES "%s", name);

	assert_int_equal(file_read(path, &text), 0);
	assert_int_equal(console_scan(text.buf, text.len, &r), 0);
	assert_non_null(r);
	strbuf_release(&text);
	free(path);
	return r;
}

/* Scans exactly strlen(s) bytes from a heap copy without a NUL, so ASan sees overreads. */
static struct console_report *scan_bytes(const char *s, size_t len)
{
	char *copy = xmalloc(len);
	struct console_report *r = NULL;

	memcpy(copy, s, len);
	assert_int_equal(console_scan(copy, len, &r), 0);
	free(copy);
	return r;
}

static struct console_report *scan(const char *s)
{
	return scan_bytes(s, strlen(s));
}

static void assert_test(const struct console_test *t, int index, const char *name,
			enum verdict status, const char *reason, const char *crash)
{
	assert_int_equal(t->index, index);
	assert_string_equal(t->name, name);
	assert_string_equal(verdict_name(t->status), verdict_name(status));
	if (reason)
		assert_string_equal(t->reason, reason);
	else
		assert_null(t->reason);
	if (crash)
		assert_string_equal(t->crash, crash);
	else
		assert_null(t->crash);
}

static void assert_printable_and_bounded(const char *s)
{
	assert_non_null(s);
	assert_true(strlen(s) <= CONSOLE_TEXT_MAX);
	for (; *s; s++)
		assert_true(*s >= 0x20 && *s < 0x7f);
}

/* Fixtures. */

static void test_good_run(void **state)
{
	struct console_report *r = scan_fixture("synth-good-486.log");
	static const char *const names[] = { "fpu_seed", "fpu_ctxsw", "fpu_signal_frame", "fpu_fork" };
	static const long durations[] = { 12, 48, 3, 20 };

	(void)state;
	assert_true(r->reached_init);
	assert_true(r->finished);
	assert_int_equal(r->planned, 4);
	assert_int_equal(r->resumed_at, 1);
	assert_string_equal(r->fpu_mode, "FSAVE");
	assert_string_equal(r->cpu_line, "vendor=GenuineIntel family=4 model=8 fpu=1 fxsr=0 sse=0 "
			    "sse2=0 sse3=0 cmov=0");
	assert_null(r->crash);
	assert_int_equal(r->running, 0);
	assert_int_equal(r->ntests, 4);
	for (int i = 0; i < 4; i++) {
		assert_test(&r->tests[i], i + 1, names[i], VERDICT_PASS, NULL, NULL);
		assert_int_equal(r->tests[i].duration_ms, durations[i]);
	}
	console_report_free(r);
}

static void test_failing_subtest_and_skip(void **state)
{
	struct console_report *r = scan_fixture("synth-fail-skip-p2.log");

	(void)state;
	assert_true(r->finished);
	assert_string_equal(r->fpu_mode, "FSAVE");
	assert_int_equal(r->ntests, 2);
	assert_test(&r->tests[0], 1, "fpu_seed", VERDICT_FAIL,
		    "wait4: expected si_code 3 (FPE_FLTDIV), got 0", NULL);
	assert_int_equal(r->tests[0].duration_ms, 12);
	assert_test(&r->tests[1], 2, "fpu_sse3_state", VERDICT_SKIP, "needs SSE3", NULL);
	console_report_free(r);
}

static void test_seed_bug_panics_mid_test(void **state)
{
	struct console_report *r = scan_fixture("synth-fpu-exception-486.log");

	(void)state;
	assert_true(r->reached_init);
	assert_false(r->finished);
	assert_int_equal(r->planned, 4);
	assert_string_equal(r->crash, "fpu exception in save_fpregs_to_fpstate");
	assert_int_equal(r->running, 1);
	assert_int_equal(r->ntests, 1);
	assert_test(&r->tests[0], 1, "fpu_seed", VERDICT_CRASH, NULL,
		    "fpu exception in save_fpregs_to_fpstate");
	assert_int_equal(r->tests[0].duration_ms, -1);
	console_report_free(r);
}

static void test_context_switch_variant_keeps_the_first_report(void **state)
{
	struct console_report *r = scan_fixture("synth-fpu-exception-ctxsw-486.log");

	(void)state;
	assert_int_equal(r->resumed_at, 2);
	assert_int_equal(r->running, 2);
	assert_int_equal(r->ntests, 1);
	/* The timer path's "Oops: 0000 [#2]" is a consequence, not the title. */
	assert_string_equal(r->crash, "fpu exception in save_fpregs_to_fpstate");
	assert_test(&r->tests[0], 2, "fpu_ctxsw", VERDICT_CRASH, NULL,
		    "fpu exception in save_fpregs_to_fpstate");
	console_report_free(r);
}

static void test_oops_the_test_survives(void **state)
{
	struct console_report *r = scan_fixture("synth-oops-survives-486.log");

	(void)state;
	assert_true(r->finished);
	assert_int_equal(r->running, 0);
	assert_int_equal(r->ntests, 3);
	assert_string_equal(r->crash, "BUG: unable to handle kernel NULL pointer dereference in kernel_fpu_begin_mask");
	assert_test(&r->tests[0], 1, "fpu_seed", VERDICT_PASS, NULL, NULL);
	/* Its result line said ok; the report in its window wins. */
	assert_test(&r->tests[1], 2, "fpu_kthread", VERDICT_CRASH, NULL,
		    "BUG: unable to handle kernel NULL pointer dereference in kernel_fpu_begin_mask");
	assert_int_equal(r->tests[1].duration_ms, 31);
	assert_test(&r->tests[2], 3, "fpu_fork", VERDICT_PASS, NULL, NULL);
	console_report_free(r);
}

static void test_timeout_signal_and_exit_status(void **state)
{
	struct console_report *r = scan_fixture("synth-timeout-486.log");

	(void)state;
	assert_true(r->finished);
	assert_int_equal(r->ntests, 4);
	assert_test(&r->tests[0], 1, "fpu_seed", VERDICT_PASS, NULL, NULL);
	assert_test(&r->tests[1], 2, "fpu_ctxsw", VERDICT_TIMEOUT, "TIMEOUT after 10 s", NULL);
	assert_int_equal(r->tests[1].duration_ms, 10002);
	assert_test(&r->tests[2], 3, "fpu_signal_frame", VERDICT_FAIL, "killed by signal 9", NULL);
	assert_test(&r->tests[3], 4, "fpu_fork", VERDICT_FAIL, "exit status 3", NULL);
	console_report_free(r);
}

static void test_hang_leaves_the_test_running(void **state)
{
	struct console_report *r = scan_fixture("synth-hang-486.log");

	(void)state;
	assert_false(r->finished);
	assert_null(r->crash);
	assert_int_equal(r->running, 3);
	assert_int_equal(r->ntests, 3);
	/* The placeholder: the caller knows whether the boot timed out. */
	assert_test(&r->tests[2], 3, "fpu_signal_frame", VERDICT_ERROR, NULL, NULL);
	console_report_free(r);
}

static void test_panic_without_oops_is_its_own_title(void **state)
{
	struct console_report *r = scan_fixture("synth-panic-init-486.log");

	(void)state;
	assert_int_equal(r->running, 2);
	assert_string_equal(r->crash, "kernel panic: Attempted to kill init!");
	assert_test(&r->tests[0], 1, "fpu_seed", VERDICT_PASS, NULL, NULL);
	assert_test(&r->tests[1], 2, "fpu_ctxsw", VERDICT_CRASH, NULL,
		    "kernel panic: Attempted to kill init!");
	console_report_free(r);
}

static void test_boot_that_never_reached_init(void **state)
{
	struct console_report *r = scan_fixture("synth-no-init-486.log");

	(void)state;
	assert_false(r->reached_init);
	assert_false(r->finished);
	assert_int_equal(r->planned, -1);
	assert_int_equal(r->running, 0);
	assert_int_equal(r->ntests, 0);
	assert_string_equal(r->fpu_mode, "FSAVE");
	assert_null(r->cpu_line);
	assert_true(strncmp(r->crash, "kernel panic: No working init found.", 36) == 0);
	assert_printable_and_bounded(r->crash);
	console_report_free(r);
}

static void test_printk_ktap_from_a_kernel_module(void **state)
{
	struct console_report *r = scan_fixture("synth-kmod-printk-p3.log");

	(void)state;
	assert_string_equal(r->fpu_mode, "FXSAVE");
	/* The module's unindented printk KTAP is not init's top level. */
	assert_int_equal(r->planned, 1);
	assert_int_equal(r->ntests, 1);
	assert_test(&r->tests[0], 1, "fpu_kmod", VERDICT_FAIL,
		    "fnsave_in_softirq: FSW after restore: 0x0080, expected 0x0000; ES was left set",
		    NULL);
	assert_int_equal(r->tests[0].duration_ms, 87);
	console_report_free(r);
}

static void test_garbage(void **state)
{
	struct console_report *r = scan_fixture("synth-garbage.log");

	(void)state;
	assert_false(r->reached_init);
	assert_int_equal(r->ntests, 0);
	assert_null(r->crash);
	assert_null(r->fpu_mode);
	console_report_free(r);
}

/* guest-tests/misbehave/garbage.c: escapes, NULs and invalid UTF-8 everywhere. */
static void test_misbehave_garbage(void **state)
{
	struct console_report *r = scan_fixture("misbehave-garbage-qemu32.log");
	const char *hostile = "?[2J?[H?]0;pwned??]52;c;cm0gLXJmIH4K??[31m?????????";
	char *name = xasprintf("garbage%sname", hostile);
	char *reason = xasprintf("sub%stest: expected 1%s, got 2", hostile, hostile);
	/* A title's numbers between non-word characters are NUM, as syzkaller's are. */
	char *crash = xasprintf("BUG: unable to handle page fault%s",
				"?[2J?[H?]NUM;pwned??]NUM;c;cm0gLXJmIH4K??[31m?????????");
	char *cpu = xasprintf("vendor=%s", hostile);

	(void)state;
	assert_true(r->ran_init);
	assert_true(r->reached_init);
	assert_true(r->finished);
	assert_true(r->rebooted);
	assert_int_equal(r->planned, 3);
	assert_int_equal(r->ntests, 3);
	assert_string_equal(r->cpu_line, cpu);
	assert_test(&r->tests[0], 1, name, VERDICT_PASS, NULL, NULL);
	assert_test(&r->tests[1], 2, "garbage_diag", VERDICT_FAIL, reason, NULL);
	assert_test(&r->tests[2], 3, "garbage_crash", VERDICT_CRASH, NULL, crash);
	assert_printable_and_bounded(r->cpu_line);
	for (size_t i = 0; i < r->ntests; i++) {
		assert_printable_and_bounded(r->tests[i].name);
		if (r->tests[i].reason)
			assert_printable_and_bounded(r->tests[i].reason);
		if (r->tests[i].crash)
			assert_printable_and_bounded(r->tests[i].crash);
	}
	free(name);
	free(reason);
	free(crash);
	free(cpu);
	console_report_free(r);
}

/* guest-tests/misbehave/reboot.c: the kernel ran init, which rebooted at once. */
static void test_misbehave_reboot(void **state)
{
	struct console_report *r = scan_fixture("misbehave-reboot-qemu32.log");

	(void)state;
	assert_true(r->ran_init);
	assert_false(r->reached_init);
	assert_true(r->rebooted);
	assert_int_equal(r->ntests, 0);
	assert_null(r->crash);
	assert_string_equal(r->fpu_mode, "FXSAVE");
	console_report_free(r);
}

/* guest-tests/misbehave/triple.c: init dies in its test and the kernel panics. */
static void test_misbehave_triple(void **state)
{
	struct console_report *r = scan_fixture("misbehave-triple-qemu32.log");

	(void)state;
	assert_true(r->reached_init);
	assert_false(r->rebooted);
	assert_int_equal(r->running, 1);
	assert_test(&r->tests[0], 1, "triple", VERDICT_CRASH, NULL,
		    "kernel panic: Attempted to kill init!");
	console_report_free(r);
}

/* A real 6.1 boot whose FDIV check reports the erratum (test_cell.c has the mutant). */
static void test_fdiv_erratum_line(void **state)
{
	struct console_report *r = scan_fixture("fdiv-claim-486.log");

	(void)state;
	assert_true(r->fdiv_bug);
	assert_string_equal(r->fpu_mode, "FSAVE");
	console_report_free(r);
	r = scan_fixture("synth-good-486.log");
	assert_false(r->fdiv_bug);
	console_report_free(r);
}

static void test_lifecycle_lines_are_the_kernel_s(void **state)
{
	struct console_report *r;

	(void)state;
	/* init's own lines carry no timestamp: they cannot claim a reboot. */
	r = scan("Run /init as init process\nreboot: Restarting system\n");
	assert_false(r->ran_init);
	assert_false(r->rebooted);
	console_report_free(r);
	r = scan("[    0.3] Run /sbin/init as init process\n[    9.1] reboot: Restarting system\r\n");
	assert_true(r->ran_init);
	assert_true(r->rebooted);
	console_report_free(r);
	r = scan("[    9.1] reboot: Restarting system now\n[    0.3] Run /init\n");
	assert_false(r->ran_init);
	assert_false(r->rebooted);
	console_report_free(r);
}

static void test_crlf_and_lf_read_alike(void **state)
{
	struct strbuf crlf = STRBUF_INIT, lf = STRBUF_INIT;
	struct console_report *a, *b;

	(void)state;
	assert_int_equal(file_read(FIXTURES "synth-fpu-exception-486.log", &crlf), 0);
	assert_non_null(memchr(crlf.buf, '\r', crlf.len));
	for (size_t i = 0; i < crlf.len; i++)
		if (crlf.buf[i] != '\r')
			strbuf_addch(&lf, crlf.buf[i]);
	a = scan_bytes(crlf.buf, crlf.len);
	b = scan_bytes(lf.buf, lf.len);
	assert_int_equal(a->ntests, b->ntests);
	assert_int_equal(a->running, b->running);
	assert_string_equal(a->crash, b->crash);
	assert_string_equal(a->cpu_line, b->cpu_line);
	assert_string_equal(a->tests[0].name, b->tests[0].name);
	console_report_free(a);
	console_report_free(b);
	strbuf_release(&crlf);
	strbuf_release(&lf);
}

/* Inline logs. */

#define HEAD "KTAP version 1\n1..3\n"

static void test_crash_windows(void **state)
{
	struct console_report *r;

	(void)state;
	/* Before the first begin: the boot's, no test's. */
	r = scan("WARNING: CPU: 0 PID: 0 at kernel/a.c:1 early_thing+0x1/0x2\n"
		 "EIP: early_thing+0x1/0x2\n" HEAD
		 "# fpubench: begin 1 a\nok 1 a\n");
	assert_string_equal(r->crash, "WARNING in early_thing");
	assert_test(&r->tests[0], 1, "a", VERDICT_PASS, NULL, NULL);
	console_report_free(r);

	/* After the result, before the next begin: the child's exit is still its test. */
	r = scan(HEAD "# fpubench: begin 1 a\nok 1 a\n"
		 "[    0.5] WARNING: CPU: 0 PID: 30 at arch/x86/kernel/fpu/core.c:400 fpu__drop+0x3/0x40\n"
		 "[    0.5] EIP: fpu__drop+0x3/0x40\n"
		 "# fpubench: duration_ms 3\n# fpubench: begin 2 b\nok 2 b\n# fpubench: done\n"
		 "[    0.9] WARNING: CPU: 0 PID: 1 at kernel/reboot.c:1 late+0x1/0x2\n");
	assert_test(&r->tests[0], 1, "a", VERDICT_CRASH, NULL, "WARNING in fpu__drop");
	assert_int_equal(r->tests[0].duration_ms, 3);
	/* After "done": no test's. */
	assert_test(&r->tests[1], 2, "b", VERDICT_PASS, NULL, NULL);
	assert_string_equal(r->crash, "WARNING in fpu__drop");
	console_report_free(r);
}

static void test_panic_after_an_earlier_test_warned(void **state)
{
	struct console_report *r;

	(void)state;
	r = scan(HEAD "# fpubench: begin 1 a\n"
		 "WARNING: CPU: 0 PID: 30 at kernel/a.c:1 f+0x1/0x2\nEIP: f+0x1/0x2\nok 1 a\n"
		 "# fpubench: begin 2 b\nKernel panic - not syncing: Attempted to kill init!\n");
	assert_string_equal(r->crash, "WARNING in f");
	assert_test(&r->tests[0], 1, "a", VERDICT_CRASH, NULL, "WARNING in f");
	assert_test(&r->tests[1], 2, "b", VERDICT_CRASH, NULL, "kernel panic: Attempted to kill init!");
	assert_int_equal(r->running, 2);
	console_report_free(r);
}

static void test_results_and_begins_that_do_not_pair(void **state)
{
	struct console_report *r;

	(void)state;
	r = scan(HEAD "# fpubench: begin 1 a\n# fpubench: begin 2 b\nnot ok 2 b\n"
		 "ok 3 c\n# fpubench: begin 4\n# fpubench: done\n");
	assert_int_equal(r->ntests, 4);
	assert_test(&r->tests[0], 1, "a", VERDICT_ERROR, "no result line", NULL);
	assert_test(&r->tests[1], 2, "b", VERDICT_FAIL, NULL, NULL);
	assert_test(&r->tests[2], 3, "c", VERDICT_PASS, NULL, NULL);
	assert_test(&r->tests[3], 4, "test-4", VERDICT_ERROR, "no result line", NULL);
	assert_int_equal(r->running, 0);
	console_report_free(r);

	/* Bad begins are ignored; a nameless result keeps the begin's name. */
	r = scan(HEAD "# fpubench: begin x\n# fpubench: begin 0 z\n# fpubench: begin 1 a\nok 1\n");
	assert_int_equal(r->ntests, 1);
	assert_test(&r->tests[0], 1, "a", VERDICT_PASS, NULL, NULL);
	console_report_free(r);
}

static void test_status_rules(void **state)
{
	struct console_report *r;

	(void)state;
	r = scan(HEAD
		 /* A failing subtest fails the test even when its own line says ok. */
		 "# fpubench: begin 1 a\n    not ok 1 x\n    # why\nok 1 a\n"
		 /* Skipped and TODO subtests do not fail it; a failure after them does. */
		 "# fpubench: begin 2 b\n    not ok 1 s # SKIP no FXSR\n    not ok 2 t # TODO later\n"
		 "    # not collected\n    ok 3 u\n    # nor this\n    not ok 4 v # exit status 2\n"
		 "    # first\n    1..4\n    # not after a plan\nnot ok 2 b\n"
		 "# fpubench: begin 3 c\nnot ok 3 c # TODO known broken\n"
		 "# fpubench: begin 4 d\n    not ok 1 e\nnot ok 4 d # TIMEOUT after 5 s\n"
		 "# fpubench: begin 5 f\n    not ok 1\nnot ok 5 f # killed by signal 8\n"
		 "# fpubench: begin 6 g\nnot ok 6 g # SKIP cannot run here\n"
		 "# fpubench: begin 7 h\nok 7 h # TIMEOUT\n");
	assert_test(&r->tests[0], 1, "a", VERDICT_FAIL, "x: why", NULL);
	assert_test(&r->tests[1], 2, "b", VERDICT_FAIL, "v: exit status 2; first", NULL);
	assert_test(&r->tests[2], 3, "c", VERDICT_SKIP, "TODO known broken", NULL);
	assert_test(&r->tests[3], 4, "d", VERDICT_TIMEOUT, "TIMEOUT after 5 s; e", NULL);
	assert_test(&r->tests[4], 5, "f", VERDICT_FAIL, "killed by signal 8; subtest 1", NULL);
	assert_test(&r->tests[5], 6, "g", VERDICT_SKIP, "cannot run here", NULL);
	assert_test(&r->tests[6], 7, "h", VERDICT_TIMEOUT, "TIMEOUT", NULL);
	console_report_free(r);
}

static void test_running_test_keeps_its_failure_so_far(void **state)
{
	struct console_report *r;

	(void)state;
	r = scan(HEAD "# fpubench: begin 1 a\n    not ok 1 fwait\n    # no SIGFPE\n");
	assert_int_equal(r->running, 1);
	assert_test(&r->tests[0], 1, "a", VERDICT_ERROR, "fwait: no SIGFPE", NULL);
	console_report_free(r);
}

static void test_top_level_needs_init_not_printk(void **state)
{
	struct console_report *r;

	(void)state;
	r = scan("[    0.1] KTAP version 1\n[    0.1] 1..9\n[    0.1] ok 1 kunit\n"
		 "[    0.1] # fpubench: done\n");
	assert_false(r->reached_init);
	assert_false(r->finished);
	assert_int_equal(r->planned, -1);
	assert_int_equal(r->ntests, 0);
	console_report_free(r);

	/* Only the first plan and cpu line count. */
	r = scan("KTAP version 1\n# fpubench: cpu one\n1..2\n1..7\n# fpubench: cpu two\n"
		 "# fpubench: resume 2\n# fpubench: resume x\n");
	assert_int_equal(r->planned, 2);
	assert_string_equal(r->cpu_line, "one");
	assert_int_equal(r->resumed_at, 2);
	console_report_free(r);
}

static void test_fpu_modes(void **state)
{
	struct console_report *r;

	(void)state;
	r = scan("[    0.000000] x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'\n"
		 "[    0.000000] x86/fpu: Enabled xstate features 0x7, context size is 832 bytes\n");
	assert_string_equal(r->fpu_mode, "XSAVE");
	console_report_free(r);
	r = scan("x86/fpu: x87 FPU will use FXSAVE\r\nx86/fpu: x87 FPU will use FSAVE\r\n");
	assert_string_equal(r->fpu_mode, "FXSAVE");
	console_report_free(r);
	r = scan("x86/fpu: x87 FPU will use FSAVEX\n");
	assert_null(r->fpu_mode);
	console_report_free(r);
}

static void test_untrusted_text_is_printable_and_bounded(void **state)
{
	struct strbuf log = STRBUF_INIT;
	struct console_report *r;

	(void)state;
	strbuf_addstr(&log, "KTAP version 1\n# fpubench: cpu \x01\x7f\xff ok\n"
		      "# fpubench: begin 1 a\n    not ok 1 ");
	for (int i = 0; i < 100000; i++)
		strbuf_add(&log, "n\0\x1b", 3);
	strbuf_addstr(&log, "\n");
	for (int i = 0; i < 1000; i++)
		strbuf_addstr(&log, "    # a diagnostic that goes on\n");
	strbuf_addstr(&log, "not ok 1 ");
	for (int i = 0; i < 5000; i++)
		strbuf_addch(&log, (char)(i % 256));
	strbuf_addstr(&log, "\nKernel panic - not syncing: ");
	for (int i = 0; i < 5000; i++)
		strbuf_addch(&log, 'p');
	strbuf_addch(&log, '\n');

	r = scan_bytes(log.buf, log.len);
	assert_string_equal(r->cpu_line, "??? ok");
	assert_int_equal(r->ntests, 1);
	assert_printable_and_bounded(r->tests[0].name);
	assert_printable_and_bounded(r->tests[0].reason);
	assert_printable_and_bounded(r->tests[0].crash);
	assert_int_equal(strlen(r->tests[0].reason), CONSOLE_TEXT_MAX);
	assert_string_equal(r->tests[0].reason + CONSOLE_TEXT_MAX - 3, "...");
	assert_true(strncmp(r->tests[0].reason, "n??n??", 6) == 0);
	assert_true(strncmp(r->crash, "kernel panic: ppp", 17) == 0);
	console_report_free(r);
	strbuf_release(&log);
}

static void test_number_of_tests_is_capped(void **state)
{
	struct strbuf log = STRBUF_INIT;
	struct console_report *r;

	(void)state;
	strbuf_addstr(&log, "KTAP version 1\n1..5000\n");
	for (int i = 1; i <= 5000; i++)
		strbuf_addf(&log, "# fpubench: begin %d t\nok %d t\n", i, i);
	/* A crash past the cap belongs to no test but is still the boot's. */
	strbuf_addstr(&log, "# fpubench: begin 5001 x\nOops: 0000 [#1]\nEIP: f+0x1/0x2\n");
	r = scan_bytes(log.buf, log.len);
	assert_int_equal(r->ntests, CONSOLE_MAX_TESTS);
	assert_int_equal(r->tests[CONSOLE_MAX_TESTS - 1].index, CONSOLE_MAX_TESTS);
	assert_string_equal(r->crash, "Oops in f");
	assert_int_equal(r->running, 0);
	console_report_free(r);
	strbuf_release(&log);
}

static void test_overlong_and_odd_buffers(void **state)
{
	size_t n = 4 << 20;
	char *big = xmalloc(n);
	struct console_report *r;

	(void)state;
	/* One line with no newline at all, of bytes that almost make a report. */
	for (size_t i = 0; i < n; i++)
		big[i] = " [#0+0x/"[i % 8];
	r = scan_bytes(big, n);
	assert_int_equal(r->ntests, 0);
	assert_null(r->crash);
	console_report_free(r);

	memset(big, '\n', n);
	r = scan_bytes(big, n);
	assert_int_equal(r->ntests, 0);
	console_report_free(r);
	free(big);

	assert_int_equal(console_scan(NULL, 0, &r), 0);
	assert_false(r->reached_init);
	assert_int_equal(r->planned, -1);
	console_report_free(r);
	assert_true(console_scan(NULL, 1, &r) < 0);
	assert_true(console_scan("x", 1, NULL) < 0);
	console_report_free(NULL);
}

/* Crash titles. */

static void assert_title(const char *report, const char *want)
{
	struct console_report *r;
	char *copy = xstrdup(report);

	assert_int_equal(console_scan(copy, strlen(copy), &r), 0);
	if (want)
		assert_string_equal(r->crash, want);
	else
		assert_null(r->crash);
	console_report_free(r);
	free(copy);
}

static void test_title_die_lines(void **state)
{
	(void)state;
	assert_title("[    0.16] fpu exception: 0000 [#1]\n[    0.16] CPU: 0 PID: 31 Comm: fpu_seed\n"
		     "[    0.16] EIP: save_fpregs_to_fpstate+0x42/0x57\n",
		     "fpu exception in save_fpregs_to_fpstate");
	/* No EIP before the report ends: syzkaller's "corrupted" stands for the function. */
	assert_title("fpu exception: 0000 [#1]\nCall Trace:\n---[ end trace 0000000000000000 ]---\n"
		     "EIP: save_fpregs_to_fpstate+0x42/0x57\n", "fpu exception in corrupted");
	assert_title("fpu exception: 0000 [#1]\n", "fpu exception in corrupted");
	assert_title("Oops: 0000 [#1] PREEMPT SMP\nEIP: __run_timers+0x9c/0x1d0\n",
		     "Oops in __run_timers");
	assert_title("general protection fault: 0000 [#1]\nEIP: fpu__restore_sig+0x1/0x2\n",
		     "general protection fault in fpu__restore_sig");
	assert_title("invalid opcode: 0000 [#1]\nEIP: fpu__init_cpu+0x10/0x20\n",
		     "invalid opcode in fpu__init_cpu");
	/* Newer kernels, 64-bit: "Oops: " in front, detail after ',', RIP with a segment. */
	assert_title("Oops: general protection fault, probably for non-canonical address "
		     "0xdffffc0000000000: 0000 [#1] PREEMPT SMP KASAN NOPTI\n"
		     "RIP: 0010:fpu_clone+0x2a/0x100\n", "general protection fault in fpu_clone");
	/* The seed commit's own report (2.6.35): EIP with no symbol, then "EIP is at". */
	assert_title("fpu exception: 0000 [#1]\nlast sysfs file: /sys/power/state\n"
		     "Pid: 1638, comm: fxsave-32-excep Not tainted 2.6.35-07798-g58a992b-dirty #633\n"
		     "EIP: 0060:[<c1003527>] EFLAGS: 00010202 CPU: 0\n"
		     "EIP is at math_error+0x1b4/0x1c8\n", "fpu exception in math_error");
	assert_title("EIP: [<c1003527>] math_error+0x1b4/0x1c8 SS:ESP 0068:cf9d9f1c\n", NULL);
	/* A die() line inside a report continues it, as "invalid opcode" does a kernel BUG. */
	assert_title("fpu exception: 0000 [#1]\nOops: 0000 [#2]\nEIP: f+0x1/0x2\n", "fpu exception in f");
	/* Lines that only look like die(). */
	assert_title("ok 1 x: 0000 [#1]\n", NULL);
	assert_title("x: 000 [#1]\n: 0000 [#1]\nfoo: 0000 [#x]\n9x: 0000 [#1]\n", NULL);
}

static void test_title_report_length(void **state)
{
	struct strbuf log = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&log, "Oops: 0000 [#1]\n");
	for (int i = 0; i < CRASH_REPORT_LINES - 2; i++)
		strbuf_addstr(&log, "Code: 90 90\n");
	strbuf_addstr(&log, "EIP: near+0x1/0x2\n");
	assert_title(log.buf, "Oops in near");
	strbuf_reset(&log);
	strbuf_addstr(&log, "Oops: 0000 [#1]\n");
	for (int i = 0; i < CRASH_REPORT_LINES; i++)
		strbuf_addstr(&log, "Code: 90 90\n");
	strbuf_addstr(&log, "EIP: far+0x1/0x2\n");
	assert_title(log.buf, "Oops in corrupted");
	strbuf_release(&log);
}

static void test_title_bug_lines(void **state)
{
	(void)state;
	/* The EIP's function is a library routine: the call trace's first caller names it. */
	assert_title("BUG: unable to handle page fault for address: f8a00000\n"
		     "#PF: supervisor write access in kernel mode\n*pde = 00000000\n"
		     "Oops: 0002 [#1]\nCPU: 0 PID: 1 Comm: init\nEIP: memcpy+0x1d/0x30\n"
		     "Call Trace:\n copy_fpstate_to_sigframe+0x1/0x2\n",
		     "BUG: unable to handle kernel paging request in copy_fpstate_to_sigframe");
	assert_title("BUG: kernel NULL pointer dereference, address: 00000000\nOops: 0000 [#1]\n"
		     "EIP: fpu__clear_user_states+0x8/0x50\n",
		     "BUG: unable to handle kernel NULL pointer dereference in fpu__clear_user_states");
	assert_title("BUG: unable to handle kernel paging request at c8000000\nOops: 0000 [#1]\n",
		     "BUG: unable to handle kernel paging request in corrupted");
	/* Other BUG:s dump no registers: their function comes from the call trace. */
	assert_title("BUG: scheduling while atomic: fpu_seed/31/0x00000002\nEIP: x+0x1/0x2\n",
		     "BUG: scheduling while atomic in corrupted");
	assert_title("BUG: scheduling while atomic: fpu_seed/31/0x00000002\nCall Trace:\n"
		     " dump_stack_lvl+0x1/0x2\n __schedule_bug+0x1/0x2\n __schedule+0x1/0x2\n"
		     " schedule+0x1/0x2\n fpu_seed_wait.isra.0+0x1/0x2\n",
		     "BUG: scheduling while atomic in fpu_seed_wait");
	assert_title("BUG: sleeping function called from invalid context at kernel/sched/core.c:9870\n",
		     "BUG: sleeping function called from invalid context in corrupted");
	assert_title("BUG: soft lockup - CPU#0 stuck for 22s! [fpu_seed:31]\n", "BUG: soft lockup in corrupted");
	/* A bad page is named after who allocated it, as page_owner tells. */
	assert_title("BUG: Bad page state in process fpu_fork  pfn:01a3c\n"
		     "page last allocated via order 0, migratetype Unmovable\n"
		     " post_alloc_hook+0x1/0x2\n get_page_from_freelist+0x1/0x2\n"
		     " __alloc_pages+0x1/0x2\n fpu_clone+0x1/0x2\n", "BUG: Bad page state in fpu_clone");
	assert_title("BUG: Bad page state in process fpu_fork  pfn:01a3c\n", "BUG: Bad page state in corrupted");
	assert_title("BUG: : x\n", "BUG: : x");
}

static void test_title_warning_and_kernel_bug(void **state)
{
	(void)state;
	/* The stack names it; with none, syzkaller's "corrupted" (its report 23). */
	assert_title("WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 func+0x1/0x2\nCall Trace:\n"
		     " func+0x1/0x2\n caller+0x1/0x2\n", "WARNING in func");
	assert_title("WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 func+0x1/0x2\n", "WARNING in corrupted");
	/* The EIP names it, without the compiler's suffix. */
	assert_title("WARNING: CPU: 0 PID: 31 at arch/x86/kernel/fpu/core.c:140 "
		     "save_fpregs_to_fpstate.constprop.0+0x4d/0x57\n"
		     "EIP: save_fpregs_to_fpstate.constprop.0+0x4d/0x57\n",
		     "WARNING in save_fpregs_to_fpstate");
	assert_title("WARNING: at kernel/foo.c:12 func+0x1/0x2()\nCall Trace:\n [<c1000000>] func+0x1/0x2\n",
		     "WARNING in func");
	assert_title("WARNING: CPU: 0 PID: 1 at func+0x1/0x2\nEIP: func+0x1/0x2\n", "WARNING in func");
	/* No symbol on the line: the EIP's, else where it was. */
	assert_title("WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 0xc1000000\nModules linked in:\n"
		     "EIP: bar+0x1/0x2\n", "WARNING in bar");
	assert_title("WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 0xc1000000\n---[ end trace ]---\n",
		     "WARNING in corrupted");
	assert_title("WARNING: CPU: 0 PID: 1\n", "WARNING: CPU: NUM PID: NUM");
	/* Cut before lockdep says which lock: syzkaller titles it by the header's line. */
	assert_title("WARNING: possible circular locking dependency detected\n",
		     "WARNING: possible circular locking dependency detected");
	assert_title("WARNING: possible circular locking dependency detected\na/1 is trying to acquire lock:\n"
		     "ffff (&m){+.+.}-{3:3}, at: f+0x1/0x2\n", "possible deadlock in f");

	assert_title("kernel BUG at arch/x86/kernel/fpu/core.c:123!\ninvalid opcode: 0000 [#1]\n"
		     "EIP: fpu__drop+0x8/0x50\n", "kernel BUG in fpu__drop");
	assert_title("kernel BUG at arch/x86/kernel/fpu/core.c:123!\ninvalid opcode: 0000 [#1]\n",
		     "kernel BUG in corrupted");
	assert_title("kernel BUG at !\n", "kernel BUG in corrupted");
}

static void test_title_panic(void **state)
{
	(void)state;
	assert_title("Kernel panic - not syncing: Fatal exception in interrupt\n",
		     "kernel panic: Fatal exception");
	/* After a report the panic is its consequence, even before the report's EIP. */
	assert_title("invalid opcode: 0000 [#1]\nKernel panic - not syncing: Fatal exception\n"
		     "EIP: late+0x1/0x2\n", "invalid opcode in late");
	assert_title("---[ end Kernel panic - not syncing: Fatal exception ]---\n", NULL);
	assert_title("hello\n", NULL);
	assert_title("", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_run),
		cmocka_unit_test(test_failing_subtest_and_skip),
		cmocka_unit_test(test_seed_bug_panics_mid_test),
		cmocka_unit_test(test_context_switch_variant_keeps_the_first_report),
		cmocka_unit_test(test_oops_the_test_survives),
		cmocka_unit_test(test_timeout_signal_and_exit_status),
		cmocka_unit_test(test_hang_leaves_the_test_running),
		cmocka_unit_test(test_panic_without_oops_is_its_own_title),
		cmocka_unit_test(test_boot_that_never_reached_init),
		cmocka_unit_test(test_printk_ktap_from_a_kernel_module),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_misbehave_garbage),
		cmocka_unit_test(test_misbehave_reboot),
		cmocka_unit_test(test_fdiv_erratum_line),
		cmocka_unit_test(test_misbehave_triple),
		cmocka_unit_test(test_lifecycle_lines_are_the_kernel_s),
		cmocka_unit_test(test_crlf_and_lf_read_alike),
		cmocka_unit_test(test_crash_windows),
		cmocka_unit_test(test_panic_after_an_earlier_test_warned),
		cmocka_unit_test(test_results_and_begins_that_do_not_pair),
		cmocka_unit_test(test_status_rules),
		cmocka_unit_test(test_running_test_keeps_its_failure_so_far),
		cmocka_unit_test(test_top_level_needs_init_not_printk),
		cmocka_unit_test(test_fpu_modes),
		cmocka_unit_test(test_untrusted_text_is_printable_and_bounded),
		cmocka_unit_test(test_number_of_tests_is_capped),
		cmocka_unit_test(test_overlong_and_odd_buffers),
		cmocka_unit_test(test_title_die_lines),
		cmocka_unit_test(test_title_report_length),
		cmocka_unit_test(test_title_bug_lines),
		cmocka_unit_test(test_title_warning_and_kernel_bug),
		cmocka_unit_test(test_title_panic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
