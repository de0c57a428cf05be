/*
 * fpu_vectors: user space cannot raise the FPU's exception vectors itself.
 *
 * The IDT gates of #NM (7), the coprocessor segment overrun (9), #MF (16)
 * and #XF (19) are kernel-only (DPL 0, idt_setup_traps() in
 * arch/x86/kernel/idt.c), so `int $N` from ring 3 faults with #GP, error
 * code N*8+2 (IDT, external 0): exc_general_protection() in
 * arch/x86/kernel/traps.c sends SIGSEGV, SI_KERNEL, sigcontext trapno 13
 * and that error code, eip at the int.  None of exc_device_not_available(),
 * exc_coproc_segment_overrun() or math_error() runs, so a zero-divide left
 * pending stays pending through it: FSW ES|ZE after the handler, and one
 * SIGFPE (FPE_FLTDIV, trapno 16) only at the next fwait.  (A real #MF
 * from a restored state is fpu_sicode's and fpu_frame's; the coprocessor
 * segment overrun itself only a 386 with a 387 raises.)  A subtest per
 * vector: int7, int9, int16, int19.
 *
 *   spurious_mf  FSW ES|B loaded with frstor, no exception flag set and
 *                every one masked, then fwait (spurious_mf_pe, _ie, _all:
 *                the same with precision, invalid or all six flagged, still
 *                masked, which fpu__exception_code() must not count:
 *                swd & ~cwd): either the CPU raises no #MF,
 *                or (QEMU, which takes ES as loaded) it raises one that
 *                fpu__exception_code() finds nothing in, and math_error()
 *                returns without a signal to retry the fwait, again and
 *                again, until a SIGALRM (setitimer, SPURIOUS_MS) whose
 *                handler clears ES in the frame.  No SIGFPE either way, and
 *                the task runs on with its registers.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/sigfpe.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

#define VECTORS_TRAP_GP 13
#define VECTORS_ERR_IDT 2	/* the error code's IDT bit: the selector is a gate */
#define VECTORS_INT_BYTES 2	/* int imm8: CD ib */
#define SPURIOUS_MS 30

static volatile struct {
	int count;
	int si_code;
	uint32_t trapno, err, eip;
} segv_seen;

static void vectors_handle_segv(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	if (++segv_seen.count == 1) {
		segv_seen.si_code = info->si_code;
		segv_seen.trapno = uc->uc_mcontext.trapno;
		segv_seen.err = uc->uc_mcontext.err;
		segv_seen.eip = uc->uc_mcontext.eip;
	}
	uc->uc_mcontext.eip += VECTORS_INT_BYTES;
}

/* `int $vector`; returns the instruction's address. */
#define VECTORS_INT(vector)                                                 \
	({                                                                  \
		uint32_t at_;                                               \
		__asm__ volatile("movl $1f, %0\n\t"                         \
				 "1: int %1"                                \
				 : "=&r"(at_)                               \
				 : "i"(vector)                              \
				 : "memory");                               \
		at_;                                                        \
	})

static uint32_t vectors_raise(unsigned int vector)
{
	switch (vector) {
	case 7:
		return VECTORS_INT(7);
	case 9:
		return VECTORS_INT(9);
	case 16:
		return VECTORS_INT(16);
	default:
		return VECTORS_INT(19);
	}
}

static void vectors_run_one(struct ktap *subtests, unsigned int vector, const char *name)
{
	const uint16_t pending = X87_SW_ES | X87_SW_ZE;
	struct ktap_check check;
	int sigfpe_before;
	uint16_t sw;
	uint32_t at;

	segv_seen.count = 0;
	segv_seen.eip = 0;
	sigfpe_forget();
	x87_init();
	x87_load_cw(X87_CW_DEFAULT & ~X87_CW_ZM);
	x87_divide_one_by_zero();
	at = vectors_raise(vector);
	sw = x87_store_sw();
	sigfpe_before = sigfpe_seen.count;
	x87_wait();
	x87_init();

	ktap_check_begin(&check);
	ktap_check_expect(&check, segv_seen.count == 1, "expected 1 SIGSEGV, got %d",
			  segv_seen.count);
	if (segv_seen.count) {
		ktap_check_expect(&check, segv_seen.si_code == SI_KERNEL,
				  "expected si_code %d (SI_KERNEL), got %d", SI_KERNEL,
				  segv_seen.si_code);
		ktap_check_expect(&check, segv_seen.trapno == VECTORS_TRAP_GP,
				  "expected trapno %d (#GP), got %u", VECTORS_TRAP_GP,
				  segv_seen.trapno);
		ktap_check_expect(&check, segv_seen.err == vector * 8 + VECTORS_ERR_IDT,
				  "expected err 0x%x, got 0x%x", vector * 8 + VECTORS_ERR_IDT,
				  segv_seen.err);
		ktap_check_expect(&check, segv_seen.eip == at,
				  "expected eip 0x%08x (the int), got 0x%08x", at, segv_seen.eip);
	}
	ktap_check_expect(&check, sigfpe_before == 0, "expected no SIGFPE before the fwait, got %d",
			  sigfpe_before);
	ktap_check_expect(&check, (sw & pending) == pending,
			  "expected FSW flags 0x%04x after the SIGSEGV, got 0x%04x", pending, sw);
	ktap_check_expect(&check, sigfpe_seen.count == 1, "expected 1 SIGFPE at the fwait, got %d",
			  sigfpe_seen.count);
	if (sigfpe_seen.count)
		ktap_check_expect(&check,
				  sigfpe_seen.si_code == FPE_FLTDIV &&
					  sigfpe_seen.trapno == X87_TRAP_MF,
				  "expected si_code %d (FPE_FLTDIV) and trapno %d, got %d and %u",
				  FPE_FLTDIV, X87_TRAP_MF, sigfpe_seen.si_code, sigfpe_seen.trapno);
	ktap_check_note(&check, "SIGSEGV eip 0x%08x, int at 0x%08x", segv_seen.eip, at);
	ktap_check_end(subtests, &check, name);
}

