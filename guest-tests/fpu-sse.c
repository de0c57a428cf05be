/*
 * fpu_sse: a program may use SSE exactly when the kernel says so in
 * AT_HWCAP, and then its MXCSR and xmm registers are its own.
 *
 * Guards fpu__init_cpu_generic() in arch/x86/kernel/fpu/init.c, which sets
 * CR4.OSFXSR when the kernel uses FXSR and CR4.OSXMMEXCPT when it uses SSE
 * (boot_cpu_has(), which `nofxsr` clears for both: the SSE feature depends
 * on FXSR); the CPU raises #UD for an SSE instruction while CR4.OSFXSR is
 * clear (Intel SDM vol. 3A, 2.5 "Control Registers"), which do_error_trap()
 * delivers as SIGILL with ILL_ILLOPN at the instruction.  On FXSR kernels
 * __switch_to() saves and restores the SSE state with fxsave and fxrstor,
 * handle_signal() starts a handler with the init state (MXCSR 0x1f80, the
 * xmm registers zero: fpu__clear_user_states()), the frame's FXSR image
 * holds the interrupted MXCSR and xmm0..xmm7, and sigreturn restores them.
 *
 *   hwcap         AT_HWCAP says FXSR only where CPUID does, and SSE only
 *                 with FXSR;
 *   sse_sigill    stmxcsr, ldmxcsr, xorps, movaps between registers and a
 *                 movups load run without a signal where AT_HWCAP says FXSR
 *                 and SSE, and each raises SIGILL (ILL_ILLOPN, si_addr and
 *                 eip at it) elsewhere: on pentium3:nofxsr too, where CPUID
 *                 still says SSE;
 *   sse_switch    with SSE: MXCSR 0x3f80 and xmm0..xmm7 loaded, a child
 *                 loads others and reports them while the parent waits: both
 *                 keep their own;
 *   sse_signal    with SSE: a SIGUSR1 handler starts with MXCSR 0x1f80 and
 *                 zero xmm registers, finds the interrupted ones in the
 *                 frame, loads others, and after sigreturn the interrupted
 *                 ones are back;
 *   simd_*        with SSE: divss with an unmasked zero-divide, invalid or
 *                 precision exception (and a zero-divide with a masked
 *                 invalid flag already set) gives one SIGFPE with its
 *                 si_code from fpu__exception_code()'s MXCSR branch, trapno
 *                 19 (#XM) and eip and si_addr at the divss, never SIGILL
 *                 (CR4.OSXMMEXCPT).  QEMU's TCG sets the flag without
 *                 raising #XM (update_mxcsr_from_sse_status() in
 *                 target/i386/tcg/fpu_helper.c): skipped there.
 */
#include "rt/auxv.h"
#include "rt/cpu.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/signal.h"
#include "rt/sse.h"
#include "rt/sys.h"
#include "rt/test.h"

#include <stdbool.h>
#include <stdint.h>

#define SSE_MXCSR_LOADED 0x3f80		/* round down */
#define SSE_MXCSR_OTHER 0x7f80		/* toward zero */

/* Where the instruction under probe is, and where the SIGILL handler resumes. */
static struct {
	uint32_t at, resume;
	int count, si_code;
	uint32_t fault_addr, eip;
} volatile sse_probe;

