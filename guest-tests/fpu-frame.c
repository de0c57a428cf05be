/*
 * fpu_frame: the FPU image in a SIGFPE frame holds the task's x87 state,
 * and what a handler writes there is the state after sigreturn.
 *
 * Guards copy_fpstate_to_sigframe() and fpu__restore_sig() in
 * arch/x86/kernel/fpu/signal.c: a 32-bit frame starts with the fsave
 * layout of struct _fpstate (arch/x86/include/uapi/asm/sigcontext.h), which
 * on FSAVE CPUs is what fnsave stored and on FXSR CPUs is converted from
 * the FXSR image (convert_from_fxsr()), and sigreturn loads the x87 state
 * from it (convert_to_fxsr() on FXSR CPUs).
 *
 * The test loads FCW 0x0e7f without IM (round toward zero, 53-bit
 * precision) and a stack of 1e10, pi and e, then executes fist of 1e10
 * into 16 bits, which raises an invalid operation and changes no
 * register, and fwait.  The handler records the frame, then writes a
 * masked FCW and an FSW with only C3 and PE (and TOP) into it.  Subtests:
 *
 *   frame_fsw        the frame's FSW has ES|IE and TOP 5;
 *   frame_fcw        the frame's FCW is the one loaded;
 *   frame_registers  the frame's tag word and ST(0)..ST(2) are the stack;
 *   sigreturn_fcw    after sigreturn FCW is what the handler wrote;
 *   sigreturn_fsw    ... and FSW too, and the stack is unchanged.
 *
 * Then a whole state of every tag class: frstor loads TOP 3 and ST(0)..ST(6)
 * = a quiet NaN, +0.0, -inf, 1.0, a denormal, an unnormal and pi (tags
 * special, zero, special, valid, three specials, valid; the 2-bit tag word
 * of the fsave format is rebuilt from the FXSR abridged tag and the
 * registers' contents on FXSR CPUs, twd_fxsr_to_i387()), ST(7) empty but
 * holding 2.0.  fcoml of ST(0) with 0.0 raises an invalid operation (IM
 * is clear) and writes no register (QEMU's TCG writes an unmasked
 * zero-divide's result, so a divide would not do), and sets FIP, FCS, the
 * opcode, FOO and FOS; the fwait raises it.  Subtests:
 *
 *   frame_tag_word   the frame's tag word is the classes above, and what
 *                    the CPU's fnsave gave just before the fwait;
 *   frame_st0_st7    the frame's eight registers are those loaded;
 *   frame_pointers   FIP, FCS, opcode, FOO and FOS are the CPU's, the
 *                    fcoml's and its operand's; skipped where the CPU loses
 *                    FIP through fnsave and frstor (QEMU's TCG);
 *   frame_status     `status` is the FSW at the fault; `magic` is 0
 *                    (X86_FXSR_MAGIC) in an FXSR frame, and in an FSAVE frame
 *                    the upper half of the status word fnsave stored; an
 *                    FXSR frame's own image has the same FCW, FSW and
 *                    registers, its sw_reserved FP_XSTATE_MAGIC1 and sizes
 *                    (save_fsave_header(), save_xstate_epilog()); before
 *                    53599b4d54b9 ("x86/fpu/signal: Prepare for variable
 *                    sigframe length", 5.16) a kernel not using XSAVE
 *                    left sw_reserved zero;
 *   sigreturn_edited the handler writes other registers, tags (ST(2) empty,
 *                    ST(7) valid), FCW and FSW into the frame's header: after
 *                    sigreturn that whole state is live;
 *   sigreturn_untouched  a SIGUSR1 handler that edits nothing: after
 *                    sigreturn the whole state is as before the signal, the
 *                    pointers too where the CPU keeps FIP.
 */
#include "rt/cpu.h"
#include "rt/fpstate.h"
#include "rt/kernel.h"
#include "rt/ktap.h"
#include "rt/sigfpe.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdint.h>

