/*
 * fpu_sigstack: a signal whose frame cannot go where the stack pointer
 * says ends the task with SIGSEGV, cleanly, and never runs the handler;
 * a stack of AT_MINSIGSTKSZ bytes takes either i386 frame, wherever its
 * top is.
 *
 * Guards get_sigframe() and handle_signal() in arch/x86/kernel/signal.c and
 * fpu__alloc_mathframe() and copy_fpstate_to_sigframe() in
 * arch/x86/kernel/fpu/signal.c.  The contract of 6.1 (6.12 is the same):
 *
 *   - the FPU image goes at the top of the frame, and the kernel checks it
 *     with access_ok() over its whole size (fpu__alloc_mathframe() gives
 *     it): an image that would reach the kernel's part (0xc0000000 on
 *     i386) is refused, also when the rest of the frame is in mapped user
 *     memory; an image that faults for good (an unmapped or read-only
 *     page, also only part of it) is refused;
 *   - a frame that would leave the sigaltstack it is on is refused
 *     ("overflowed sigaltstack"), even if the memory below is mapped;
 *   - a refused frame gives SIGSEGV (force_sigsegv()); with SIGSEGV at its
 *     default action the task dies of it, and no handler runs; a SIGSEGV
 *     handler on a sigaltstack runs instead, with the x87 state of the
 *     refused delivery in its frame: handle_signal() resets the state for a
 *     handler only when it wrote that handler's frame;
 *   - AT_MINSIGSTKSZ (arch/x86/include/asm/elf.h: get_sigframe_size(),
 *     init_sigframe_size()) is the worst case of the largest frame, the
 *     old one, with its FPU image and the alignment padding, rounded up to
 *     16: a frame delivered with exactly that many bytes of sigaltstack
 *     below the stack pointer fits, at every alignment of the stack
 *     pointer, and the value does not exceed the largest frame seen by
 *     more than the kernel's alignment slack (15) and rounding (15).
 *     sigaltstack(2) refuses a stack smaller than MINSIGSTKSZ with ENOMEM.
 *
 * The unusable stacks, each in a child with the old and the rt frame
 * (`old_*`, `rt_*`): `esp_kernel` (%esp at 0xc0001000), `esp_unmapped` (in
 * a page just unmapped), `esp_straddle` (%esp 64 bytes above 0xc0000000,
 * the page below mapped: the image would cross into the kernel's part, the
 * frame's other words not), `esp_readonly` (in a read-only page),
 * `esp_page_cross` (64 bytes into a page just unmapped, the page below
 * mapped: the kernel's write faults part way, its clearing of the image
 * faults for good), `altstack_overflow` (%esp 64 bytes above the
 * bottom of the sigaltstack, on it, with a mapped page below),
 * `frame_cross` (%esp in a page above one just unmapped, as high as the
 * FPU image needs to fit in the page, after AT_HWCAP's FXSR: the image is
 * written, the frame's words below it fault, __setup_frame() and
 * __setup_rt_frame() give -EFAULT).  The child
 * moves %esp there and sends itself SIGUSR1: it must die of SIGSEGV.
 * `rt_esp_kernel_caught`, `old_esp_kernel_caught`: `esp_kernel` with a
 * SIGSEGV handler on a sigaltstack (SIGUSR1's not on it): the SIGUSR1
 * handler never runs, the SIGSEGV one once, SI_KERNEL, its frame holds the
 * state loaded before the SIGUSR1, and after its sigreturn that state is
 * live again.
 * `minsigstksz`: for each byte offset 0-63 of the sigaltstack's bottom
 * and each frame, %esp exactly AT_MINSIGSTKSZ above it, a SIGUSR1 on it
 * (nested on the sigaltstack, so that the kernel's overflow check
 * applies): the handler runs, its frame above the bottom, and the state
 * comes back.
 */
#include "rt/auxv.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm-generic/errno-base.h>
#include <linux/mman.h>
#include <linux/signal.h>
#include <stdbool.h>
#include <stdint.h>

#define SS_PAGE 4096u
#define SS_KERNEL_START 0xc0000000u	/* TASK_SIZE of i386's default 3G/1G split */
#define SS_EXIT_HANDLER_RAN 77
#define SS_EXIT_RETURNED 78
#define SS_OFFSETS 64u			/* the image is 64-byte aligned: every offset mod 64 */
#define SS_FRAME_CROSS_FSAVE 192u	/* %esp's offset: the 112-byte image, 64-byte aligned, fits */
#define SS_FRAME_CROSS_FXSR (192u + 112u + 512u)	/* the same for the 112 + 512-byte image */
#define SS_SLACK 32u			/* MAX_FRAME_PADDING (15) + rounding to 16 (15), and less */

