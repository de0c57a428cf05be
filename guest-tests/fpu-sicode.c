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
 * Then a masked exception leaves its flag in FSW before an unmasked one of
 * lower priority ("B_after_A"): the si_code is B's, since only unmasked
 * flags count (FSW & ~FCW).  Then states loaded with frstor check the
 * whole priority order: each kind with every flag below it set, all
 * unmasked ("_first"), each kind the only one unmasked among all six flags
 * and SF ("_only_unmasked"), and a stack fault (IE, SF, C1) with a
 * zero-divide ("stack_fault_first": FPE_FLTINV).  A zero-divide after a
 * page fault still gives trapno 16 and err 0.  (An #MF without an unmasked
 * flag, which gives no SIGFPE, is fpu_vectors' spurious_mf.)
 * It expects the exception's flag in FSW before the fwait, exactly one
 * SIGFPE at the fwait with the expected si_code, trapno 16, err 0, eip at
 * the fwait and equal to si_addr, and the flag in the frame.  QEMU's TCG does not model every exception of the real x87
 * (stack faults among them): a case whose flag the CPU did not raise is
 * skipped with that reason, since then there is nothing for the kernel
 * to deliver.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/sigfpe.h"
#include "rt/sys.h"
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

/* The cases' places in sicode_cases, for the combined cases below. */
enum { SC_INVALID, SC_STACK_UNDERFLOW, SC_STACK_OVERFLOW, SC_DENORMAL, SC_ZERO_DIVIDE,
       SC_OVERFLOW, SC_UNDERFLOW, SC_PRECISION };

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

/*
 * After the state is prepared (a flag set in FSW, ES with it): the fwait,
 * then one SIGFPE with `si_code` there, `flags` in the frame's FSW, and
 * nothing pending after the handler.
 */
static void sicode_judge(struct ktap *subtests, const char *name, uint16_t cw, uint16_t flags,
			 int si_code, const char *si_code_name)
{
	struct ktap_check check;
	uint16_t sw_before, sw_after, expected_sw = flags | X87_SW_ES;
	int sigfpe_before;

	sw_before = x87_store_sw();
	sigfpe_before = sigfpe_seen.count;
	x87_wait();
	sw_after = x87_store_sw();
	x87_init();

	if ((sw_before & flags) != flags) {
		ktap_result_directive(subtests, true, name,
				      "SKIP the CPU did not raise FSW 0x%04x (got 0x%04x)", flags,
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
		ktap_check_expect(&check, sigfpe_seen.si_code == si_code,
				  "expected si_code %d (%s), got %d", si_code, si_code_name,
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

static void sicode_run_case(struct ktap *subtests, const struct sicode_case *c, bool all)
{
	char name[40];
	struct fmt_buf b;
	uint16_t cw = all ? X87_CW_UNMASKED : X87_CW_DEFAULT & ~c->mask;

	fmt_init(&b, name, sizeof(name));
	fmt_addf(&b, "%s_%s", c->name, all ? "all" : "alone");
	sigfpe_forget();
	x87_init();
	x87_load_cw(cw);
	c->trigger();
	sicode_judge(subtests, name, cw, c->flags, c->si_code, c->si_code_name);
}

/*
 * A masked exception first, whose flag stays in FSW, then an unmasked one
 * of lower priority: only the unmasked flag counts (FSW & ~FCW), so the
 * si_code is the second's.  No pair repeats a flag of the first (overflow
 * also flags precision), which a real x87 would raise at the fldcw's next
 * instruction.
 */
static const struct sicode_after {
	void (*first)(void);
	uint16_t first_flags;
	unsigned int second;	/* index in sicode_cases */
	const char *name;
} sicode_afters[] = {
	{ sicode_invalid, X87_SW_IE, SC_ZERO_DIVIDE, "zero_divide_after_invalid" },
	{ sicode_invalid, X87_SW_IE, SC_OVERFLOW, "overflow_after_invalid" },
	{ sicode_zero_divide, X87_SW_ZE, SC_UNDERFLOW, "underflow_after_zero_divide" },
	{ sicode_invalid, X87_SW_IE, SC_DENORMAL, "denormal_after_invalid" },
	{ sicode_invalid, X87_SW_IE, SC_PRECISION, "precision_after_invalid" },
};

static void sicode_run_after(struct ktap *subtests, const struct sicode_after *a)
{
	const struct sicode_case *c = &sicode_cases[a->second];
	uint16_t cw = X87_CW_DEFAULT & ~c->mask;

	sigfpe_forget();
	x87_init();
	a->first();
	x87_load_cw(cw);
	c->trigger();
	sicode_judge(subtests, a->name, cw, a->first_flags | c->flags, c->si_code,
		     c->si_code_name);
}

/*
 * The kernel's priority, from the highest: invalid, zero-divide, overflow,
 * underflow and denormal, precision.  Each kind with the flags below it
 * ("_first", all unmasked), and each kind alone unmasked among all six
 * flags set, a stack fault's SF and C1 too ("_only_unmasked"), loaded with
 * frstor: the kind's si_code.
 */
static const struct sicode_kind {
	unsigned int kase;	/* index in sicode_cases: flag, mask, si_code */
	uint16_t below;
} sicode_kinds[] = {
	{ SC_INVALID, X87_SW_ZE | X87_SW_OE | X87_SW_UE | X87_SW_DE | X87_SW_PE },
	{ SC_ZERO_DIVIDE, X87_SW_OE | X87_SW_UE | X87_SW_DE | X87_SW_PE },
	{ SC_OVERFLOW, X87_SW_UE | X87_SW_DE | X87_SW_PE },
	{ SC_UNDERFLOW, X87_SW_DE | X87_SW_PE },
	{ SC_DENORMAL, X87_SW_PE },
	{ SC_PRECISION, 0 },
};

static void sicode_run_loaded(struct ktap *subtests, const char *name, uint16_t cw,
			      uint16_t flags, const struct sicode_case *c)
{
	struct x87_fsave image;
	const struct fpstate_spec spec = { .cw = cw, .sw_flags = flags | X87_SW_ES };

	sigfpe_forget();
	fpstate_build(&image, &spec);
	x87_init();
	x87_restore(&image);
	sicode_judge(subtests, name, cw, flags & (uint16_t)~X87_SW_C1, c->si_code,
		     c->si_code_name);
}

static void sicode_run_priority(struct ktap *subtests, const struct sicode_kind *k)
{
	const struct sicode_case *c = &sicode_cases[k->kase];
	uint16_t all = X87_SW_IE | X87_SW_ZE | X87_SW_OE | X87_SW_UE | X87_SW_DE | X87_SW_PE |
		       X87_SW_SF | X87_SW_C1;
	char name[40];
	struct fmt_buf b;

	fmt_init(&b, name, sizeof(name));
	fmt_addf(&b, "%s_first", c->name);
	sicode_run_loaded(subtests, name, X87_CW_UNMASKED, c->flags | k->below, c);
	fmt_init(&b, name, sizeof(name));
	fmt_addf(&b, "%s_only_unmasked", c->name);
	sicode_run_loaded(subtests, name, X87_CW_DEFAULT & ~c->mask, all, c);
}

static volatile uint32_t sicode_resume;
static volatile int sicode_segvs;

static void sicode_handle_segv(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	sicode_segvs++;
	uc->uc_mcontext.eip = sicode_resume;
}

/*
 * A page fault first (a write to address 0: trap 14, error code 6), then a
 * zero-divide: math_error() sets the thread's trap_nr and error_code
 * itself, so the frame says trapno 16 and err 0, not the fault's.
 */
static void sicode_run_after_fault(struct ktap *subtests)
{
	const struct sicode_case *c = &sicode_cases[SC_ZERO_DIVIDE];
	const char *name = "zero_divide_after_page_fault";
	struct ktap_check check;
	long err = signal_set_action(SIGSEGV, sicode_handle_segv);

	sicode_segvs = 0;
	if (err == 0)
		__asm__ volatile("movl $1f, %0\n\t"
				 "movl $0, 0\n"
				 "1:" : "=m"(sicode_resume) : : "memory");
	if (sicode_segvs != 1) {
		ktap_check_begin(&check);
		ktap_check_expect(&check, false, "expected 1 SIGSEGV from a write to 0, got %d (error %ld)",
				  sicode_segvs, err);
		ktap_check_end(subtests, &check, name);
		return;
	}
	sigfpe_forget();
	x87_init();
	x87_load_cw(X87_CW_DEFAULT & ~c->mask);
	c->trigger();
	sicode_judge(subtests, name, X87_CW_DEFAULT & ~c->mask, c->flags, c->si_code,
		     c->si_code_name);
}

static void sicode_run(struct ktap *subtests)
{
	long err;

	ktap_plan(subtests, 2 * (int)ARRAY_SIZE(sicode_cases) + (int)ARRAY_SIZE(sicode_afters) +
			    2 * (int)ARRAY_SIZE(sicode_kinds) + 2);
	err = sigfpe_install(NULL);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the SIGFPE handler (error %ld)", err);
		return;
	}
	for (int all = 0; all <= 1; all++)
		for (unsigned int i = 0; i < ARRAY_SIZE(sicode_cases); i++)
			sicode_run_case(subtests, &sicode_cases[i], all);
	for (unsigned int i = 0; i < ARRAY_SIZE(sicode_afters); i++)
		sicode_run_after(subtests, &sicode_afters[i]);
	for (unsigned int i = 0; i < ARRAY_SIZE(sicode_kinds); i++)
		sicode_run_priority(subtests, &sicode_kinds[i]);
	/* A stack fault (IE, SF, C1 for an overflow) with zero-divide also unmasked. */
	sicode_run_loaded(subtests, "stack_fault_first", X87_CW_UNMASKED,
			  X87_SW_IE | X87_SW_SF | X87_SW_C1 | X87_SW_ZE, &sicode_cases[SC_STACK_OVERFLOW]);
	sicode_run_after_fault(subtests);
}

GT_TEST("fpu_sicode", 10, sicode_run,
	GT_TAGS(GT_FUNC("fpu__exception_code"), GT_FUNC("math_error")),
	"fpu__exception_code() in arch/x86/kernel/fpu/core.c and math_error(): the "
	"si_code of each x87 exception");
