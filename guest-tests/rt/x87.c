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
