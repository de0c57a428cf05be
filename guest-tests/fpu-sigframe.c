/*
 * fpu_sigframe: both i386 signal frames, the rt frame of an SA_SIGINFO
 * handler and the old frame of a plain one (which returns through
 * sigreturn, syscall 119), carry the task's exact x87 state wherever they
 * land, and sigreturn loads exactly the state the handler left in them,
 * also when the kernel must fault the image's pages in to write or read it.
 *
 * Guards copy_fpstate_to_sigframe(), fpu__restore_sig(), __fpu_restore_sig()
 * and restore_fpregs_from_user() in arch/x86/kernel/fpu/signal.c, and
 * get_sigframe(), __setup_frame(), __setup_rt_frame() and both sigreturns
 * in arch/x86/kernel/signal.c.  The contract of 6.1 (6.12 is the same):
 *
 *   - the image is written straight to the user stack with page faults
 *     disabled (fnsave, fxsave); when that faults, on a page not present,
 *     the kernel clears the image, which faults the pages in, and writes
 *     again: a fresh sigaltstack, or one whose page was just replaced by a
 *     new mapping, gets the same image as a stack in use;
 *   - on FSAVE CPUs sigreturn loads the image straight from user memory
 *     (frstor) with page faults disabled, and on a not-present page faults
 *     it in (fault_in_readable()) and loads again: a page that comes back
 *     with its content (a shared file mapping) gives the state, not SIGSEGV;
 *   - the image is the fsave layout (cw, sw, tag, fip, fcs, foo, fos, eight
 *     registers), then `status` (the FSW) and `magic` (X86_FXSR_MAGIC, 0,
 *     in an FXSR frame; in an FSAVE one the upper half of the stored FSW);
 *     with FXSR (AT_HWCAP) the FXSR image follows, 64-byte aligned, with
 *     the same x87 state and MXCSR; an rt frame's uc_flags is UC_FP_XSTATE
 *     exactly when the kernel uses XSAVE; the image lies right above the
 *     frame and, on a stack the signal switched to, right below its top;
 *   - at sigreturn with FXSR the header's x87 state wins over the FXSR
 *     image's (convert_to_fxsr()); `status`, `magic` and, without XSAVE,
 *     sw_reserved are not read (with XSAVE a zero magic1 means "FXSR only").
 *
 * Each case runs in a child: it loads a known state (seven registers, one
 * empty; FCW 0x0f7f; C1, C3, PE), sends itself SIGUSR1, and the handler
 * records the frame, writes another state (eight registers, FCW 0x027f)
 * into its header, loads a state of its own and returns.  Subtests: `rt_*`
 * and `old_*` for each place of the frame: `stack` (the task's),
 * `altstack_fresh` (a sigaltstack mapped just before), `altstack_straddle`
 * (the image crosses into a page that a new mapping just replaced, the
 * page below it in use), `altstack_refault` (a MAP_SHARED file mapping; the
 * image on a page of its own, which the handler maps anew before it
 * returns, so sigreturn finds it not present); `scribble` (the handler
 * also writes status, magic, the FXSR image's x87 part and sw_reserved);
 * `nested_on_altstack` (an rt handler on the sigaltstack gets an old-frame
 * SIGUSR2 there) and `nested_to_altstack` (an old-frame handler on the
 * task's stack gets an rt SIGUSR2, which goes to the sigaltstack);
 * `rt_traced_*` and `old_traced_*`, `fresh` and `refault` again under a
 * tracer that stops the child at every syscall's entry and exit
 * (PTRACE_SYSCALL) and passes its signals on, so that the frame is built
 * and sigreturn runs with the registers not loaded (TIF_NEED_FPU_LOAD):
 * fpregs_restore_userregs() before the write, the load's own paths.  Each
 * checks that the handlers ran once, where the frames are, each frame's
 * image against the state at the signal (the pointers only where the CPU
 * keeps FIP through fnsave and frstor, not under QEMU's TCG), and the state
 * after each sigreturn against the state written.
 */
#include "rt/auxv.h"
#include "rt/cpu.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm-generic/fcntl.h>
#include <linux/mman.h>
#include <linux/ptrace.h>
#include <linux/signal.h>
#include <stdbool.h>
#include <stdint.h>

