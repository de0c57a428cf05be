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
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/sigfpe.h"
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

static void frame_run(struct ktap *subtests)
{
	struct ktap_check check;
	struct x87_fsave loaded, frame, after;
	uint16_t want_sw = X87_SW_ES | X87_SW_IE | (FRAME_TOP << X87_SW_TOP_SHIFT);
	int16_t scratch;
	long err;

	ktap_plan(subtests, 5);
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
}

GT_TEST("fpu_frame", 10, frame_run,
	"copy_fpstate_to_sigframe(), fpu__restore_sig() in arch/x86/kernel/fpu/signal.c, "
	"convert_from_fxsr(), convert_to_fxsr(): the 32-bit signal frame's i387 state");