static volatile int alarm_count;

static void vectors_handle_alarm(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	alarm_count++;
	if (uc->uc_mcontext.fpstate)
		x87_sigframe_forget_exception(uc->uc_mcontext.fpstate);
}

/* setitimer(ITIMER_REAL) once, `ms` from now (0: disarm): 0 or -errno. */
static long vectors_alarm_in(unsigned int ms)
{
	const struct itimerval at = { .it_value = { .tv_sec = (long)(ms / 1000),
						   .tv_usec = (long)(ms % 1000) * 1000 } };

	return sys_setitimer(ITIMER_REAL, &at, NULL);
}

static void vectors_run_spurious(struct ktap *subtests, const char *name, uint16_t flags)
{
	static const long double values[] = { FPSTATE_PI, FPSTATE_E };
	const struct fpstate_spec spec = { .cw = X87_CW_DEFAULT,
					   .sw_flags = X87_SW_ES | X87_SW_B | flags,
					   .count = ARRAY_SIZE(values), .values = values };
	struct x87_fsave want, got;
	struct ktap_check check;
	long err;

	fpstate_build(&want, &spec);
	sigfpe_forget();
	alarm_count = 0;
	err = signal_set_action(SIGALRM, vectors_handle_alarm);
	if (err == 0)
		err = vectors_alarm_in(SPURIOUS_MS);
	if (err == 0) {
		fpstate_load(&spec);
		x87_wait();
		x87_snapshot(&got);
		x87_init();
		/* A CPU that raised no #MF has the alarm still to come: disarm it. */
		vectors_alarm_in(0);
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected SIGALRM and setitimer to be set up, got %ld",
			  err);
	ktap_check_expect(&check, sigfpe_seen.count == 0,
			  "expected no SIGFPE for a #MF with nothing unmasked, got %d (si_code %d)",
			  sigfpe_seen.count, sigfpe_seen.si_code);
	if (err == 0)
		fpstate_check_stack(&check, "after the fwait", &want, &got);
	ktap_check_note(&check, "%d SIGALRM during the fwait, FSW 0x%04x after it", alarm_count,
			(uint16_t)got.env.sw);
	ktap_check_end(subtests, &check, name);
}

static void vectors_run(struct ktap *subtests)
{
	static const struct {
		unsigned int vector;
		const char *name;
	} cases[] = { { 7, "int7" }, { 9, "int9" }, { 16, "int16" }, { 19, "int19" } };
	static const struct {
		const char *name;
		uint16_t flags;	/* flagged in FSW, masked in FCW */
	} spurious[] = {
		{ "spurious_mf", 0 },
		{ "spurious_mf_pe", X87_SW_PE },
		{ "spurious_mf_ie", X87_SW_IE },
		{ "spurious_mf_all", X87_SW_IE | X87_SW_DE | X87_SW_ZE | X87_SW_OE | X87_SW_UE |
					     X87_SW_PE },
	};
	long err;

	ktap_plan(subtests, (int)(ARRAY_SIZE(cases) + ARRAY_SIZE(spurious)));
	err = sigfpe_install(NULL);
	if (err == 0)
		err = signal_set_action(SIGSEGV, vectors_handle_segv);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the signal handlers (error %ld)", err);
		return;
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++)
		vectors_run_one(subtests, cases[i].vector, cases[i].name);
	for (unsigned int i = 0; i < ARRAY_SIZE(spurious); i++)
		vectors_run_spurious(subtests, spurious[i].name, spurious[i].flags);
}

GT_TEST("fpu_vectors", 10, vectors_run,
	GT_TAGS(GT_FUNC("exc_general_protection"), GT_FUNC("math_error"),
		GT_FUNC("fpu__exception_code"), GT_FUNC("exc_coproc_segment_overrun"),
		GT_FUNC("exc_device_not_available")),
	"exc_general_protection(): int $7, $9, $16 or $19 from user space is a #GP (SIGSEGV, "
	"SI_KERNEL, err N*8+2) that leaves a pending x87 exception pending; math_error(), "
	"fpu__exception_code(): a #MF with nothing unmasked (swd & ~cwd) sends no signal");
