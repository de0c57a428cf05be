/*
 * fpu_hostile: a signal frame whose FPU image a handler pointed somewhere
 * else makes sigreturn load that image, or fail safely; it never loads
 * kernel memory into the task's registers.
 *
 * Guards fpu__restore_sig() and __fpu_restore_sig() in
 * arch/x86/kernel/fpu/signal.c, called from restore_sigcontext() in
 * arch/x86/kernel/signal.c.  The contract of 6.1:
 *
 *   - sigreturn reads the image at the frame's `fpstate` pointer only
 *     after access_ok() over the whole image (112 + 512 bytes with FXSR,
 *     108 without): a pointer into the kernel's half (0xc0000000 and up on
 *     i386), or an image that reaches into it, fails, even when only the
 *     FXSR part beyond the first 400 bytes does;
 *   - a read that faults (an unmapped page, or an image that crosses into
 *     one) fails;
 *   - on failure fpu__restore_sig() gives the task the init FPU state
 *     (fpu__clear_user_states()), and sys_rt_sigreturn() and, for the old
 *     frame, sys_sigreturn() send SIGSEGV (signal_fault(): force_sig(),
 *     si_code SI_KERNEL);
 *   - a NULL `fpstate` means "no FPU state": the init state, no signal;
 *   - the image need not be aligned: a 32-bit frame's image is copied
 *     (frstor, or __copy_from_user() and convert_to_fxsr() on FXSR);
 *   - without XSAVE the sw_reserved bytes (FP_XSTATE_MAGIC1, sizes) and the
 *     MAGIC2 word are not read, and with it bad ones fall back to the
 *     legacy image (check_xstate_in_sigframe()); reserved MXCSR bits are
 *     masked on 32-bit kernels, not refused.
 *
 * Each case runs in a child: it loads a known state, sends itself SIGUSR1,
 * and the handler loads a state of its own (which a kernel that forgot to
 * reset would leave behind), then points the frame's `fpstate` as the case
 * says, at a copy of the real image with another state written into its
 * fsave header where the case has one.  A SIGSEGV handler counts the
 * SIGSEGVs and returns, so the child runs on after the failed sigreturn
 * (the SIGSEGV frame carries the state the failure left), takes a snapshot
 * and sends it with the count through a pipe.  The parent checks how the
 * child ended, the SIGSEGVs, and the state: the init state (FCW 0x037f,
 * FSW 0, all empty, registers zero) or the one written.  The kernel must
 * not oops, which the host sees.
 *
 * The "old_" cases do the same with a handler installed without SA_SIGINFO:
 * the old frame, its sigcontext's `fpstate`, and sigreturn.
 *
 * The "_stopped" cases run the child under its parent's PTRACE_SYSCALL,
 * and the parent loads values of its own at every stop: the child enters
 * rt_sigreturn's restore with TIF_NEED_FPU_LOAD set and the tracer's values
 * in the FPU, and is switched out again at the exit stop before it returns
 * to user space.  fpu__clear_user_states() must then leave the init state
 * in the registers and mark them current's (fpregs_mark_activate()), so
 * that neither the exit stop's switch nor the return reloads the handler's
 * state saved at the entry stop.
 */
#include "rt/auxv.h"
#include "rt/fpstate.h"
#include "rt/fresh.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm-generic/errno-base.h>
#include <asm-generic/mman-common.h>
#include <linux/mman.h>
#include <linux/ptrace.h>
#include <stdbool.h>
#include <stdint.h>

#define HOSTILE_PAGE 4096u
#define HOSTILE_KERNEL_START 0xc0000000u	/* TASK_SIZE of i386's default 3G/1G split */
#define HOSTILE_FSAVE_SIZE 112u			/* the fsave image, status and magic */
#define HOSTILE_FXSR_SIZE (112u + 512u)		/* and the FXSR image */
#define HOSTILE_CROSS_BYTES 40u			/* of the image before the unmapped page */
#define HOSTILE_MXCSR_OFFSET (112u + 24u)
#define HOSTILE_EXIT_SEGV_LOOP 99		/* a second SIGSEGV: the child gives up */
#define HOSTILE_EXIT_TRACEME 98			/* PTRACE_TRACEME failed */
#define HOSTILE_MAX_STOPS 64			/* a traced child makes about 12 */
/* An FXSR image whose last 24 bytes are the kernel's, its first 400 in the top user page. */
#define HOSTILE_FXSR_TAIL_START (HOSTILE_KERNEL_START - HOSTILE_FXSR_SIZE + 24u)
#define HOSTILE_TOP_PAGE (HOSTILE_KERNEL_START - HOSTILE_PAGE)

