/*
 * fpu_sigregs: both i386 signal frames hold the interrupted task's exact
 * registers, segments, flags, signal mask and (rt) sigaltstack, the
 * handler starts with the registers the ABI gives it, and sigreturn loads
 * exactly what the handler left in the frame, within what user space may
 * set.
 *
 * Guards __setup_frame(), __setup_rt_frame(), __unsafe_setup_sigcontext(),
 * restore_sigcontext(), sys_sigreturn() and sys_rt_sigreturn() in
 * arch/x86/kernel/signal.c (with handle_signal()).  The contract of 6.1
 * (6.12 is the same):
 *
 *   - the sigcontext has %eax..%ebp, %esp (twice: sp and sp_at_signal),
 *     %eip, EFLAGS, cs, ss, ds, es, fs, gs as they were (after a syscall,
 *     %eax is its return value), `oldmask` the blocked signals 1-32, the old
 *     frame's `extramask` 33-64 and the rt frame's uc_sigmask all 64; the
 *     rt frame's siginfo is kill()'s (SI_USER, the sender's pid), its
 *     pinfo and puc point at it and at its ucontext, uc_link is
 *     0, uc_stack the sigaltstack as it was (SS_AUTODISARM then disables it
 *     in the handler); each frame ends with the historic return code gdb
 *     looks for (popl %eax; movl $119, %eax; int $0x80, and movl $173, %eax;
 *     int $0x80); an FXSR image's sw_reserved, without XSAVE, says
 *     FP_XSTATE_MAGIC1, 512 bytes, 628 with MAGIC2 and the header;
 *   - the frame's return address is sa_restorer with SA_RESTORER, else the
 *     vDSO's __kernel_sigreturn or __kernel_rt_sigreturn;
 *   - the handler starts with %eax the signal, and %edx, %ecx &info and &uc
 *     (rt) or 0 (old), DF clear;
 *   - sigreturn loads the general registers and %eip as written, MXCSR and
 *     the xmm registers from the FXSR image (its x87 part is not read), and from
 *     EFLAGS only the flags user space may set (FIX_EFLAGS: CF, PF, AF, ZF,
 *     SF, TF, DF, OF, AC, RF; never IF or IOPL), forces RPL 3 on cs and ss,
 *     returns the written %eax to the interrupted code, sets the blocked
 *     mask as written (never SIGKILL or SIGSTOP), and rt_sigreturn the
 *     sigaltstack from uc_stack.
 *
 * Each case in a child: with SIGUSR2 and signal 34 blocked (and, for the
 * rt frame, a sigaltstack the signal does not switch to), assembly loads
 * known values into %edx, %esi, %edi, %ebp, null selectors into ds, es,
 * fs and gs (the handler must start with ds and es __USER_DS), sets CF
 * and DF and calls
 * kill(getpid(), SIGUSR1) with int $0x80; a trampoline records the
 * handler's entry registers, EFLAGS, ds and es, the handler the frame.  `*_frame`:
 * the frame and the entry as above, and after the handler returns the
 * registers, flags and mask as they were.  `*_edited`: the handler writes
 * other general registers, %eip past one instruction, EFLAGS with ZF set,
 * DF, IF clear and IOPL 3, cs and ss with RPL 0, ds, es, fs and gs
 * __USER_DS, (where AT_HWCAP has SSE) MXCSR and xmm0..xmm7 into the FXSR
 * image, a mask with SIGALRM,
 * signal 40, SIGKILL and SIGSTOP, and (rt, on an SS_AUTODISARM sigaltstack)
 * another sigaltstack: those come back as the contract says.
 * `*_pending_at_sigreturn`: the same with %eax written -ERESTARTSYS, and a
 * SIGUSR2 raised in the handler (blocked there, not in the mask written),
 * so that it arrives as sigreturn returns: restore_sigcontext() set
 * orig_ax to -1, so nothing takes the interrupted code for a syscall to
 * restart: the SIGUSR2 frame has the %eip written and -ERESTARTSYS, and
 * so has the code after both sigreturns.
 * `*_vdso_restorer`: installed without SA_RESTORER, the frame returns
 * through the vDSO and the registers come back.
 */
#include "rt/auxv.h"
#include "rt/cpu.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/signal.h"
#include "rt/sse.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <linux/mman.h>
#include <linux/signal.h>
#include <stdbool.h>
#include <stdint.h>

