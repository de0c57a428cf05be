/*
 * fpu_stopped: sigreturn restores the signal frame's x87 state when the
 * task was switched out at the system call's entry.
 *
 * Guards fpu__restore_sig() and restore_fpregs_from_user() in
 * arch/x86/kernel/fpu/signal.c.  A task that its tracer stops at
 * rt_sigreturn's entry stop (PTRACE_SYSCALL) was switched out there, so it
 * enters the restore with TIF_NEED_FPU_LOAD set and another task's values
 * in the registers.  On an FSAVE CPU the restore then loads the frame into
 * the registers with frstor and marks them current's
 * (fpregs_mark_activate()); anything else it does on the way (the
 * XSAVES-only supervisor restore, say) must not touch the state.  On an
 * FXSR CPU the ia32 frame goes through current's fpstate instead.
 *
 * The child is traced, loads a known state and sends itself SIGUSR1; the
 * handler loads other values and returns.  The tracer resumes it with
 * PTRACE_SYSCALL at every stop (passing the SIGUSR1 on) and, at
 * rt_sigreturn's entry stop, loads values of its own before it lets the
 * child go on.  Subtests:
 *
 *   stopped_sigreturn  after sigreturn the child has the state it had
 *                      before the signal;
 *   stopped_edited     the same with the handler writing FCW 0x027f into
 *                      the frame's header: the child has the state with
 *                      that FCW.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

#include <asm/signal.h>
#include <asm/unistd.h>
#include <linux/ptrace.h>

#define SYSCALL_STOP PTRACE_STOPPED_BY(SIGTRAP | 0x80)	/* PTRACE_O_TRACESYSGOOD */
#define ORIG_EAX_OFFSET (11 * 4)		/* struct user_regs_struct's orig_eax */
#define EDITED_CW 0x027f
#define STOPPED_MAX_STOPS 64

static const long double stopped_values[] = { FPSTATE_PI, -2.5L, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec stopped_spec = {
	.cw = 0x0b7f, .sw_flags = X87_SW_C1 | X87_SW_PE, .count = 3, .values = stopped_values,
};
static const long double handler_values[] = { 7.0L, FPSTATE_E };
static const struct fpstate_spec handler_spec = {
	.cw = 0x037f, .sw_flags = 0, .count = 2, .values = handler_values,
};
static const long double tracer_values[] = { -1.0L, 0.5L, 3.0L, 4.0L };
static const struct fpstate_spec tracer_spec = {
	.cw = 0x0e7f, .sw_flags = X87_SW_C3, .count = 4, .values = tracer_values,
};

struct stopped_case {
	const char *name;
	bool edit;		/* the handler writes EDITED_CW into the frame */
};

static const struct stopped_case stopped_cases[] = {
	{ "stopped_sigreturn", false },
	{ "stopped_edited", true },
};

static bool stopped_edit;

static void stopped_handler(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	if (stopped_edit && uc->uc_mcontext.fpstate)
		uc->uc_mcontext.fpstate->cw = (uc->uc_mcontext.fpstate->cw & ~0xffffu) | EDITED_CW;
	fpstate_load(&handler_spec);
}

static int stopped_tracee(int write_fd, void *arg)
{
	const struct stopped_case *c = arg;
	struct x87_fsave after;
	int pid = (int)sys_getpid();

	stopped_edit = c->edit;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0 || signal_set_action(SIGUSR1, stopped_handler))
		return 1;
	sys_kill(pid, SIGSTOP);			/* the tracer sets its options */
	fpstate_load(&stopped_spec);
	sys_kill(pid, SIGUSR1);
	x87_snapshot(&after);
	x87_init();
	return proc_write(write_fd, &after, sizeof(after)) < 0 ? 2 : 0;
}

/*
 * Runs the tracee to its end.  The count of rt_sigreturn entry stops, or
 * -errno, or below -1000 for a stop the loop did not expect.
 */
static long stopped_trace(long pid, long *status)
{
	long entries = 0, err, orig;
	bool in_syscall = false;

	*status = proc_wait(pid);
	if (*status != PTRACE_STOPPED_BY(SIGSTOP))
		return -1000;
	err = sys_ptrace(PTRACE_SETOPTIONS, (int)pid, 0, PTRACE_O_TRACESYSGOOD);
	for (int i = 0; err == 0 && i < STOPPED_MAX_STOPS; i++) {
		err = sys_ptrace(PTRACE_SYSCALL, (int)pid, 0,
				 *status == PTRACE_STOPPED_BY(SIGUSR1) ? SIGUSR1 : 0);
		if (err)
			break;
		*status = proc_wait(pid);
		if (*status < 0 || (*status & 0xff) != 0x7f)
			return err ? err : entries;
		if (*status != SYSCALL_STOP)
			continue;
		in_syscall = !in_syscall;
		orig = 0;
		err = sys_ptrace(PTRACE_PEEKUSR, (int)pid, ORIG_EAX_OFFSET, (unsigned long)&orig);
		if (err == 0 && in_syscall && orig == __NR_rt_sigreturn) {
			entries++;
			fpstate_load(&tracer_spec);	/* the registers hold the tracer's values */
		}
	}
	return err ? err : -1001;
}

static void stopped_one(struct ktap *subtests, const struct stopped_case *c)
{
	struct ktap_check check;
	struct proc_child child;
	struct x87_fsave want, got;
	long err, entries = 0, status = -1, n = 0;

	fpstate_build(&want, &stopped_spec);
	if (c->edit)
		want.env.cw = (want.env.cw & ~0xffffu) | EDITED_CW;
	err = proc_start(&child, stopped_tracee, (void *)c);
	if (err == 0) {
		entries = stopped_trace(child.pid, &status);
		x87_init();
		n = proc_read(child.read_fd, &got, sizeof(got));
		sys_close(child.read_fd);
		if (status < 0 || (status & 0xff) == 0x7f) {
			sys_kill((int)child.pid, SIGKILL);
			status = proc_wait(child.pid);
		}
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && entries == 1,
			  "expected one stop at rt_sigreturn's entry, got %ld (error %ld)", entries,
			  err);
	ktap_check_expect(&check, status == 0, "expected the child to exit 0, got wait status 0x%lx",
			  status);
	ktap_check_expect(&check, n == (long)sizeof(got),
			  "expected the child's state after sigreturn, got %ld bytes", n);
	if (n == (long)sizeof(got))
		fpstate_check(&check, "after sigreturn", &want, &got);
	ktap_check_end(subtests, &check, c->name);
}

static void stopped_run(struct ktap *subtests)
{
	ktap_plan(subtests, ARRAY_SIZE(stopped_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(stopped_cases); i++)
		stopped_one(subtests, &stopped_cases[i]);
}

GT_TEST("fpu_stopped", 10, stopped_run,
	GT_TAGS(GT_FUNC("fpu__restore_sig"), GT_FUNC("restore_fpregs_from_user")),
	"fpu__restore_sig(), restore_fpregs_from_user(): sigreturn gives the frame's x87 state to "
	"a task switched out at its entry");
