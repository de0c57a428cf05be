/*
 * fpu_xcomp: what arch_prctl(2) tells a 32-bit program of the FPU state
 * components.
 *
 * Guards fpu_xstate_prctl() in arch/x86/kernel/fpu/xstate.c, reached on
 * i386 through the arch_prctl system call (process_32.c) and
 * do_arch_prctl_common() in arch/x86/kernel/process.c.  The supported
 * components are fpu_user_cfg's max_features (0 without XSAVE) and
 * legacy_features (fpu__init_system_xstate_size_legacy(): x87 alone,
 * bit 0, on an FSAVE kernel; x87 and SSE, bits 0 and 1, with FXSR); the
 * permitted ones are the group leader's perm, fpu_kernel_cfg's
 * default_features (0 without XSAVE); asking for more is 64-bit only.
 * Subtests:
 *
 *   supported     ARCH_GET_XCOMP_SUPP returns 0 and 0x1 when the kernel
 *                 uses FSAVE (AT_HWCAP without FXSR), 0x3 with FXSR and no
 *                 XSAVE (CPUID OSXSAVE clear), at least 0x3 with XSAVE;
 *   permitted     ARCH_GET_XCOMP_PERM and ARCH_GET_XCOMP_GUEST_PERM return
 *                 0 and 0 without XSAVE, a part of the supported set with;
 *   request       ARCH_REQ_XCOMP_PERM and ARCH_REQ_XCOMP_GUEST_PERM (of
 *                 component 18, AMX tile data) are -EOPNOTSUPP;
 *   bad_pointer   ARCH_GET_XCOMP_SUPP and ARCH_GET_XCOMP_PERM into NULL
 *                 or the kernel's first address are -EFAULT;
 *   unknown       ARCH_SET_GS, a 64-bit option, is -EINVAL;
 *   cpuid_mode    the other options of do_arch_prctl_common(): ARCH_GET_CPUID
 *                 is 1 (CPUID allowed), and ARCH_SET_CPUID of 1 is 0 with
 *                 CPUID faulting and -ENODEV without, leaving it 1.
 * Every value read is 64 bits; the word after it stays as it was.
 */
#include "rt/auxv.h"
#include "rt/cpu.h"
#include "rt/ktap.h"
#include "rt/sys.h"
#include "rt/test.h"

#include <asm/errno.h>
#include <asm/prctl.h>
#include <stdbool.h>
#include <stdint.h>

#define XCOMP_FP 0x1ull
#define XCOMP_FPSSE 0x3ull
#define XCOMP_TILE_DATA 18
#define XCOMP_CANARY 0x0123456789abcdefull
#define XCOMP_KERNEL_ADDR 0xc0000000ul

static long xcomp_prctl(int option, unsigned long arg)
{
	return sys_call3(__NR_arch_prctl, option, (long)arg, 0);
}

/* The option's answer into a buffer that starts with `poison`, and the canary after it. */
static long xcomp_get(int option, uint64_t *value, bool *canary_kept)
{
	volatile uint64_t buf[2] = { 0xdeadbeefdeadbeefull, XCOMP_CANARY };
	long ret = xcomp_prctl(option, (unsigned long)buf);

	*value = buf[0];
	*canary_kept = buf[1] == XCOMP_CANARY;
	return ret;
}

static void xcomp_check_get(struct ktap_check *check, const char *what, long ret, uint64_t got,
			    bool kept, bool exact, uint64_t want)
{
	ktap_check_expect(check, ret == 0, "expected %s to return 0, got %ld", what, ret);
	if (exact)
		ktap_check_expect(check, got == want, "expected %s 0x%llx, got 0x%llx", what,
				  (unsigned long long)want, (unsigned long long)got);
	else
		ktap_check_expect(check, (got & want) == want && (got >> 32) == 0,
				  "expected %s to hold 0x%llx, got 0x%llx", what,
				  (unsigned long long)want, (unsigned long long)got);
	ktap_check_expect(check, kept, "expected %s to write 8 bytes, it wrote more", what);
}

