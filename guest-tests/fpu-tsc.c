/*
 * fpu_tsc: a task with the time stamp counter disabled keeps its x87 state
 * across the context switches that toggle CR4.TSD.
 *
 * A task that asked for PR_TSC_SIGSEGV (prctl(2): set_tsc_mode() in
 * arch/x86/kernel/process.c) has TIF_NOTSC, so each switch between it and
 * another task goes through __switch_to_xtra() (switch_to_extra()), which
 * flips CR4.TSD between switch_fpu_prepare() and the return to user space
 * (arch/x86/kernel/process_32.c __switch_to()).  The x87 state must come
 * through that path as through the plain one, and the TSC setting must
 * follow the task.  Only on a CPU with a TSC (CPUID.1:EDX.TSC): the 486
 * has none, so the whole test skips there.
 *
 *   get_tsc   PR_GET_TSC of a new process is PR_TSC_ENABLE;
 *   switch    a child sets PR_TSC_SIGSEGV (PR_GET_TSC then says so) and
 *             loads 1e10, -1.5, 0.125 with FCW 0x0b7f; the parent holds pi,
 *             e, FCW 0x0f7f and C1|PE|UE; they hand a byte back and forth
 *             TSC_ROUNDS times and each compares its whole state after
 *             each round; then the child's rdtsc is one SIGSEGV and the
 *             parent's none, and after PR_TSC_ENABLE the child's is none.
 */
#include "rt/cpu.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <linux/prctl.h>
#include <stdbool.h>
#include <stdint.h>

#define TSC_ROUNDS 300
#define TSC_CPU_EDX (1u << 4)
#define TSC_RDTSC_BYTES 2

static const long double parent_values[] = { FPSTATE_PI, FPSTATE_E };
static const struct fpstate_spec parent_spec = {
	.cw = 0x0f7f,
	.sw_flags = X87_SW_C1 | X87_SW_PE | X87_SW_UE,
	.count = ARRAY_SIZE(parent_values),
	.values = parent_values,
};

static const long double child_values[] = { FPSTATE_TEN_TO_10, -1.5L, 0.125L };
static const struct fpstate_spec child_spec = {
	.cw = 0x0b7f,
	.count = ARRAY_SIZE(child_values),
	.values = child_values,
};

static volatile int segv_count;

static void tsc_handle_segv(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	segv_count++;
	uc->uc_mcontext.eip += TSC_RDTSC_BYTES;
}

/* The SIGSEGVs one rdtsc raised. */
static int tsc_try_rdtsc(void)
{
	uint32_t lo, hi;

	segv_count = 0;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	(void)lo;
	(void)hi;
	return segv_count;
}

/* What the child sends back. */
struct tsc_report {
	long set, get;		/* prctl's answers */
	int rounds_ok;		/* rounds after which its state was whole */
	int segv;		/* SIGSEGVs of its rdtsc */
	long enable;		/* PR_SET_TSC of PR_TSC_ENABLE */
	int segv_enabled;	/* SIGSEGVs of its rdtsc after that */
};

static int tsc_pipes[2][2];	/* [0]: parent to child, [1]: child to parent */

/* Loads `spec`, then per round: receive (or send first), compare. */
static int tsc_rounds(const struct fpstate_spec *spec, int in, int out, bool first)
{
	struct x87_fsave want, got;
	int ok = 0;
	char byte = 1;

	fpstate_build(&want, spec);
	fpstate_load(spec);
	for (int i = 0; i < TSC_ROUNDS; i++) {
		if ((first && proc_write(out, &byte, 1) < 0) || proc_read(in, &byte, 1) != 1 ||
		    (!first && proc_write(out, &byte, 1) < 0))
			break;
		x87_snapshot(&got);
		ok += fpstate_equal(&want, &got);
	}
	x87_init();
	return ok;
}

