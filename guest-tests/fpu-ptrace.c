/*
 * fpu_ptrace: a tracer reads and writes a stopped tracee's x87 state
 * through every i386 FPU regset, and a tracee that ptrace switched out
 * in the middle of a system call keeps its state.
 *
 * Guards arch/x86/kernel/fpu/regset.c of 6.1: fpregs_get()/fpregs_set()
 * (REGSET_FP: PTRACE_GETFPREGS, PTRACE_SETFPREGS and the NT_PRFPREG
 * regset, the fsave layout of struct user_i387_struct, converted from and
 * to the FXSR image with twd_fxsr_to_i387()/twd_i387_to_fxsr() on FXSR
 * CPUs), xfpregs_get()/xfpregs_set() (REGSET_XFP: PTRACE_GETFPXREGS,
 * PTRACE_SETFPXREGS and NT_PRXFPREG, -ENODEV without FXSR, which the
 * FPXREGS requests of arch/x86/kernel/ptrace.c turn into -EIO; reserved
 * MXCSR bits are -EINVAL) and xstateregs_get()/xstateregs_set()
 * (NT_X86_XSTATE, -ENODEV without XSAVE); the iov_len rules of
 * ptrace_regset() in kernel/ptrace.c (a multiple of the regset's word,
 * clamped to its size and written back); and fpregs_set()'s refusal of
 * partial writes.  Then fpu_clone() (arch/x86/kernel/fpu/core.c), which
 * must load the task's registers first when TIF_NEED_FPU_LOAD is set, and
 * __switch_to() (arch/x86/kernel/process_32.c), which must not save the
 * registers of a task that has not loaded its own since it last ran.
 *
 * The child calls PTRACE_TRACEME, loads a state with all eight registers
 * (normal numbers, zeros, an infinity and a denormal, so that the tag word
 * has all three non-empty kinds), FCW 0x0b7f and FSW with C1 and PE, and
 * stops itself with SIGSTOP.  Whether the kernel uses FXSR comes from
 * AT_HWCAP, which `nofxsr` clears.  Subtests:
 *
 *   getfpregs          PTRACE_GETFPREGS returns that state;
 *   getregset_fp       PTRACE_GETREGSET NT_PRFPREG with 108 bytes: the same
 *                      bytes, iov_len 108;
 *   getregset_fp_short with 8 bytes: FCW and FSW, iov_len 8, the rest of the
 *                      buffer untouched;
 *   getregset_fp_long  with 200 bytes: iov_len clamped to 108, the rest
 *                      untouched;
 *   regset_fp_size     GETREGSET with 10 bytes (not a multiple of 4) and
 *                      SETREGSET with 8 (a partial write) are -EINVAL, and
 *                      the state is unchanged; before 5.14 (da53f60bb86e
 *                      "x86/fpu: Clean up fpregs_set()") the partial
 *                      write succeeds;
 *   getfpxregs         FXSR: PTRACE_GETFPXREGS and GETREGSET NT_PRXFPREG
 *                      give the FXSR image of that state (abridged tag
 *                      word, MXCSR 0x1f80); FSAVE: -EIO and -ENODEV;
 *   setfpxregs_mxcsr   FXSR: a reserved MXCSR bit makes PTRACE_SETFPXREGS
 *                      -EIO and SETREGSET NT_PRXFPREG -EINVAL, and changes
 *                      nothing; before 5.14 (145e9e0d8c6f "x86/fpu: Fail
 *                      ptrace() requests that try to set invalid MXCSR
 *                      values") both succeed with the bit masked off;
 *                      FSAVE: -EIO and -ENODEV;
 *   xstate             GETREGSET and SETREGSET NT_X86_XSTATE are -ENODEV
 *                      (skipped on a CPU with XSAVE);
 *   setfpregs          after PTRACE_SETFPREGS of another eight registers
 *                      and FCW 0x027f and PTRACE_CONT, the child has them;
 *   setfpxregs         FXSR: after SETREGSET NT_PRXFPREG of the first
 *                      state's FXSR image, the child has the first state;
 *                      FSAVE: it keeps the second;
 *   fork_after_stop    the child loads a state and forks under
 *                      PTRACE_SYSCALL; at the entry stop the tracer loads
 *                      other values, so fork runs with TIF_NEED_FPU_LOAD
 *                      set and the tracer's state in the registers: the
 *                      new process starts with the child's state;
 *   switch_after_stop  getpid under PTRACE_SYSCALL: the child is switched
 *                      out at the entry stop, and again at the exit stop
 *                      without having returned to user space, after the
 *                      tracer loaded other values: it keeps its state.
 */
