/*
 * fpu_blockstep: a tracee that a tracer block-steps keeps its x87 state
 * through every stop, the tracer never sees the trap flag it forced, and
 * PTRACE_CONT ends the stepping.
 *
 * Guards __switch_to_xtra() in arch/x86/kernel/process.c, which sets
 * DEBUGCTL.BTF when it switches to a task with TIF_BLOCKSTEP and clears it
 * when it switches away, beside the FPU switch of __switch_to(); and
 * get_flags() in arch/x86/kernel/ptrace.c (TIF_FORCED_TF).  The contract
 * of 6.1 (6.12 is the same):
 *
 *   - PTRACE_SINGLEBLOCK is -EIO before family 6 (arch_has_block_step()
 *     without CONFIG_X86_DEBUGCTLMSR, which an M486 kernel leaves out);
 *     from family 6 on it resumes the tracee with TF and BTF, and it stops
 *     with SIGTRAP at the next taken branch (QEMU's TCG keeps no BTF:
 *     helper_wrmsr() drops MSR_IA32_DEBUGCTLMSR, so there it stops after
 *     each instruction);
 *   - EFLAGS read with PTRACE_PEEKUSR at such a stop has no TF (the
 *     tracer's own, TIF_FORCED_TF);
 *   - PTRACE_GETFPREGS at a stop gives the x87 state the tracee loaded,
 *     and the tracee still has it after PTRACE_CONT, with no stop after.
 *
 * `singleblock_loop`: the tracee loads a known x87 state, stops itself
 * with SIGSTOP, then runs a `dec; jnz` loop.  The tracer block-steps it
 * into the loop, 16 stops more inside it, checks each stop, reads the
 * FPU regset, and lets it run to its end.
 */
#include "rt/cpu.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm/errno.h>
#include <asm/ptrace-abi.h>
#include <linux/ptrace.h>
#include <linux/signal.h>
#include <stdbool.h>
#include <stdint.h>

#define BST_TF 0x0100u
#define BST_TO_LOOP 4000	/* stops allowed before the loop: one per instruction on TCG */
#define BST_IN_LOOP 16

static const long double bst_values[] = { -1.5L, FPSTATE_PI, 1e-300L, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec bst_state = {
	.cw = 0x037a,
	.sw_flags = X87_SW_C3 | X87_SW_PE,
	.count = ARRAY_SIZE(bst_values),
	.values = bst_values,
};

/* The loop's bounds, from the tracee's assembly. */
extern const char bst_loop[], bst_loop_end[];

/* What the tracer saw. */
struct bst_trace {
	long first, err, step_status, status;
	int to_loop, in_loop, tf_seen, stops_after;
	uint32_t eip, eflags;
	long getfpregs;
	struct x87_fsave fp;
};

static __attribute__((noinline)) int bst_tracee(int write_fd, void *arg)
{
	struct x87_fsave after;

	(void)arg;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 1;
	fpstate_load(&bst_state);
	sys_kill((int)sys_getpid(), SIGSTOP);
	__asm__ volatile("movl $200000, %%ecx\n"
			 ".globl bst_loop\n"
			 "bst_loop:\n\t"
			 "decl %%ecx\n\t"
			 "jnz bst_loop\n"
			 ".globl bst_loop_end\n"
			 "bst_loop_end:\n"
			 ::: "ecx", "cc", "memory");
	x87_snapshot(&after);
	x87_init();
	return proc_write(write_fd, &after, sizeof(after)) < 0;
}

static bool bst_in_loop(uint32_t eip)
{
	return eip >= (uint32_t)bst_loop && eip < (uint32_t)bst_loop_end;
}

/* One block step and its stop: 0 with t->eip and t->eflags, or why not. */
static long bst_step(struct bst_trace *t, long pid)
{
	long err = sys_ptrace(PTRACE_SINGLEBLOCK, (int)pid, 0, 0);

	if (err < 0)
		return err;
	t->step_status = proc_wait(pid);
	if (t->step_status != PTRACE_STOPPED_BY(SIGTRAP))
		return -1;
	err = sys_ptrace(PTRACE_PEEKUSR, (int)pid, EIP * 4, (unsigned long)&t->eip);
	if (err == 0)
		err = sys_ptrace(PTRACE_PEEKUSR, (int)pid, EFL * 4, (unsigned long)&t->eflags);
	t->tf_seen += err == 0 && (t->eflags & BST_TF);
	return err;
}

static void bst_trace(struct bst_trace *t, long pid, bool block)
{
	size_t len = sizeof(t->fp);
	long err;

	t->first = proc_wait(pid);
	if (t->first != PTRACE_STOPPED_BY(SIGSTOP))
		return;
	if (!block) {
		t->err = sys_ptrace(PTRACE_SINGLEBLOCK, (int)pid, 0, 0);
	} else {
		while ((t->err = bst_step(t, pid)) == 0 && !bst_in_loop(t->eip) &&
		       ++t->to_loop < BST_TO_LOOP)
			;
		while (t->err == 0 && bst_in_loop(t->eip) && t->in_loop < BST_IN_LOOP)
			if ((t->err = bst_step(t, pid)) == 0 && bst_in_loop(t->eip))
				t->in_loop++;
		if (t->err == 0)
			t->getfpregs = ptrace_fp_read(PTRACE_FP_FPREGS, pid, &t->fp, &len);
	}
	/*
	 * Any stop after is a failure; its signal goes on, so that a SIGSEGV
	 * ends the tracee.  A tracee still running (a block step the kernel
	 * should have refused) refuses PTRACE_CONT, and the caller reaps it.
	 */
	err = sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);
	while (err == 0 && (t->status = proc_wait(pid)) >= 0 && (t->status & 0xff) == 0x7f) {
		unsigned long sig = (t->status >> 8) & 0xff;

		t->stops_after++;
		err = sys_ptrace(PTRACE_CONT, (int)pid, 0, sig == SIGTRAP ? 0 : sig);
	}
}