static const uint32_t sse_mxcsr_default = SSE_MXCSR_DEFAULT;
static const uint8_t sse_sixteen[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* Each probe records its instruction's address (1:) and the one after (2:). */
#define SSE_PROBE_AT(insn) "movl $1f, %0\n\tmovl $2f, %1\n1:\t" insn "\n2:"
#define SSE_PROBE_OUT "=m"(sse_probe.at), "=m"(sse_probe.resume)

static void sse_probe_stmxcsr(void)
{
	uint32_t mxcsr;

	__asm__ volatile(SSE_PROBE_AT("stmxcsr %2") : SSE_PROBE_OUT, "=m"(mxcsr) : : "memory");
}

static void sse_probe_ldmxcsr(void)
{
	__asm__ volatile(SSE_PROBE_AT("ldmxcsr %2") : SSE_PROBE_OUT : "m"(sse_mxcsr_default)
			 : "memory");
}

static void sse_probe_xorps(void)
{
	__asm__ volatile(SSE_PROBE_AT("xorps %%xmm1, %%xmm1") : SSE_PROBE_OUT : : "memory");
}

static void sse_probe_movaps(void)
{
	__asm__ volatile(SSE_PROBE_AT("movaps %%xmm1, %%xmm2") : SSE_PROBE_OUT : : "memory");
}

static void sse_probe_movups(void)
{
	__asm__ volatile(SSE_PROBE_AT("movups %2, %%xmm3") : SSE_PROBE_OUT : "m"(sse_sixteen)
			 : "memory");
}

static const struct {
	const char *name;
	void (*run)(void);
} sse_probes[] = {
	{ "stmxcsr", sse_probe_stmxcsr }, { "ldmxcsr", sse_probe_ldmxcsr },
	{ "xorps", sse_probe_xorps }, { "movaps", sse_probe_movaps },
	{ "movups", sse_probe_movups },
};

static void sse_handle_sigill(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	if (sse_probe.count++ == 0) {
		sse_probe.si_code = info->si_code;
		sse_probe.fault_addr = (uint32_t)info->si_addr;
		sse_probe.eip = uc->uc_mcontext.eip;
	}
	uc->uc_mcontext.eip = sse_probe.resume;
}

static void sse_check_hwcap(struct ktap *subtests, bool enabled)
{
	struct ktap_check check;
	struct cpu_info cpu = { .edx = 0 };
	uint32_t hwcap = auxv_get(AT_HWCAP);

	cpu_identify(&cpu);
	ktap_check_begin(&check);
	ktap_check_expect(&check, !(hwcap & AUXV_HWCAP_FXSR) || (cpu.edx & CPU_EDX_FXSR),
			  "expected FXSR in AT_HWCAP only with FXSR in CPUID");
	ktap_check_expect(&check, !(hwcap & AUXV_HWCAP_SSE) || (cpu.edx & CPU_EDX_SSE),
			  "expected SSE in AT_HWCAP only with SSE in CPUID");
	ktap_check_expect(&check, !(hwcap & AUXV_HWCAP_SSE) || (hwcap & AUXV_HWCAP_FXSR),
			  "expected SSE in AT_HWCAP only with FXSR there");
	ktap_check_note(&check, "AT_HWCAP 0x%08x, CPUID.1 EDX 0x%08x, SSE enabled: %s",
			(unsigned int)hwcap, (unsigned int)cpu.edx, enabled ? "yes" : "no");
	ktap_check_end(subtests, &check, "hwcap");
}

static void sse_check_sigill(struct ktap *subtests, bool enabled)
{
	struct ktap_check check;
	long err = signal_set_action(SIGILL, sse_handle_sigill);

	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected the SIGILL handler installed, got error %ld",
			  err);
	for (unsigned int i = 0; err == 0 && i < ARRAY_SIZE(sse_probes); i++) {
		sse_probe.count = 0;
		sse_probe.si_code = 0;
		sse_probe.fault_addr = sse_probe.eip = 0;
		sse_probes[i].run();
		ktap_check_expect(&check, sse_probe.count == (enabled ? 0 : 1),
				  "expected %d SIGILL from %s, got %d", enabled ? 0 : 1,
				  sse_probes[i].name, sse_probe.count);
		if (enabled || sse_probe.count == 0)
			continue;
		ktap_check_expect(&check, sse_probe.si_code == ILL_ILLOPN,
				  "expected si_code %d (ILL_ILLOPN) from %s, got %d", ILL_ILLOPN,
				  sse_probes[i].name, sse_probe.si_code);
		ktap_check_expect(&check, sse_probe.eip == sse_probe.at &&
				  sse_probe.fault_addr == sse_probe.at,
				  "expected eip and si_addr 0x%08x (%s), got 0x%08x and 0x%08x",
				  (unsigned int)sse_probe.at, sse_probes[i].name,
				  (unsigned int)sse_probe.eip, (unsigned int)sse_probe.fault_addr);
	}
	ktap_check_note(&check, "AT_HWCAP 0x%08x: SSE %s", (unsigned int)auxv_get(AT_HWCAP),
			enabled ? "enabled" : "not enabled");
	ktap_check_end(subtests, &check, "sse_sigill");
}

static int sse_switch_child(int write_fd, void *arg)
{
	struct sse_state other, seen;

	(void)arg;
	sse_make(&other, 0x90, SSE_MXCSR_OTHER);
	sse_load(&other);
	sys_getpid();
	sse_store(&seen);
	return proc_write(write_fd, &seen, sizeof(seen)) < 0;
}

static void sse_check_switch(struct ktap *subtests)
{
	struct ktap_check check;
	struct sse_state loaded, other, after, child_seen;
	struct proc_child child;
	long got = 0, status = -1, err;

	sse_make(&loaded, 0x20, SSE_MXCSR_LOADED);
	sse_make(&other, 0x90, SSE_MXCSR_OTHER);
	sse_load(&loaded);
	err = proc_start(&child, sse_switch_child, NULL);
	/* The parent sleeps in read() until the child has run. */
	if (err == 0)
		status = proc_finish(&child, &child_seen, sizeof(child_seen), &got);
	sse_store(&after);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && status == 0 && got == (long)sizeof(child_seen),
			  "expected the child's report, got error %ld, status 0x%lx, %ld bytes",
			  err, status, got);
	ktap_check_expect(&check, sse_equal(&loaded, &after),
			  "expected MXCSR 0x%x and xmm0..xmm7 kept by the parent, got MXCSR 0x%x, other registers",
			  (unsigned int)loaded.mxcsr, (unsigned int)after.mxcsr);
	if (got == (long)sizeof(child_seen))
		ktap_check_expect(&check, sse_equal(&other, &child_seen),
				  "expected MXCSR 0x%x and xmm0..xmm7 in the child, got MXCSR 0x%x, other registers",
				  (unsigned int)other.mxcsr, (unsigned int)child_seen.mxcsr);
	ktap_check_end(subtests, &check, "sse_switch");
}