#include "rt/auxv.h"
#include "rt/cpu.h"
#include "rt/fpstate.h"
#include "rt/kernel.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

#include <asm/errno.h>
#include <asm/ptrace-abi.h>	/* PTRACE_GETFPREGS, PTRACE_GETFPXREGS and the setters */
#include <asm/signal.h>
#include <linux/elf.h>		/* NT_PRFPREG, NT_PRXFPREG, NT_X86_XSTATE */
#include <linux/ptrace.h>
#include <linux/uio.h>

#define PTRACE_SYSCALL_STOP PTRACE_STOPPED_BY(SIGTRAP | 0x80)	/* PTRACE_O_TRACESYSGOOD */
#define PTRACE_LONG_BYTES 200
#define PTRACE_MXCSR_DEFAULT 0x1f80
#define PTRACE_MXCSR_RESERVED 0x80000000u	/* above every CPU's mxcsr_feature_mask */
#define CPU_ECX_XSAVE (1u << 26)

static const long double ptrace_child_values[] = {
	FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10, 0.0L,
	__builtin_infl(), -1.5L, __LDBL_DENORM_MIN__, 0.125L,
};
static const struct fpstate_spec ptrace_child_spec = {
	.cw = 0x0b7f,	/* round up */
	.sw_flags = X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(ptrace_child_values),
	.values = ptrace_child_values,
};

static const long double ptrace_tracer_values[] = {
	-1.5L, 0.125L, -0.0L, FPSTATE_E, -__builtin_infl(), 3.0L, FPSTATE_PI, -__LDBL_DENORM_MIN__,
};
static const struct fpstate_spec ptrace_tracer_spec = {
	.cw = 0x027f,	/* 53-bit precision */
	.count = ARRAY_SIZE(ptrace_tracer_values),
	.values = ptrace_tracer_values,
};

/* What the child has when it forks (fork_after_stop, switch_after_stop)... */
static const long double ptrace_fork_values[] = { FPSTATE_TEN_TO_10, FPSTATE_PI };
static const struct fpstate_spec ptrace_fork_spec = {
	.cw = 0x0c7f,	/* round toward zero */
	.sw_flags = X87_SW_PE,
	.count = ARRAY_SIZE(ptrace_fork_values),
	.values = ptrace_fork_values,
};

/* ...and what the tracer loads while the child is stopped in the system call. */
static const long double ptrace_stop_values[] = { -1.5L };
static const struct fpstate_spec ptrace_stop_spec = {
	.cw = 0x007f,
	.count = ARRAY_SIZE(ptrace_stop_values),
	.values = ptrace_stop_values,
};

/* What the child and its own child send back, in this order. */
struct ptrace_report {
	struct x87_fsave fork_child;
	struct x87_fsave after_setfpregs;
	struct x87_fsave after_setfpxregs;
	struct x87_fsave after_getpid;
};