/* Whether the kernel has block steps: arch_has_block_step(), boot_cpu_data.x86 >= 6. */
static bool bst_has_block_step(void)
{
	struct cpu_info cpu;

	return cpu_identify(&cpu) && cpu.family >= 6;
}

static void bst_check(struct ktap_check *check, const struct bst_trace *t, bool block)
{
	if (!block) {
		ktap_check_expect(check, t->err == -EIO, "expected PTRACE_SINGLEBLOCK -EIO before "
				  "family 6, got %ld", t->err);
		return;
	}
	ktap_check_expect(check, t->err == 0, "expected every PTRACE_SINGLEBLOCK to stop with "
			  "SIGTRAP, got error %ld, wait status 0x%lx at %%eip 0x%08x", t->err,
			  t->step_status, t->eip);
	ktap_check_expect(check, t->to_loop < BST_TO_LOOP && t->in_loop == BST_IN_LOOP,
			  "expected %d stops in the loop [0x%08x, 0x%08x) after fewer than %d before it, "
			  "got %d after %d (last %%eip 0x%08x)", BST_IN_LOOP, (uint32_t)bst_loop,
			  (uint32_t)bst_loop_end, BST_TO_LOOP, t->in_loop, t->to_loop, t->eip);
	ktap_check_expect(check, t->tf_seen == 0, "expected no TF in EFLAGS at the stops (the "
			  "tracer's own), saw it %d times", t->tf_seen);
	ktap_check_expect(check, t->getfpregs == 0, "expected PTRACE_GETFPREGS 0 at the last "
			  "stop, got %ld", t->getfpregs);
}

static void blockstep_run(struct ktap *subtests)
{
	static struct x87_fsave after;
	struct bst_trace t = { .first = -1, .step_status = -1, .status = -1 };
	bool block = bst_has_block_step();
	struct proc_child child;
	struct ktap_check check;
	struct x87_fsave want;
	long err, got = 0;

	ktap_plan(subtests, 1);
	err = proc_start(&child, bst_tracee, NULL);
	if (err == 0) {
		bst_trace(&t, child.pid, block);
		if (t.status < 0 || (t.status & 0xff) == 0x7f)
			t.status = ptrace_reap(child.pid);
		got = proc_read(child.read_fd, &after, sizeof(after));
		sys_close(child.read_fd);
	}
	fpstate_build(&want, &bst_state);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && t.first == PTRACE_STOPPED_BY(SIGSTOP),
			  "expected a SIGSTOP stop, got fork %ld, wait status 0x%lx", err, t.first);
	bst_check(&check, &t, block);
	if (block && t.err == 0 && t.getfpregs == 0)
		fpstate_check(&check, "from PTRACE_GETFPREGS at a block-step stop", &want, &t.fp);
	ktap_check_expect(&check, t.status == 0 && t.stops_after == 0, "expected the tracee to "
			  "run to its end after PTRACE_CONT without another stop, got %d stops, "
			  "wait status 0x%lx", t.stops_after, t.status);
	ktap_check_expect(&check, got == (long)sizeof(after), "expected the tracee's state, got "
			  "%ld bytes", got);
	if (got == (long)sizeof(after))
		fpstate_check(&check, "in the tracee after the stops", &want, &after);
	ktap_check_end(subtests, &check, "singleblock_loop");
}

GT_TEST("fpu_blockstep", 10, blockstep_run,
	GT_TAGS(GT_FUNC("__switch_to_xtra"), GT_FUNC("get_flags")),
	"a block-stepped tracee (PTRACE_SINGLEBLOCK, -EIO before family 6) stops with SIGTRAP, "
	"its EFLAGS show no forced TF, and its x87 state is the same at every stop and after "
	"PTRACE_CONT");
