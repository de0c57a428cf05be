/*
 * fpu_ptrace: a tracer reads and writes a stopped tracee's x87 state.
 *
 * Guards PTRACE_GETFPREGS and PTRACE_SETFPREGS on i386
 * (arch/x86/kernel/ptrace.c, regset REGSET_FP: fpregs_get()/fpregs_set()
 * in arch/x86/kernel/fpu/regset.c), which give and take the fsave layout
 * (struct user_i387_struct), converting from and to the FXSR image on
 * FXSR CPUs.  The tracee's registers are saved to memory when it stops
 * and must be reloaded from what the tracer wrote when it resumes.
 *
 * The child calls PTRACE_TRACEME, loads a known state (pi, e and 1e10,
 * FCW 0x0b7f, FSW with C1 and PE) and stops itself with SIGSTOP.
 * Subtests:
 *
 *   getfpregs  PTRACE_GETFPREGS returns that state;
 *   setfpregs  after PTRACE_SETFPREGS of another state (-1.5 and 0.125,
 *              FCW 0x027f) and PTRACE_CONT, the child finds that state.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm/ptrace-abi.h>	/* PTRACE_GETFPREGS and PTRACE_SETFPREGS */
#include <asm/signal.h>
#include <linux/ptrace.h>

#define PTRACE_STOPPED_BY_SIGSTOP ((SIGSTOP << 8) | 0x7f)

static const long double ptrace_child_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec ptrace_child_spec = {
	.cw = 0x0b7f,	/* round up */
	.sw_flags = X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(ptrace_child_values),
	.values = ptrace_child_values,
};

static const long double ptrace_tracer_values[] = { -1.5L, 0.125L };
static const struct fpstate_spec ptrace_tracer_spec = {
	.cw = 0x027f,	/* 53-bit precision */
	.count = ARRAY_SIZE(ptrace_tracer_values),
	.values = ptrace_tracer_values,
};

static int ptrace_tracee(int write_fd, void *arg)
{
	struct x87_fsave image;

	(void)arg;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 1;
	fpstate_load(&ptrace_child_spec);
	sys_kill((int)sys_getpid(), SIGSTOP);
	x87_snapshot(&image);
	return proc_write(write_fd, &image, sizeof(image)) < 0;
}

static void ptrace_run(struct ktap *subtests)
{
	struct ktap_check check;
	struct x87_fsave child_loaded, tracer_read, tracer_wrote, child_saw;
	struct proc_child child;
	long err, stop = 0, got_err = -1, set_err = -1, cont_err = -1, status = 0, got = 0;

	ktap_plan(subtests, 2);
	fpstate_build(&child_loaded, &ptrace_child_spec);
	fpstate_build(&tracer_wrote, &ptrace_tracer_spec);
	err = proc_start(&child, ptrace_tracee, NULL);
	if (err == 0) {
		stop = proc_wait(child.pid);
		if (stop == PTRACE_STOPPED_BY_SIGSTOP) {
			got_err = sys_ptrace(PTRACE_GETFPREGS, (int)child.pid, 0,
					     (unsigned long)&tracer_read);
			set_err = sys_ptrace(PTRACE_SETFPREGS, (int)child.pid, 0,
					     (unsigned long)&tracer_wrote);
			cont_err = sys_ptrace(PTRACE_CONT, (int)child.pid, 0, 0);
		} else {
			sys_kill((int)child.pid, SIGKILL);
		}
		status = proc_finish(&child, &child_saw, sizeof(child_saw), &got);
	}

	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, stop == PTRACE_STOPPED_BY_SIGSTOP,
			  "expected the child stopped by SIGSTOP (status 0x%x), got 0x%lx",
			  PTRACE_STOPPED_BY_SIGSTOP, stop);
	ktap_check_expect(&check, got_err == 0, "expected PTRACE_GETFPREGS to return 0, got %ld",
			  got_err);
	if (got_err == 0)
		fpstate_check(&check, "from PTRACE_GETFPREGS", &child_loaded, &tracer_read);
	ktap_check_end(subtests, &check, "getfpregs");

	ktap_check_begin(&check);
	ktap_check_expect(&check, set_err == 0, "expected PTRACE_SETFPREGS to return 0, got %ld",
			  set_err);
	ktap_check_expect(&check, cont_err == 0, "expected PTRACE_CONT to return 0, got %ld",
			  cont_err);
	ktap_check_expect(&check, status == 0, "expected the child to exit with 0, got status 0x%lx",
			  status);
	ktap_check_expect(&check, got == (long)sizeof(child_saw),
			  "expected %u bytes of state from the child, got %ld",
			  (unsigned int)sizeof(child_saw), got);
	if (got == (long)sizeof(child_saw))
		fpstate_check(&check, "in the child after PTRACE_SETFPREGS", &tracer_wrote,
			      &child_saw);
	ktap_check_end(subtests, &check, "setfpregs");
}

GT_TEST("fpu_ptrace", 10, ptrace_run,
	"fpregs_get(), fpregs_set() in arch/x86/kernel/fpu/regset.c: PTRACE_GETFPREGS "
	"and PTRACE_SETFPREGS on i386");