static void ptrace_check_fxsr(struct ktap_check *check, const char *where,
			      const struct x87_fsave *want, const struct fpstate_fxsr *got)
{
	struct fpstate_fxsr expected;
	int reg = -1;

	fpstate_to_fxsr(&expected, want);
	for (int i = 7; i >= 0; i--)
		if (!ptrace_same_bytes(expected.st_space[i], got->st_space[i], 10))
			reg = i;
	ktap_check_expect(check, expected.cwd == got->cwd, "expected FCW 0x%04x %s, got 0x%04x",
			  expected.cwd, where, got->cwd);
	ktap_check_expect(check, expected.swd == got->swd, "expected FSW 0x%04x %s, got 0x%04x",
			  expected.swd, where, got->swd);
	ktap_check_expect(check, expected.twd == got->twd,
			  "expected abridged tag word 0x%02x %s, got 0x%02x", expected.twd, where,
			  got->twd);
	ktap_check_expect(check, got->mxcsr == PTRACE_MXCSR_DEFAULT,
			  "expected MXCSR 0x%04x %s, got 0x%x", PTRACE_MXCSR_DEFAULT, where,
			  (unsigned int)got->mxcsr);
	ktap_check_expect(check, reg < 0, "expected the registers %s, st%d differs", where, reg);
}

/*
 * Resumes a stopped tracee with `request` until its next syscall stop,
 * suppressing signals.  0, -errno, or below -1000 for a status that is
 * not a stop (the tracee ended).
 */
static long ptrace_next_syscall_stop(long pid, long request)
{
	long status, err = sys_ptrace(request, (int)pid, 0, 0);

	while (err == 0) {
		status = proc_wait(pid);
		if (status < 0 || (status & 0xff) != 0x7f)
			return status < 0 ? status : -1000 - status;
		if (status == PTRACE_SYSCALL_STOP)
			return 0;
		/* A signal-delivery-stop, such as the fork child's SIGCHLD: dropped. */
		err = sys_ptrace(PTRACE_SYSCALL, (int)pid, 0, 0);
	}
	return err;
}

static int ptrace_tracee(int write_fd, void *arg)
{
	struct ptrace_report report;
	int pid = (int)sys_getpid();
	long child;

	(void)arg;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 1;
	fpstate_load(&ptrace_child_spec);
	sys_kill(pid, SIGSTOP);			/* the tracer reads, then PTRACE_SETFPREGS */
	x87_snapshot(&report.after_setfpregs);
	sys_kill(pid, SIGSTOP);			/* the tracer sets NT_PRXFPREG */
	x87_snapshot(&report.after_setfpxregs);
	sys_kill(pid, SIGSTOP);			/* the tracer goes on with PTRACE_SYSCALL */
	fpstate_load(&ptrace_fork_spec);
	child = sys_fork();			/* entry and exit stops */
	if (child == 0) {
		x87_snapshot(&report.fork_child);
		sys_exit_group(proc_write(write_fd, &report.fork_child,
					  sizeof(report.fork_child)) < 0);
	}
	sys_getpid();				/* entry and exit stops, then PTRACE_CONT */
	x87_snapshot(&report.after_getpid);
	if (child < 0 || proc_wait(child) != 0)
		return 2;
	if (proc_write(write_fd, &report.after_setfpregs, sizeof(report.after_setfpregs)) < 0 ||
	    proc_write(write_fd, &report.after_setfpxregs, sizeof(report.after_setfpxregs)) < 0 ||
	    proc_write(write_fd, &report.after_getpid, sizeof(report.after_getpid)) < 0)
		return 3;
	return 0;
}

/* What the tracer did and saw, for the checks. */
struct ptrace_run {
	bool fxsr, xsave;
	long stop[3];
	long getfpregs, setfpregs, cont[2];
	struct x87_fsave read, read_after_bad_sets;
	long getregset, getregset_short, getregset_long, getregset_odd, setregset_short;
	size_t len, len_short, len_long, len_odd;
	uint8_t regset_buf[PTRACE_FP_BYTES], short_buf[PTRACE_LONG_BYTES],
		long_buf[PTRACE_LONG_BYTES];
	long getfpxregs, getregset_xfp, setfpxregs_bad, setregset_xfp_bad, setregset_xfp;
	size_t len_xfp;
	struct fpstate_fxsr fpx, regset_fpx, fpx_after_bad_sets;
	long get_xstate, set_xstate;
	long syscall_stops, status, got;
	struct ptrace_report report;
};

