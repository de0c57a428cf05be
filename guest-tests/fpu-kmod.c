/*
 * fpu_kmod: the kernel's own FPU use leaves a task's user x87 state, and
 * the exception it has pending, as they were.
 *
 * Guards kernel_fpu_begin_mask() in arch/x86/kernel/fpu/core.c: the first
 * section in a system call saves the user state with
 * save_fpregs_to_fpstate() (on FSAVE CPUs with fnsave, which must not
 * raise the pending exception in the kernel: f994d99cf140 ("x86-32, fpu:
 * Fix FPU exception handling on non-SSE systems")), and the return to user
 * space restores it (arch/x86/include/asm/fpu/api.h, TIF_NEED_FPU_LOAD).
 *
 * The test loads a known state (pi, e and 1e10; FCW with zero-divide
 * unmasked; FSW with ES|ZE, so a zero-divide is pending; where the kernel
 * enabled SSE, MXCSR rounding toward zero), and with it loads /fpu_kmod.ko
 * (kmod/fpu_kmod.c) with finit_module.  The module runs FPU sections in
 * this task, in task and softirq context, and prints its own subtests.
 * Subtests here:
 *
 *   module               finit_module returns 0 (the module's checks passed);
 *   user_state           afterwards the whole state is the one loaded,
 *                        the pending exception and MXCSR included;
 *   exception_delivered  the next fwait raises one SIGFPE, FPE_FLTDIV.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/sigfpe.h"
#include "rt/sse.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm/fcntl.h>

#define KMOD_PATH "/fpu_kmod.ko"
/* Not the default, so that a section that kept it shows (the module's mxcsr_default). */
#define KMOD_MXCSR (SSE_MXCSR_DEFAULT | 0x6000)	/* round toward zero */

static const long double kmod_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec kmod_spec = {
	.cw = X87_CW_DEFAULT & ~X87_CW_ZM,
	.sw_flags = X87_SW_ES | X87_SW_ZE,
	.count = ARRAY_SIZE(kmod_values),
	.values = kmod_values,
};

static void kmod_run(struct ktap *subtests)
{
	struct ktap_check check;
	struct x87_fsave loaded, after;
	struct sse_state sse_loaded, sse_after, sse_default;
	bool sse = sse_enabled();
	long fd, loaded_result, err;

	ktap_plan(subtests, 3);
	err = sigfpe_install(NULL);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the SIGFPE handler (error %ld)", err);
		return;
	}
	fd = sys_open(KMOD_PATH, O_RDONLY);
	fpstate_build(&loaded, &kmod_spec);
	sse_make(&sse_loaded, 0x40, KMOD_MXCSR);
	sse_make(&sse_default, 0, SSE_MXCSR_DEFAULT);
	if (sse)
		sse_load(&sse_loaded);
	fpstate_load(&kmod_spec);
	loaded_result = fd < 0 ? fd : sys_finit_module((int)fd, "", 0);
	x87_snapshot(&after);
	if (sse) {
		sse_store(&sse_after);
		sse_load(&sse_default);
	}
	x87_wait();
	x87_init();

	ktap_check_begin(&check);
	ktap_check_expect(&check, fd >= 0, "expected to open " KMOD_PATH ", got error %ld", fd);
	ktap_check_expect(&check, loaded_result == 0, "expected finit_module to return 0, got %ld",
			  loaded_result);
	ktap_check_end(subtests, &check, "module");

	ktap_check_begin(&check);
	fpstate_check(&check, "after the module ran", &loaded, &after);
	if (sse)
		ktap_check_expect(&check, sse_equal(&sse_loaded, &sse_after),
				  "expected MXCSR 0x%04x and xmm0..7 as loaded after the module ran, got MXCSR 0x%04x%s",
				  (unsigned int)sse_loaded.mxcsr, (unsigned int)sse_after.mxcsr,
				  sse_loaded.mxcsr == sse_after.mxcsr ? " and other xmm registers" : "");
	ktap_check_end(subtests, &check, "user_state");

	ktap_check_begin(&check);
	ktap_check_expect(&check, sigfpe_seen.count == 1, "expected 1 SIGFPE at the fwait, got %d",
			  sigfpe_seen.count);
	if (sigfpe_seen.count)
		ktap_check_expect(&check, sigfpe_seen.si_code == FPE_FLTDIV,
				  "expected si_code %d (FPE_FLTDIV), got %d", FPE_FLTDIV,
				  sigfpe_seen.si_code);
	ktap_check_end(subtests, &check, "exception_delivered");
}

GT_TEST("fpu_kmod", 10, kmod_run,
	GT_TAGS(GT_FUNC("kernel_fpu_begin_mask"), GT_FUNC("kernel_fpu_end"),
		GT_FUNC("irq_fpu_usable")),
	"kernel_fpu_begin_mask(), kernel_fpu_end(), irq_fpu_usable() in "
	"arch/x86/kernel/fpu/core.c");