/* What the SIGUSR1 handler saw: its own start, and the frame's FXSR part. */
static struct {
	struct sse_state start, frame;
	bool fpstate;
} sse_handler;

static void sse_handle_usr1(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;
	struct _fpstate *fp = uc->uc_mcontext.fpstate;
	struct sse_state other;

	(void)sig;
	(void)info;
	sse_store(&sse_handler.start);
	sse_handler.fpstate = fp != NULL;
	if (fp) {
		sse_handler.frame.mxcsr = fp->mxcsr;
		for (unsigned int r = 0; r < 8; r++)
			for (unsigned int b = 0; b < 16; b++)
				sse_handler.frame.xmm[r][b] = ((const uint8_t *)&fp->_xmm[r])[b];
	}
	sse_make(&other, 0x90, SSE_MXCSR_OTHER);
	sse_load(&other);
}

static void sse_check_signal(struct ktap *subtests)
{
	struct ktap_check check;
	struct sse_state loaded, init, after;
	long err = signal_set_action(SIGUSR1, sse_handle_usr1);

	sse_make(&loaded, 0x20, SSE_MXCSR_LOADED);
	init.mxcsr = SSE_MXCSR_DEFAULT;
	for (unsigned int r = 0; r < 8; r++)
		for (unsigned int b = 0; b < 16; b++)
			init.xmm[r][b] = 0;
	sse_load(&loaded);
	if (err == 0)
		err = sys_kill((int)sys_getpid(), SIGUSR1);
	sse_store(&after);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected SIGUSR1 sent, got error %ld", err);
	ktap_check_expect(&check, sse_equal(&init, &sse_handler.start),
			  "expected the handler to start with MXCSR 0x1f80 and zero xmm registers, got MXCSR 0x%x",
			  (unsigned int)sse_handler.start.mxcsr);
	ktap_check_expect(&check, sse_handler.fpstate && sse_equal(&loaded, &sse_handler.frame),
			  "expected MXCSR 0x%x and xmm0..xmm7 in the frame, got MXCSR 0x%x (fpstate %s)",
			  (unsigned int)loaded.mxcsr, (unsigned int)sse_handler.frame.mxcsr,
			  sse_handler.fpstate ? "there" : "NULL");
	ktap_check_expect(&check, sse_equal(&loaded, &after),
			  "expected MXCSR 0x%x and xmm0..xmm7 back after sigreturn, got MXCSR 0x%x",
			  (unsigned int)loaded.mxcsr, (unsigned int)after.mxcsr);
	ktap_check_end(subtests, &check, "sse_signal");
}

#define SSE_TRAP_XF 19		/* #XM, the SIMD floating-point exception */
#define SSE_FLAGS 0x003f	/* MXCSR's exception flags; the masks are 7 bits above */

static const uint32_t sse_one = 0x3f800000, sse_zero = 0, sse_three = 0x40400000;

/*
 * An unmasked SIMD exception of divss: the kernel (CR4.OSXMMEXCPT) turns
 * #XM into SIGFPE with the unmasked flag's si_code, at the instruction
 * (a fault).  `mxcsr` is loaded first; a flag already set there under its
 * mask must not count.
 */
static const struct sse_xm_case {
	const char *name;
	uint32_t mxcsr;
	const uint32_t *dividend, *divisor;
	uint32_t flag;
	int si_code;
} sse_xm_cases[] = {
	{ "simd_zero_divide", SSE_MXCSR_DEFAULT & ~0x200u, &sse_one, &sse_zero, 0x04, FPE_FLTDIV },
	{ "simd_invalid", SSE_MXCSR_DEFAULT & ~0x080u, &sse_zero, &sse_zero, 0x01, FPE_FLTINV },
	{ "simd_precision", SSE_MXCSR_DEFAULT & ~0x1000u, &sse_one, &sse_three, 0x20, FPE_FLTRES },
	{ "simd_zero_divide_after_invalid", (SSE_MXCSR_DEFAULT & ~0x200u) | 0x01, &sse_one,
	  &sse_zero, 0x04, FPE_FLTDIV },
};