#define STRINGIFY(x) STRINGIFY_(x)
#define STRINGIFY_(x) #x

/* sr_in and sr_out, by byte offset: what the assembly loads and what it found after. */
#define SR_AX 0
#define SR_BX 4
#define SR_CX 8
#define SR_DX 12
#define SR_SI 16
#define SR_DI 20
#define SR_BP 24
#define SR_SP 28
#define SR_FLAGS 32
#define SR_FS 36
#define SR_GS 40
#define SR_DS 44
#define SR_ES 48
#define SR_WORDS 13
#define SR_R(off) ((off) / 4)

#define SR_CF 0x0001u
#define SR_ZF 0x0040u
#define SR_IF 0x0200u
#define SR_DF 0x0400u
#define SR_IOPL 0x3000u
#define SR_USER_CS 0x73u	/* __USER_CS of i386 */
#define SR_USER_DS 0x7bu	/* __USER_DS */
#define SR_ALT_SIZE 8192u
#define SR_RT_RETCODE 260u	/* pretcode, sig, pinfo, puc, siginfo (128), ucontext (116) */
#define SR_OLD_EXTRAMASK 720u	/* pretcode, sig, sigcontext (88), an unused _fpstate (624) */
#define SR_OLD_RETCODE 724u
#define SR_VDSO_SPAN 0x4000u	/* the vDSO's text is within its first pages */
#define SR_BIT(sig) (1ull << ((sig) - 1))
#define SR_FXSR_OFFSET 112u	/* the FXSR image after the fsave header, status and magic */
#define SR_MXCSR_WRITTEN 0x3f80	/* all masked, round down */
#define SR_ERESTARTSYS 0xfffffe00u	/* -512, the kernel's "restart the syscall" */

uint32_t sr_in[SR_WORDS], sr_out[SR_WORDS], sr_entry[6], sr_skipped;
void sr_signal_self(void);
void sr_after_int(void);
void sr_landing(void);
void sr_entry_rt(void);
void sr_entry_old(void);
void sr_handle_rt(int sig, siginfo_t *info, void *ucontext);
void sr_handle_old(int sig, struct sigcontext sc);

/*
 * kill(getpid(), SIGUSR1) from known registers, ds, es, fs and gs null, CF
 * and DF set; then what the registers are where the interrupted code goes
 * on (sr_after_int, or sr_landing when the handler moved %eip past the
 * store to sr_skipped), read through ss, the one data segment surely set,
 * before the caller's segments come back.
 */