enum ss_how {
	SS_ESP_KERNEL,
	SS_ESP_UNMAPPED,
	SS_ESP_STRADDLE,
	SS_ESP_READONLY,
	SS_ESP_PAGE_CROSS,
	SS_ALTSTACK_OVERFLOW,
	SS_FRAME_CROSS,
};

struct ss_case {
	const char *name;
	bool old;
	enum ss_how how;
};

static const struct ss_case ss_cases[] = {
	{ "rt_esp_kernel", false, SS_ESP_KERNEL },
	{ "old_esp_kernel", true, SS_ESP_KERNEL },
	{ "rt_esp_unmapped", false, SS_ESP_UNMAPPED },
	{ "old_esp_unmapped", true, SS_ESP_UNMAPPED },
	{ "rt_esp_straddle", false, SS_ESP_STRADDLE },
	{ "old_esp_straddle", true, SS_ESP_STRADDLE },
	{ "rt_esp_readonly", false, SS_ESP_READONLY },
	{ "old_esp_readonly", true, SS_ESP_READONLY },
	{ "rt_esp_page_cross", false, SS_ESP_PAGE_CROSS },
	{ "old_esp_page_cross", true, SS_ESP_PAGE_CROSS },
	{ "rt_altstack_overflow", false, SS_ALTSTACK_OVERFLOW },
	{ "old_altstack_overflow", true, SS_ALTSTACK_OVERFLOW },
	{ "rt_frame_cross", false, SS_FRAME_CROSS },
	{ "old_frame_cross", true, SS_FRAME_CROSS },
};

static const long double ss_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10, -1.5L };
static const struct fpstate_spec ss_state = {
	.cw = 0x0b7f,
	.sw_flags = X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(ss_values),
	.values = ss_values,
};

/* kill(pid, sig) with %esp at `sp`; the old %esp comes back after it, and after any handler. */
static long ss_kill_on(uint32_t sp, int pid, int sig)
{
	long ret;

	__asm__ volatile("movl %%esp, %%edi\n\t"
			 "movl %[sp], %%esp\n\t"
			 "int $0x80\n\t"
			 "movl %%edi, %%esp"
			 : "=a"(ret)
			 : "0"((long)__NR_kill), "b"(pid), "c"(sig), [sp] "d"(sp)
			 : "edi", "memory");
	return ret;
}