static struct {
	int count, si_code;
	uint32_t fault_addr, eip, trapno;
} volatile sse_xm;

/* Records the first SIGFPE, then masks every SIMD exception in the frame and clears the flags. */
static void sse_handle_sigfpe(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;
	struct _fpstate *fp = uc->uc_mcontext.fpstate;

	(void)sig;
	if (sse_xm.count++ == 0) {
		sse_xm.si_code = info->si_code;
		sse_xm.fault_addr = (uint32_t)info->si_addr;
		sse_xm.eip = uc->uc_mcontext.eip;
		sse_xm.trapno = uc->uc_mcontext.trapno;
	}
	if (fp)
		fp->mxcsr = SSE_MXCSR_DEFAULT;
	else
		uc->uc_mcontext.eip = sse_probe.resume;
}

static void sse_check_xm(struct ktap *subtests, const struct sse_xm_case *c)
{
	struct ktap_check check;
	uint32_t after = 0;

	sse_xm.count = 0;
	sse_probe.count = 0;
	__asm__ volatile("ldmxcsr %3\n\t"
			 "movss %4, %%xmm0\n\t"
			 SSE_PROBE_AT("divss %5, %%xmm0") "\n\t"
			 "stmxcsr %2\n\t"
			 "ldmxcsr %6"
			 : SSE_PROBE_OUT, "=m"(after)
			 : "m"(c->mxcsr), "m"(*c->dividend), "m"(*c->divisor), "m"(sse_mxcsr_default)
			 : "memory");
	if (sse_xm.count == 0 && sse_probe.count == 0 && (after & c->flag)) {
		ktap_result_directive(subtests, true, c->name,
				      "SKIP the CPU set MXCSR 0x%x without #XM (QEMU TCG)",
				      (unsigned int)after);
		return;
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, sse_probe.count == 0, "expected no SIGILL (CR4.OSXMMEXCPT), got %d",
			  sse_probe.count);
	ktap_check_expect(&check, sse_xm.count == 1, "expected 1 SIGFPE, got %d", sse_xm.count);
	ktap_check_expect(&check, sse_xm.si_code == c->si_code, "expected si_code %d, got %d",
			  c->si_code, sse_xm.si_code);
	ktap_check_expect(&check, sse_xm.trapno == SSE_TRAP_XF,
			  "expected sigcontext trapno %d (#XM), got %u", SSE_TRAP_XF,
			  (unsigned int)sse_xm.trapno);
	ktap_check_expect(&check, sse_xm.eip == sse_probe.at && sse_xm.fault_addr == sse_probe.at,
			  "expected eip and si_addr at the divss 0x%08x, got 0x%08x and 0x%08x",
			  (unsigned int)sse_probe.at, (unsigned int)sse_xm.eip,
			  (unsigned int)sse_xm.fault_addr);
	ktap_check_note(&check, "MXCSR 0x%x loaded, 0x%x after", (unsigned int)c->mxcsr,
			(unsigned int)after);
	ktap_check_end(subtests, &check, c->name);
}

static void sse_run(struct ktap *subtests)
{
	bool enabled = sse_enabled();

	ktap_plan(subtests, 4 + (int)ARRAY_SIZE(sse_xm_cases));
	sse_check_hwcap(subtests, enabled);
	sse_check_sigill(subtests, enabled);
	if (!enabled) {
		ktap_result_directive(subtests, true, "sse_switch", "SKIP AT_HWCAP has no SSE");
		ktap_result_directive(subtests, true, "sse_signal", "SKIP AT_HWCAP has no SSE");
		for (unsigned int i = 0; i < ARRAY_SIZE(sse_xm_cases); i++)
			ktap_result_directive(subtests, true, sse_xm_cases[i].name,
					      "SKIP AT_HWCAP has no SSE");
		return;
	}
	sse_check_switch(subtests);
	sse_check_signal(subtests);
	if (signal_set_action(SIGFPE, sse_handle_sigfpe) == 0)
		for (unsigned int i = 0; i < ARRAY_SIZE(sse_xm_cases); i++)
			sse_check_xm(subtests, &sse_xm_cases[i]);
}

GT_TEST("fpu_sse", 10, sse_run,
	GT_TAGS(GT_FUNC("fpu__init_cpu_generic"), GT_FUNC("fpu__exception_code"),
		GT_FUNC("math_error"), GT_FUNC("__switch_to"),
		GT_FUNC("fpu__clear_user_states"), GT_FUNC("copy_fpstate_to_sigframe"),
		GT_FUNC("fpu__restore_sig")),
	"fpu__init_cpu_generic() in arch/x86/kernel/fpu/init.c: SSE instructions run exactly "
	"where AT_HWCAP says FXSR and SSE (CR4.OSFXSR), SIGILL elsewhere; MXCSR and xmm0..xmm7 "
	"survive a switch and a signal");