enum hostile_how {
	HOSTILE_KERNEL,		/* fpstate = 0xc0000000 */
	HOSTILE_STRADDLE,	/* an image that ends past 0xc0000000 */
	HOSTILE_FXSR_TAIL,	/* FXSR: only the image's last 24 bytes past it */
	HOSTILE_UNMAPPED,	/* fpstate in an unmapped page */
	HOSTILE_PAGE_CROSS,	/* the image's first 40 bytes, then an unmapped page */
	HOSTILE_NULL,		/* fpstate = NULL */
	HOSTILE_MISALIGNED,	/* a copy at an odd address */
	HOSTILE_BAD_SW_BYTES,	/* a copy with sw_reserved and MAGIC2 garbage */
	HOSTILE_MXCSR,		/* a copy with every MXCSR bit set */
};

enum hostile_expect {
	HOSTILE_EXPECT_SEGV,	/* SIGSEGV and the init state */
	HOSTILE_EXPECT_INIT,	/* the init state, no signal */
	HOSTILE_EXPECT_WRITTEN,	/* the state written into the copy, no signal */
};

struct hostile_case {
	const char *name;
	enum hostile_how how;
	enum hostile_expect expect;
	bool stopped;		/* traced, stopped at every system call */
	bool old;		/* the old frame and sigreturn, not rt_sigreturn */
};

static const struct hostile_case hostile_cases[] = {
	{ "kernel", HOSTILE_KERNEL, HOSTILE_EXPECT_SEGV, false, false },
	{ "kernel_straddle", HOSTILE_STRADDLE, HOSTILE_EXPECT_SEGV, false, false },
	{ "kernel_fxsr_tail", HOSTILE_FXSR_TAIL, HOSTILE_EXPECT_SEGV, false, false },
	{ "unmapped", HOSTILE_UNMAPPED, HOSTILE_EXPECT_SEGV, false, false },
	{ "page_cross", HOSTILE_PAGE_CROSS, HOSTILE_EXPECT_SEGV, false, false },
	{ "null", HOSTILE_NULL, HOSTILE_EXPECT_INIT, false, false },
	{ "misaligned", HOSTILE_MISALIGNED, HOSTILE_EXPECT_WRITTEN, false, false },
	{ "bad_sw_bytes", HOSTILE_BAD_SW_BYTES, HOSTILE_EXPECT_WRITTEN, false, false },
	{ "mxcsr_reserved", HOSTILE_MXCSR, HOSTILE_EXPECT_WRITTEN, false, false },
	{ "null_stopped", HOSTILE_NULL, HOSTILE_EXPECT_INIT, true, false },
	{ "unmapped_stopped", HOSTILE_UNMAPPED, HOSTILE_EXPECT_SEGV, true, false },
	{ "old_kernel", HOSTILE_KERNEL, HOSTILE_EXPECT_SEGV, false, true },
	{ "old_unmapped", HOSTILE_UNMAPPED, HOSTILE_EXPECT_SEGV, false, true },
	{ "old_page_cross", HOSTILE_PAGE_CROSS, HOSTILE_EXPECT_SEGV, false, true },
	{ "old_null", HOSTILE_NULL, HOSTILE_EXPECT_INIT, false, true },
	{ "old_misaligned", HOSTILE_MISALIGNED, HOSTILE_EXPECT_WRITTEN, false, true },
};

