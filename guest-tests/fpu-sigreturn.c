/*
 * fpu_sigreturn: a sigreturn whose frame the kernel cannot use is a
 * SIGSEGV and never returns to the interrupted code; an rt frame's
 * uc_stack sets the sigaltstack when sigaltstack(2) would accept it, and
 * is ignored otherwise.
 *
 * Guards sys_sigreturn(), sys_rt_sigreturn() and signal_fault() in
 * arch/x86/kernel/signal.c, with restore_altstack().  The contract of 6.1
 * (6.12 is the same):
 *
 *   - sigreturn reads its frame 8 bytes below %esp, rt_sigreturn 4 below,
 *     after access_ok() over the whole frame: a frame in the kernel's half
 *     or on an unmapped page is a bad frame;
 *   - rt_sigreturn then sets the sigaltstack from uc_stack as
 *     sigaltstack(2) would (restore_altstack()): SS_DISABLE removes it;
 *     flags other than 0, SS_ONSTACK, SS_DISABLE (and SS_AUTODISARM), or
 *     a size below MINSIGSTKSZ, are refused and leave it as it was, and
 *     the sigreturn succeeds (only EFAULT would fail it);
 *   - rt_sigreturn reads uc_sigmask, then uc_flags: a frame whose
 *     uc_sigmask can be read and whose uc_flags cannot is a bad frame;
 *   - a bad frame is SIGSEGV (force_sig(), si_code SI_KERNEL).
 *
 * Each case in a child whose SIGSEGV handler runs on a sigaltstack and
 * exits with a code for its si_code: `*_kernel_sp` and
 * `*_unmapped_sp` call sigreturn and rt_sigreturn with %esp at
 * 0xc0001000 or in a page just unmapped, `rt_sigreturn_straddle_sp` with
 * the frame across the end of a page just unmapped, from uc_mcontext on
 * in the mapped page above:
 * each must get a SIGSEGV of SI_KERNEL, the code after the sigreturn never
 * run.  `altstack_bad_flags` (flags 0x40), `altstack_too_small` (64
 * bytes): an rt handler writes such a uc_stack: it returns, and the
 * sigaltstack is unchanged; `altstack_disable`: SS_DISABLE: it returns,
 * and sigaltstack(2) says SS_DISABLE.
 */
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"

#include <asm-generic/errno-base.h>
#include <linux/mman.h>
#include <linux/signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRT_PAGE 4096u
#define SRT_KERNEL_SP 0xc0001000u	/* in i386's kernel half, above TASK_SIZE */
#define SRT_EXIT_RETURNED 78		/* the code after the sigreturn ran */
#define SRT_EXIT_SEGV_KERNEL 90		/* a SIGSEGV of si_code SI_KERNEL: a bad frame */
#define SRT_EXIT_SEGV_OTHER 91		/* another SIGSEGV: a fault after a return */
#define SRT_EXIT_ALTSTACK_WRONG 79	/* the sigaltstack after rt_sigreturn is not as it should be */

/*
 * rt_sigreturn's frame (struct rt_sigframe of arch/x86/include/asm/sigframe.h):
 * pretcode, sig, pinfo, puc, the siginfo, then the ucontext.
 */
#define SRT_RT_UC (16u + (uint32_t)sizeof(siginfo_t))

enum srt_sp {
	SRT_SP_KERNEL,		/* %esp in the kernel's half */
	SRT_SP_UNMAPPED,	/* in a page just unmapped */
	SRT_SP_STRADDLE,	/* the frame from uc_mcontext up mapped, below it unmapped */
};

enum srt_how {
	SRT_SIGRETURN_SP,	/* sigreturn or rt_sigreturn with %esp at `sp` */
	SRT_ALTSTACK,		/* an rt handler writes `flags` and `size` into uc_stack */
};