#define FRAME_CW 0x0e7f		/* all masked, round toward zero, 53-bit precision */
#define FRAME_CW_LOADED (FRAME_CW & ~X87_CW_IM)
#define FRAME_TOP 5u		/* three values pushed */
#define FRAME_TOP_MASK (7u << X87_SW_TOP_SHIFT)
#define FRAME_SW_EDITED (X87_SW_C3 | X87_SW_PE | (FRAME_TOP << X87_SW_TOP_SHIFT))

static const long double frame_values[] = { FPSTATE_TEN_TO_10, FPSTATE_PI, FPSTATE_E };
static const struct fpstate_spec frame_spec = {
	.cw = FRAME_CW_LOADED,
	.count = ARRAY_SIZE(frame_values),
	.values = frame_values,
};

static void frame_edit(struct _fpstate *fp)
{
	fp->cw = (fp->cw & 0xffff0000u) | FRAME_CW;
	fp->sw = (fp->sw & 0xffff0000u) | FRAME_SW_EDITED;
}

/* The whole-state scenario. */
#define FULL_TOP 3u
#define FULL_CW (X87_CW_DEFAULT & ~X87_CW_IM)
#define FULL_CW_EDITED 0x0f7f	/* all masked, round toward zero, 64-bit */
#define FULL_SW_EDITED (X87_SW_C3 | X87_SW_C1 | X87_SW_PE | (FULL_TOP << X87_SW_TOP_SHIFT))
#define FULL_USER_CS 0x73	/* __USER_CS of i386 */
#define FULL_USER_DS 0x7b	/* __USER_DS */
#define FULL_FXSR_OFFSET 112	/* the FXSR image after the fsave header and status/magic */

enum { TAG_VALID, TAG_ZERO, TAG_SPECIAL, TAG_EMPTY };

/* An 80-bit register: significand (explicit integer bit 63), then sign and exponent. */
struct full_reg {
	uint32_t lo, hi;
	uint16_t sign_exp;
	unsigned int tag;
};

#define FULL_REG(hi_, lo_, se_, tag_) { .lo = (lo_), .hi = (hi_), .sign_exp = (se_), .tag = (tag_) }

/* ST(0)..ST(7) as loaded. */
static const struct full_reg full_loaded[8] = {
	FULL_REG(0xc0000000, 0, 0x7fff, TAG_SPECIAL),		/* quiet NaN */
	FULL_REG(0, 0, 0x0000, TAG_ZERO),			/* +0.0 */
	FULL_REG(0x80000000, 0, 0xffff, TAG_SPECIAL),		/* -inf */
	FULL_REG(0x80000000, 0, 0x3fff, TAG_VALID),		/* 1.0 */
	FULL_REG(0, 1, 0x0000, TAG_SPECIAL),			/* the smallest denormal */
	FULL_REG(0x40000000, 0, 0x4000, TAG_SPECIAL),		/* unnormal: no integer bit */
	FULL_REG(0xc90fdaa2, 0x2168c235, 0x4000, TAG_VALID),	/* pi */
	FULL_REG(0x80000000, 0, 0x4000, TAG_EMPTY),		/* 2.0, but empty */
};

/* What the handler writes: another order, ST(2) emptied and ST(7) filled. */
static const struct full_reg full_edited[8] = {
	FULL_REG(0x80000000, 0, 0x7fff, TAG_SPECIAL),		/* +inf */
	FULL_REG(0xc90fdaa2, 0x2168c235, 0xc000, TAG_VALID),	/* -pi */
	FULL_REG(0xa0000000, 0, 0x4002, TAG_EMPTY),		/* 10.0, but empty */
	FULL_REG(0, 0, 0x8000, TAG_ZERO),			/* -0.0 */
	FULL_REG(0, 0x12345, 0x8000, TAG_SPECIAL),		/* a negative denormal */
	FULL_REG(0x80000000, 0, 0x3ffe, TAG_VALID),		/* 0.5 */
	FULL_REG(0xe0000000, 0, 0x7fff, TAG_SPECIAL),		/* another quiet NaN */
	FULL_REG(0xc0000000, 0, 0x3fff, TAG_VALID),		/* 1.5 */
};