static struct ptrace_run ptrace_seen;

/* At the first stop: every read, and the writes that must be refused. */
static void ptrace_first_stop(struct ptrace_run *r, long pid)
{
	uint64_t xstate[64];
	struct fpstate_fxsr bad;
	size_t len;

	r->getfpregs = sys_ptrace(PTRACE_GETFPREGS, (int)pid, 0, (unsigned long)&r->read);

	r->len = sizeof(r->regset_buf);
	r->getregset = ptrace_regset(PTRACE_GETREGSET, pid, NT_PRFPREG, r->regset_buf, &r->len);
	ptrace_fill(r->short_buf, sizeof(r->short_buf));
	r->len_short = 8;
	r->getregset_short = ptrace_regset(PTRACE_GETREGSET, pid, NT_PRFPREG, r->short_buf,
					   &r->len_short);
	ptrace_fill(r->long_buf, sizeof(r->long_buf));
	r->len_long = sizeof(r->long_buf);
	r->getregset_long = ptrace_regset(PTRACE_GETREGSET, pid, NT_PRFPREG, r->long_buf,
					  &r->len_long);
	r->len_odd = 10;
	r->getregset_odd = ptrace_regset(PTRACE_GETREGSET, pid, NT_PRFPREG, r->short_buf,
					 &r->len_odd);
	len = 8;
	r->setregset_short = ptrace_regset(PTRACE_SETREGSET, pid, NT_PRFPREG, &r->read, &len);

	r->getfpxregs = sys_ptrace(PTRACE_GETFPXREGS, (int)pid, 0, (unsigned long)&r->fpx);
	r->len_xfp = sizeof(r->regset_fpx);
	r->getregset_xfp = ptrace_regset(PTRACE_GETREGSET, pid, NT_PRXFPREG, &r->regset_fpx,
					 &r->len_xfp);
	bad = r->fpx;
	bad.mxcsr |= PTRACE_MXCSR_RESERVED;
	r->setfpxregs_bad = sys_ptrace(PTRACE_SETFPXREGS, (int)pid, 0, (unsigned long)&bad);
	len = sizeof(bad);
	r->setregset_xfp_bad = ptrace_regset(PTRACE_SETREGSET, pid, NT_PRXFPREG, &bad, &len);

	len = sizeof(xstate);
	r->get_xstate = ptrace_regset(PTRACE_GETREGSET, pid, NT_X86_XSTATE, xstate, &len);
	len = sizeof(xstate);
	r->set_xstate = ptrace_regset(PTRACE_SETREGSET, pid, NT_X86_XSTATE, xstate, &len);

	sys_ptrace(PTRACE_GETFPREGS, (int)pid, 0, (unsigned long)&r->read_after_bad_sets);
	sys_ptrace(PTRACE_GETFPXREGS, (int)pid, 0, (unsigned long)&r->fpx_after_bad_sets);
}

static void ptrace_trace(struct ptrace_run *r, long pid)
{
	struct x87_fsave tracer_wrote, first;
	struct fpstate_fxsr fx;
	size_t len;

	r->stop[0] = proc_wait(pid);
	if (r->stop[0] != PTRACE_STOPPED_BY(SIGSTOP))
		return;
	/* Without it a syscall stop looks like a SIGTRAP, and fork_after_stop would wait in vain. */
	if (sys_ptrace(PTRACE_SETOPTIONS, (int)pid, 0, PTRACE_O_TRACESYSGOOD) != 0)
		return;
	ptrace_first_stop(r, pid);
	fpstate_build_tagged(&tracer_wrote, &ptrace_tracer_spec);
	r->setfpregs = sys_ptrace(PTRACE_SETFPREGS, (int)pid, 0, (unsigned long)&tracer_wrote);
	r->cont[0] = sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);

	r->stop[1] = proc_wait(pid);
	if (r->stop[1] != PTRACE_STOPPED_BY(SIGSTOP))
		return;
	fx = r->fpx;
	fpstate_build_tagged(&first, &ptrace_child_spec);
	fpstate_to_fxsr(&fx, &first);
	len = sizeof(fx);
	r->setregset_xfp = ptrace_regset(PTRACE_SETREGSET, pid, NT_PRXFPREG, &fx, &len);
	r->cont[1] = sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);

	r->stop[2] = proc_wait(pid);
	if (r->stop[2] != PTRACE_STOPPED_BY(SIGSTOP))
		return;
	/* fork's entry and exit stops, then getpid's; other values in between. */
	for (r->syscall_stops = 0; r->syscall_stops < 4; r->syscall_stops++) {
		if (ptrace_next_syscall_stop(pid, PTRACE_SYSCALL) != 0)
			return;
		fpstate_load(&ptrace_stop_spec);
	}
	x87_init();
	sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);
}