struct srt_case {
	const char *name;
	enum srt_how how;
	long nr;		/* SRT_SIGRETURN_SP: __NR_sigreturn or __NR_rt_sigreturn */
	enum srt_sp sp;		/* SRT_SIGRETURN_SP: where %esp is */
	int flags;		/* SRT_ALTSTACK */
	uint32_t size;
	bool segv;		/* the child must die of SIGSEGV */
};

static const struct srt_case srt_cases[] = {
	{ "sigreturn_kernel_sp", SRT_SIGRETURN_SP, __NR_sigreturn, SRT_SP_KERNEL, 0, 0, true },
	{ "rt_sigreturn_kernel_sp", SRT_SIGRETURN_SP, __NR_rt_sigreturn, SRT_SP_KERNEL, 0, 0, true },
	{ "sigreturn_unmapped_sp", SRT_SIGRETURN_SP, __NR_sigreturn, SRT_SP_UNMAPPED, 0, 0, true },
	{ "rt_sigreturn_unmapped_sp", SRT_SIGRETURN_SP, __NR_rt_sigreturn, SRT_SP_UNMAPPED, 0, 0, true },
	{ "rt_sigreturn_straddle_sp", SRT_SIGRETURN_SP, __NR_rt_sigreturn, SRT_SP_STRADDLE, 0, 0,
	  true },
	{ "altstack_bad_flags", SRT_ALTSTACK, 0, SRT_SP_KERNEL, 0x40, 2 * SRT_PAGE, false },
	{ "altstack_too_small", SRT_ALTSTACK, 0, SRT_SP_KERNEL, 0, 64, false },
	{ "altstack_disable", SRT_ALTSTACK, 0, SRT_SP_KERNEL, SS_DISABLE, 0, false },
};

static const struct srt_case *srt_case;
static stack_t srt_setup_stack;

/* The syscall `nr` with %esp at `sp`; if it comes back, exit_group(SRT_EXIT_RETURNED) at once. */
static void srt_call_on(uint32_t sp, long nr)
{
	__asm__ volatile("movl %[sp], %%esp\n\t"
			 "int $0x80\n\t"
			 "movl %[exit], %%eax\n\t"
			 "movl %[code], %%ebx\n\t"
			 "int $0x80"
			 : : "a"(nr), [sp] "r"(sp), [exit] "i"(__NR_exit_group),
			   [code] "i"(SRT_EXIT_RETURNED) : "memory");
}

/* On the sigaltstack: tells a bad frame (SI_KERNEL) from a fault of code that went on. */
static void srt_handle_segv(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)ucontext;
	sys_exit_group(info->si_code == SI_KERNEL ? SRT_EXIT_SEGV_KERNEL : SRT_EXIT_SEGV_OTHER);
}

static void srt_handle(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	uc->uc_stack.ss_flags = srt_case->flags;
	uc->uc_stack.ss_size = srt_case->size;
}

