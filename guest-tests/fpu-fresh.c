/*
 * fpu_fresh: a new program starts with a clean x87 state.
 *
 * Guards execve's fpu_flush_thread() and fpu__clear_user_states() in
 * arch/x86/kernel/fpu/core.c (through flush_thread() in
 * arch/x86/kernel/process.c): whatever the old program left, the new one
 * starts in the state fninit gives (init_fpstate: FCW 0x037f, FSW 0, tag
 * word 0xffff, every register empty).  The new program is rt/fresh.c's
 * probe, which saves the state before any other x87 instruction.
 *
 *   from_clean  the old program ran fninit;
 *   from_busy   it left FCW 0x0c7f (round toward zero, 24-bit precision,
 *               masked), flags C1|PE|UE and pi, e and 1e10 on the stack.
 * (A pending exception at execve is fpu_edges' job.)
 *
 * A traced execve stops (SIGTRAP) before the new program runs, with
 * TIF_NEED_FPU_LOAD set: the task's fpstate is then what
 * fpu_reset_fpregs() copied from init_fpstate, byte for byte, and a tracer
 * reads it as it is.  The tracee first loads from_busy's state and stops,
 * so that its fpstate holds that state before the execve.
 *
 *   traced_exec        PTRACE_GETFPREGS at the exec stop gives the
 *                      fpstate_init_fstate() image exactly (FCW, FSW, tag
 *                      word and FOS with 0xffff above, the rest zero; on
 *                      FXSR the __convert_from_fxsr() of the fxsave init
 *                      image, FOS 0), and the new program, let go, starts
 *                      in the fninit state;
 *   traced_exec_fxsr   FXSR without XSAVE: PTRACE_GETFPXREGS gives the
 *                      fpstate_init_fxstate() image exactly, FCW 0x037f
 *                      and MXCSR 0x1f80, every other byte zero.
 */
#include "rt/auxv.h"
#include "rt/cpu.h"
#include "rt/fpstate.h"
#include "rt/fresh.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/sys.h"
#include "rt/test.h"

#include <stdbool.h>
#include <stdint.h>

#include <asm/signal.h>
#include <linux/auxvec.h>
#include <linux/ptrace.h>

static const long double fresh_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10 };

struct fresh_case {
	const char *name;
	struct fpstate_spec spec;
};

static const struct fresh_case fresh_cases[] = {
	{ "from_clean", { .cw = X87_CW_DEFAULT } },
	{ "from_busy", { .cw = 0x0c7f, .sw_flags = X87_SW_C1 | X87_SW_PE | X87_SW_UE,
			 .count = ARRAY_SIZE(fresh_values), .values = fresh_values } },
};

#define FRESH_UPPER 0xffff0000u	/* the reserved upper halves, set in init_fpstate */
#define FRESH_MXCSR 0x1f80	/* MXCSR_DEFAULT */

/* What the tracer saw; `fxsr` and `xsave` are the kernel's (AT_HWCAP, CPUID's OSXSAVE). */
struct fresh_traced {
	bool fxsr, xsave;
	long stop[2], getfpregs, getfpxregs, status, got;
	struct x87_fsave fp, report;
	struct fpstate_fxsr fx;
};

static int fresh_traced_child(int write_fd, void *arg)
{
	(void)arg;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 100;
	fpstate_load(&fresh_cases[1].spec);
	sys_kill((int)sys_getpid(), SIGSTOP);	/* switched out: its fpstate holds that state */
	return (int)-fresh_exec_probe(write_fd);
}

static void fresh_trace_exec(struct fresh_traced *t)
{
	struct proc_child child;
	size_t len = 0;

	t->stop[0] = t->stop[1] = t->getfpregs = t->getfpxregs = -1;
	t->status = proc_start(&child, fresh_traced_child, NULL);
	if (t->status < 0)
		return;
	t->stop[0] = proc_wait(child.pid);
	if (t->stop[0] == PTRACE_STOPPED_BY(SIGSTOP) &&
	    sys_ptrace(PTRACE_CONT, (int)child.pid, 0, 0) == 0)
		t->stop[1] = proc_wait(child.pid);
	if (t->stop[1] == PTRACE_STOPPED_BY(SIGTRAP)) {
		t->getfpregs = ptrace_fp_read(PTRACE_FP_FPREGS, child.pid, &t->fp, &len);
		if (t->fxsr && !t->xsave)
			t->getfpxregs = ptrace_fp_read(PTRACE_FP_FPXREGS, child.pid, &t->fx, &len);
		sys_ptrace(PTRACE_CONT, (int)child.pid, 0, 0);
	} else {
		sys_kill((int)child.pid, SIGKILL);
	}
	t->status = proc_finish(&child, &t->report, sizeof(t->report), &t->got);
}