static void full_build(struct x87_fsave *image, uint16_t cw, uint16_t sw,
		       const struct full_reg regs[8])
{
	uint32_t tag = 0;

	for (unsigned int i = 0; i < 8; i++) {
		uint8_t *r = image->st[i];

		for (unsigned int b = 0; b < 4; b++) {
			r[b] = (uint8_t)(regs[i].lo >> (8 * b));
			r[4 + b] = (uint8_t)(regs[i].hi >> (8 * b));
		}
		r[8] = (uint8_t)regs[i].sign_exp;
		r[9] = (uint8_t)(regs[i].sign_exp >> 8);
		/* The tag word is by physical register: ST(i) is (TOP + i) mod 8. */
		tag |= regs[i].tag << (2 * ((FULL_TOP + i) & 7));
	}
	image->env = (struct x87_env){ .cw = cw, .sw = sw, .tag = tag };
}

static bool full_registers_equal(const struct x87_fsave *a, const struct x87_fsave *b, int *first)
{
	for (int i = 0; i < 8; i++)
		for (int byte = 0; byte < 10; byte++)
			if (a->st[i][byte] != b->st[i][byte]) {
				*first = i;
				return false;
			}
	return true;
}

static void full_note_pointers(struct ktap_check *check, const char *label,
			       const struct x87_fsave *image)
{
	ktap_check_note(check, "%s: FIP 0x%08x FCS 0x%04x opcode 0x%03x FOO 0x%08x FOS 0x%04x",
			label, image->env.ip, (uint16_t)image->env.cs, (image->env.cs >> 16) & 0x7ff,
			image->env.dp, (uint16_t)image->env.ds);
}

/* What the SIGFPE handler saw beyond the fsave header. */
static struct {
	bool fxsr;
	uint16_t status, magic;
	uint32_t fx_env[2];		/* FXSR image: FCW|FSW<<16, abridged tag|opcode<<16 */
	uint8_t fx_st[8][10];
	struct _fpx_sw_bytes sw_bytes;
	uint32_t magic2;
} full_frame;

static const double full_zero = 0.0;

static void full_edit(struct _fpstate *fp)
{
	struct x87_fsave edited;
	const uint8_t *fx = (const uint8_t *)fp + FULL_FXSR_OFFSET;

	full_frame.fxsr = x87_sigframe_is_fxsr(fp);
	full_frame.status = fp->status;
	full_frame.magic = fp->magic;
	if (full_frame.fxsr) {
		fpstate_copy(full_frame.fx_env, fx, sizeof(full_frame.fx_env));
		for (unsigned int i = 0; i < 8; i++)
			fpstate_copy(full_frame.fx_st[i], fx + 32 + 16 * i, 10);
		fpstate_copy(&full_frame.sw_bytes, &fp->sw_reserved, sizeof(full_frame.sw_bytes));
		if (fp->sw_reserved.magic1 == FP_XSTATE_MAGIC1 &&
		    fp->sw_reserved.xstate_size > 512 && fp->sw_reserved.xstate_size < 0x10000)
			fpstate_copy(&full_frame.magic2, fx + fp->sw_reserved.xstate_size, 4);
	}
	/* The header only: sigreturn folds it over the FXSR image (convert_to_fxsr()). */
	full_build(&edited, FULL_CW_EDITED, FULL_SW_EDITED, full_edited);
	fpstate_copy(fp, &edited.env.cw, 12);	/* cw, sw, tag: leave the pointers */
	fpstate_copy(fp->_st, edited.st, sizeof(edited.st));
}