#define SR_OUT(off) "%ss:sr_out+" STRINGIFY(off)
__asm__(".text\n"
	".globl sr_signal_self\n"
	"sr_signal_self:\n"
	"	pushl %ebp\n	pushl %ebx\n	pushl %esi\n	pushl %edi\n"
	"	pushl %ds\n	pushl %es\n	pushl %fs\n	pushl %gs\n"
	"	movl sr_in+" STRINGIFY(SR_BX) ", %ebx\n"
	"	movl sr_in+" STRINGIFY(SR_CX) ", %ecx\n"
	"	movl sr_in+" STRINGIFY(SR_DX) ", %edx\n"
	"	movl sr_in+" STRINGIFY(SR_SI) ", %esi\n"
	"	movl sr_in+" STRINGIFY(SR_DI) ", %edi\n"
	"	movl sr_in+" STRINGIFY(SR_BP) ", %ebp\n"
	"	movl %esp, sr_in+" STRINGIFY(SR_SP) "\n"
	"	xorl %eax, %eax\n"
	"	movw %ax, %fs\n	movw %ax, %gs\n	movw %ax, %es\n	movw %ax, %ds\n"
	"	movl $" STRINGIFY(__NR_kill) ", %eax\n"
	"	stc\n	std\n"
	"	int $0x80\n"
	".globl sr_after_int\n"
	"sr_after_int:\n"
	"	movl $1, %ss:sr_skipped\n"
	".globl sr_landing\n"
	"sr_landing:\n"
	"	movl %eax, " SR_OUT(SR_AX) "\n"
	"	pushfl\n	popl " SR_OUT(SR_FLAGS) "\n	cld\n"
	"	xorl %eax, %eax\n"
	"	movw %ds, %ax\n	movl %eax, " SR_OUT(SR_DS) "\n"
	"	movw %es, %ax\n	movl %eax, " SR_OUT(SR_ES) "\n"
	"	movw %fs, %ax\n	movl %eax, " SR_OUT(SR_FS) "\n"
	"	movw %gs, %ax\n	movl %eax, " SR_OUT(SR_GS) "\n"
	"	movl %ebx, " SR_OUT(SR_BX) "\n"
	"	movl %ecx, " SR_OUT(SR_CX) "\n"
	"	movl %edx, " SR_OUT(SR_DX) "\n"
	"	movl %esi, " SR_OUT(SR_SI) "\n"
	"	movl %edi, " SR_OUT(SR_DI) "\n"
	"	movl %ebp, " SR_OUT(SR_BP) "\n"
	"	movl %esp, " SR_OUT(SR_SP) "\n"
	"	popl %gs\n	popl %fs\n	popl %es\n	popl %ds\n"
	"	popl %edi\n	popl %esi\n	popl %ebx\n	popl %ebp\n"
	"	ret\n"
	/* The handlers' entry: %eax, %edx, %ecx, EFLAGS, ds and es as the kernel left them. */
	".globl sr_entry_rt\n"
	"sr_entry_rt:\n"
	"	call sr_entry_record\n"
	"	jmp sr_handle_rt\n"
	".globl sr_entry_old\n"
	"sr_entry_old:\n"
	"	call sr_entry_record\n"
	"	jmp sr_handle_old\n"
	"sr_entry_record:\n"
	"	pushfl\n	popl %ss:sr_entry+12\n"
	"	movl %eax, %ss:sr_entry\n	movl %edx, %ss:sr_entry+4\n	movl %ecx, %ss:sr_entry+8\n"
	"	pushl %eax\n	xorl %eax, %eax\n"
	"	movw %ds, %ax\n	movl %eax, %ss:sr_entry+16\n"
	"	movw %es, %ax\n	movl %eax, %ss:sr_entry+20\n"
	"	popl %eax\n"
	"	ret\n");

struct sr_case {
	const char *name;
	bool old;
	bool edit;
	bool restorer;		/* SA_RESTORER */
	bool pending;		/* edit: %eax -ERESTARTSYS, and a SIGUSR2 pending at sigreturn */
};

static const struct sr_case sr_cases[] = {
	{ "rt_frame", false, false, true, false },
	{ "old_frame", true, false, true, false },
	{ "rt_edited", false, true, true, false },
	{ "old_edited", true, true, true, false },
	{ "rt_pending_at_sigreturn", false, true, true, true },
	{ "old_pending_at_sigreturn", true, true, true, true },
	{ "rt_vdso_restorer", false, false, false, false },
	{ "old_vdso_restorer", true, false, false, false },
};

/* What the handler wrote. */
static const uint32_t sr_written[SR_WORDS] = {
	[SR_R(SR_AX)] = 0x5a5a1234, [SR_R(SR_BX)] = 0x0b0b0b0b, [SR_R(SR_CX)] = 0x0c0c0c0c,
	[SR_R(SR_DX)] = 0x0d0d0d0d, [SR_R(SR_SI)] = 0x51515151, [SR_R(SR_DI)] = 0xd1d1d1d1,
	[SR_R(SR_BP)] = 0xb0b0b0b0,
};
static const unsigned long long sr_blocked = SR_BIT(SIGUSR2) | SR_BIT(34);
static const unsigned long long sr_mask_written = SR_BIT(SIGALRM) | SR_BIT(SIGKILL) | SR_BIT(SIGSTOP) |
					 SR_BIT(40);

/* What the child sends back. */
struct sr_report {
	long err;
	int count;
	uint32_t in[SR_WORDS], out[SR_WORDS], entry[6], skipped;
	uint32_t pretcode, sig, pinfo, puc, info, uc;	/* pinfo.. rt only */
	int info_signo, info_code, info_pid;		/* rt: the siginfo's */
	uint8_t retcode[8];
	struct sigcontext sc;
	unsigned long long mask, mask_after;
	uint32_t uc_link;
	stack_t uc_stack, during, alt, alt2, alt_after;
	uint32_t frame, vdso;
	bool fxsr_image;		/* the frame's FPU image has an FXSR part */
	struct _fpx_sw_bytes sw;	/* its sw_reserved */
	bool sse;			/* AT_HWCAP: FXSR and SSE */
	struct sse_state sse_before, sse_written, sse_after;
	int usr2_count;			/* the SIGUSR2 handler's: runs, and its frame's %eip, %eax */
	uint32_t usr2_eip, usr2_eax;
};

