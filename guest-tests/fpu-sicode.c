/*
 * fpu_sicode: each x87 exception reaches user space as SIGFPE with the
 * si_code of its kind.
 *
 * Guards fpu__exception_code() in arch/x86/kernel/fpu/core.c, which
 * math_error() (arch/x86/kernel/traps.c) uses for #MF: the unmasked
 * exceptions in FSW, in priority order, give FPE_FLTINV (invalid operation,
 * stack faults included), FPE_FLTDIV (zero-divide), FPE_FLTOVF (overflow),
 * FPE_FLTUND (denormal operand and underflow) and FPE_FLTRES (precision).
 * math_error() also fills the frame's sigcontext: trapno 16 (#MF), err 0,
 * and eip, the waiting instruction, which is also si_addr.  The FSW and FCW it
 * reads come from the task's saved state, which on FSAVE CPUs fnsave
 * wrote (f994d99cf140 ("x86-32, fpu: Fix FPU exception handling on non-SSE
 * systems")).
 *
 * Each case runs twice: with only its exception unmasked ("_alone"), and
 * with all six unmasked (FCW 0x0340, "_all") while only it is triggered.
 * It expects the exception's flag in FSW before the fwait, exactly one
 * SIGFPE at the fwait with the expected si_code, trapno 16, err 0, eip at
 * the fwait and equal to si_addr, and the flag in the frame.  QEMU's TCG does not model every exception of the real x87
 * (stack faults among them): a case whose flag the CPU did not raise is
 * skipped with that reason, since then there is nothing for the kernel
 * to deliver.
 */
#include "rt/ktap.h"
#include "rt/sigfpe.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

static const int32_t twenty_thousand = 20000;
static const int32_t minus_twenty_thousand = -20000;
static const int32_t three = 3;
static const uint32_t smallest_float_denormal = 1;	/* 2^-149 as a float */

/* 0.0 / 0.0 */
static void sicode_invalid(void)
{
	__asm__ volatile("fldz\n\tfldz\n\tfdivrp" ::: "memory", "st", "st(1)");
}

/* FLD ST(0) with an empty stack */
static void sicode_stack_underflow(void)
{
	__asm__ volatile("fld %%st(0)" ::: "memory", "st");
}

/* A ninth push */
static void sicode_stack_overflow(void)
{
	__asm__ volatile("fld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1\n\tfld1"
			 ::: "memory", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)",
			 "st(6)", "st(7)");
}

static void sicode_zero_divide(void)
{
	x87_divide_one_by_zero();
}

/* fld of a single-precision denormal: a denormal operand */
static void sicode_denormal(void)
{
	__asm__ volatile("flds %0" : : "m"(smallest_float_denormal) : "memory", "st");
}

/* 1.0 * 2^20000: exact, and beyond the 80-bit range */
static void sicode_overflow(void)
{
	__asm__ volatile("fildl %0\n\tfld1\n\tfscale" : : "m"(twenty_thousand)
			 : "memory", "st", "st(1)");
}

/* 1.0 * 2^-20000 */
static void sicode_underflow(void)
{
	__asm__ volatile("fildl %0\n\tfld1\n\tfscale" : : "m"(minus_twenty_thousand)
			 : "memory", "st", "st(1)");
}

/* 1.0 / 3.0 */
static void sicode_precision(void)
{
	__asm__ volatile("fld1\n\tfildl %0\n\tfdivrp" : : "m"(three) : "memory", "st", "st(1)");
}

/* The linker's bounds of the program's text. */
extern const uint8_t __executable_start[], etext[];

/* The code byte at `addr`, or -1 outside the text: a wrong eip must not crash the test. */
static int sicode_byte_at(uint32_t addr)
{
	if (addr < (uint32_t)__executable_start || addr >= (uint32_t)etext)
		return -1;
	return *(const uint8_t *)addr;
}

struct sicode_case {
	const char *name;
	void (*trigger)(void);
	uint16_t mask;		/* the FCW bit that masks it */
	uint16_t flags;		/* the FSW flags it must raise */
	int si_code;
	const char *si_code_name;
};

static const struct sicode_case sicode_cases[] = {
	{ "invalid", sicode_invalid, X87_CW_IM, X87_SW_IE, FPE_FLTINV, "FPE_FLTINV" },
	{ "stack_underflow", sicode_stack_underflow, X87_CW_IM, X87_SW_IE | X87_SW_SF, FPE_FLTINV,
	  "FPE_FLTINV" },
	{ "stack_overflow", sicode_stack_overflow, X87_CW_IM, X87_SW_IE | X87_SW_SF, FPE_FLTINV,
	  "FPE_FLTINV" },
	{ "denormal", sicode_denormal, X87_CW_DM, X87_SW_DE, FPE_FLTUND, "FPE_FLTUND" },
	{ "zero_divide", sicode_zero_divide, X87_CW_ZM, X87_SW_ZE, FPE_FLTDIV, "FPE_FLTDIV" },
	{ "overflow", sicode_overflow, X87_CW_OM, X87_SW_OE, FPE_FLTOVF, "FPE_FLTOVF" },
	{ "underflow", sicode_underflow, X87_CW_UM, X87_SW_UE, FPE_FLTUND, "FPE_FLTUND" },
	{ "precision", sicode_precision, X87_CW_PM, X87_SW_PE, FPE_FLTRES, "FPE_FLTRES" },
};