/* The offset of the first byte that differs, or -1. */
static int fresh_first_other_byte(const void *a, const void *b, unsigned int size)
{
	const uint8_t *x = a, *y = b;

	for (unsigned int i = 0; i < size; i++)
		if (x[i] != y[i])
			return (int)i;
	return -1;
}

static void fresh_check_init_image(struct ktap_check *check, const struct fresh_traced *t)
{
	struct x87_fsave want = { .env = {
		.cw = FRESH_UPPER | X87_CW_DEFAULT, .sw = FRESH_UPPER, .tag = 0xffffffffu,
		.ds = t->fxsr ? 0 : FRESH_UPPER } };

	ktap_check_expect(check, t->getfpregs == 0, "expected PTRACE_GETFPREGS 0, got %ld",
			  t->getfpregs);
	ktap_check_expect(check, ptrace_same_bytes(&want, &t->fp, sizeof(want)),
			  "expected init_fpstate's image at the exec stop (FCW 0x%08x FSW 0x%08x "
			  "tag 0x%08x FOS 0x%08x, the rest zero), got FCW 0x%08x FSW 0x%08x tag "
			  "0x%08x FIP 0x%08x FCS 0x%08x FOO 0x%08x FOS 0x%08x", want.env.cw,
			  want.env.sw, want.env.tag, want.env.ds, t->fp.env.cw, t->fp.env.sw,
			  t->fp.env.tag, t->fp.env.ip, t->fp.env.cs, t->fp.env.dp, t->fp.env.ds);
	if (fpstate_first_st_difference(&want, &t->fp) >= 0)
		fpstate_note(check, "exec stop", &t->fp);
}

static void fresh_run_traced(struct ktap *subtests)
{
	static struct fresh_traced t;
	struct fpstate_fxsr want_fx = { .cwd = X87_CW_DEFAULT, .mxcsr = FRESH_MXCSR };
	struct ktap_check check;
	struct cpu_info cpu;

	t.fxsr = (auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR) != 0;
	t.xsave = cpu_identify(&cpu) && (cpu.ecx & CPU_ECX_OSXSAVE);
	fresh_trace_exec(&t);

	ktap_check_begin(&check);
	ktap_check_expect(&check, t.stop[0] == PTRACE_STOPPED_BY(SIGSTOP) &&
			  t.stop[1] == PTRACE_STOPPED_BY(SIGTRAP),
			  "expected a SIGSTOP stop, then execve's SIGTRAP stop, got status 0x%lx, "
			  "then 0x%lx", t.stop[0], t.stop[1]);
	fresh_check_init_image(&check, &t);
	ktap_check_expect(&check, t.status == 0,
			  "expected the new program to exit with 0, got status 0x%lx", t.status);
	fresh_check_report(&check, &t.report, t.got);
	ktap_check_end(subtests, &check, "traced_exec");

	if (!t.fxsr || t.xsave) {
		ktap_result_directive(subtests, true, "traced_exec_fxsr", "SKIP %s",
				      t.fxsr ? "XSAVE" : "no FXSR");
		return;
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, t.getfpxregs == 0, "expected PTRACE_GETFPXREGS 0, got %ld",
			  t.getfpxregs);
	ktap_check_expect(&check, ptrace_same_bytes(&want_fx, &t.fx, sizeof(want_fx)),
			  "expected the fxsave init image at the exec stop (FCW 0x%04x MXCSR "
			  "0x%04x, the rest zero), got FCW 0x%04x FSW 0x%04x tag 0x%04x MXCSR "
			  "0x%04x mask 0x%08x, first other byte at %d", want_fx.cwd, want_fx.mxcsr,
			  t.fx.cwd, t.fx.swd, t.fx.twd, t.fx.mxcsr, t.fx.reserved,
			  fresh_first_other_byte(&want_fx, &t.fx, sizeof(want_fx)));
	ktap_check_end(subtests, &check, "traced_exec_fxsr");
}

static void fresh_run(struct ktap *subtests)
{
	ktap_plan(subtests, (int)ARRAY_SIZE(fresh_cases) + 2);
	for (unsigned int i = 0; i < ARRAY_SIZE(fresh_cases); i++) {
		struct ktap_check check;

		ktap_check_begin(&check);
		fresh_run_probe(&check, &fresh_cases[i].spec);
		ktap_check_end(subtests, &check, fresh_cases[i].name);
	}
	fresh_run_traced(subtests);
}

GT_TEST("fpu_fresh", 10, fresh_run,
	GT_TAGS(GT_FUNC("fpu_flush_thread"), GT_FUNC("fpu_reset_fpregs"),
		GT_FUNC("fpstate_init_fstate"), GT_FUNC("fpstate_init_user"), GT_FUNC("fpregs_get"),
		GT_FUNC("xfpregs_get")),
	"fpu_flush_thread() in arch/x86/kernel/fpu/core.c: a new image starts with "
	"init_fpstate, which a tracer reads byte for byte at the exec stop");
