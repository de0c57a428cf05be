/*
 * fpu_ptrace_fault: a tracer's FPU request with a buffer the kernel cannot
 * reach fails with the documented error, changes nothing and never oopses.
 *
 * Guards fpregs_set() and xfpregs_set() in arch/x86/kernel/fpu/regset.c,
 * which copy the tracer's buffer with user_regset_copyin(): from user
 * memory (ubuf) with __copy_from_user(), -EFAULT on a page that is not
 * there, before the state changes; copy_regset_to_user() and
 * copy_regset_from_user() (kernel/regset.c, include/linux/regset.h: -EFAULT
 * for a copy that fails or an address above TASK_SIZE, access_ok() before
 * the regset's own -ENODEV); arch_ptrace() in arch/x86/kernel/ptrace.c
 * (the FPREGS requests pass the error on, the FPXREGS requests give -EIO
 * for any) and ptrace_request() in kernel/ptrace.c (an iovec it cannot
 * read is -EFAULT, iov_len is written back only on success).
 *
 * The tracee loads an x87 state with every tag class and stops.  Each of
 * GET and SET of the four ways (FPREGS, FPXREGS, REGSET NT_PRFPREG,
 * REGSET NT_PRXFPREG) runs with an unmapped buffer, one that crosses from
 * a mapped page into an unmapped one, and a kernel address:
 *
 *   fault_fpregs      -EFAULT;
 *   fault_fpxregs     -EIO, on every setup;
 *   fault_regset_fp   -EFAULT, iov_len as it was;
 *   fault_regset_xfp  -EFAULT with FXSR; without, -ENODEV but -EFAULT for a
 *                     set from the kernel address; iov_len as it was;
 *   fault_iovec       GET and SETREGSET whose iovec is unmapped or in the
 *                     kernel: -EFAULT;
 *   fault_untouched   GETFPREGS (and GETFPXREGS) read the same bytes before
 *                     and after, and the tracee runs on with its state.
 */
#include "rt/auxv.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

#include <asm-generic/mman-common.h>
#include <asm/errno.h>
#include <asm/ptrace-abi.h>
#include <asm/signal.h>
#include <linux/elf.h>
#include <linux/mman.h>
#include <linux/ptrace.h>

#define PF_PAGE 4096
#define PF_KERNEL_ADDR 0xc0100000ul	/* above TASK_SIZE (PAGE_OFFSET 0xc0000000) */

static const long double pf_values[] = {
	FPSTATE_PI, 0.0L, __builtin_infl(), __LDBL_DENORM_MIN__, -2.5L, FPSTATE_E,
};
static const struct fpstate_spec pf_spec = {
	.cw = 0x0f7f, .sw_flags = X87_SW_C3 | X87_SW_PE,
	.count = ARRAY_SIZE(pf_values), .values = pf_values,
};

enum { PF_UNMAPPED, PF_CROSSING, PF_KERNEL, PF_BUFFERS };
static const char *const pf_buffer_names[PF_BUFFERS] = { "unmapped", "crossing", "kernel" };
static const char *const pf_subtests[PTRACE_FP_WAYS] = {
	"fault_fpregs", "fault_fpxregs", "fault_regset_fp", "fault_regset_xfp",
};

struct pf_run {
	bool fxsr;
	long setup_err, stop, status, got;
	long fault[PTRACE_FP_WAYS][2][PF_BUFFERS];
	size_t fault_len[PTRACE_FP_WAYS][2][PF_BUFFERS];
	long iovec[2][2];
	struct x87_fsave before, after, live;
	struct fpstate_fxsr x_before, x_after;
};

static struct pf_run pf_seen;

static int pf_tracee(int write_fd, void *arg)
{
	struct x87_fsave live;

	(void)arg;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 1;
	fpstate_load(&pf_spec);
	sys_kill((int)sys_getpid(), SIGSTOP);
	x87_snapshot(&live);
	return proc_write(write_fd, &live, sizeof(live)) < 0;
}

/* The buffers no request may use: a page mmap()ed then unmapped, its edge, the kernel. */
static long pf_bad_buffers(unsigned long addr[PF_BUFFERS])
{
	long page = sys_mmap(NULL, 2 * PF_PAGE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long err = (unsigned long)page >= -4095ul ? page
		   : sys_munmap((uint8_t *)page + PF_PAGE, PF_PAGE);

	addr[PF_UNMAPPED] = (unsigned long)page + PF_PAGE;
	addr[PF_CROSSING] = (unsigned long)page + PF_PAGE - 20;
	addr[PF_KERNEL] = PF_KERNEL_ADDR;
	return err;
}

static void pf_trace(struct pf_run *r, long pid)
{
	unsigned long addr[PF_BUFFERS];

	r->setup_err = pf_bad_buffers(addr);
	r->stop = proc_wait(pid);
	if (r->setup_err != 0 || r->stop != PTRACE_STOPPED_BY(SIGSTOP))
		return;
	ptrace_fp_read(PTRACE_FP_FPREGS, pid, &r->before, NULL);
	ptrace_fp_read(PTRACE_FP_FPXREGS, pid, &r->x_before, NULL);
	for (unsigned int way = 0; way < PTRACE_FP_WAYS; way++)
		for (unsigned int set = 0; set < 2; set++)
			for (unsigned int buf = 0; buf < PF_BUFFERS; buf++) {
				size_t *len = &r->fault_len[way][set][buf];

				*len = ptrace_fp_bytes(way);
				r->fault[way][set][buf] = ptrace_fp_request(way, set, pid, addr[buf],
									    len);
			}
	for (unsigned int set = 0; set < 2; set++)
		for (unsigned int k = 0; k < 2; k++)
			r->iovec[set][k] = sys_ptrace(set ? PTRACE_SETREGSET : PTRACE_GETREGSET,
						      (int)pid, NT_PRFPREG,
						      addr[k ? PF_KERNEL : PF_UNMAPPED]);
	ptrace_fp_read(PTRACE_FP_FPREGS, pid, &r->after, NULL);
	ptrace_fp_read(PTRACE_FP_FPXREGS, pid, &r->x_after, NULL);
	sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);
}