static void sicode_run_case(struct ktap *subtests, const struct sicode_case *c, bool all)
{
	char name[40];
	struct fmt_buf b;
	struct ktap_check check;
	uint16_t cw = all ? X87_CW_UNMASKED : X87_CW_DEFAULT & ~c->mask;
	uint16_t sw_before, sw_after, expected_sw = c->flags | X87_SW_ES;
	int sigfpe_before;

	fmt_init(&b, name, sizeof(name));
	fmt_addf(&b, "%s_%s", c->name, all ? "all" : "alone");
	sigfpe_forget();
	x87_init();
	x87_load_cw(cw);
	c->trigger();
	sw_before = x87_store_sw();
	sigfpe_before = sigfpe_seen.count;
	x87_wait();
	sw_after = x87_store_sw();
	x87_init();

	if ((sw_before & c->flags) != c->flags) {
		ktap_result_directive(subtests, true, name,
				      "SKIP the CPU did not raise FSW 0x%04x (got 0x%04x)", c->flags,
				      sw_before);
		return;
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, (sw_before & expected_sw) == expected_sw,
			  "expected FSW flags 0x%02x before the fwait, got 0x%04x", expected_sw,
			  sw_before);
	ktap_check_expect(&check, sigfpe_before == 0, "expected no SIGFPE before the fwait, got %d",
			  sigfpe_before);
	ktap_check_expect(&check, sigfpe_seen.count == 1, "expected 1 SIGFPE, got %d",
			  sigfpe_seen.count);
	if (sigfpe_seen.count) {
		ktap_check_expect(&check, sigfpe_seen.si_code == c->si_code,
				  "expected si_code %d (%s), got %d", c->si_code, c->si_code_name,
				  sigfpe_seen.si_code);
		ktap_check_expect(&check, !sigfpe_seen.frame_missing,
				  "expected an FPU image in the signal frame, got none");
		ktap_check_expect(&check, sigfpe_seen.trapno == X87_TRAP_MF,
				  "expected sigcontext trapno %d (#MF), got %u", X87_TRAP_MF,
				  sigfpe_seen.trapno);
		ktap_check_expect(&check, sigfpe_seen.err == 0,
				  "expected sigcontext err 0, got 0x%x", sigfpe_seen.err);
		ktap_check_expect(&check, sicode_byte_at(sigfpe_seen.eip) == X87_OPCODE_FWAIT,
				  "expected sigcontext eip at the fwait (byte 0x%02x), got byte %d at 0x%08x",
				  X87_OPCODE_FWAIT, sicode_byte_at(sigfpe_seen.eip), sigfpe_seen.eip);
		ktap_check_expect(&check, sigfpe_seen.fault_addr == sigfpe_seen.eip,
				  "expected si_addr 0x%08x (eip), got 0x%08x", sigfpe_seen.eip,
				  sigfpe_seen.fault_addr);
	}
	if (sigfpe_seen.count && !sigfpe_seen.frame_missing)
		ktap_check_expect(&check, (sigfpe_seen.frame.env.sw & expected_sw) == expected_sw,
				  "expected FSW flags 0x%02x in the signal frame, got 0x%04x",
				  expected_sw, (uint16_t)sigfpe_seen.frame.env.sw);
	ktap_check_expect(&check, (sw_after & X87_SW_PENDING) == 0,
			  "expected no exception pending after the handler, got FSW 0x%04x", sw_after);
	ktap_check_note(&check,
			"FCW 0x%04x; saw %d SIGFPE, si_code %d, frame FSW 0x%04x FCW 0x%04x, FSW 0x%04x before and 0x%04x after the fwait",
			cw, sigfpe_seen.count, sigfpe_seen.si_code, (uint16_t)sigfpe_seen.frame.env.sw,
			(uint16_t)sigfpe_seen.frame.env.cw, sw_before, sw_after);
	ktap_check_end(subtests, &check, name);
}

static void sicode_run(struct ktap *subtests)
{
	long err;

	ktap_plan(subtests, 2 * (int)ARRAY_SIZE(sicode_cases));
	err = sigfpe_install(NULL);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the SIGFPE handler (error %ld)", err);
		return;
	}
	for (int all = 0; all <= 1; all++)
		for (unsigned int i = 0; i < ARRAY_SIZE(sicode_cases); i++)
			sicode_run_case(subtests, &sicode_cases[i], all);
}

GT_TEST("fpu_sicode", 10, sicode_run,
	GT_TAGS(GT_FUNC("fpu__exception_code"), GT_FUNC("math_error")),
	"fpu__exception_code() in arch/x86/kernel/fpu/core.c and math_error(): the "
	"si_code of each x87 exception");