static void ptrace_check_return(struct ktap_check *check, const char *what, long got,
				 long want)
{
	ktap_check_expect(check, got == want, "expected %s to return %ld, got %ld", what, want,
			  got);
}

static void ptrace_report_checks(struct ktap *subtests, const struct ptrace_run *r)
{
	struct ktap_check check;
	struct x87_fsave child_loaded, tracer_wrote, forked;
	const struct x87_fsave *after_xfp;
	bool reported = r->got == (long)sizeof(r->report);

	fpstate_build_tagged(&child_loaded, &ptrace_child_spec);
	fpstate_build_tagged(&tracer_wrote, &ptrace_tracer_spec);
	fpstate_build(&forked, &ptrace_fork_spec);

	ktap_check_begin(&check);
	ktap_check_expect(&check, r->setfpregs == 0, "expected PTRACE_SETFPREGS to return 0, got %ld",
			  r->setfpregs);
	ktap_check_expect(&check, r->cont[0] == 0, "expected PTRACE_CONT to return 0, got %ld",
			  r->cont[0]);
	ktap_check_expect(&check, r->status == 0, "expected the child to exit with 0, got status 0x%lx",
			  r->status);
	ktap_check_expect(&check, reported, "expected %u bytes of state from the child, got %ld",
			  (unsigned int)sizeof(r->report), r->got);
	if (reported)
		fpstate_check(&check, "in the child after PTRACE_SETFPREGS", &tracer_wrote,
			      &r->report.after_setfpregs);
	ktap_check_end(subtests, &check, "setfpregs");

	ktap_check_begin(&check);
	after_xfp = r->fxsr ? &child_loaded : &tracer_wrote;
	ptrace_check_return(&check, "SETREGSET NT_PRXFPREG", r->setregset_xfp, r->fxsr ? 0 : -ENODEV);
	if (reported)
		fpstate_check(&check, "in the child after SETREGSET NT_PRXFPREG", after_xfp,
			      &r->report.after_setfpxregs);
	ktap_check_end(subtests, &check, "setfpxregs");

	ktap_check_begin(&check);
	ktap_check_expect(&check, r->syscall_stops >= 2,
			  "expected the entry and exit stops of fork, got %ld stops", r->syscall_stops);
	if (reported)
		fpstate_check(&check, "in the process forked after the stop", &forked,
			      &r->report.fork_child);
	ktap_check_end(subtests, &check, "fork_after_stop");

	ktap_check_begin(&check);
	ktap_check_expect(&check, r->syscall_stops == 4,
			  "expected 4 syscall stops (fork and getpid), got %ld", r->syscall_stops);
	if (reported)
		fpstate_check(&check, "in the child after getpid's two stops", &forked,
			      &r->report.after_getpid);
	ktap_check_end(subtests, &check, "switch_after_stop");
}