static long pf_want(unsigned int way, bool set, unsigned int buf, bool fxsr)
{
	if (way == PTRACE_FP_FPXREGS)
		return -EIO;
	/* copy_regset_from_user()'s access_ok() comes before xfpregs_set()'s -ENODEV. */
	if (way == PTRACE_FP_REGSET_XFP && !fxsr && !(set && buf == PF_KERNEL))
		return -ENODEV;
	return -EFAULT;
}

static void pf_check_way(struct ktap *subtests, const struct pf_run *r, unsigned int way)
{
	struct ktap_check check;
	bool regset = way == PTRACE_FP_REGSET_FP || way == PTRACE_FP_REGSET_XFP;

	ktap_check_begin(&check);
	for (unsigned int set = 0; set < 2; set++)
		for (unsigned int buf = 0; buf < PF_BUFFERS; buf++) {
			long want = pf_want(way, set, buf, r->fxsr), got = r->fault[way][set][buf];
			size_t len = r->fault_len[way][set][buf];

			ktap_check_expect(&check, got == want,
					  "expected %s%s with the %s buffer to return %ld, got %ld",
					  set ? "SET" : "GET", ptrace_fp_names[way],
					  pf_buffer_names[buf], want, got);
			ktap_check_expect(&check, !regset || len == ptrace_fp_bytes(way),
					  "expected iov_len %u kept after %s%s with the %s buffer, got %u",
					  ptrace_fp_bytes(way), set ? "SET" : "GET",
					  ptrace_fp_names[way], pf_buffer_names[buf],
					  (unsigned int)len);
		}
	ktap_check_note(&check, "AT_HWCAP says FXSR %s", r->fxsr ? "on" : "off");
	ktap_check_end(subtests, &check, pf_subtests[way]);
}

static void pf_check_rest(struct ktap *subtests, const struct pf_run *r)
{
	struct ktap_check check;
	struct x87_fsave loaded;

	ktap_check_begin(&check);
	for (unsigned int set = 0; set < 2; set++)
		for (unsigned int k = 0; k < 2; k++)
			ktap_check_expect(&check, r->iovec[set][k] == -EFAULT,
					  "expected %sREGSET with the iovec %s to return %d, got %ld",
					  set ? "SET" : "GET", k ? "in the kernel" : "unmapped",
					  -EFAULT, r->iovec[set][k]);
	ktap_check_end(subtests, &check, "fault_iovec");

	fpstate_build_tagged(&loaded, &pf_spec);
	ktap_check_begin(&check);
	fpstate_check(&check, "from PTRACE_GETFPREGS before", &loaded, &r->before);
	ktap_check_expect(&check, ptrace_same_bytes(&r->before, &r->after, PTRACE_FP_BYTES),
			  "expected PTRACE_GETFPREGS to read the same bytes after the refused requests");
	ktap_check_expect(&check, !r->fxsr || ptrace_same_bytes(&r->x_before, &r->x_after,
								PTRACE_FXSR_BYTES),
			  "expected PTRACE_GETFPXREGS to read the same bytes after them");
	ktap_check_expect(&check, r->status == 0 && r->got == (long)sizeof(r->live),
			  "expected the tracee's state, got %ld bytes, status 0x%lx", r->got,
			  r->status);
	if (r->got == (long)sizeof(r->live))
		fpstate_check(&check, "in the tracee after them", &loaded, &r->live);
	ktap_check_end(subtests, &check, "fault_untouched");
}

static void pf_run(struct ktap *subtests)
{
	struct pf_run *r = &pf_seen;
	struct proc_child child;
	long err;

	ktap_plan(subtests, PTRACE_FP_WAYS + 2);
	r->fxsr = (auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR) != 0;
	err = proc_start(&child, pf_tracee, NULL);
	if (err == 0) {
		pf_trace(r, child.pid);
		r->status = ptrace_reap(child.pid);
		r->got = proc_read(child.read_fd, &r->live, sizeof(r->live));
		sys_close(child.read_fd);
	} else {
		ktap_diag(subtests, "fork failed (error %ld)", err);
	}
	if (r->setup_err || r->stop != PTRACE_STOPPED_BY(SIGSTOP))
		ktap_diag(subtests, "mmap/munmap gave %ld, the stop 0x%lx", r->setup_err, r->stop);
	for (unsigned int way = 0; way < PTRACE_FP_WAYS; way++)
		pf_check_way(subtests, r, way);
	pf_check_rest(subtests, r);
}

GT_TEST("fpu_ptrace_fault", 10, pf_run,
	GT_TAGS(GT_FUNC("fpregs_set"), GT_FUNC("fpregs_get"), GT_FUNC("xfpregs_set"),
		GT_FUNC("xfpregs_get"), GT_FUNC("arch_ptrace"), GT_FUNC("ptrace_regset")),
	"fpregs_set(), xfpregs_set() in arch/x86/kernel/fpu/regset.c, arch_ptrace() and "
	"ptrace_regset(): an FPU request with an unmapped, page-crossing or kernel buffer fails "
	"(-EFAULT, -EIO for FPXREGS), changes nothing and never oopses");