#define SF_PAGE 4096u
#define SF_PAGES 4u
#define SF_MAP_SIZE (SF_PAGES * SF_PAGE)
#define SF_FILE "/fpubench-sigframe"
#define SF_FXSR_OFFSET 112u	/* the FXSR image after the fsave header, status and magic */
#define SF_MXCSR_DEFAULT 0x1f80
#define SF_FSAVE_SIZE 112u	/* the fsave image, status and magic */
#define SF_FXSR_SIZE (112u + 512u)
/* i386's struct rt_sigframe: pretcode, sig, pinfo, puc, siginfo, ucontext (116), retcode. */
#define SF_RT_FRAME_SIZE 268u
/* struct sigframe: pretcode, sig, sigcontext, an unused _fpstate (624), extramask, retcode. */
#define SF_OLD_FRAME_SIZE 732u

enum sf_place {
	SF_STACK,	/* the task's own stack */
	SF_FRESH,	/* a sigaltstack mapped just before: no page present */
	SF_STRADDLE,	/* the image crosses into a page just mapped anew */
	SF_REFAULT,	/* a shared file mapping; the handler maps the image's pages anew */
};

struct sf_case {
	const char *name;
	bool old;		/* the outer handler takes the old frame */
	enum sf_place place;
	bool scribble;		/* the handler writes status, magic, FXSR x87 part, sw_reserved */
	bool nested;		/* a SIGUSR2 of the other frame, SA_ONSTACK, inside the handler */
	bool traced;		/* under PTRACE_SYSCALL: switched out at every syscall and signal */
};

static const struct sf_case sf_cases[] = {
	{ "rt_stack", false, SF_STACK, false, false, false },
	{ "old_stack", true, SF_STACK, false, false, false },
	{ "rt_scribble", false, SF_STACK, true, false, false },
	{ "old_scribble", true, SF_STACK, true, false, false },
	{ "rt_altstack_fresh", false, SF_FRESH, false, false, false },
	{ "old_altstack_fresh", true, SF_FRESH, false, false, false },
	{ "rt_altstack_straddle", false, SF_STRADDLE, false, false, false },
	{ "old_altstack_straddle", true, SF_STRADDLE, false, false, false },
	{ "rt_altstack_refault", false, SF_REFAULT, false, false, false },
	{ "old_altstack_refault", true, SF_REFAULT, false, false, false },
	{ "nested_on_altstack", false, SF_FRESH, false, true, false },
	{ "nested_to_altstack", true, SF_STACK, false, true, false },
	{ "rt_traced_fresh", false, SF_FRESH, false, false, true },
	{ "old_traced_fresh", true, SF_FRESH, false, false, true },
	{ "rt_traced_refault", false, SF_REFAULT, false, false, true },
	{ "old_traced_refault", true, SF_REFAULT, false, false, true },
};

#define SF_SPEC(cw_, sw_, values_) \
	{ .cw = (cw_), .sw_flags = (sw_), .count = ARRAY_SIZE(values_), .values = (values_) }

/* Before the signal. */
static const long double sf_task_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10, -1.5L,
					      0.125L, 3.0L, -7.25e300L };
static const struct fpstate_spec sf_task =
	SF_SPEC(0x0f7f, X87_SW_C1 | X87_SW_C3 | X87_SW_PE, sf_task_values);
/* What the handler writes into the outer frame. */
static const long double sf_written_values[] = { 1e-300L, -FPSTATE_PI, 42.0L, 0.75L,
						 -FPSTATE_E, 1e4000L, -2.5L, 65536.0L };
static const struct fpstate_spec sf_written =
	SF_SPEC(0x027f, X87_SW_C1 | X87_SW_PE | X87_SW_UE, sf_written_values);
/* The outer handler's, at the SIGUSR2. */
static const long double sf_outer_values[] = { 5.0L, -6.0L, 7.0L };
static const struct fpstate_spec sf_outer = SF_SPEC(0x0c7f, X87_SW_C3 | X87_SW_PE, sf_outer_values);
/* What the SIGUSR2 handler writes into its frame. */
static const long double sf_inner_values[] = { 0.5L, 1e100L, -3.0L, 9.0L, FPSTATE_PI };
static const struct fpstate_spec sf_inner = SF_SPEC(0x077f, X87_SW_C1 | X87_SW_PE, sf_inner_values);
/* Each handler's last, before it returns. */
static const long double sf_own_values[] = { FPSTATE_TEN_TO_10 };
static const struct fpstate_spec sf_own = SF_SPEC(0x037f, 0, sf_own_values);