static void full_check_tags(struct ktap *subtests, const struct x87_fsave *want,
			    const struct x87_fsave *cpu, const struct x87_fsave *frame)
{
	struct ktap_check check;

	ktap_check_begin(&check);
	ktap_check_expect(&check, (uint16_t)frame->env.tag == (uint16_t)want->env.tag,
			  "expected frame tag word 0x%04x, got 0x%04x", (uint16_t)want->env.tag,
			  (uint16_t)frame->env.tag);
	ktap_check_expect(&check, (uint16_t)cpu->env.tag == (uint16_t)want->env.tag,
			  "expected the CPU's fnsave tag word 0x%04x, got 0x%04x",
			  (uint16_t)want->env.tag, (uint16_t)cpu->env.tag);
	ktap_check_expect(&check, (uint16_t)frame->env.cw == FULL_CW,
			  "expected frame FCW 0x%04x, got 0x%04x", FULL_CW, (uint16_t)frame->env.cw);
	ktap_check_expect(&check, (uint16_t)frame->env.sw == (uint16_t)cpu->env.sw,
			  "expected frame FSW 0x%04x (the CPU's), got 0x%04x", (uint16_t)cpu->env.sw,
			  (uint16_t)frame->env.sw);
	ktap_check_end(subtests, &check, "frame_tag_word");
}

static void full_check_registers(struct ktap *subtests, const struct x87_fsave *want,
				 const struct x87_fsave *frame)
{
	struct ktap_check check;
	int reg = -1;
	bool same = full_registers_equal(want, frame, &reg);

	ktap_check_begin(&check);
	ktap_check_expect(&check, same, "expected ST(0)..ST(7) in the frame as loaded, st%d differs",
			  reg);
	if (reg >= 0) {
		fpstate_note(&check, "loaded", want);
		fpstate_note(&check, "frame", frame);
	}
	ktap_check_end(subtests, &check, "frame_st0_st7");
}

static void full_check_pointers(struct ktap *subtests, const struct x87_fsave *cpu,
				const struct x87_fsave *frame, uint32_t fcom_addr, bool cpu_keeps_fip)
{
	struct ktap_check check;

	if (!cpu_keeps_fip) {
		ktap_result_directive(subtests, true, "frame_pointers",
				      "SKIP the CPU does not keep FIP through fnsave and frstor (QEMU TCG)");
		return;
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, fpstate_pointers_equal(cpu, frame),
			  "expected the frame's FIP, FCS, opcode, FOO and FOS to be the CPU's, got others");
	ktap_check_expect(&check, cpu->env.ip == fcom_addr,
			  "expected FIP 0x%08x (the fcoml), got 0x%08x", fcom_addr, cpu->env.ip);
	ktap_check_expect(&check, (uint16_t)cpu->env.cs == FULL_USER_CS,
			  "expected FCS 0x%04x, got 0x%04x", FULL_USER_CS, (uint16_t)cpu->env.cs);
	ktap_check_expect(&check, cpu->env.dp == (uint32_t)&full_zero,
			  "expected FOO 0x%08x (the operand), got 0x%08x", (uint32_t)&full_zero,
			  cpu->env.dp);
	ktap_check_expect(&check, (uint16_t)cpu->env.ds == FULL_USER_DS,
			  "expected FOS 0x%04x, got 0x%04x", FULL_USER_DS, (uint16_t)cpu->env.ds);
	full_note_pointers(&check, "CPU", cpu);
	full_note_pointers(&check, "frame", frame);
	ktap_check_end(subtests, &check, "frame_pointers");
}

/*
 * Whether this kernel leaves an FXSR frame's sw_reserved zero: one from
 * before 53599b4d54b9 filled it only when it used XSAVE.
 */
static bool sw_reserved_zero(void)
{
	struct cpu_info cpu;

	return !kernel_at_least(5, 16) && !(cpu_identify(&cpu) && (cpu.ecx & CPU_ECX_OSXSAVE));
}

