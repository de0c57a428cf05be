/*
 * fpu_sigstep: a tracer that single-steps a tracee into a signal sees it
 * stop at the handler's first instruction, and the trap flag it set is in
 * neither the signal frame nor the state sigreturn gives back.
 *
 * Guards handle_signal() in arch/x86/kernel/signal.c (TIF_SINGLESTEP:
 * user_disable_single_step() before the frame is built, then
 * signal_setup_done() with `stepping`, which reports a SIGTRAP stop), and
 * copy_fpstate_to_sigframe() and fpu__restore_sig() for a tracee switched
 * out at each stop.  The contract of 6.1 (6.12 is the same):
 *
 *   - PTRACE_SINGLESTEP of a tracee in a signal-delivery-stop, with that
 *     signal, delivers it and stops the tracee with SIGTRAP before the
 *     handler's first instruction: its %eip is the handler's address;
 *   - the trap flag the tracer forced is cleared before the frame is
 *     built: the frame's EFLAGS has no TF, so after sigreturn the tracee
 *     runs on without another trap;
 *   - the frame holds the x87 state at the signal, and sigreturn gives it
 *     back.
 *
 * `singlestep_into_handler`: the tracee loads a known x87 state and sends
 * itself SIGUSR1; the tracer single-steps it with SIGUSR1, reads %eip at
 * the SIGTRAP stop, continues it, and counts the stops after.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm/ptrace-abi.h>
#include <linux/ptrace.h>
#include <stdbool.h>
#include <stdint.h>

#define SST_TF 0x0100u

static const long double sst_values[] = { FPSTATE_PI, -2.5L, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec sst_state = {
	.cw = 0x0b7f,
	.sw_flags = X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(sst_values),
	.values = sst_values,
};

/* What the tracee sends back. */
struct sst_tracee {
	int count;
	uint32_t frame_flags;
	struct x87_fsave frame, after;
};

/* What the tracer saw. */
struct sst_trace {
	long first, second, err, status;
	uint32_t eip;
	int stops_after;
};

static struct sst_tracee sst_tracee_report;

void sst_handle(int sig, siginfo_t *info, void *ucontext);
void sst_handle(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	sst_tracee_report.count++;
	sst_tracee_report.frame_flags = uc->uc_mcontext.eflags;
	fpstate_from_frame(&sst_tracee_report.frame, uc->uc_mcontext.fpstate);
	x87_init();	/* a state of the handler's own, which sigreturn must undo */
	__asm__ volatile("fld1" ::: "memory");
}

static int sst_tracee(int write_fd, void *arg)
{
	(void)arg;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0 || signal_set_action(SIGUSR1, sst_handle) < 0)
		return 1;
	fpstate_load(&sst_state);
	sys_kill((int)sys_getpid(), SIGUSR1);
	x87_snapshot(&sst_tracee_report.after);
	x87_init();
	return proc_write(write_fd, &sst_tracee_report, sizeof(sst_tracee_report)) < 0;
}

static void sst_trace(struct sst_trace *t, long pid)
{
	t->first = proc_wait(pid);
	if (t->first != PTRACE_STOPPED_BY(SIGUSR1))
		return;
	t->err = sys_ptrace(PTRACE_SINGLESTEP, (int)pid, 0, SIGUSR1);
	if (t->err == 0)
		t->second = proc_wait(pid);
	if (t->second != PTRACE_STOPPED_BY(SIGTRAP))
		return;
	t->err = sys_ptrace(PTRACE_PEEKUSR, (int)pid, EIP * 4, (unsigned long)&t->eip);
	if (t->err == 0)
		t->err = sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);
	/* Any stop after is a failure; its signal goes on, so that a SIGSEGV ends the tracee. */
	while (t->err == 0 && (t->status = proc_wait(pid)) >= 0 && (t->status & 0xff) == 0x7f) {
		unsigned long sig = (t->status >> 8) & 0xff;

		t->stops_after++;
		t->err = sys_ptrace(PTRACE_CONT, (int)pid, 0, sig == SIGTRAP ? 0 : sig);
	}
}

static void sigstep_run(struct ktap *subtests)
{
	static struct sst_tracee r;
	struct sst_trace t = { .first = -1, .second = -1, .status = -1 };
	struct proc_child child;
	struct ktap_check check;
	struct x87_fsave want;
	long err, got = 0;

	ktap_plan(subtests, 1);
	err = proc_start(&child, sst_tracee, NULL);
	if (err == 0) {
		sst_trace(&t, child.pid);
		if (t.status < 0 || (t.status & 0xff) == 0x7f)
			t.status = ptrace_reap(child.pid);
		got = proc_read(child.read_fd, &r, sizeof(r));
		sys_close(child.read_fd);
	}
	fpstate_build(&want, &sst_state);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && t.first == PTRACE_STOPPED_BY(SIGUSR1),
			  "expected a SIGUSR1 stop, got fork %ld, wait status 0x%lx", err, t.first);
	ktap_check_expect(&check, t.second == PTRACE_STOPPED_BY(SIGTRAP), "expected a SIGTRAP "
			  "stop after PTRACE_SINGLESTEP with SIGUSR1, got wait status 0x%lx", t.second);
	ktap_check_expect(&check, t.eip == (uint32_t)sst_handle, "expected %%eip 0x%08x (the "
			  "handler's first instruction) at that stop, got 0x%08x",
			  (uint32_t)sst_handle, t.eip);
	ktap_check_expect(&check, t.err == 0 && t.status == 0 && t.stops_after == 0,
			  "expected the tracee to run to its end without another stop, got error %ld, "
			  "%d stops, wait status 0x%lx", t.err, t.stops_after, t.status);
	ktap_check_expect(&check, got == (long)sizeof(r) && r.count == 1, "expected the handler "
			  "to run once, got %ld bytes, %d runs", got, r.count);
	if (got == (long)sizeof(r) && r.count == 1) {
		ktap_check_expect(&check, !(r.frame_flags & SST_TF), "expected no TF in the frame's "
				  "EFLAGS, got 0x%08x", r.frame_flags);
		fpstate_check(&check, "in the frame", &want, &r.frame);
		fpstate_check(&check, "after sigreturn", &want, &r.after);
	}
	ktap_check_end(subtests, &check, "singlestep_into_handler");
}

GT_TEST("fpu_sigstep", 10, sigstep_run,
	GT_TAGS(GT_FUNC("handle_signal"), GT_FUNC("copy_fpstate_to_sigframe"),
		GT_FUNC("fpu__restore_sig")),
	"PTRACE_SINGLESTEP into a signal stops the tracee with SIGTRAP at the handler's first "
	"instruction, the frame's EFLAGS has no TF, and the x87 state goes into the frame and "
	"comes back");