static const struct sr_case *sr_case;
static struct sr_report sr_report;

static void sr_record(uint32_t frame, const struct sigcontext *sc, unsigned long long mask,
		      uint32_t retcode)
{
	sr_report.count++;
	fpstate_copy(sr_report.entry, sr_entry, sizeof(sr_entry));
	sr_report.frame = frame;
	sr_report.pretcode = *(const uint32_t *)frame;
	sr_report.sig = *(const uint32_t *)(frame + 4);
	fpstate_copy(sr_report.retcode, (const void *)(frame + retcode), 8);
	sr_report.sc = *sc;
	sr_report.mask = mask;
	sr_report.fxsr_image = x87_sigframe_is_fxsr(sc->fpstate);
	if (sr_report.fxsr_image)
		sr_report.sw = sc->fpstate->sw_reserved;
	sys_sigaltstack(NULL, &sr_report.during);
}

/* The edits every frame gets: registers, %eip, EFLAGS, cs and ss. */
static void sr_edit(volatile struct sigcontext *sc)
{
	sc->eax = sr_case->pending ? SR_ERESTARTSYS : sr_written[SR_R(SR_AX)];
	sc->ebx = sr_written[SR_R(SR_BX)];
	sc->ecx = sr_written[SR_R(SR_CX)];
	sc->edx = sr_written[SR_R(SR_DX)];
	sc->esi = sr_written[SR_R(SR_SI)];
	sc->edi = sr_written[SR_R(SR_DI)];
	sc->ebp = sr_written[SR_R(SR_BP)];
	sc->eip = (uint32_t)sr_landing;
	sc->eflags = (sc->eflags | SR_ZF | SR_IOPL) & ~(SR_DF | SR_IF);
	sc->cs = SR_USER_CS & ~3u;
	sc->ss = SR_USER_DS & ~3u;
	sc->ds = SR_USER_DS;
	sc->es = SR_USER_DS;
	sc->fs = SR_USER_DS;
	sc->gs = SR_USER_DS;
}

/* MXCSR and xmm0..xmm7 into the FXSR image, which a 32-bit sigreturn takes them from. */
static void sr_edit_sse(struct _fpstate *fp)
{
	uint8_t *fx = (uint8_t *)fp + SR_FXSR_OFFSET;

	if (!sr_report.sse || !sr_report.fxsr_image)
		return;
	fpstate_copy(fx + 24, &sr_report.sse_written.mxcsr, 4);
	fpstate_copy(fx + 160, sr_report.sse_written.xmm, sizeof(sr_report.sse_written.xmm));
}

/* At the sigreturn of a `pending` case: what it interrupted. */
static void sr_handle_usr2(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	sr_report.usr2_count++;
	sr_report.usr2_eip = uc->uc_mcontext.eip;
	sr_report.usr2_eax = uc->uc_mcontext.eax;
}

void sr_handle_rt(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;
	uint32_t frame = signal_rt_frame(info);

	unsigned long long mask;

	(void)sig;
	/* The kernel's uc_sigmask has all 64 bits; <asm/signal.h>'s sigset_t only the first 32. */
	fpstate_copy(&mask, &uc->uc_sigmask, sizeof(mask));
	sr_record(frame, &uc->uc_mcontext, mask, SR_RT_RETCODE);
	sr_report.pinfo = *(const uint32_t *)(frame + 8);
	sr_report.puc = *(const uint32_t *)(frame + 12);
	sr_report.info = (uint32_t)info;
	sr_report.info_signo = info->si_signo;
	sr_report.info_code = info->si_code;
	sr_report.info_pid = info->si_pid;
	sr_report.uc = (uint32_t)uc;
	sr_report.uc_link = (uint32_t)uc->uc_link;
	sr_report.uc_stack = uc->uc_stack;
	if (!sr_case->edit)
		return;
	sr_edit((volatile struct sigcontext *)&uc->uc_mcontext);
	sr_edit_sse(uc->uc_mcontext.fpstate);
	if (sr_case->pending)	/* blocked (sr_blocked) until the mask written comes in */
		sys_kill((int)sys_getpid(), SIGUSR2);
	fpstate_copy(&uc->uc_sigmask, &sr_mask_written, sizeof(sr_mask_written));
	*(volatile stack_t *)&uc->uc_stack = sr_report.alt2;
}