static void full_check_status(struct ktap *subtests, const struct x87_fsave *cpu,
			      const struct x87_fsave *frame)
{
	struct ktap_check check;
	uint16_t want_magic = full_frame.fxsr ? X86_FXSR_MAGIC : (uint16_t)(frame->env.sw >> 16);
	const struct _fpx_sw_bytes *sw = &full_frame.sw_bytes;

	ktap_check_begin(&check);
	ktap_check_expect(&check, full_frame.status == (uint16_t)cpu->env.sw,
			  "expected frame status 0x%04x (FSW at the fault), got 0x%04x",
			  (uint16_t)cpu->env.sw, full_frame.status);
	ktap_check_expect(&check, full_frame.magic == want_magic,
			  "expected frame magic 0x%04x (%s frame), got 0x%04x", want_magic,
			  full_frame.fxsr ? "FXSR" : "FSAVE", full_frame.magic);
	if (full_frame.fxsr) {
		uint8_t want_ftw = fpstate_abridged_tag(frame->env.tag);
		uint32_t want_ext = sw->xstate_size + 4 + FULL_FXSR_OFFSET;
		struct x87_fsave fx;
		int reg = -1;
		bool same;

		for (unsigned int i = 0; i < 8; i++)
			fpstate_copy(fx.st[i], full_frame.fx_st[i], 10);
		same = full_registers_equal(frame, &fx, &reg);
		ktap_check_expect(&check,
				  (uint16_t)full_frame.fx_env[0] == (uint16_t)frame->env.cw &&
				  (uint16_t)(full_frame.fx_env[0] >> 16) == (uint16_t)frame->env.sw,
				  "expected FXSR image FCW 0x%04x FSW 0x%04x, got 0x%04x 0x%04x",
				  (uint16_t)frame->env.cw, (uint16_t)frame->env.sw,
				  (uint16_t)full_frame.fx_env[0], (uint16_t)(full_frame.fx_env[0] >> 16));
		ktap_check_expect(&check, (uint8_t)full_frame.fx_env[1] == want_ftw,
				  "expected FXSR abridged tag 0x%02x, got 0x%02x", want_ftw,
				  (uint8_t)full_frame.fx_env[1]);
		ktap_check_expect(&check, same,
				  "expected the FXSR image's registers to be the header's, st%d differs",
				  reg);
		if (sw_reserved_zero()) {
			ktap_check_expect(&check, !sw->magic1 && !sw->xstate_size && !sw->extended_size,
					  "expected sw_reserved zero (before 5.16, no XSAVE), got magic1 0x%08x "
					  "xstate_size %u extended_size %u", sw->magic1, sw->xstate_size,
					  sw->extended_size);
		} else {
			ktap_check_expect(&check, sw->magic1 == FP_XSTATE_MAGIC1,
					  "expected sw_reserved magic1 0x%08x, got 0x%08x",
					  FP_XSTATE_MAGIC1, sw->magic1);
			ktap_check_expect(&check, sw->xstate_size >= 512,
					  "expected sw_reserved xstate_size at least 512, got %u",
					  sw->xstate_size);
			ktap_check_expect(&check, sw->extended_size == want_ext,
					  "expected sw_reserved extended_size %u (xstate_size + 4 + 112), got %u",
					  want_ext, sw->extended_size);
		}
		if (sw->xstate_size > 512)
			ktap_check_expect(&check, full_frame.magic2 == FP_XSTATE_MAGIC2,
					  "expected FP_XSTATE_MAGIC2 0x%08x after the xstate, got 0x%08x",
					  FP_XSTATE_MAGIC2, full_frame.magic2);
		ktap_check_note(&check, "sw_reserved: magic1 0x%08x extended_size %u xfeatures 0x%x xstate_size %u",
				sw->magic1, sw->extended_size, (uint32_t)sw->xfeatures,
				sw->xstate_size);
	}
	ktap_check_end(subtests, &check, "frame_status");
}