/* What one handler saw. */
struct sf_level {
	int count;
	int uc_flags;		/* an rt frame's; -1 in an old one */
	uint32_t frame, fpstate;
	struct x87_fsave header;
	uint16_t status, magic;
	bool fxsr;
	uint32_t fx_env[2];	/* FCW | FSW << 16, abridged tag | opcode << 16 */
	uint32_t mxcsr;
	uint8_t fx_st[8][10];
	uint32_t sw_magic1, sw_xstate_size;	/* an FXSR image's sw_reserved */
};

/* What the child sends back. */
struct sf_report {
	long err;		/* setup, or a syscall in a handler; 0 */
	uint32_t alt_lo, alt_hi;	/* the sigaltstack, or 0 and 0 */
	struct sf_level level[2];	/* the SIGUSR1 handler's, the SIGUSR2 handler's */
	struct x87_fsave before, after;	/* around the SIGUSR1 */
	struct x87_fsave outer_at, outer_after;	/* around the SIGUSR2 */
};

/* The child's: one case per child, so plain statics. */
static const struct sf_case *sf_case;
static uint8_t *sf_map;
static int sf_fd = -1;
static uint32_t sf_drop_from;	/* SF_REFAULT: the handler maps this and above anew */
static bool sf_probe;		/* the handler only records where the image is */
static uint32_t sf_probe_fpstate;
static int sf_depth;
static struct sf_report sf_report;

static long sf_mmap(void *addr, uint32_t len, int flags, int fd, long offset)
{
	long r = sys_mmap(addr, len, PROT_READ | PROT_WRITE, flags, fd, offset);

	/* An address above 2 GiB is negative as a long: -4095..-1 are the errors. */
	return (unsigned long)r >= -4095ul ? r : 0;
}

