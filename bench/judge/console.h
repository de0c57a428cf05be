/*
 * console: one boot's serial console log -> per-test outcomes.
 *
 * console_scan() is pure (no I/O, no libvirt) and reads exactly `len`
 * bytes, which may be anything: it is fuzzed.  The protocol it reads is
 * guest-tests/PROTOCOL.md: init's unindented KTAP and "# fpubench: ..."
 * lines, the tests' subtests, and printk lines (timestamped, see ktap.h).
 *
 * Ownership: the report owns every string in it and its tests array;
 * console_report_free() releases all of it.  fpu_mode points to a static
 * string.
 *
 * Invariants, whatever the input:
 *  - tests[i].name is never NULL;
 *  - every string is printable ASCII (other bytes become '?') and at most
 *    CONSOLE_TEXT_MAX bytes; a longer one is cut and ends in "...";
 *  - ntests <= CONSOLE_MAX_TESTS; tests past the cap are dropped, which
 *    the plan count then shows.
 *
 * Reading rules:
 *  - Top level: unindented lines without a timestamp (init never uses
 *    printk).  Subtests: indented lines, and KTAP lines printed through
 *    printk at any depth (an in-kernel test module's), while the test that
 *    began last has no result yet.
 *  - A test's window runs from its "begin" (or its result, if it had no
 *    begin) to the next begin or "done".  A crash report that starts in the
 *    window makes the test CRASH whatever its result line said: this also
 *    catches the child's exit and init's reaping.  Reports outside every
 *    window (before the first begin, after "done") set report->crash and
 *    report->crash_outside.
 *  - A test that began and has no result: if "done" or a later begin
 *    follows, it is ERROR "no result line"; otherwise it is `running`, and
 *    its status is CRASH when a report appeared, else VERDICT_ERROR as a
 *    placeholder the caller replaces (only it knows whether the boot timed
 *    out).
 *  - Status from the result: "# SKIP" -> SKIP with the reason; "# TODO" ->
 *    SKIP with "TODO ..." (TAP: an expected failure is not a failure);
 *    "# TIMEOUT ..." -> TIMEOUT with "TIMEOUT ..."; "not ok", or any failing
 *    subtest that is not SKIP/TODO -> FAIL.  A failure's reason is the
 *    other directive's text ("killed by signal 9") and the first failing
 *    subtest's name with the diagnostics that follow it ("wait4: expected
 *    si_code 3 (FPE_FLTDIV), got 0"), joined by "; ".
 *
 * Crash reports are found and titled by crash.h's scanner, which every
 * line goes through: a report belongs to the window it began in, and a
 * test's window boundary is a fence for crash.h's panic rule (a panic is
 * a report of its own only when no report came before it in the window).
 * The boot's crash is the first report's title.
 */
#ifndef FPUBENCH_CONSOLE_H
#define FPUBENCH_CONSOLE_H

#include "verdict.h"

#include <stdbool.h>
#include <stddef.h>

#define CONSOLE_TEXT_MAX 200	/* bytes of one name, reason, title or cpu line */
/* Bytes of a console log that count: a guest is stopped past them (a flood), readers take no more. */
#define CONSOLE_MAX (16u << 20)
#define CONSOLE_MAX_TESTS 1024

struct console_test {		/* one top-level KTAP test of the guest */
	int index;		/* 1-based, as in KTAP */
	char *name;		/* from the result line, else the begin line, else "test-K" */
	enum verdict status;
	char *reason;		/* why it is not a pass, or NULL */
	char *crash;		/* title of the first crash report in its window, or NULL */
	long duration_ms;	/* from "# fpubench: duration_ms N", -1 if absent */
};

struct console_report {
	bool ran_init;		/* the kernel said "Run /init as init process" */
	bool reached_init;	/* saw the top-level "KTAP version 1" */
	bool finished;		/* saw "# fpubench: done" */
	bool rebooted;		/* the kernel said "reboot: Restarting system" */
	bool fdiv_bug;		/* the kernel said "Hmm, FPU with FDIV bug": it found the Pentium erratum */
	bool nofxsr;		/* the kernel's "Kernel command line:" holds the word nofxsr */
	int planned;		/* N of the top-level plan, -1 if none */
	int resumed_at;		/* K of "# fpubench: resume K", 1 if absent */
	const char *fpu_mode;	/* "FSAVE", "FXSAVE", "XSAVE" from x86/fpu boot lines, or NULL */
	char *cpu_line;		/* text after "# fpubench: cpu ", or NULL */
	char *crash;		/* title of the first crash report overall, or NULL */
	char *crash_outside;	/* title of the first one outside every test's window, or NULL */
	int running;		/* index of the test that began and has no result, 0 if none */
	struct console_test *tests;	/* in order of appearance */
	size_t ntests;
};

/* 0 and *out set (free with console_report_free()), or ERR_GENERIC for bad arguments. */
int console_scan(const char *buf, size_t len, struct console_report **out);

void console_report_free(struct console_report *r);

/* n untrusted bytes as a report's strings are: printable ASCII, at most CONSOLE_TEXT_MAX (caller frees). */
char *console_text_dup(const char *p, size_t n);

#endif