static const long double hostile_task_values[] = { FPSTATE_PI, FPSTATE_E };
static const struct fpstate_spec hostile_task = {	/* before the signal */
	.cw = 0x027f,
	.count = ARRAY_SIZE(hostile_task_values),
	.values = hostile_task_values,
};
static const long double hostile_handler_values[] = { FPSTATE_TEN_TO_10 };
static const struct fpstate_spec hostile_handler = {	/* the SIGUSR1 handler's own */
	.cw = 0x0c7f,
	.sw_flags = X87_SW_C3,
	.count = ARRAY_SIZE(hostile_handler_values),
	.values = hostile_handler_values,
};
static const long double hostile_written_values[] = { -1.5L, 0.125L, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec hostile_written = {	/* into the copy's header */
	.cw = 0x0b7f,
	.sw_flags = X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(hostile_written_values),
	.values = hostile_written_values,
};

static const long double hostile_tracer_values[] = { 6.0L, -0.75L, 42.0L, 1e-3L };
static const struct fpstate_spec hostile_tracer = {	/* the tracer's, at every stop */
	.cw = 0x0f7f,
	.sw_flags = X87_SW_C1 | X87_SW_C3,
	.count = ARRAY_SIZE(hostile_tracer_values),
	.values = hostile_tracer_values,
};

/* What the child sends back. */
struct hostile_report {
	long setup_err;		/* mmap, munmap, sigaction or kill; 0 */
	int segv_count;
	int segv_code;
	struct x87_fsave state;	/* after the sigreturn */
};

/* The child's: one case per child, so plain statics. */
static const struct hostile_case *hostile_case;
static uint8_t *hostile_page;	/* a mapped page; the next one is unmapped */
static struct hostile_report hostile_report;

/* The real image, at `to`, with the written state in its fsave header. */
static void hostile_copy_written(uint8_t *to, const struct _fpstate *fp, unsigned int size)
{
	struct x87_fsave written;

	fpstate_copy(to, fp, size);
	fpstate_build(&written, &hostile_written);
	fpstate_copy(to, &written, sizeof(written));
}

static struct _fpstate *hostile_target(struct _fpstate *fp)
{
	unsigned int size = x87_sigframe_is_fxsr(fp) ? HOSTILE_FXSR_SIZE : HOSTILE_FSAVE_SIZE;
	uint8_t *end = hostile_page + HOSTILE_PAGE;
	/* As the kernel places an image: FXSR image 64-byte aligned (x87.h). */
	uint8_t *aligned = hostile_page + (x87_sigframe_is_fxsr(fp) ? 64 - 112 % 64 : 0);
	uint8_t *odd = hostile_page + 64 + 1;
	uint32_t bad_sw[6] = { FP_XSTATE_MAGIC1, 16, 0xffffffff, 0xffffffff, 0x7fffff00, 0 };

	switch (hostile_case->how) {
	case HOSTILE_KERNEL:
		return (struct _fpstate *)HOSTILE_KERNEL_START;
	case HOSTILE_STRADDLE:
		return (struct _fpstate *)(HOSTILE_KERNEL_START - 64);
	case HOSTILE_FXSR_TAIL:
		return (struct _fpstate *)HOSTILE_FXSR_TAIL_START;
	case HOSTILE_UNMAPPED:
		return (struct _fpstate *)end;
	case HOSTILE_PAGE_CROSS:
		fpstate_copy(end - HOSTILE_CROSS_BYTES, fp, HOSTILE_CROSS_BYTES);
		return (struct _fpstate *)(end - HOSTILE_CROSS_BYTES);
	case HOSTILE_NULL:
		return NULL;
	case HOSTILE_MISALIGNED:
		hostile_copy_written(odd, fp, size);
		return (struct _fpstate *)odd;
	case HOSTILE_BAD_SW_BYTES:
		/* magic1, extended_size, xfeatures, xstate_size: claims an impossible xstate. */
		hostile_copy_written(aligned, fp, size);
		fpstate_copy(&((struct _fpstate *)aligned)->sw_reserved, bad_sw, sizeof(bad_sw));
		fpstate_copy(aligned + HOSTILE_FXSR_SIZE, bad_sw, sizeof(bad_sw));	/* MAGIC2's place */
		return (struct _fpstate *)aligned;
	case HOSTILE_MXCSR:
		hostile_copy_written(aligned, fp, size);
		*(uint32_t *)(aligned + HOSTILE_MXCSR_OFFSET) = 0xffffffff;
		return (struct _fpstate *)aligned;
	}
	return fp;
}

static void hostile_handle_usr1(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	fpstate_load(&hostile_handler);
	uc->uc_mcontext.fpstate = hostile_target(uc->uc_mcontext.fpstate);
}

/* The same for the old frame: the write goes through a pointer, as the frame is no local copy. */
static void hostile_handle_old(int sig, struct sigcontext sc)
{
	volatile struct sigcontext *frame_sc =
		(volatile struct sigcontext *)(signal_old_frame(&sc) + 8);

	(void)sig;
	fpstate_load(&hostile_handler);
	frame_sc->fpstate = hostile_target(sc.fpstate);
}

static void hostile_handle_segv(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)ucontext;
	/* A fault of the child's own would come back at once: give up instead of looping. */
	if (++hostile_report.segv_count > 1)
		sys_exit_group(HOSTILE_EXIT_SEGV_LOOP);
	hostile_report.segv_code = info->si_code;
}

