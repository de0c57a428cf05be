/*
 * fpu_addr: a SIGFPE from #MF points at the right instructions.
 *
 * Guards math_error() in arch/x86/kernel/traps.c, which sets si_addr to
 * the address where #MF was delivered (#MF is a fault: the waiting
 * instruction that found the exception pending, an fwait or the next x87
 * instruction), and the FPU image of the signal frame
 * (arch/x86/kernel/fpu/signal.c, the fsave header of struct _fpstate in
 * arch/x86/include/uapi/asm/sigcontext.h), whose ipoff (FIP) must point
 * at the x87 instruction that raised the exception.  Intel SDM vol. 1,
 * 8.1.8 (FIP) and 8.6 (exception synchronization).
 *
 * Each case makes an exception pending and then waits; it expects one
 * SIGFPE whose si_addr and frame eip are the waiting instruction, and
 * whose frame FIP is the faulting one:
 *
 *   fwait    1.0/0.0 (fdivp), then fwait;
 *   next_fp  1.0/0.0, then fld1, which waits first;
 *   fist     fist of 1e10 into 16 bits (invalid), then fwait.
 *
 * Each has a `_fip` subtest for the frame's FIP.  Two things QEMU's TCG
 * (7.2) does not do as an x87 does are skipped, with the reason, when the
 * CPU is seen not to do them: keep FIP through fnsave and frstor (which
 * the kernel runs before it builds the frame), and raise #MF at an x87
 * instruction other than fwait (the exception is then still pending after
 * it, which a kernel cannot cause).
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/sigfpe.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

static const long double addr_too_big = FPSTATE_TEN_TO_10;

struct addr_seen {
	uint32_t faulting;	/* the x87 instruction that raised it */
	uint32_t waiting;	/* the one that delivered it */
};

static void addr_divide_then_fwait(struct addr_seen *a)
{
	__asm__ volatile("movl $1f, %0\n\t"
			 "movl $2f, %1\n\t"
			 "fld1\n\t"
			 "fldz\n"
			 "1:\tfdivrp\n"
			 "2:\tfwait"
			 : "=&r"(a->faulting), "=&r"(a->waiting) : : "memory", "st", "st(1)");
}

static void addr_divide_then_fld1(struct addr_seen *a)
{
	__asm__ volatile("movl $1f, %0\n\t"
			 "movl $2f, %1\n\t"
			 "fld1\n\t"
			 "fldz\n"
			 "1:\tfdivrp\n"
			 "2:\tfld1"
			 : "=&r"(a->faulting), "=&r"(a->waiting) : : "memory", "st", "st(1)");
}

static void addr_fist_then_fwait(struct addr_seen *a)
{
	int16_t scratch;

	__asm__ volatile("movl $1f, %0\n\t"
			 "movl $2f, %1\n\t"
			 "fldt %3\n"
			 "1:\tfists %2\n"
			 "2:\tfwait"
			 : "=&r"(a->faulting), "=&r"(a->waiting), "=m"(scratch)
			 : "m"(addr_too_big) : "memory", "st");
}

struct addr_case {
	const char *name;
	const char *fip_name;	/* of the FIP subtest */
	uint16_t cw;
	void (*trigger)(struct addr_seen *a);
};

static const struct addr_case addr_cases[] = {
	{ "fwait", "fwait_fip", X87_CW_DEFAULT & ~X87_CW_ZM, addr_divide_then_fwait },
	{ "next_fp", "next_fp_fip", X87_CW_DEFAULT & ~X87_CW_ZM, addr_divide_then_fld1 },
	{ "fist", "fist_fip", X87_CW_DEFAULT & ~X87_CW_IM, addr_fist_then_fwait },
};

/* The frame's FIP; skipped where the CPU itself loses it (above). */
static void addr_check_fip(struct ktap *subtests, const struct addr_case *c,
			   const struct addr_seen *a, bool cpu_keeps_fip)
{
	struct ktap_check check;

	if (!cpu_keeps_fip) {
		ktap_result_directive(subtests, true, c->fip_name,
				      "SKIP the CPU does not keep FIP through fnsave and frstor (QEMU TCG)");
		return;
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, sigfpe_seen.count >= 1 && !sigfpe_seen.frame_missing,
			  "expected a SIGFPE with an FPU image in its frame, got %d SIGFPE",
			  sigfpe_seen.count);
	ktap_check_expect(&check, sigfpe_seen.frame.env.ip == a->faulting,
			  "expected frame FIP 0x%08x (the faulting instruction), got 0x%08x",
			  a->faulting, sigfpe_seen.frame.env.ip);
	ktap_check_end(subtests, &check, c->fip_name);
}

static void addr_run_case(struct ktap *subtests, const struct addr_case *c, bool cpu_keeps_fip)
{
	struct ktap_check check;
	struct addr_seen a;
	uint16_t sw;

	sigfpe_forget();
	x87_init();
	x87_load_cw(c->cw);
	c->trigger(&a);
	sw = x87_store_sw();
	x87_init();
	/* Not the kernel: the exception is still there, the CPU did not trap. */
	if (sigfpe_seen.count == 0 && (sw & X87_SW_ES)) {
		ktap_result_directive(subtests, true, c->name,
				      "SKIP the CPU did not raise #MF at the waiting instruction (FSW 0x%04x, QEMU TCG)",
				      sw);
		ktap_result_directive(subtests, true, c->fip_name, "SKIP no SIGFPE to look at");
		return;
	}

	ktap_check_begin(&check);
	ktap_check_expect(&check, sigfpe_seen.count == 1, "expected 1 SIGFPE, got %d",
			  sigfpe_seen.count);
	if (sigfpe_seen.count) {
		ktap_check_expect(&check, sigfpe_seen.fault_addr == a.waiting,
				  "expected si_addr 0x%08x (the waiting instruction), got 0x%08x",
				  a.waiting, sigfpe_seen.fault_addr);
		ktap_check_expect(&check, sigfpe_seen.eip == a.waiting,
				  "expected frame eip 0x%08x, got 0x%08x", a.waiting, sigfpe_seen.eip);
		ktap_check_expect(&check, !sigfpe_seen.frame_missing,
				  "expected an FPU image in the signal frame, got none");
	}
	ktap_check_note(&check, "faulting 0x%08x, waiting 0x%08x; saw %d SIGFPE, si_code %d",
			a.faulting, a.waiting, sigfpe_seen.count, sigfpe_seen.si_code);
	ktap_check_end(subtests, &check, c->name);
	addr_check_fip(subtests, c, &a, cpu_keeps_fip);
}

static void addr_run(struct ktap *subtests)
{
	uint32_t fadd, fip = x87_fip_after_save_restore(&fadd);
	long err;

	ktap_plan(subtests, 2 * (int)ARRAY_SIZE(addr_cases));
	if (fip != fadd)
		ktap_diag(subtests, "FIP after fnsave and frstor twice: 0x%08x, not 0x%08x", fip, fadd);
	err = sigfpe_install(NULL);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the SIGFPE handler (error %ld)", err);
		return;
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(addr_cases); i++)
		addr_run_case(subtests, &addr_cases[i], fip == fadd);
}

GT_TEST("fpu_addr", 10, addr_run,
	GT_TAGS(GT_FUNC("math_error")),
	"math_error() in arch/x86/kernel/traps.c: si_addr and the frame's eip and FIP "
	"name the waiting x87 instruction");
