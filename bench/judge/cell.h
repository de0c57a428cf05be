/*
 * cell: the verdicts of one boot, a cell per test: the rules that turn a
 * console report (console.h) into cells, whatever ran the boot.  A cell is
 * one (kernel, CPU setup, test) of the matrix; the boot stage (matrix.h)
 * fills in what it knows of the kernel, the setup and the host.
 */
#ifndef FPUBENCH_CELL_H
#define FPUBENCH_CELL_H

#include "console.h"
#include "verdict.h"

#include <stdbool.h>
#include <stddef.h>

struct matrix_kernel;	/* boot/matrix.h: judged cells never look into it */
struct cpu_setup;

struct matrix_cell {
	const struct matrix_kernel *kernel;
	const struct cpu_setup *cpu;
	char *test;
	enum verdict status;
	enum verdict expected;
	bool met;		/* status meets expected */
	bool no_init;		/* the guest never reached init: the kernel is untestable */
	bool not_run;		/* a pair the run stopped before (--fail-fast); never met */
	char *crash;		/* crash title or NULL */
	char *reason;		/* why it is not a pass, or NULL */
	char *console;		/* console log, relative to the run directory */
	char *fpu_mode;		/* what the kernel said it uses, or NULL */
	char *host;		/* the libvirt URI or the lab ("lab NAME") it ran on */
	char *job_id;		/* a lab's job that ran it, or NULL */
	char *job_url;		/* that job's page (or log), or NULL */
	double duration_s;
};

/* How a boot ended. */
enum cell_boot_end {
	CELL_BOOT_STOPPED,	/* the guest stopped by itself */
	CELL_BOOT_TIMED_OUT,	/* destroyed at the time limit */
	CELL_BOOT_FLOODED,	/* its console passed CONSOLE_MAX (judge/console.h) */
};

/*
 * What the kernel should find a CPU setup to be.  A setup that does not
 * make the kernel report the FPU path it claims would test nothing: each
 * cell of a boot that reached init and named another path is an ERROR.
 * A kernel that names none went wrong in its FPU set-up: a FAIL cell
 * "fpu_path", the other cells as judged (a pair's first boot only).  A
 * kernel that reports the Pentium FDIV erratum on an FPU that divides
 * exactly is wrong: a FAIL cell "fdiv_check", judged on a pair's first
 * boot only (its later ones repeat the same boot lines).
 */
struct cell_setup {
	bool fsave;		/* the kernel must report FSAVE, else FXSAVE */
	bool exact_fdiv;	/* QEMU's models: no FDIV erratum to find (a board may have it) */
};

/*
 * Turns one boot's console report into cells (test, status, crash, reason,
 * duration, fpu_mode; the caller fills in the rest), appending them to
 * *cells.  Returns the test index to resume at in a new boot, or 0 when
 * the boot left nothing to resume.  Pure, for unit tests.
 *
 * A test the boot ended in is CRASH (TIMEOUT after the time limit, FAIL
 * for a console flood) unless a crash report names it anyway; a boot that
 * ended outside every test is a "boot" cell alike, as is a crash report
 * outside every test's window in a boot that went on (CRASH, with its
 * title).  When init said "done",
 * the results must be the plan's tests from the resumed one on, each once;
 * otherwise a "ktap_plan" cell fails and names the missing and extra ones.
 */
int cells_from_report(const struct console_report *r, enum cell_boot_end end,
		      const struct cell_setup *setup, double boot_seconds,
		      struct matrix_cell **cells, size_t *ncells);

/* Appends a cell of that test and status, its other fields empty (duration -1: unknown). */
struct matrix_cell *cell_add(struct matrix_cell **cells, size_t *n, const char *test,
			     enum verdict status);

void cell_release(struct matrix_cell *c);

#endif