void sr_handle_old(int sig, struct sigcontext sc)
{
	uint32_t frame = signal_old_frame(&sc);
	volatile uint32_t *extramask = (volatile uint32_t *)(frame + SR_OLD_EXTRAMASK);
	volatile struct sigcontext *scp = (volatile struct sigcontext *)(frame + 8);

	(void)sig;
	sr_record(frame, &sc, sc.oldmask | (unsigned long long)*extramask << 32, SR_OLD_RETCODE);
	if (!sr_case->edit)
		return;
	sr_edit(scp);
	sr_edit_sse(sc.fpstate);
	if (sr_case->pending)
		sys_kill((int)sys_getpid(), SIGUSR2);
	scp->oldmask = (uint32_t)sr_mask_written;
	*extramask = (uint32_t)(sr_mask_written >> 32);
}

static long sr_setup(const struct sr_case *c)
{
	long m = sys_mmap(NULL, 2 * SR_ALT_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long flags = (c->old ? 0 : SA_SIGINFO) | (c->restorer ? SA_RESTORER : 0);
	long err;

	if ((unsigned long)m >= -4095ul)
		return m;
	sr_report.alt = (stack_t){ .ss_sp = (void *)m, .ss_size = SR_ALT_SIZE,
				   .ss_flags = c->edit ? SS_AUTODISARM : 0 };
	sr_report.alt2 = (stack_t){ .ss_sp = (void *)(m + SR_ALT_SIZE), .ss_size = SR_ALT_SIZE / 2 };
	err = sys_sigaltstack(&sr_report.alt, NULL);
	if (err == 0)
		err = signal_set_raw(SIGUSR1, c->old ? sr_entry_old : sr_entry_rt, flags,
				     c->old ? signal_old_restorer : signal_restorer);
	if (err == 0 && c->pending)
		err = signal_set_action(SIGUSR2, sr_handle_usr2);
	if (err == 0)
		err = sys_rt_sigprocmask(SIG_SETMASK, &sr_blocked, NULL);
	return err;
}

static int sr_child(int write_fd, void *arg)
{
	long err;

	sr_case = arg;
	err = sr_setup(sr_case);
	sr_in[SR_R(SR_BX)] = (uint32_t)sys_getpid();
	sr_in[SR_R(SR_CX)] = SIGUSR1;
	sr_in[SR_R(SR_DX)] = 0x1d1d1d1d;
	sr_in[SR_R(SR_SI)] = 0x5e5e5e5e;
	sr_in[SR_R(SR_DI)] = 0xd0d0d0d0;
	sr_in[SR_R(SR_BP)] = 0xbebebebe;
	sr_report.sse = sse_enabled();
	if (sr_report.sse) {
		sse_make(&sr_report.sse_before, 0x10, SSE_MXCSR_DEFAULT);
		sse_make(&sr_report.sse_written, 0x60, SR_MXCSR_WRITTEN);
		sse_load(&sr_report.sse_before);
	}
	if (err == 0)
		sr_signal_self();
	if (sr_report.sse)
		sse_store(&sr_report.sse_after);
	if (err == 0)
		err = sys_rt_sigprocmask(SIG_BLOCK, NULL, &sr_report.mask_after);
	if (err == 0)
		err = sys_sigaltstack(NULL, &sr_report.alt_after);
	sr_report.err = err;
	fpstate_copy(sr_report.in, sr_in, sizeof(sr_in));
	fpstate_copy(sr_report.out, sr_out, sizeof(sr_out));
	sr_report.skipped = sr_skipped;
	sr_report.vdso = auxv_get(AT_SYSINFO_EHDR);
	return proc_write(write_fd, &sr_report, sizeof(sr_report)) < 0;
}

#define SR_EXPECT_U32(check, what, want, got) \
	ktap_check_expect(check, (uint32_t)(want) == (uint32_t)(got), "expected %s 0x%08x, got 0x%08x", \
			  what, (uint32_t)(want), (uint32_t)(got))

static bool sr_same_stack(const stack_t *a, const stack_t *b)
{
	return a->ss_sp == b->ss_sp && a->ss_flags == b->ss_flags && a->ss_size == b->ss_size;
}

/*
 * An FXSR image's sw_reserved without XSAVE (save_sw_bytes()): FP_XSTATE_MAGIC1,
 * xstate_size the 512-byte image, extended_size that, FP_XSTATE_MAGIC2's 4
 * bytes and the 112-byte fsave header.  (xfeatures is user_xfeatures, which
 * 6.1 leaves 0 without XSAVE: not a value to hold it to.)
 */
static void sr_check_sw_bytes(struct ktap_check *check, const struct sr_report *r)
{
	struct cpu_info cpu;

	if (!r->fxsr_image || (cpu_identify(&cpu) && (cpu.ecx & CPU_ECX_OSXSAVE)))
		return;
	SR_EXPECT_U32(check, "sw_reserved magic1", FP_XSTATE_MAGIC1, r->sw.magic1);
	SR_EXPECT_U32(check, "sw_reserved xstate_size", 512, r->sw.xstate_size);
	SR_EXPECT_U32(check, "sw_reserved extended_size", 512 + 4 + 112, r->sw.extended_size);
}

/* The frame as the handler found it, and the handler's entry. */
static void sr_check_frame(struct ktap_check *check, const struct sr_case *c,
			   const struct sr_report *r)
{
	static const uint8_t old_code[8] = { 0x58, 0xb8, 119, 0, 0, 0, 0xcd, 0x80 };
	static const uint8_t rt_code[8] = { 0xb8, 173, 0, 0, 0, 0xcd, 0x80, 0 };
	const struct sigcontext *sc = &r->sc;

	SR_EXPECT_U32(check, "the frame's %eax (kill's return)", 0, sc->eax);
	SR_EXPECT_U32(check, "the frame's %ebx", r->in[SR_R(SR_BX)], sc->ebx);
	SR_EXPECT_U32(check, "the frame's %ecx", r->in[SR_R(SR_CX)], sc->ecx);
	SR_EXPECT_U32(check, "the frame's %edx", r->in[SR_R(SR_DX)], sc->edx);
	SR_EXPECT_U32(check, "the frame's %esi", r->in[SR_R(SR_SI)], sc->esi);
	SR_EXPECT_U32(check, "the frame's %edi", r->in[SR_R(SR_DI)], sc->edi);
	SR_EXPECT_U32(check, "the frame's %ebp", r->in[SR_R(SR_BP)], sc->ebp);
	SR_EXPECT_U32(check, "the frame's %esp", r->in[SR_R(SR_SP)], sc->esp);
	SR_EXPECT_U32(check, "the frame's sp_at_signal", r->in[SR_R(SR_SP)], sc->esp_at_signal);
	SR_EXPECT_U32(check, "the frame's %eip", (uint32_t)sr_after_int, sc->eip);
	SR_EXPECT_U32(check, "the frame's EFLAGS & (CF|IF|DF)", SR_CF | SR_IF | SR_DF,
		      sc->eflags & (SR_CF | SR_IF | SR_DF));
	SR_EXPECT_U32(check, "the frame's cs", SR_USER_CS, sc->cs);
	SR_EXPECT_U32(check, "the frame's ss", SR_USER_DS, sc->ss);
	SR_EXPECT_U32(check, "the frame's ds (null)", 0, sc->ds);
	SR_EXPECT_U32(check, "the frame's es (null)", 0, sc->es);
	SR_EXPECT_U32(check, "the frame's fs (null)", 0, sc->fs);
	SR_EXPECT_U32(check, "the frame's gs (null)", 0, sc->gs);
	SR_EXPECT_U32(check, "ds at the handler's entry", SR_USER_DS, r->entry[4]);
	SR_EXPECT_U32(check, "es at the handler's entry", SR_USER_DS, r->entry[5]);
	SR_EXPECT_U32(check, "the frame's blocked signals 1-32", (uint32_t)sr_blocked, r->mask);
	SR_EXPECT_U32(check, "the frame's blocked signals 33-64", (uint32_t)(sr_blocked >> 32),
		      r->mask >> 32);
	SR_EXPECT_U32(check, "the frame's signal number", SIGUSR1, r->sig);
	SR_EXPECT_U32(check, "%eax at the handler's entry", SIGUSR1, r->entry[0]);
	SR_EXPECT_U32(check, "%edx at the handler's entry", c->old ? 0 : r->info, r->entry[1]);
	SR_EXPECT_U32(check, "%ecx at the handler's entry", c->old ? 0 : r->uc, r->entry[2]);
	SR_EXPECT_U32(check, "DF at the handler's entry", 0, r->entry[3] & SR_DF);
	ktap_check_expect(check, ptrace_same_bytes(r->retcode, c->old ? old_code : rt_code, 8),
			  "expected the frame's return code %s, got %02x %02x %02x %02x %02x %02x "
			  "%02x %02x", c->old ? "58 b8 77 00 00 00 cd 80" : "b8 ad 00 00 00 cd 80 00",
			  r->retcode[0], r->retcode[1], r->retcode[2], r->retcode[3], r->retcode[4],
			  r->retcode[5], r->retcode[6], r->retcode[7]);
	if (c->restorer)
		SR_EXPECT_U32(check, "the frame's return address (sa_restorer)",
			      c->old ? (uint32_t)signal_old_restorer : (uint32_t)signal_restorer,
			      r->pretcode);
	else
		ktap_check_expect(check, r->vdso && r->pretcode - r->vdso < SR_VDSO_SPAN,
				  "expected the frame's return address in the vDSO at 0x%08x, got "
				  "0x%08x", r->vdso, r->pretcode);
	sr_check_sw_bytes(check, r);
	if (c->old)
		return;
	SR_EXPECT_U32(check, "the frame's pinfo", r->info, r->pinfo);
	ktap_check_expect(check, r->info_signo == SIGUSR1 && r->info_code == SI_USER &&
			  r->info_pid == (int)r->in[SR_R(SR_BX)], "expected the siginfo of kill(): "
			  "signo %d, code %d (SI_USER), pid %u, got %d, %d, %d", SIGUSR1, SI_USER,
			  r->in[SR_R(SR_BX)], r->info_signo, r->info_code, r->info_pid);
	SR_EXPECT_U32(check, "the frame's puc", r->uc, r->puc);
	SR_EXPECT_U32(check, "uc_link", 0, r->uc_link);
	ktap_check_expect(check, sr_same_stack(&r->alt, &r->uc_stack), "expected uc_stack "
			  "0x%08x flags 0x%x size %u, got 0x%08x 0x%x %u", (uint32_t)r->alt.ss_sp,
			  (uint32_t)r->alt.ss_flags, (unsigned int)r->alt.ss_size,
			  (uint32_t)r->uc_stack.ss_sp, (uint32_t)r->uc_stack.ss_flags,
			  (unsigned int)r->uc_stack.ss_size);
	ktap_check_expect(check, (r->during.ss_flags == SS_DISABLE) == c->edit,
			  "expected the handler's sigaltstack %s (SS_AUTODISARM %s), got flags 0x%x",
			  c->edit ? "disabled" : "kept", c->edit ? "set" : "not set",
			  (uint32_t)r->during.ss_flags);
}

/* Where the interrupted code went on, its registers, flags, mask and sigaltstack. */
static void sr_check_after(struct ktap_check *check, const struct sr_case *c,
			   const struct sr_report *r)
{
	const uint32_t *want = c->edit ? sr_written : r->in;
	unsigned long long mask = c->edit ? sr_mask_written & ~(SR_BIT(SIGKILL) | SR_BIT(SIGSTOP)) : sr_blocked;
	const stack_t *alt = c->edit ? &r->alt2 : &r->alt;
	uint32_t shown = SR_CF | SR_ZF | SR_IF | SR_DF | SR_IOPL;
	uint32_t flags = c->edit ? SR_CF | SR_ZF | SR_IF : r->sc.eflags & shown;

	if (c->pending) {
		SR_EXPECT_U32(check, "SIGUSR2 handlers run (at sigreturn)", 1, r->usr2_count);
		SR_EXPECT_U32(check, "the SIGUSR2 frame's %eip (no syscall to restart)",
			      (uint32_t)sr_landing, r->usr2_eip);
		SR_EXPECT_U32(check, "the SIGUSR2 frame's %eax", SR_ERESTARTSYS, r->usr2_eax);
	}
	SR_EXPECT_U32(check, "%eax after sigreturn",
		      c->pending ? SR_ERESTARTSYS : c->edit ? want[SR_R(SR_AX)] : 0,
		      r->out[SR_R(SR_AX)]);
	for (unsigned int i = SR_R(SR_BX); i <= SR_R(SR_BP); i++)
		ktap_check_expect(check, r->out[i] == want[i], "expected register %u (%%eax, "
				  "%%ebx, ...) 0x%08x after sigreturn, got 0x%08x", i, want[i],
				  r->out[i]);
	SR_EXPECT_U32(check, "%esp after sigreturn", r->in[SR_R(SR_SP)], r->out[SR_R(SR_SP)]);
	for (unsigned int i = SR_R(SR_FS); i <= SR_R(SR_ES); i++)
		ktap_check_expect(check, r->out[i] == (c->edit ? SR_USER_DS : 0), "expected "
				  "segment %u (fs, gs, ds, es) 0x%x after sigreturn, got 0x%x",
				  i - SR_R(SR_FS), c->edit ? SR_USER_DS : 0, r->out[i]);
	SR_EXPECT_U32(check, "the store at the interrupted %eip run (1), or skipped (0)",
		      !c->edit, r->skipped);
	SR_EXPECT_U32(check, "EFLAGS & (CF|ZF|IF|DF|IOPL) after sigreturn", flags,
		      r->out[SR_R(SR_FLAGS)] & shown);
	SR_EXPECT_U32(check, "the blocked signals 1-32 after sigreturn", (uint32_t)mask,
		      r->mask_after);
	SR_EXPECT_U32(check, "the blocked signals 33-64 after sigreturn", (uint32_t)(mask >> 32),
		      r->mask_after >> 32);
	if (r->sse)
		ktap_check_expect(check, sse_equal(c->edit ? &r->sse_written : &r->sse_before,
						   &r->sse_after),
				  "expected MXCSR 0x%04x and xmm0..xmm7 %s after sigreturn, got MXCSR "
				  "0x%04x", c->edit ? SR_MXCSR_WRITTEN : SSE_MXCSR_DEFAULT,
				  c->edit ? "as written into the FXSR image" : "as they were",
				  r->sse_after.mxcsr);
	if (c->old)
		return;
	ktap_check_expect(check, sr_same_stack(alt, &r->alt_after), "expected the sigaltstack "
			  "0x%08x flags 0x%x size %u after rt_sigreturn, got 0x%08x 0x%x %u",
			  (uint32_t)alt->ss_sp, (uint32_t)alt->ss_flags, (unsigned int)alt->ss_size,
			  (uint32_t)r->alt_after.ss_sp, (uint32_t)r->alt_after.ss_flags,
			  (unsigned int)r->alt_after.ss_size);
}

static void sr_run_case(struct ktap *subtests, const struct sr_case *c)
{
	static struct sr_report r;
	struct proc_child child;
	struct ktap_check check;
	long err, status = -1, got = 0;

	r = (struct sr_report){ .err = -1 };
	err = proc_start(&child, sr_child, (void *)c);
	if (err == 0)
		status = proc_finish(&child, &r, sizeof(r), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && status == 0, "expected the child to exit 0, got fork "
			  "%ld, wait status 0x%lx", err, status);
	ktap_check_expect(&check, got == (long)sizeof(r) && r.err == 0 && r.count == 1,
			  "expected a whole report without error and one handler, got %ld bytes, "
			  "error %ld, %d handlers", got, r.err, r.count);
	if (got == (long)sizeof(r) && r.count == 1) {
		sr_check_frame(&check, c, &r);
		sr_check_after(&check, c, &r);
	}
	ktap_check_end(subtests, &check, c->name);
}

static void sigregs_run(struct ktap *subtests)
{
	ktap_plan(subtests, ARRAY_SIZE(sr_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(sr_cases); i++)
		sr_run_case(subtests, &sr_cases[i]);
}

GT_TEST("fpu_sigregs", 10, sigregs_run,
	GT_TAGS(GT_FUNC("__setup_frame"), GT_FUNC("__setup_rt_frame"),
		GT_FUNC("__unsafe_setup_sigcontext"), GT_FUNC("restore_sigcontext"),
		GT_FUNC("sys_sigreturn"), GT_FUNC("sys_rt_sigreturn"), GT_FUNC("get_sigframe")),
	"both i386 signal frames hold the interrupted registers, segments, flags, blocked "
	"signals and (rt) sigaltstack, the handler starts with %eax the signal and %edx, %ecx "
	"its pointers, and sigreturn loads what the handler wrote, within FIX_EFLAGS, RPL 3, "
	"and never SIGKILL or SIGSTOP blocked");