/* A sigaltstack for the SIGSEGV handler, and the SIGUSR1 handler. */
static long srt_setup(void)
{
	long m = sys_mmap(NULL, 2 * SRT_PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long err;

	srt_setup_stack = (stack_t){ .ss_sp = (void *)m, .ss_size = 2 * SRT_PAGE };
	err = (unsigned long)m >= -4095ul ? m : sys_sigaltstack(&srt_setup_stack, NULL);

	if (err == 0)
		err = signal_set_action_flags(SIGSEGV, srt_handle_segv, SA_ONSTACK);
	if (err == 0)
		err = signal_set_action(SIGUSR1, srt_handle);
	return err;
}

/* %esp for the case; `m` two pages whose lower one is unmapped. */
static uint32_t srt_sp(enum srt_sp sp, uint32_t m)
{
	/* rt_sigreturn's frame is %esp - 4: uc_sigmask above the boundary, uc_flags below. */
	uint32_t straddle = m + SRT_PAGE - SRT_RT_UC - offsetof(struct ucontext, uc_mcontext) + 4;

	return sp == SRT_SP_KERNEL ? SRT_KERNEL_SP
	       : sp == SRT_SP_UNMAPPED ? m + SRT_PAGE / 2 : straddle;
}

/* Sends its setup result, then does the case: only altstack_disable comes back. */
static int srt_child(int write_fd, void *arg)
{
	long m = 0, err = 0;
	stack_t now = { 0 };

	srt_case = arg;
	err = srt_setup();
	/* Two pages, the lower one unmapped again: %esp in it, or the frame across the boundary. */
	if (err == 0 && srt_case->how == SRT_SIGRETURN_SP && srt_case->sp != SRT_SP_KERNEL)
		m = sys_mmap(NULL, 2 * SRT_PAGE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)m >= -4095ul)
		err = m;
	else if (m)
		err = sys_munmap((void *)m, SRT_PAGE);
	if (proc_write(write_fd, &err, sizeof(err)) < 0 || err)
		return 1;
	if (srt_case->how == SRT_SIGRETURN_SP)
		srt_call_on(srt_sp(srt_case->sp, (uint32_t)m), srt_case->nr);
	else
		sys_kill((int)sys_getpid(), SIGUSR1);
	if (srt_case->segv)
		return SRT_EXIT_RETURNED;
	if (sys_sigaltstack(NULL, &now) != 0)
		return SRT_EXIT_ALTSTACK_WRONG;
	if (srt_case->flags == SS_DISABLE)
		return now.ss_flags == SS_DISABLE ? 0 : SRT_EXIT_ALTSTACK_WRONG;
	return srt_setup_stack.ss_sp == now.ss_sp && now.ss_flags == 0 &&
	       now.ss_size == srt_setup_stack.ss_size ? 0 : SRT_EXIT_ALTSTACK_WRONG;
}

static void srt_run_case(struct ktap *subtests, const struct srt_case *c)
{
	struct ktap_check check;
	struct proc_child child;
	long err, setup = -1, status = -1, got = 0;

	err = proc_start(&child, srt_child, (void *)c);
	if (err == 0)
		status = proc_finish(&child, &setup, sizeof(setup), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && got == (long)sizeof(setup) && setup == 0,
			  "expected fork and the setup to succeed, got %ld, %ld bytes, error %ld", err,
			  got, setup);
	if (c->segv)
		ktap_check_expect(&check, status == SRT_EXIT_SEGV_KERNEL << 8,
				  "expected a SIGSEGV of si_code SI_KERNEL (exit %d), got wait status "
				  "0x%lx%s", SRT_EXIT_SEGV_KERNEL, status,
				  status == SRT_EXIT_RETURNED << 8 ? " (the sigreturn came back)" :
				  status == SRT_EXIT_SEGV_OTHER << 8 ? " (another SIGSEGV)" : "");
	else
		ktap_check_expect(&check, status == 0, "expected the child to exit 0 (the sigaltstack "
				  "%s after rt_sigreturn), got wait status 0x%lx%s",
				  c->flags == SS_DISABLE ? "disabled" : "unchanged", status,
				  status == SRT_EXIT_ALTSTACK_WRONG << 8 ? " (it was not)" : "");
	ktap_check_end(subtests, &check, c->name);
}

static void sigreturn_run(struct ktap *subtests)
{
	ktap_plan(subtests, ARRAY_SIZE(srt_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(srt_cases); i++)
		srt_run_case(subtests, &srt_cases[i]);
}

GT_TEST("fpu_sigreturn", 10, sigreturn_run,
	GT_TAGS(GT_FUNC("sys_sigreturn"), GT_FUNC("sys_rt_sigreturn"), GT_FUNC("signal_fault"),
		GT_FUNC("restore_altstack")),
	"sigreturn and rt_sigreturn of a frame in the kernel's half or on an unmapped page are "
	"a SIGSEGV (SI_KERNEL) and never return; rt_sigreturn sets the sigaltstack from "
	"uc_stack when sigaltstack(2) would accept it, and ignores it otherwise");