static void full_check_after(struct ktap *subtests, const char *name, const char *where,
			     const struct x87_fsave *want, const struct x87_fsave *got,
			     bool pointers)
{
	struct ktap_check check;
	int reg = -1;
	bool same = full_registers_equal(want, got, &reg);

	ktap_check_begin(&check);
	ktap_check_expect(&check, (uint16_t)got->env.cw == (uint16_t)want->env.cw,
			  "expected FCW 0x%04x %s, got 0x%04x", (uint16_t)want->env.cw, where,
			  (uint16_t)got->env.cw);
	ktap_check_expect(&check, (uint16_t)got->env.sw == (uint16_t)want->env.sw,
			  "expected FSW 0x%04x %s, got 0x%04x", (uint16_t)want->env.sw, where,
			  (uint16_t)got->env.sw);
	ktap_check_expect(&check, (uint16_t)got->env.tag == (uint16_t)want->env.tag,
			  "expected tag word 0x%04x %s, got 0x%04x", (uint16_t)want->env.tag, where,
			  (uint16_t)got->env.tag);
	ktap_check_expect(&check, same, "expected ST(0)..ST(7) %s as written, st%d differs", where,
			  reg);
	if (pointers) {
		ktap_check_expect(&check, fpstate_pointers_equal(want, got),
				  "expected FIP, FCS, opcode, FOO and FOS %s unchanged, got others",
				  where);
		full_note_pointers(&check, "before", want);
		full_note_pointers(&check, "after", got);
	}
	if (reg >= 0) {
		fpstate_note(&check, "expected", want);
		fpstate_note(&check, "got", got);
	}
	ktap_check_end(subtests, &check, name);
}

static void full_run_sigfpe(struct ktap *subtests, bool cpu_keeps_fip)
{
	struct x87_fsave loaded, cpu, frame, edited, after;
	uint32_t fcom_addr;
	long err;

	full_build(&loaded, FULL_CW, FULL_TOP << X87_SW_TOP_SHIFT, full_loaded);
	full_build(&edited, FULL_CW_EDITED, FULL_SW_EDITED, full_edited);
	err = sigfpe_install(full_edit);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the SIGFPE handler (error %ld)", err);
		return;
	}
	x87_init();
	x87_restore(&loaded);
	/* fcoml leaves IE pending and the registers as they were; the snapshot does not wait. */
	__asm__ volatile("movl $1f, %0\n"
			 "1:\tfcoml %1"
			 : "=&r"(fcom_addr) : "m"(full_zero) : "memory");
	x87_snapshot(&cpu);
	x87_wait();
	x87_snapshot(&after);
	x87_init();
	frame = *(struct x87_fsave *)&sigfpe_seen.frame;
	if (sigfpe_seen.count != 1 || sigfpe_seen.frame_missing)
		ktap_diag(subtests, "expected 1 SIGFPE with an FPU image, got %d%s",
			  sigfpe_seen.count, sigfpe_seen.frame_missing ? " without one" : "");

	full_check_tags(subtests, &loaded, &cpu, &frame);
	full_check_registers(subtests, &loaded, &frame);
	full_check_pointers(subtests, &cpu, &frame, fcom_addr, cpu_keeps_fip);
	full_check_status(subtests, &cpu, &frame);
	full_check_after(subtests, "sigreturn_edited", "after sigreturn", &edited, &after, false);
}

static volatile int full_usr1_count;

static void full_handle_usr1(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	full_usr1_count++;
}

static void full_run_untouched(struct ktap *subtests, bool cpu_keeps_fip)
{
	struct x87_fsave loaded, before, after;
	long err;

	full_build(&loaded, FULL_CW_EDITED, FULL_SW_EDITED, full_loaded);
	err = signal_set_action(SIGUSR1, full_handle_usr1);
	x87_init();
	x87_restore(&loaded);
	/* A real FIP, FOO and opcode to keep (masked, so nothing is raised). */
	__asm__ volatile("fcoml %0" : : "m"(full_zero) : "memory");
	x87_snapshot(&before);
	if (err == 0)
		err = sys_kill((int)sys_getpid(), SIGUSR1);
	x87_snapshot(&after);
	x87_init();
	if (err < 0 || full_usr1_count != 1)
		ktap_diag(subtests, "expected 1 SIGUSR1, got %d (error %ld)", full_usr1_count, err);
	full_check_after(subtests, "sigreturn_untouched", "after a SIGUSR1 handler", &before, &after,
			 cpu_keeps_fip);
}