/* Replaces [addr, end of the mapping) by a new mapping of the same memory: no page present. */
static long sf_remap(uint32_t addr)
{
	uint32_t off = addr - (uint32_t)sf_map;

	if (sf_fd >= 0)
		return sf_mmap((void *)addr, SF_MAP_SIZE - off, MAP_SHARED | MAP_FIXED, sf_fd, (long)off);
	return sf_mmap((void *)addr, SF_MAP_SIZE - off, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

static void sf_record(struct sf_level *l, const struct _fpstate *fp, uint32_t frame, int uc_flags)
{
	const uint8_t *fx = (const uint8_t *)fp + SF_FXSR_OFFSET;

	l->count++;
	l->uc_flags = uc_flags;
	l->frame = frame;
	l->fpstate = (uint32_t)fp;
	fpstate_from_frame(&l->header, fp);
	l->status = fp->status;
	l->magic = fp->magic;
	l->fxsr = x87_sigframe_is_fxsr(fp);
	if (!l->fxsr)
		return;
	fpstate_copy(l->fx_env, fx, sizeof(l->fx_env));
	fpstate_copy(&l->mxcsr, fx + 24, sizeof(l->mxcsr));
	l->sw_magic1 = fp->sw_reserved.magic1;
	l->sw_xstate_size = fp->sw_reserved.xstate_size;
	for (unsigned int i = 0; i < 8; i++)
		fpstate_copy(l->fx_st[i], fx + 32 + 16 * i, 10);
}

/* Writes `spec`'s state into the header, and the scribbles sigreturn must not read. */
static void sf_write(struct _fpstate *fp, const struct fpstate_spec *spec, bool fxsr)
{
	struct x87_fsave image;
	uint8_t *fx = (uint8_t *)fp + SF_FXSR_OFFSET;
	const uint32_t fx_env[2] = { 0xffff0000u, 0 };	/* all unmasked, all flags; all empty */

	fpstate_build(&image, spec);
	fpstate_copy(fp, &image.env, 12);	/* cw, sw, tag: not the pointers */
	fpstate_copy(fp->_st, image.st, sizeof(image.st));
	if (!sf_case->scribble)
		return;
	fp->status = 0x5a5a;
	fp->magic = 0xffff;	/* "FSAVE data only" */
	if (!fxsr)		/* above 112 bytes is the interrupted code's stack */
		return;
	fpstate_copy(fx, fx_env, sizeof(fx_env));
	for (unsigned int i = 0; i < 8 * 16; i++)
		fx[32 + i] = 0xa5;
	for (unsigned int i = 0; i < sizeof(fp->sw_reserved); i++)
		((uint8_t *)&fp->sw_reserved)[i] = 0;
}

static void sf_handle(struct _fpstate *fp, uint32_t frame, int uc_flags)
{
	struct sf_level *l = &sf_report.level[sf_depth];
	long err = 0;

	if (sf_probe) {
		sf_probe_fpstate = (uint32_t)fp;
		return;
	}
	sf_record(l, fp, frame, uc_flags);
	if (sf_depth++ == 0 && sf_case->nested) {
		fpstate_load(&sf_outer);
		x87_snapshot(&sf_report.outer_at);
		err = sys_kill((int)sys_getpid(), SIGUSR2);
		x87_snapshot(&sf_report.outer_after);
	}
	sf_write(fp, --sf_depth ? &sf_inner : &sf_written, l->fxsr);
	fpstate_load(&sf_own);
	if (sf_depth == 0 && sf_case->place == SF_REFAULT && err == 0)
		err = sf_remap(sf_drop_from);
	if (err && !sf_report.err)
		sf_report.err = err;
}

static void sf_handle_rt(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	sf_handle(uc->uc_mcontext.fpstate, signal_rt_frame(info), (int)uc->uc_flags);
}

static void sf_handle_old(int sig, struct sigcontext sc)
{
	(void)sig;
	sf_handle(sc.fpstate, signal_old_frame(&sc), -1);
}

static long sf_install(int sig, bool old, unsigned long flags)
{
	return old ? signal_set_old_action(sig, sf_handle_old, flags)
		   : signal_set_action_flags(sig, sf_handle_rt, flags);
}

static long sf_altstack(uint32_t top)
{
	stack_t ss = { .ss_sp = sf_map, .ss_flags = 0, .ss_size = top - (uint32_t)sf_map };

	sf_report.alt_lo = (uint32_t)sf_map;
	sf_report.alt_hi = top;
	return sys_sigaltstack(&ss, NULL);
}

/* The distance from a 64-byte aligned stack top down to the image, from one signal. */
static long sf_probe_depth(uint32_t *depth)
{
	uint32_t top = (uint32_t)sf_map + SF_MAP_SIZE;
	long err = sf_altstack(top);

	sf_probe = true;
	if (err == 0)
		err = sys_kill((int)sys_getpid(), SIGUSR1);
	sf_probe = false;
	*depth = top - sf_probe_fpstate;
	return err;
}

static long sf_map_stack(void)
{
	long r;

	if (sf_case->place == SF_REFAULT) {
		sf_fd = (int)sys_open(SF_FILE, O_RDWR | O_CREAT | O_TRUNC);
		if (sf_fd < 0)
			return sf_fd;
		sys_unlink(SF_FILE);	/* the mapping keeps it */
		r = sys_ftruncate(sf_fd, SF_MAP_SIZE);
		if (r == 0)
			r = sys_mmap(NULL, SF_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, sf_fd, 0);
	} else {
		r = sys_mmap(NULL, SF_MAP_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	sf_map = (uint8_t *)r;
	return (unsigned long)r >= -4095ul ? r : 0;
}

/* Maps the sigaltstack and places its top as the case says. */
static long sf_setup_stack(void)
{
	uint32_t depth = 0, page;
	long err;

	if (sf_case->place == SF_STACK && !sf_case->nested)
		return 0;
	err = sf_map_stack();
	if (err || sf_case->place == SF_FRESH || sf_case->place == SF_STACK)
		return err ? err : sf_altstack((uint32_t)sf_map + SF_MAP_SIZE);
	err = sf_probe_depth(&depth);
	if (err)
		return err;
	depth = (depth + 63) & ~63u;
	if (sf_case->place == SF_REFAULT) {
		/* The image from the start of a page on, the rest of the frame below it. */
		sf_drop_from = (uint32_t)sf_map + 2 * SF_PAGE;
		return sf_altstack(sf_drop_from + depth);
	}
	/* The image's first bytes on a page in use, the rest on a page mapped anew. */
	page = (uint32_t)sf_map + (SF_PAGES - 1) * SF_PAGE;
	for (uint32_t p = (uint32_t)sf_map; p < page; p += SF_PAGE)
		*(volatile uint8_t *)p = 0;
	err = sf_remap(page);
	return err ? err : sf_altstack(page + depth - 64);
}

static int sf_child(int write_fd, void *arg)
{
	long err = 0;

	sf_case = arg;
	if (sf_case->traced) {
		err = sys_ptrace(PTRACE_TRACEME, 0, 0, 0);
		sys_kill((int)sys_getpid(), SIGSTOP);	/* the tracer goes on with PTRACE_SYSCALL */
	}
	if (err == 0)
		err = sf_install(SIGUSR1, sf_case->old, sf_case->place == SF_STACK ? 0 : SA_ONSTACK);
	if (err == 0 && sf_case->nested)
		err = sf_install(SIGUSR2, !sf_case->old, SA_ONSTACK);
	if (err == 0)
		err = sf_setup_stack();
	if (err == 0) {
		fpstate_load(&sf_task);
		x87_snapshot(&sf_report.before);
		err = sys_kill((int)sys_getpid(), SIGUSR1);
		x87_snapshot(&sf_report.after);
		x87_init();
	}
	if (err && !sf_report.err)
		sf_report.err = err;
	return proc_write(write_fd, &sf_report, sizeof(sf_report)) < 0;
}

/* An FXSR frame's own image: the header's x87 state, and MXCSR untouched. */
static void sf_check_fxsr(struct ktap_check *check, const char *what, const struct sf_level *l)
{
	struct x87_fsave fx;
	uint8_t want_ftw = fpstate_abridged_tag(l->header.env.tag);
	struct cpu_info cpu;
	int reg;

	for (unsigned int i = 0; i < 8; i++)
		fpstate_copy(fx.st[i], l->fx_st[i], 10);
	reg = fpstate_first_st_difference(&l->header, &fx);
	ktap_check_expect(check, (uint16_t)l->fx_env[0] == (uint16_t)l->header.env.cw &&
			  (uint16_t)(l->fx_env[0] >> 16) == (uint16_t)l->header.env.sw,
			  "expected the %s's FXSR image FCW 0x%04x FSW 0x%04x, got 0x%04x 0x%04x",
			  what, (uint16_t)l->header.env.cw, (uint16_t)l->header.env.sw,
			  (uint16_t)l->fx_env[0], (uint16_t)(l->fx_env[0] >> 16));
	ktap_check_expect(check, (uint8_t)l->fx_env[1] == want_ftw,
			  "expected the %s's FXSR abridged tag 0x%02x, got 0x%02x", what, want_ftw,
			  (uint8_t)l->fx_env[1]);
	ktap_check_expect(check, reg < 0, "expected the %s's FXSR registers to be the header's, "
			  "st%d differs", what, reg);
	if (cpu_identify(&cpu) && (cpu.edx & CPU_EDX_SSE))
		ktap_check_expect(check, l->mxcsr == SF_MXCSR_DEFAULT,
				  "expected the %s's MXCSR 0x%04x (never changed), got 0x%08x", what,
				  SF_MXCSR_DEFAULT, l->mxcsr);
}

/* One handler's frame (`where`: "in the `what`"): its image is `want`, the state at the signal. */
static void sf_check_frame(struct ktap_check *check, const char *what, const char *where,
			   const struct sf_level *l, const struct x87_fsave *want, bool keeps_fip)
{
	bool want_fxsr = (auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR) != 0;
	struct cpu_info cpu;
	int want_uc_flags = cpu_identify(&cpu) && (cpu.ecx & CPU_ECX_OSXSAVE) ? UC_FP_XSTATE : 0;
	uint16_t want_magic = l->fxsr ? 0 : (uint16_t)(l->header.env.sw >> 16);
	int reg = fpstate_first_st_difference(want, &l->header);

	ktap_check_expect(check, l->count == 1, "expected the %s's handler to run once, it ran %d "
			  "times", what, l->count);
	if (l->count == 0)
		return;
	fpstate_check(check, where, want, &l->header);
	ktap_check_expect(check, reg < 0, "expected all eight registers %s, st%d differs", where,
			  reg);
	if (keeps_fip)
		ktap_check_expect(check, fpstate_pointers_equal(want, &l->header),
				  "expected the %s's FIP, FCS, opcode, FOO, FOS to be the CPU's", what);
	ktap_check_expect(check, l->status == (uint16_t)l->header.env.sw,
			  "expected the %s's status 0x%04x (its FSW), got 0x%04x", what,
			  (uint16_t)l->header.env.sw, l->status);
	ktap_check_expect(check, l->magic == want_magic, "expected the %s's magic 0x%04x, got 0x%04x",
			  what, want_magic, l->magic);
	ktap_check_expect(check, l->uc_flags < 0 || l->uc_flags == want_uc_flags,
			  "expected the %s's uc_flags 0x%x (UC_FP_XSTATE with XSAVE), got 0x%x", what,
			  want_uc_flags, l->uc_flags);
	ktap_check_expect(check, l->fxsr == want_fxsr, "expected an %s image in the %s (AT_HWCAP), "
			  "got the other", want_fxsr ? "FXSR" : "FSAVE", what);
	if (l->fxsr)
		sf_check_fxsr(check, what, l);
}

/*
 * One frame's layout (get_sigframe(), fpu__alloc_mathframe()): the handler
 * entered with (%esp + 4) a multiple of 16 (the i386 ABI), the image right
 * above the frame, 64-byte aligned (its FXSR part in an FXSR frame), and,
 * when the signal switched to a stack whose top is `top`, ending less than 64
 * bytes below it.
 */
static void sf_check_layout(struct ktap_check *check, const char *what, const struct sf_level *l,
			    uint32_t top)
{
	uint32_t frame_size = l->uc_flags < 0 ? SF_OLD_FRAME_SIZE : SF_RT_FRAME_SIZE;
	/* With XSAVE the xstate and FP_XSTATE_MAGIC2 (xstate_sigframe_size()). */
	uint32_t image = !l->fxsr ? SF_FSAVE_SIZE
			 : l->sw_magic1 == FP_XSTATE_MAGIC1 && l->sw_xstate_size > 512
			 ? SF_FXSR_OFFSET + l->sw_xstate_size + 4 : SF_FXSR_SIZE;
	uint32_t aligned = l->fpstate + (l->fxsr ? SF_FXSR_OFFSET : 0);

	if (l->count == 0)
		return;
	ktap_check_expect(check, (l->frame + 4) % 16 == 0, "expected the %s's handler to start with "
			  "(%%esp + 4) a multiple of 16, got %%esp 0x%08x", what, l->frame);
	ktap_check_expect(check, aligned % 64 == 0, "expected the %s's image 64-byte aligned, got "
			  "0x%08x", what, aligned);
	ktap_check_expect(check, l->fpstate - l->frame >= frame_size &&
			  l->fpstate - l->frame < frame_size + 16,
			  "expected the %s's image right above its %u bytes, got frame 0x%08x, image "
			  "0x%08x", what, frame_size, l->frame, l->fpstate);
	if (top)
		ktap_check_expect(check, top - l->fpstate >= image && top - l->fpstate < image + 64,
				  "expected the %s's %u-byte image less than 64 bytes below the stack's "
				  "top 0x%08x, got it at 0x%08x", what, image, top, l->fpstate);
}

static bool sf_on_altstack(const struct sf_report *r, uint32_t addr)
{
	return addr > r->alt_lo && addr < r->alt_hi;
}

/* Where the frames are: on the sigaltstack exactly when the signal switches or is nested there. */
static void sf_check_places(struct ktap_check *check, const struct sf_case *c,
			    const struct sf_report *r)
{
	bool outer_alt = c->place != SF_STACK;
	const struct sf_level *o = &r->level[0], *i = &r->level[1];

	ktap_check_expect(check, sf_on_altstack(r, o->frame) == outer_alt &&
			  sf_on_altstack(r, o->fpstate) == outer_alt,
			  "expected the frame %s the sigaltstack 0x%08x-0x%08x, got it at 0x%08x, image "
			  "at 0x%08x", outer_alt ? "on" : "off", r->alt_lo, r->alt_hi, o->frame,
			  o->fpstate);
	ktap_check_expect(check, o->fpstate > o->frame, "expected the image above the frame 0x%08x, "
			  "got 0x%08x", o->frame, o->fpstate);
	if (c->nested)
		ktap_check_expect(check, sf_on_altstack(r, i->frame) && i->fpstate > i->frame &&
				  (!outer_alt || i->fpstate < o->frame),
				  "expected the SIGUSR2 frame on the sigaltstack%s, got it at 0x%08x, image at "
				  "0x%08x", outer_alt ? " below the SIGUSR1 frame" : "", i->frame,
				  i->fpstate);
	sf_check_layout(check, "SIGUSR1 frame", o, outer_alt ? r->alt_hi : 0);
	if (c->nested)
		sf_check_layout(check, "SIGUSR2 frame", i, outer_alt ? 0 : r->alt_hi);
}

/*
 * Stops the tracee at every syscall's entry and exit and passes its
 * signals on, so that it is switched out at each: the kernel then builds
 * the frame and runs sigreturn with TIF_NEED_FPU_LOAD set.  Its wait status
 * at the end, or -errno.
 */
static long sf_trace(long pid)
{
	long status = proc_wait(pid), err = 0;
	int sig;

	if (status == (SIGSTOP << 8 | 0x7f))
		err = sys_ptrace(PTRACE_SETOPTIONS, (int)pid, 0, PTRACE_O_TRACESYSGOOD);
	while (err == 0 && status >= 0 && (status & 0xff) == 0x7f) {
		sig = (int)(status >> 8) & 0xff;
		err = sys_ptrace(PTRACE_SYSCALL, (int)pid, 0,
				 sig == (SIGTRAP | 0x80) || sig == SIGSTOP ? 0 : (unsigned long)sig);
		if (err == 0)
			status = proc_wait(pid);
	}
	return err ? err : status;
}

static long sf_start(const struct sf_case *c, struct sf_report *r, long *got)
{
	struct proc_child child;
	long status, err = proc_start(&child, sf_child, (void *)c);

	if (err)
		return err;
	if (!c->traced)
		return proc_finish(&child, r, sizeof(*r), got);
	/* The report fits the pipe's buffer: the tracee ends before it is read. */
	status = sf_trace(child.pid);
	*got = proc_read(child.read_fd, r, sizeof(*r));
	sys_close(child.read_fd);
	return status;
}

static void sf_run_case(struct ktap *subtests, const struct sf_case *c, bool keeps_fip)
{
	struct ktap_check check;
	static struct sf_report r;
	struct x87_fsave written, inner;
	long status, got = 0;

	r = (struct sf_report){ .err = -1 };
	status = sf_start(c, &r, &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, status == 0, "expected the child to exit 0, got wait status 0x%lx "
			  "(or error)", status);
	ktap_check_expect(&check, got == (long)sizeof(r) && r.err == 0,
			  "expected a whole report without error, got %ld bytes, error %ld", got, r.err);
	if (got == (long)sizeof(r)) {
		fpstate_build(&written, &sf_written);
		fpstate_build(&inner, &sf_inner);
		sf_check_places(&check, c, &r);
		sf_check_frame(&check, "SIGUSR1 frame", "in the SIGUSR1 frame", &r.level[0],
			       &r.before, keeps_fip);
		fpstate_check(&check, "after sigreturn", &written, &r.after);
		if (c->nested) {
			sf_check_frame(&check, "SIGUSR2 frame", "in the SIGUSR2 frame", &r.level[1],
				       &r.outer_at, keeps_fip);
			fpstate_check(&check, "in the SIGUSR1 handler after the SIGUSR2's sigreturn",
				      &inner, &r.outer_after);
		}
	}
	ktap_check_end(subtests, &check, c->name);
}

static void sigframe_run(struct ktap *subtests)
{
	uint32_t fadd;
	bool keeps_fip = x87_fip_after_save_restore(&fadd) == fadd;

	ktap_plan(subtests, ARRAY_SIZE(sf_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(sf_cases); i++)
		sf_run_case(subtests, &sf_cases[i], keeps_fip);
}

GT_TEST("fpu_sigframe", 20, sigframe_run,
	GT_TAGS(GT_FUNC("copy_fpstate_to_sigframe"), GT_FUNC("fpu__restore_sig"),
		GT_FUNC("__fpu_restore_sig"), GT_FUNC("restore_fpregs_from_user"),
		GT_FUNC("get_sigframe"), GT_FUNC("__setup_frame"), GT_FUNC("__setup_rt_frame")),
	"both i386 signal frames (rt and old, sigreturn) carry the exact x87 state on any "
	"stack, fresh or not-present sigaltstack pages included, and sigreturn loads exactly "
	"what the handler wrote");