static long ss_map(void *addr, uint32_t len, int flags)
{
	return sys_mmap(addr, len, PROT_READ | PROT_WRITE, flags | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static bool ss_failed(long r)
{
	/* An address above 2 GiB is negative as a long: -4095..-1 are the errors. */
	return (unsigned long)r >= -4095ul;
}

/* Where %esp goes for the case, after mapping what it needs.  0 or -errno into *err. */
static uint32_t ss_place(const struct ss_case *c, long *err)
{
	long m;
	stack_t ss;

	*err = 0;
	switch (c->how) {
	case SS_ESP_KERNEL:
		return SS_KERNEL_START + SS_PAGE;
	case SS_ESP_UNMAPPED:
		m = ss_map(NULL, SS_PAGE, 0);
		*err = ss_failed(m) ? m : sys_munmap((void *)m, SS_PAGE);
		return (uint32_t)m + SS_PAGE / 2;
	case SS_ESP_STRADDLE:
		/* The last user page: ours, or the stack's, which then reaches the top. */
		m = ss_map((void *)(SS_KERNEL_START - SS_PAGE), SS_PAGE, MAP_FIXED_NOREPLACE);
		*err = ss_failed(m) && m != -EEXIST ? m : 0;
		return SS_KERNEL_START + 64;
	case SS_ESP_READONLY:
		m = sys_mmap(NULL, SS_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		*err = ss_failed(m) ? m : 0;
		return (uint32_t)m + SS_PAGE / 2;
	case SS_ESP_PAGE_CROSS:
		/* The image's first bytes on a mapped page, the rest on an unmapped one. */
		m = ss_map(NULL, 2 * SS_PAGE, 0);
		*err = ss_failed(m) ? m : sys_munmap((void *)(m + SS_PAGE), SS_PAGE);
		return (uint32_t)m + SS_PAGE + 64;
	case SS_ALTSTACK_OVERFLOW:
		m = ss_map(NULL, 3 * SS_PAGE, 0);
		ss = (stack_t){ .ss_sp = (void *)(m + SS_PAGE), .ss_size = SS_PAGE };
		*err = ss_failed(m) ? m : sys_sigaltstack(&ss, NULL);
		return (uint32_t)m + SS_PAGE + 64;
	case SS_FRAME_CROSS:
		/* The whole image on a mapped page, the frame below it on an unmapped one. */
		m = ss_map(NULL, 2 * SS_PAGE, 0);
		*err = ss_failed(m) ? m : sys_munmap((void *)m, SS_PAGE);
		return (uint32_t)m + SS_PAGE + (auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR ?
						 SS_FRAME_CROSS_FXSR : SS_FRAME_CROSS_FSAVE);
	}
	return 0;
}

static void ss_handle_rt(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	sys_exit_group(SS_EXIT_HANDLER_RAN);
}

static void ss_handle_old(int sig, struct sigcontext sc)
{
	(void)sig;
	(void)sc;
	sys_exit_group(SS_EXIT_HANDLER_RAN);
}

static long ss_install(bool old, signal_action_fn rt, signal_old_fn plain)
{
	return old ? signal_set_old_action(SIGUSR1, plain, SA_ONSTACK)
		   : signal_set_action_flags(SIGUSR1, rt, SA_ONSTACK);
}

/* Sends its setup result, then signals itself on the case's stack: it must not come back. */
static int ss_child(int write_fd, void *arg)
{
	const struct ss_case *c = arg;
	long err = ss_install(c->old, ss_handle_rt, ss_handle_old);
	uint32_t sp = 0;

	if (err == 0)
		sp = ss_place(c, &err);
	if (proc_write(write_fd, &err, sizeof(err)) < 0 || err)
		return 1;
	sys_close(write_fd);
	fpstate_load(&ss_state);
	ss_kill_on(sp, (int)sys_getpid(), SIGUSR1);
	return SS_EXIT_RETURNED;
}

static void ss_run_case(struct ktap *subtests, const struct ss_case *c)
{
	struct ktap_check check;
	struct proc_child child;
	long err, setup = -1, status = -1, got = 0;

	err = proc_start(&child, ss_child, (void *)c);
	if (err == 0)
		status = proc_finish(&child, &setup, sizeof(setup), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, got == (long)sizeof(setup) && setup == 0,
			  "expected the setup to succeed, got %ld bytes, error %ld", got, setup);
	ktap_check_expect(&check, status >= 0 && (status & 0x7f) == SIGSEGV,
			  "expected the child killed by SIGSEGV (wait status 0x%x), got wait status 0x%lx%s",
			  SIGSEGV, status,
			  status == SS_EXIT_HANDLER_RAN << 8 ? " (the handler ran)" :
			  status == SS_EXIT_RETURNED << 8 ? " (no signal came)" : "");
	ktap_check_end(subtests, &check, c->name);
}

/* What a caught child sends back. */
struct ss_caught {
	long err;
	int usr1, segv;			/* handlers run */
	int segv_code;
	struct x87_fsave frame, after;	/* the SIGSEGV frame's image; the state after its sigreturn */
};

static struct ss_caught ss_caught;

static void ss_caught_usr1_rt(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	ss_caught.usr1++;
}

static void ss_caught_usr1_old(int sig, struct sigcontext sc)
{
	(void)sig;
	(void)sc;
	ss_caught.usr1++;
}

static void ss_caught_segv(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	ss_caught.segv++;
	ss_caught.segv_code = info->si_code;
	fpstate_from_frame(&ss_caught.frame, uc->uc_mcontext.fpstate);
	x87_load_cw(0x0c7f);	/* a state of the handler's own, which sigreturn must undo */
	__asm__ volatile("fld1" ::: "memory");
}

/* SIGUSR1 with %esp in the kernel's part, SIGSEGV caught on a sigaltstack. */
static int ss_caught_child(int write_fd, void *arg)
{
	const struct ss_case *c = arg;
	long m = ss_map(NULL, 2 * SS_PAGE, 0);
	stack_t ss = { .ss_sp = (void *)m, .ss_size = 2 * SS_PAGE };
	long err = ss_failed(m) ? m : sys_sigaltstack(&ss, NULL);

	if (err == 0)
		err = c->old ? signal_set_old_action(SIGUSR1, ss_caught_usr1_old, 0)
			     : signal_set_action_flags(SIGUSR1, ss_caught_usr1_rt, 0);
	if (err == 0)
		err = signal_set_action_flags(SIGSEGV, ss_caught_segv, SA_ONSTACK);
	if (err == 0) {
		fpstate_load(&ss_state);
		ss_kill_on(SS_KERNEL_START + SS_PAGE, (int)sys_getpid(), SIGUSR1);
		x87_snapshot(&ss_caught.after);
		x87_init();
	}
	ss_caught.err = err;
	return proc_write(write_fd, &ss_caught, sizeof(ss_caught)) < 0;
}

static void ss_run_caught(struct ktap *subtests, const struct ss_case *c)
{
	struct ktap_check check;
	struct proc_child child;
	static struct ss_caught r;
	struct x87_fsave want;
	long err, status = -1, got = 0;

	r.err = -1;
	fpstate_build(&want, &ss_state);
	err = proc_start(&child, ss_caught_child, (void *)c);
	if (err == 0)
		status = proc_finish(&child, &r, sizeof(r), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == 0, "expected the child to exit 0, got wait status 0x%lx",
			  status);
	ktap_check_expect(&check, got == (long)sizeof(r) && r.err == 0,
			  "expected a whole report without error, got %ld bytes, error %ld", got, r.err);
	if (got == (long)sizeof(r)) {
		ktap_check_expect(&check, r.usr1 == 0 && r.segv == 1, "expected no SIGUSR1 handler "
				  "and one SIGSEGV handler, got %d and %d", r.usr1, r.segv);
		ktap_check_expect(&check, r.segv_code == SI_KERNEL, "expected SIGSEGV si_code %d "
				  "(SI_KERNEL), got %d", SI_KERNEL, r.segv_code);
		fpstate_check(&check, "in the SIGSEGV frame", &want, &r.frame);
		fpstate_check(&check, "after the SIGSEGV handler's sigreturn", &want, &r.after);
	}
	ktap_check_end(subtests, &check, c->name);
}

static const struct ss_case ss_caught_cases[] = {
	{ "rt_esp_kernel_caught", false, SS_ESP_KERNEL },
	{ "old_esp_kernel_caught", true, SS_ESP_KERNEL },
};

/* What the minsigstksz child sends back. */
struct ss_fit {
	long err;
	uint32_t minsigstksz;
	long small_err;			/* sigaltstack of MINSIGSTKSZ - 1 bytes */
	int count[2];			/* handlers run: rt, old */
	uint32_t worst[2];		/* the largest %esp - frame */
	int low;			/* deliveries whose frame was not above the sigaltstack's bottom */
	int changed;			/* deliveries after which the state differed */
	struct x87_fsave want, got;	/* the first that differed */
};

static struct ss_fit ss_fit;
static int ss_kind;			/* 0 rt, 1 old */
static uint32_t ss_sp, ss_bottom;

static void ss_fit_frame(uint32_t frame)
{
	ss_fit.count[ss_kind]++;
	if (ss_sp - frame > ss_fit.worst[ss_kind])
		ss_fit.worst[ss_kind] = ss_sp - frame;
	ss_fit.low += frame <= ss_bottom;
	x87_load_cw(0x0c7f);	/* a state of the handler's own, which sigreturn must undo */
	__asm__ volatile("fld1" ::: "memory");
}

static void ss_fit_rt(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)ucontext;
	ss_fit_frame(signal_rt_frame(info));
}

static void ss_fit_old(int sig, struct sigcontext sc)
{
	(void)sig;
	ss_fit_frame(signal_old_frame(&sc));
}

/* One delivery with %esp AT_MINSIGSTKSZ above a sigaltstack whose bottom is at `bottom`. */
static long ss_fit_one(uint32_t bottom, const struct x87_fsave *want)
{
	stack_t ss = { .ss_sp = (void *)bottom, .ss_size = SS_PAGE };
	struct x87_fsave got;
	long err = sys_sigaltstack(&ss, NULL);

	ss_bottom = bottom;
	ss_sp = bottom + ss_fit.minsigstksz;
	x87_init();
	x87_restore(want);
	if (err == 0)
		err = ss_kill_on(ss_sp, (int)sys_getpid(), SIGUSR1);
	x87_snapshot(&got);
	x87_init();
	if (!fpstate_equal(want, &got) && ss_fit.changed++ == 0) {
		ss_fit.want = *want;
		ss_fit.got = got;
	}
	return err;
}

static int ss_fit_child(int write_fd, void *arg)
{
	long m = ss_map(NULL, 3 * SS_PAGE, 0);
	stack_t small = { .ss_sp = (void *)m, .ss_size = MINSIGSTKSZ - 1 };
	struct x87_fsave want;
	long err = ss_failed(m) ? m : 0;

	(void)arg;
	fpstate_build(&want, &ss_state);
	ss_fit.minsigstksz = auxv_get(AT_MINSIGSTKSZ);
	ss_fit.small_err = sys_sigaltstack(&small, NULL);
	if (ss_fit.minsigstksz == 0 || ss_fit.minsigstksz > SS_PAGE)
		err = err ? err : -EINVAL;
	for (ss_kind = 0; ss_kind < 2 && err == 0; ss_kind++) {
		err = ss_install(ss_kind, ss_fit_rt, ss_fit_old);
		for (uint32_t off = 0; off < SS_OFFSETS && err == 0; off++)
			err = ss_fit_one((uint32_t)m + SS_PAGE + off, &want);
	}
	ss_fit.err = err;
	return proc_write(write_fd, &ss_fit, sizeof(ss_fit)) < 0;
}

static void ss_check_fit(struct ktap_check *check, const struct ss_fit *f)
{
	uint32_t worst = f->worst[0] > f->worst[1] ? f->worst[0] : f->worst[1];

	ktap_check_expect(check, f->minsigstksz % 16 == 0, "expected AT_MINSIGSTKSZ a multiple of "
			  "16, got %u", f->minsigstksz);
	ktap_check_expect(check, f->count[0] == SS_OFFSETS && f->count[1] == SS_OFFSETS,
			  "expected %u rt and %u old handlers, got %d and %d", SS_OFFSETS, SS_OFFSETS,
			  f->count[0], f->count[1]);
	ktap_check_expect(check, f->low == 0, "expected every frame above the sigaltstack's bottom, "
			  "%d were not", f->low);
	ktap_check_expect(check, worst < f->minsigstksz && f->minsigstksz < worst + SS_SLACK,
			  "expected AT_MINSIGSTKSZ %u above the largest frame, by less than %u, got the "
			  "largest %u (rt %u, old %u)", f->minsigstksz, SS_SLACK, worst, f->worst[0],
			  f->worst[1]);
	ktap_check_expect(check, f->small_err == -ENOMEM, "expected sigaltstack of MINSIGSTKSZ - 1 "
			  "bytes to fail with -ENOMEM, got %ld", f->small_err);
	ktap_check_expect(check, f->changed == 0, "expected the state back after each sigreturn, "
			  "%d deliveries changed it", f->changed);
	if (f->changed) {
		fpstate_note(check, "expected", &f->want);
		fpstate_note(check, "got", &f->got);
	}
}

static void ss_run_fit(struct ktap *subtests)
{
	struct ktap_check check;
	struct proc_child child;
	static struct ss_fit f;
	long err, status = -1, got = 0;

	f.err = -1;
	err = proc_start(&child, ss_fit_child, NULL);
	if (err == 0)
		status = proc_finish(&child, &f, sizeof(f), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == 0, "expected the child to exit 0, got wait status 0x%lx%s",
			  status, (status & 0x7f) == SIGSEGV ? " (a frame did not fit)" : "");
	ktap_check_expect(&check, got == (long)sizeof(f) && f.err == 0,
			  "expected a whole report without error, got %ld bytes, error %ld (AT_MINSIGSTKSZ "
			  "%u)", got, f.err, f.minsigstksz);
	if (got == (long)sizeof(f))
		ss_check_fit(&check, &f);
	ktap_check_end(subtests, &check, "minsigstksz");
}

static void sigstack_run(struct ktap *subtests)
{
	ktap_plan(subtests, ARRAY_SIZE(ss_cases) + ARRAY_SIZE(ss_caught_cases) + 1);
	for (unsigned int i = 0; i < ARRAY_SIZE(ss_cases); i++)
		ss_run_case(subtests, &ss_cases[i]);
	for (unsigned int i = 0; i < ARRAY_SIZE(ss_caught_cases); i++)
		ss_run_caught(subtests, &ss_caught_cases[i]);
	ss_run_fit(subtests);
}

GT_TEST("fpu_sigstack", 20, sigstack_run,
	GT_TAGS(GT_FUNC("get_sigframe"), GT_FUNC("fpu__alloc_mathframe"),
		GT_FUNC("copy_fpstate_to_sigframe"), GT_FUNC("init_sigframe_size"),
		GT_FUNC("handle_signal")),
	"a signal frame that cannot go where %esp says (kernel address, unmapped, an image "
	"reaching the kernel, a sigaltstack overflow) kills with SIGSEGV and runs no handler, "
	"and a SIGSEGV handler that catches it sees and gets back the x87 state as it was; "
	"a stack of AT_MINSIGSTKSZ bytes takes either frame");