static void frame_run(struct ktap *subtests)
{
	struct ktap_check check;
	struct x87_fsave loaded, frame, after;
	uint16_t want_sw = X87_SW_ES | X87_SW_IE | (FRAME_TOP << X87_SW_TOP_SHIFT);
	uint32_t fadd;
	bool cpu_keeps_fip = x87_fip_after_save_restore(&fadd) == fadd;
	int16_t scratch;
	long err;

	ktap_plan(subtests, 11);
	err = sigfpe_install(frame_edit);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the SIGFPE handler (error %ld)", err);
		return;
	}
	fpstate_build(&loaded, &frame_spec);
	fpstate_load(&frame_spec);
	__asm__ volatile("fists %0\n\tfwait" : "=m"(scratch) : : "memory");
	x87_snapshot(&after);
	x87_init();
	frame = *(struct x87_fsave *)&sigfpe_seen.frame;

	ktap_check_begin(&check);
	ktap_check_expect(&check, sigfpe_seen.count == 1, "expected 1 SIGFPE, got %d",
			  sigfpe_seen.count);
	ktap_check_expect(&check, !sigfpe_seen.frame_missing,
			  "expected an FPU image in the signal frame, got none");
	ktap_check_expect(&check,
			  (frame.env.sw & (X87_SW_FLAGS | FRAME_TOP_MASK)) == want_sw,
			  "expected frame FSW flags and TOP 0x%04x (ES|IE, TOP 5), got 0x%04x",
			  want_sw, (uint16_t)frame.env.sw);
	ktap_check_end(subtests, &check, "frame_fsw");

	ktap_check_begin(&check);
	ktap_check_expect(&check, (uint16_t)frame.env.cw == FRAME_CW_LOADED,
			  "expected frame FCW 0x%04x, got 0x%04x", FRAME_CW_LOADED,
			  (uint16_t)frame.env.cw);
	ktap_check_end(subtests, &check, "frame_fcw");

	ktap_check_begin(&check);
	fpstate_check_stack(&check, "in the signal frame", &loaded, &frame);
	ktap_check_end(subtests, &check, "frame_registers");

	ktap_check_begin(&check);
	ktap_check_expect(&check, (uint16_t)after.env.cw == FRAME_CW,
			  "expected FCW 0x%04x after sigreturn (the handler's), got 0x%04x", FRAME_CW,
			  (uint16_t)after.env.cw);
	ktap_check_end(subtests, &check, "sigreturn_fcw");

	ktap_check_begin(&check);
	ktap_check_expect(&check, (uint16_t)after.env.sw == FRAME_SW_EDITED,
			  "expected FSW 0x%04x after sigreturn (the handler's), got 0x%04x",
			  FRAME_SW_EDITED, (uint16_t)after.env.sw);
	fpstate_check_stack(&check, "after sigreturn", &loaded, &after);
	ktap_check_end(subtests, &check, "sigreturn_fsw");

	full_run_sigfpe(subtests, cpu_keeps_fip);
	full_run_untouched(subtests, cpu_keeps_fip);
}

GT_TEST("fpu_frame", 10, frame_run,
	GT_TAGS(GT_GIT("53599b4d54b9"), GT_FUNC("copy_fpstate_to_sigframe"),
		GT_FUNC("fpu__restore_sig"), GT_FUNC("convert_from_fxsr"), GT_FUNC("convert_to_fxsr")),
	"copy_fpstate_to_sigframe(), fpu__restore_sig() in arch/x86/kernel/fpu/signal.c, "
	"convert_from_fxsr(), convert_to_fxsr(): the 32-bit signal frame's i387 state");
