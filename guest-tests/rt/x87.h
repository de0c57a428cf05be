/*
 * x87: the FPU instructions the reproducers need, as inline functions, and
 * the repair of the FPU image in a SIGFPE frame.
 *
 * The fn- forms (fninit, fnstcw, fnstsw, fnstenv) do not wait: they never
 * deliver a pending exception, and fninit discards it.  The others wait: on
 * a pending unmasked exception they raise #MF, which the kernel turns into
 * SIGFPE; x87_wait() is there for exactly that.  Every function clobbers
 * memory so that the compiler keeps them in program order with the system
 * calls around them.
 */
#ifndef GT_X87_H
#define GT_X87_H

#include <stdint.h>

#include <asm/sigcontext.h>

/* Control word (FCW) */
#define X87_CW_DEFAULT 0x037f	/* after fninit: all exceptions masked, 64-bit, nearest */
#define X87_CW_UNMASKED 0x0340	/* the same with all six exceptions unmasked */
#define X87_CW_IM 0x0001	/* invalid operation masked */
#define X87_CW_DM 0x0002	/* denormal operand masked */
#define X87_CW_ZM 0x0004	/* zero-divide masked */
#define X87_CW_OM 0x0008	/* overflow masked */
#define X87_CW_UM 0x0010	/* underflow masked */
#define X87_CW_PM 0x0020	/* precision masked */
#define X87_CW_MASKS 0x003f	/* PM UM OM ZM DM IM */

/* Status word (FSW) */
#define X87_SW_IE 0x0001	/* invalid operation flagged */
#define X87_SW_DE 0x0002	/* denormal operand flagged */
#define X87_SW_ZE 0x0004	/* zero-divide flagged */
#define X87_SW_OE 0x0008	/* overflow flagged */
#define X87_SW_UE 0x0010	/* underflow flagged */
#define X87_SW_PE 0x0020	/* precision flagged */
#define X87_SW_SF 0x0040	/* the invalid operation was a stack fault */
#define X87_SW_ES 0x0080	/* an unmasked exception is pending */
#define X87_SW_FLAGS 0x00ff	/* ES, SF and the six exception flags */
#define X87_SW_PENDING 0x80ff	/* the above and B: what must go to forget an exception */
#define X87_SW_C1 0x0200	/* condition code 1; on a stack fault, overflow (1) or underflow (0) */
#define X87_SW_C3 0x4000
#define X87_SW_B 0x8000		/* busy: mirrors ES on every x87 since the 387 */
#define X87_SW_TOP_SHIFT 11	/* bits 11-13: the physical register that is ST(0) */
#define X87_OPCODE_FWAIT 0x9b	/* the byte of fwait, where #MF leaves eip */
#define X87_TRAP_MF 16		/* the #MF vector: sigcontext's trapno for x87 exceptions */

#define X87_TAG_EMPTY 3u	/* each register's two bits in the full tag word */

/* What fnstenv stores in 32-bit protected mode: 28 bytes. */
struct x87_env {
	uint32_t cw, sw, tag, ip, cs, dp, ds;
};

/* What fnsave/fsave store and frstor loads: 108 bytes. */
struct x87_fsave {
	struct x87_env env;
	uint8_t st[8][10];	/* ST(0)..ST(7), 80 bits each */
};

static inline void x87_init(void)
{
	__asm__ volatile("fninit" ::: "memory");
}

static inline void x87_load_cw(uint16_t cw)
{
	__asm__ volatile("fldcw %0" : : "m"(cw) : "memory");
}

static inline uint16_t x87_store_cw(void)
{
	uint16_t cw;

	__asm__ volatile("fnstcw %0" : "=m"(cw) : : "memory");
	return cw;
}

static inline uint16_t x87_store_sw(void)
{
	uint16_t sw;

	__asm__ volatile("fnstsw %0" : "=m"(sw) : : "memory");
	return sw;
}

static inline void x87_store_env(struct x87_env *env)
{
	__asm__ volatile("fnstenv %0" : "=m"(*env) : : "memory");
}

/* fsave, not fnsave: it delivers a pending exception first.  Reinitializes the FPU. */
static inline void x87_save(struct x87_fsave *image)
{
	__asm__ volatile("fsave %0" : "=m"(*image) : : "memory");
}

static inline void x87_restore(const struct x87_fsave *image)
{
	__asm__ volatile("frstor %0" : : "m"(*image) : "memory");
}

/* The whole state without changing it: fnsave does not wait, and frstor puts it back. */
static inline void x87_snapshot(struct x87_fsave *image)
{
	__asm__ volatile("fnsave %0\n\t"
			 "frstor %0" : "+m"(*image) : : "memory");
}

static inline void x87_wait(void)
{
	__asm__ volatile("fwait" ::: "memory");
}

/*
 * 1.0 / 0.0.  With ZM clear in the FCW this leaves a zero-divide pending
 * (FSW ES|ZE) for the next waiting instruction, and values on the register
 * stack: fninit before reusing it.  GNU as's AT&T `fdivrp` is Intel's
 * FDIVP ST(1),ST(0) (DE F9), which computes ST(1)/ST(0).
 */
static inline void x87_divide_one_by_zero(void)
{
	__asm__ volatile("fld1\n\t"
			 "fldz\n\t"
			 "fdivrp"
			 ::: "memory", "st", "st(1)");
}

/*
 * The kernel saves and reloads the state before it builds a signal frame
 * (fnsave and frstor on FSAVE CPUs), so the CPU must keep FIP through that
 * for the frame to show it.  QEMU's TCG (7.2) does not, and its fxsave
 * stores FIP, FDP and their selectors as 0 (seen on the pentium3 setup).  Returns FIP as the second of
 * two fnsave/frstor pairs after an fadd shows it, and the fadd's address:
 * they differ on a CPU that loses FIP.  Leaves the FPU fninit'ed.
 */
uint32_t x87_fip_after_save_restore(uint32_t *fadd);

/*
 * Makes a SIGFPE handler's return resume without the exception: clears the
 * pending bits and masks every exception in the saved FPU image, so that
 * the faulting instruction runs again harmlessly.  `fp` is the handler's
 * uc_mcontext.fpstate, not NULL, in either format (fsave, or fsave header
 * and FXSR image).  Its header's sw is the FSW in both.
 */
void x87_sigframe_forget_exception(struct _fpstate *fp);

/*
 * Whether a 32-bit frame's FPU image is the FXSR format: the fsave header,
 * then the FXSR image (and on XSAVE CPUs the rest) from byte 112.  The
 * frame's own fields cannot tell (see x87.c), its place can: the kernel
 * puts the FXSR image 64-byte aligned and the 112-byte header right below
 * it (fpu__alloc_mathframe() in arch/x86/kernel/fpu/signal.c), while an
 * FSAVE image starts 64-byte aligned itself.
 */
static inline int x87_sigframe_is_fxsr(const struct _fpstate *fp)
{
	return ((uint32_t)fp & 63) == 64 - 112 % 64;
}

#endif