static int tsc_child(int write_fd, void *arg)
{
	struct tsc_report r = { 0 };

	(void)arg;
	r.set = sys_prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
	r.get = sys_prctl(PR_GET_TSC, (unsigned long)&r.get) < 0 ? -1 : r.get;
	r.rounds_ok = tsc_rounds(&child_spec, tsc_pipes[0][0], tsc_pipes[1][1], false);
	r.segv = tsc_try_rdtsc();
	r.enable = sys_prctl(PR_SET_TSC, PR_TSC_ENABLE);
	r.segv_enabled = tsc_try_rdtsc();
	return proc_write(write_fd, &r, sizeof(r)) < 0;
}

static void tsc_run_switch(struct ktap *subtests)
{
	struct tsc_report r = { 0 };
	struct ktap_check check;
	struct proc_child child;
	long err, status = -1, got = 0;
	int parent_ok = 0, parent_segv = -1;

	err = sys_pipe(tsc_pipes[0]);
	if (err == 0)
		err = sys_pipe(tsc_pipes[1]);
	if (err == 0)
		err = proc_start(&child, tsc_child, NULL);
	if (err == 0) {
		parent_ok = tsc_rounds(&parent_spec, tsc_pipes[1][0], tsc_pipes[0][1], true);
		parent_segv = tsc_try_rdtsc();
		status = proc_finish(&child, &r, sizeof(r), &got);
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && status == 0 && got == (long)sizeof(r),
			  "expected the child to run and report, got error %ld, status 0x%lx, "
			  "%ld bytes", err, status, got);
	ktap_check_expect(&check, r.set == 0 && r.get == PR_TSC_SIGSEGV,
			  "expected PR_SET_TSC 0 and PR_GET_TSC %d, got %ld and %ld", PR_TSC_SIGSEGV,
			  r.set, r.get);
	ktap_check_expect(&check, parent_ok == TSC_ROUNDS && r.rounds_ok == TSC_ROUNDS,
			  "expected the whole state after all %d rounds, the parent had it after %d "
			  "and the child after %d", TSC_ROUNDS, parent_ok, r.rounds_ok);
	ktap_check_expect(&check, r.segv == 1 && parent_segv == 0,
			  "expected 1 SIGSEGV from the child's rdtsc and none from the parent's, got "
			  "%d and %d", r.segv, parent_segv);
	ktap_check_expect(&check, r.enable == 0 && r.segv_enabled == 0,
			  "expected PR_TSC_ENABLE 0 and then no SIGSEGV from rdtsc, got %ld and %d",
			  r.enable, r.segv_enabled);
	ktap_check_end(subtests, &check, "switch");
}

static void tsc_run(struct ktap *subtests)
{
	struct cpu_info cpu;
	struct ktap_check check;
	int mode = -1;
	long err;

	if (!cpu_identify(&cpu) || !(cpu.edx & TSC_CPU_EDX)) {
		ktap_skip_all(subtests, "the CPU has no time stamp counter");
		return;
	}
	ktap_plan(subtests, 2);
	err = signal_set_action(SIGSEGV, tsc_handle_segv);
	if (err == 0)
		err = sys_prctl(PR_GET_TSC, (unsigned long)&mode);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && mode == PR_TSC_ENABLE,
			  "expected PR_GET_TSC 0 and %d, got %ld and %d", PR_TSC_ENABLE, err, mode);
	ktap_check_end(subtests, &check, "get_tsc");
	tsc_run_switch(subtests);
}

GT_TEST("fpu_tsc", 20, tsc_run,
	GT_TAGS(GT_FUNC("__switch_to_xtra"), GT_FUNC("set_tsc_mode"), GT_FUNC("switch_fpu_prepare"),
		GT_FUNC("switch_fpu_finish")),
	"__switch_to_xtra(): a task with PR_TSC_SIGSEGV keeps its x87 state across the switches "
	"that toggle CR4.TSD, and the TSC setting follows the task");