static void ptrace_read_checks(struct ktap *subtests, const struct ptrace_run *r)
{
	struct ktap_check check;
	struct x87_fsave child_loaded;
	const uint8_t *loaded_bytes = (const uint8_t *)&r->read;
	/* The two refusals came in 5.14, with da53f60bb86e and 145e9e0d8c6f. */
	bool partial_refused = kernel_at_least(5, 14), mxcsr_refused = partial_refused;

	fpstate_build_tagged(&child_loaded, &ptrace_child_spec);

	ktap_check_begin(&check);
	ktap_check_expect(&check, r->stop[0] == PTRACE_STOPPED_BY(SIGSTOP),
			  "expected the child stopped by SIGSTOP (status 0x%x), got 0x%lx",
			  PTRACE_STOPPED_BY(SIGSTOP), r->stop[0]);
	ktap_check_expect(&check, r->getfpregs == 0, "expected PTRACE_GETFPREGS to return 0, got %ld",
			  r->getfpregs);
	if (r->getfpregs == 0)
		fpstate_check(&check, "from PTRACE_GETFPREGS", &child_loaded, &r->read);
	ktap_check_end(subtests, &check, "getfpregs");

	ktap_check_begin(&check);
	ptrace_check_return(&check, "GETREGSET NT_PRFPREG", r->getregset, 0);
	ktap_check_expect(&check, r->len == PTRACE_FP_BYTES, "expected iov_len %u, got %u",
			  PTRACE_FP_BYTES, (unsigned int)r->len);
	ktap_check_expect(&check, ptrace_same_bytes(r->regset_buf, &r->read, PTRACE_FP_BYTES),
			  "expected the bytes of PTRACE_GETFPREGS, they differ");
	ktap_check_end(subtests, &check, "getregset_fp");

	ktap_check_begin(&check);
	ptrace_check_return(&check, "GETREGSET NT_PRFPREG of 8 bytes", r->getregset_short, 0);
	ktap_check_expect(&check, r->len_short == 8, "expected iov_len 8, got %u",
			  (unsigned int)r->len_short);
	ktap_check_expect(&check, ptrace_same_bytes(r->short_buf, loaded_bytes, 8),
			  "expected FCW and FSW 0x%08x 0x%08x, got other bytes",
			  (unsigned int)r->read.env.cw, (unsigned int)r->read.env.sw);
	ktap_check_expect(&check, ptrace_untouched(r->short_buf, 8, PTRACE_LONG_BYTES),
			  "expected the buffer untouched after 8 bytes, it was written");
	ktap_check_end(subtests, &check, "getregset_fp_short");

	ktap_check_begin(&check);
	ptrace_check_return(&check, "GETREGSET NT_PRFPREG of 200 bytes", r->getregset_long, 0);
	ktap_check_expect(&check, r->len_long == PTRACE_FP_BYTES, "expected iov_len %u, got %u",
			  PTRACE_FP_BYTES, (unsigned int)r->len_long);
	ktap_check_expect(&check, ptrace_same_bytes(r->long_buf, loaded_bytes, PTRACE_FP_BYTES),
			  "expected the bytes of PTRACE_GETFPREGS, they differ");
	ktap_check_expect(&check, ptrace_untouched(r->long_buf, PTRACE_FP_BYTES, PTRACE_LONG_BYTES),
			  "expected the buffer untouched after %u bytes, it was written",
			  PTRACE_FP_BYTES);
	ktap_check_end(subtests, &check, "getregset_fp_long");

	ktap_check_begin(&check);
	ptrace_check_return(&check, "GETREGSET NT_PRFPREG of 10 bytes", r->getregset_odd, -EINVAL);
	ptrace_check_return(&check, "SETREGSET NT_PRFPREG of 8 bytes", r->setregset_short,
			    partial_refused ? -EINVAL : 0);
	fpstate_check(&check, "after the refused writes", &child_loaded, &r->read_after_bad_sets);
	ktap_check_end(subtests, &check, "regset_fp_size");

	ktap_check_begin(&check);
	ptrace_check_return(&check, "PTRACE_GETFPXREGS", r->getfpxregs, r->fxsr ? 0 : -EIO);
	ptrace_check_return(&check, "GETREGSET NT_PRXFPREG", r->getregset_xfp, r->fxsr ? 0 : -ENODEV);
	if (r->fxsr && r->getfpxregs == 0)
		ptrace_check_fxsr(&check, "from PTRACE_GETFPXREGS", &child_loaded, &r->fpx);
	if (r->fxsr && r->getregset_xfp == 0) {
		ktap_check_expect(&check, r->len_xfp == sizeof(r->regset_fpx),
				  "expected iov_len %u, got %u", (unsigned int)sizeof(r->regset_fpx),
				  (unsigned int)r->len_xfp);
		ptrace_check_fxsr(&check, "from GETREGSET NT_PRXFPREG", &child_loaded,
				  &r->regset_fpx);
	}
	ktap_check_note(&check, "AT_HWCAP says FXSR %s", r->fxsr ? "on" : "off");
	ktap_check_end(subtests, &check, "getfpxregs");

	ktap_check_begin(&check);
	ptrace_check_return(&check, "PTRACE_SETFPXREGS with a reserved MXCSR bit",
			     r->setfpxregs_bad, r->fxsr && !mxcsr_refused ? 0 : -EIO);
	ptrace_check_return(&check, "SETREGSET NT_PRXFPREG with a reserved MXCSR bit",
			     r->setregset_xfp_bad, !r->fxsr ? -ENODEV : mxcsr_refused ? -EINVAL : 0);
	if (r->fxsr)
		ptrace_check_fxsr(&check, "after the refused writes", &child_loaded,
				  &r->fpx_after_bad_sets);
	ktap_check_note(&check, "AT_HWCAP says FXSR %s", r->fxsr ? "on" : "off");
	ktap_check_end(subtests, &check, "setfpxregs_mxcsr");

	if (r->xsave) {
		ktap_result_directive(subtests, true, "xstate", "SKIP the CPU has XSAVE");
		return;
	}
	ktap_check_begin(&check);
	ptrace_check_return(&check, "GETREGSET NT_X86_XSTATE", r->get_xstate, -ENODEV);
	ptrace_check_return(&check, "SETREGSET NT_X86_XSTATE", r->set_xstate, -ENODEV);
	ktap_check_end(subtests, &check, "xstate");
}

