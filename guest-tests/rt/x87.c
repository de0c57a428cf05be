#include "x87.h"

void x87_sigframe_forget_exception(struct _fpstate *fp)
{
	/*
	 * Only the fsave-format header that starts every 32-bit frame:
	 * sigreturn loads the x87 state from it in both formats (on FXSR
	 * kernels fpu/signal.c folds it over the FXSR image that follows, with
	 * convert_to_fxsr()).  The FXSR image is not touched because the
	 * frame does not tell its format: `magic` is X86_FXSR_MAGIC (0) in an
	 * FXSR frame, but in an FSAVE frame it is the reserved upper half of
	 * the status word fnsave stored, which QEMU stores as 0 too.  On an
	 * FSAVE frame, the FXSR image's place is the interrupted code's stack.
	 */
	fp->cw |= X87_CW_MASKS;
	fp->sw &= ~(uint32_t)X87_SW_PENDING;
}

uint32_t x87_fip_after_save_restore(uint32_t *fadd)
{
	struct x87_fsave image;

	__asm__ volatile("movl $1f, %0\n\t"
			 "fninit\n\t"
			 "fld1\n"
			 "1:\tfadd %%st(0), %%st\n\t"
			 "fnsave %1\n\t"
			 "frstor %1\n\t"
			 "fnsave %1\n\t"
			 "frstor %1\n\t"
			 "fninit"
			 : "=&r"(*fadd), "+m"(image) : : "memory", "st");
	return image.env.ip;
}