static void xcomp_run(struct ktap *subtests)
{
	struct cpu_info cpu;
	bool xsave = cpu_identify(&cpu) && (cpu.ecx & CPU_ECX_OSXSAVE);
	bool fxsr = auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR;
	uint64_t supp = 0, perm = 0, guest = 0;
	bool kept_supp, kept_perm, kept_guest;
	long ret_supp, ret_perm, ret_guest, r1, r2, r3, r4;
	struct ktap_check check;

	ktap_plan(subtests, 6);
	ret_supp = xcomp_get(ARCH_GET_XCOMP_SUPP, &supp, &kept_supp);
	ktap_check_begin(&check);
	xcomp_check_get(&check, "ARCH_GET_XCOMP_SUPP", ret_supp, supp, kept_supp, !xsave,
			fxsr ? XCOMP_FPSSE : XCOMP_FP);
	ktap_check_note(&check, "AT_HWCAP FXSR %d, OSXSAVE %d", fxsr, xsave);
	ktap_check_end(subtests, &check, "supported");

	ret_perm = xcomp_get(ARCH_GET_XCOMP_PERM, &perm, &kept_perm);
	ret_guest = xcomp_get(ARCH_GET_XCOMP_GUEST_PERM, &guest, &kept_guest);
	ktap_check_begin(&check);
	xcomp_check_get(&check, "ARCH_GET_XCOMP_PERM", ret_perm, perm, kept_perm, !xsave, 0);
	xcomp_check_get(&check, "ARCH_GET_XCOMP_GUEST_PERM", ret_guest, guest, kept_guest, !xsave,
			0);
	ktap_check_expect(&check, (perm & ~supp) == 0 && (guest & ~supp) == 0,
			  "expected the permitted 0x%llx and 0x%llx within the supported 0x%llx",
			  (unsigned long long)perm, (unsigned long long)guest,
			  (unsigned long long)supp);
	ktap_check_end(subtests, &check, "permitted");

	r1 = xcomp_prctl(ARCH_REQ_XCOMP_PERM, XCOMP_TILE_DATA);
	r2 = xcomp_prctl(ARCH_REQ_XCOMP_GUEST_PERM, XCOMP_TILE_DATA);
	ktap_check_begin(&check);
	ktap_check_expect(&check, r1 == -EOPNOTSUPP && r2 == -EOPNOTSUPP,
			  "expected ARCH_REQ_XCOMP_PERM and ARCH_REQ_XCOMP_GUEST_PERM %d, got %ld "
			  "and %ld", -EOPNOTSUPP, r1, r2);
	ktap_check_end(subtests, &check, "request");

	r1 = xcomp_prctl(ARCH_GET_XCOMP_SUPP, 0);
	r2 = xcomp_prctl(ARCH_GET_XCOMP_SUPP, XCOMP_KERNEL_ADDR);
	r3 = xcomp_prctl(ARCH_GET_XCOMP_PERM, 0);
	r4 = xcomp_prctl(ARCH_GET_XCOMP_PERM, XCOMP_KERNEL_ADDR);
	ktap_check_begin(&check);
	ktap_check_expect(&check, r1 == -EFAULT && r2 == -EFAULT && r3 == -EFAULT &&
				  r4 == -EFAULT,
			  "expected %d for NULL and 0x%lx, got %ld %ld (SUPP), %ld %ld (PERM)",
			  -EFAULT, XCOMP_KERNEL_ADDR, r1, r2, r3, r4);
	ktap_check_end(subtests, &check, "bad_pointer");

	r1 = xcomp_prctl(ARCH_SET_GS, 0);
	ktap_check_begin(&check);
	ktap_check_expect(&check, r1 == -EINVAL, "expected ARCH_SET_GS %d, got %ld", -EINVAL, r1);
	ktap_check_end(subtests, &check, "unknown");

	r1 = xcomp_prctl(ARCH_GET_CPUID, 0);
	r2 = xcomp_prctl(ARCH_SET_CPUID, 1);
	r3 = xcomp_prctl(ARCH_GET_CPUID, 0);
	ktap_check_begin(&check);
	ktap_check_expect(&check, r1 == 1 && r3 == 1,
			  "expected ARCH_GET_CPUID 1 before and after, got %ld and %ld", r1, r3);
	ktap_check_expect(&check, r2 == 0 || r2 == -ENODEV,
			  "expected ARCH_SET_CPUID of 1 to be 0 or %d, got %ld", -ENODEV, r2);
	ktap_check_end(subtests, &check, "cpuid_mode");
}

GT_TEST("fpu_xcomp", 10, xcomp_run,
	GT_TAGS(GT_FUNC("fpu_xstate_prctl"), GT_FUNC("do_arch_prctl_common"),
		GT_FUNC("fpu__init_system_xstate_size_legacy")),
	"fpu_xstate_prctl(): arch_prctl reports the x87 component alone on an FSAVE kernel, x87 "
	"and SSE with FXSR, permits none without XSAVE, and refuses requests on i386");