static int hostile_child(int write_fd, void *arg)
{
	long err, page;

	hostile_case = arg;
	if (hostile_case->stopped && sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return HOSTILE_EXIT_TRACEME;
	page = sys_mmap(NULL, 2 * HOSTILE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	/* An address above 2 GiB is negative as a long: -4095..-1 are the errors. */
	err = (unsigned long)page >= -4095ul ? page
		: sys_munmap((uint8_t *)page + HOSTILE_PAGE, HOSTILE_PAGE);
	hostile_page = (uint8_t *)page;
	/* The top user page mapped (ours, or already the stack's), so that only the kernel's faults. */
	if (err == 0 && hostile_case->how == HOSTILE_FXSR_TAIL) {
		page = sys_mmap((void *)HOSTILE_TOP_PAGE, HOSTILE_PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		err = (unsigned long)page < -4095ul || page == -EEXIST ? 0 : page;
	}
	if (err == 0)
		err = signal_set_action(SIGSEGV, hostile_handle_segv);
	if (err == 0)
		err = hostile_case->old ? signal_set_old_action(SIGUSR1, hostile_handle_old, 0)
			: signal_set_action(SIGUSR1, hostile_handle_usr1);
	if (err == 0) {
		fpstate_load(&hostile_task);
		err = sys_kill((int)sys_getpid(), SIGUSR1);
		x87_snapshot(&hostile_report.state);
		x87_init();
	}
	hostile_report.setup_err = err;
	return proc_write(write_fd, &hostile_report, sizeof(hostile_report)) < 0;
}

/*
 * Traces the child to its end: PTRACE_SYSCALL at every stop, passing its
 * signals on (a SIGTRAP stop is a system call's), with the tracer's values
 * loaded at each.  The child's wait status, or -errno.
 */
static long hostile_trace(long pid)
{
	long status;
	int stops = 0;

	while ((status = proc_wait(pid)) >= 0 && (status & 0xff) == 0x7f) {
		int sig = (int)(status >> 8) & 0xff;

		fpstate_load(&hostile_tracer);
		if (++stops > HOSTILE_MAX_STOPS)
			sys_kill((int)pid, SIGKILL);
		if (sys_ptrace(PTRACE_SYSCALL, (int)pid, 0, sig == SIGTRAP ? 0 : sig) < 0) {
			status = ptrace_reap(pid);
			break;
		}
	}
	x87_init();
	return status;
}

static bool hostile_registers_zero(const struct x87_fsave *image)
{
	for (unsigned int i = 0; i < 8; i++)
		for (unsigned int b = 0; b < 10; b++)
			if (image->st[i][b])
				return false;
	return true;
}

static void hostile_run_case(struct ktap *subtests, const struct hostile_case *c)
{
	struct ktap_check check;
	struct proc_child child;
	struct hostile_report r = { .setup_err = -1 };
	struct x87_fsave written;
	long err, status = -1, got = 0;
	int want_segv = c->expect == HOSTILE_EXPECT_SEGV;

	/* An FSAVE image (112 bytes) there lies wholly in the user page: nothing to refuse. */
	if (c->how == HOSTILE_FXSR_TAIL && !(auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR)) {
		ktap_result_directive(subtests, true, c->name,
				      "SKIP the kernel writes FSAVE frames (AT_HWCAP)");
		return;
	}
	err = proc_start(&child, hostile_child, (void *)c);
	if (err == 0 && c->stopped) {
		/* Reaped first: the child cannot finish its report while stopped. */
		status = hostile_trace(child.pid);
		got = proc_read(child.read_fd, &r, sizeof(r));
		sys_close(child.read_fd);
	} else if (err == 0) {
		status = proc_finish(&child, &r, sizeof(r), &got);
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == 0, "expected the child to exit 0, got wait status 0x%lx",
			  status);
	ktap_check_expect(&check, got == (long)sizeof(r), "expected a %u-byte report, got %ld",
			  (unsigned int)sizeof(r), got);
	if (got == (long)sizeof(r)) {
		ktap_check_expect(&check, r.setup_err == 0,
				  "expected mmap, sigaction and kill to succeed, got %ld", r.setup_err);
		ktap_check_expect(&check, r.segv_count == want_segv,
				  "expected %d SIGSEGV after sigreturn, got %d", want_segv,
				  r.segv_count);
		if (want_segv && r.segv_count)
			ktap_check_expect(&check, r.segv_code == SI_KERNEL,
					  "expected SIGSEGV si_code %d (SI_KERNEL), got %d", SI_KERNEL,
					  r.segv_code);
		if (c->expect == HOSTILE_EXPECT_WRITTEN) {
			fpstate_build(&written, &hostile_written);
			fpstate_check(&check, "after sigreturn (the state written into the image)",
				      &written, &r.state);
		} else {
			fresh_check(&check, "after sigreturn (the init state)", &r.state);
			ktap_check_expect(&check, hostile_registers_zero(&r.state),
					  "expected the registers zero (init_fpstate), got data");
			if (!hostile_registers_zero(&r.state))
				fpstate_note(&check, "got", &r.state);
		}
	}
	ktap_check_end(subtests, &check, c->name);
}

static void hostile_run(struct ktap *subtests)
{
	ktap_plan(subtests, (int)ARRAY_SIZE(hostile_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(hostile_cases); i++)
		hostile_run_case(subtests, &hostile_cases[i]);
}

GT_TEST("fpu_hostile", 10, hostile_run,
	GT_TAGS(GT_FUNC("fpu__restore_sig"), GT_FUNC("fpu__clear_user_states")),
	"fpu__restore_sig() in arch/x86/kernel/fpu/signal.c: a hostile or broken fpstate "
	"pointer at sigreturn gives SIGSEGV and the init state, never kernel memory");