static void ptrace_run(struct ktap *subtests)
{
	struct ptrace_run *r = &ptrace_seen;
	struct cpu_info cpu;
	struct proc_child child;
	long err;

	ktap_plan(subtests, 12);
	r->fxsr = (auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR) != 0;
	r->xsave = cpu_identify(&cpu) && (cpu.ecx & CPU_ECX_XSAVE);
	err = proc_start(&child, ptrace_tracee, NULL);
	if (err == 0) {
		ptrace_trace(r, child.pid);
		if (r->syscall_stops != 4)
			sys_kill((int)child.pid, SIGKILL);
		/* Reaped first: until then it may wait in a stop for the tracer. */
		r->status = ptrace_reap(child.pid);
		r->got = proc_read(child.read_fd, &r->report, sizeof(r->report));
		sys_close(child.read_fd);
	} else {
		ktap_diag(subtests, "fork failed (error %ld)", err);
	}
	ptrace_read_checks(subtests, r);
	ptrace_report_checks(subtests, r);
}

GT_TEST("fpu_ptrace", 10, ptrace_run,
	GT_TAGS(GT_GIT("da53f60bb86e"), GT_GIT("145e9e0d8c6f"), GT_FUNC("fpregs_get"),
		GT_FUNC("fpregs_set"), GT_FUNC("xfpregs_get"), GT_FUNC("xfpregs_set"),
		GT_FUNC("xstateregs_get"), GT_FUNC("xstateregs_set"), GT_FUNC("ptrace_regset"),
		GT_FUNC("fpu_clone"), GT_FUNC("__switch_to")),
	"fpregs_get(), fpregs_set(), xfpregs_get(), xfpregs_set(), xstateregs_get(), "
	"xstateregs_set() in arch/x86/kernel/fpu/regset.c and ptrace_regset(): every i386 "
	"FPU regset; fpu_clone() and __switch_to() after a syscall stop");
