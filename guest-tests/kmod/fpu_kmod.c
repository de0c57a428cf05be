// SPDX-License-Identifier: GPL-2.0
/*
 * fpu_kmod: the kernel's own x87 use, kernel_fpu_begin()/kernel_fpu_end(),
 * while the task that loads the module has live user x87 state with an
 * unmasked exception pending (guest-tests/fpu-kmod.c sets that up).
 *
 * Guards kernel_fpu_begin_mask() and irq_fpu_usable() in
 * arch/x86/kernel/fpu/core.c and the rules of arch/x86/include/asm/fpu/api.h:
 * a section saves the user state (save_fpregs_to_fpstate(), which must not
 * raise the pending exception: f994d99cf140 ("x86-32, fpu: Fix FPU
 * exception handling on non-SSE systems")) and starts from fninit;
 * sections do not nest (irq_fpu_usable() is false inside one); a softirq
 * may use the FPU when irq_fpu_usable() says so.  The user state is put
 * back on the return to user space; the init side checks it.
 *
 * Runs at module init, in the loading task, and prints KTAP subtests
 * through printk at depth 2, which the host reads as part of the running
 * test.  Init fails with -EINVAL when a subtest failed, so the loader sees
 * it too.
 *
 *   usable_outside       irq_fpu_usable() before any section;
 *   begin_initializes    in a kernel_fpu_begin() section: FCW 0x037f, no
 *                        flag or pending exception, every register empty;
 *   not_nestable         irq_fpu_usable() is false inside it;
 *   arithmetic           fldpi doubled is 2*pi, to the last bit;
 *   masked_exception     1.0/0.0 with the default FCW gives +inf and ZE
 *                        without ES: nothing pending, nothing raised;
 *   second_section       a following kernel_fpu_begin_mask(KFPU_387)
 *                        section starts clean again (no ZE left);
 *   softirq_section      a tasklet run from local_bh_enable(), in softirq
 *                        context, finds irq_fpu_usable() and a clean FPU,
 *                        and computes 2*pi;
 *   hardirq_usable       a hard interrupt (a HRTIMER_MODE_REL_HARD timer)
 *                        that hits the task with softirqs enabled finds
 *                        irq_fpu_usable();
 *   hardirq_bh_disabled  one that hits a local_bh_disable() region, as
 *                        fpregs_lock() makes around the registers, does not;
 *   hardirq_in_section   nor one that hits a kernel_fpu_begin() section;
 *   mxcsr_default        where the kernel uses SSE, a kernel_fpu_begin()
 *                        section runs with MXCSR 0x1f80 (KFPU_MXCSR),
 *                        whatever the task's was (the init side sets
 *                        another rounding mode).
 */
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/types.h>

#include <asm/fpu/api.h>

#define KT_INDENT "        "	/* depth 2: subtests of the init side's subtests */

#define FNINIT_CW 0x037f
#define FNINIT_TAG 0xffff
#define SW_PENDING 0x80ff	/* B, ES, SF and the six flags */
#define SW_ZE 0x0004
#define SW_ES 0x0080
#define KT_MXCSR_DEFAULT 0x1f80	/* MXCSR_DEFAULT, which older trees keep in another header */

struct kt_ext {			/* an 80-bit register as fstpt stores it */
	u64 significand;
	u16 sign_exponent;
} __packed;

static const struct kt_ext two_pi = { 0xc90fdaa22168c235ull, 0x4001 };
static const struct kt_ext plus_infinity = { 0x8000000000000000ull, 0x7fff };

struct kt_env {			/* fnstenv in 32-bit protected mode */
	u32 cw, sw, tag, ip, cs, dp, ds;
};

static int kt_next = 1, kt_failed;

static void kt_result(bool ok, const char *name)
{
	pr_info(KT_INDENT "%s %d %s\n", ok ? "ok" : "not ok", kt_next++, name);
	kt_failed += !ok;
}

static void kt_store_env(struct kt_env *env)
{
	asm volatile("fnstenv %0" : "=m"(*env) : : "memory");
}

static void kt_double_pi(struct kt_ext *out)
{
	asm volatile("fldpi\n\tfadd %%st(0), %%st\n\tfstpt %0" : "=m"(*out) : : "memory");
}

/* 1.0 / 0.0 with the FCW as it is; returns FSW right after. */
static u16 kt_divide_one_by_zero(struct kt_ext *out)
{
	u16 sw;

	asm volatile("fld1\n\tfldz\n\tfdivrp\n\tfnstsw %1\n\tfstpt %0"
		     : "=m"(*out), "=m"(sw) : : "memory");
	return sw;
}

static bool kt_ext_equal(const struct kt_ext *a, const struct kt_ext *b)
{
	return a->significand == b->significand && a->sign_exponent == b->sign_exponent;
}

/* Reports whether `env` is what fninit leaves. */
static void kt_check_clean(const char *name, const struct kt_env *env)
{
	bool ok = (u16)env->cw == FNINIT_CW && !(env->sw & SW_PENDING) &&
		  (u16)env->tag == FNINIT_TAG;

	kt_result(ok, name);
	if (!ok)
		pr_info(KT_INDENT "# expected FCW 0x%04x, FSW flags 0, tag 0x%04x, got FCW 0x%04x FSW 0x%04x tag 0x%04x\n",
			FNINIT_CW, FNINIT_TAG, (u16)env->cw, (u16)env->sw, (u16)env->tag);
}

static void kt_check_ext(const char *name, const struct kt_ext *want, const struct kt_ext *got)
{
	bool ok = kt_ext_equal(want, got);

	kt_result(ok, name);
	if (!ok)
		pr_info(KT_INDENT "# expected %04x:%016llx, got %04x:%016llx\n", want->sign_exponent,
			want->significand, got->sign_exponent, got->significand);
}

/* What the tasklet saw; reported by the task after local_bh_enable(). */
static struct {
	bool ran, in_softirq, usable;
	struct kt_env env;
	struct kt_ext result;
} softirq_seen;

static void kt_softirq_section(struct tasklet_struct *t)
{
	softirq_seen.ran = true;
	softirq_seen.in_softirq = in_serving_softirq();
	softirq_seen.usable = irq_fpu_usable();
	if (!softirq_seen.usable)
		return;
	kernel_fpu_begin();
	kt_store_env(&softirq_seen.env);
	kt_double_pi(&softirq_seen.result);
	kernel_fpu_end();
}

static DECLARE_TASKLET(kt_tasklet, kt_softirq_section);

static void kt_run_softirq(void)
{
	bool ok;

	local_bh_disable();
	tasklet_schedule(&kt_tasklet);
	local_bh_enable();	/* runs the pending softirq here, in this task */
	tasklet_kill(&kt_tasklet);

	ok = softirq_seen.ran && softirq_seen.in_softirq && softirq_seen.usable &&
	     (u16)softirq_seen.env.cw == FNINIT_CW && !(softirq_seen.env.sw & SW_PENDING) &&
	     kt_ext_equal(&softirq_seen.result, &two_pi);
	kt_result(ok, "softirq_section");
	if (!ok)
		pr_info(KT_INDENT "# expected the tasklet in softirq with irq_fpu_usable, FCW 0x%04x, FSW flags 0, 2*pi; got ran %d softirq %d usable %d FCW 0x%04x FSW 0x%04x result %04x:%016llx\n",
			FNINIT_CW, softirq_seen.ran, softirq_seen.in_softirq, softirq_seen.usable,
			(u16)softirq_seen.env.cw, (u16)softirq_seen.env.sw,
			softirq_seen.result.sign_exponent, softirq_seen.result.significand);
}

/* What a hard interrupt saw; reported by the task that waited for it. */
static struct {
	bool ran, in_hardirq, usable;
} hardirq_seen;

static struct hrtimer kt_timer;

static enum hrtimer_restart kt_hardirq(struct hrtimer *t)
{
	hardirq_seen.in_hardirq = hardirq_count() != 0;	/* in_hardirq() is 5.14 on */
	hardirq_seen.usable = irq_fpu_usable();
	WRITE_ONCE(hardirq_seen.ran, true);
	return HRTIMER_NORESTART;
}

enum kt_hit { HIT_TASK, HIT_BH_DISABLED, HIT_SECTION };

/*
 * Arms a timer that fires in hard interrupt context and spins, interrupts
 * on, until it has fired (a tick at most without high resolution timers;
 * a second is the limit), inside what `hit` names.
 */
static void kt_run_hardirq(const char *name, enum kt_hit hit)
{
	unsigned long until = jiffies + HZ;
	bool want = hit == HIT_TASK, ok;

	memset(&hardirq_seen, 0, sizeof(hardirq_seen));
	hrtimer_init(&kt_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	kt_timer.function = kt_hardirq;
	if (hit == HIT_BH_DISABLED)
		local_bh_disable();
	else if (hit == HIT_SECTION)
		kernel_fpu_begin();
	hrtimer_start(&kt_timer, ns_to_ktime(NSEC_PER_MSEC), HRTIMER_MODE_REL_HARD);
	while (!READ_ONCE(hardirq_seen.ran) && time_before(jiffies, until))
		cpu_relax();
	if (hit == HIT_BH_DISABLED)
		local_bh_enable();
	else if (hit == HIT_SECTION)
		kernel_fpu_end();
	hrtimer_cancel(&kt_timer);

	ok = hardirq_seen.ran && hardirq_seen.in_hardirq && hardirq_seen.usable == want;
	kt_result(ok, name);
	if (!ok)
		pr_info(KT_INDENT "# expected the timer in a hard interrupt with irq_fpu_usable() %d; got ran %d hardirq %d usable %d\n",
			want, hardirq_seen.ran, hardirq_seen.in_hardirq, hardirq_seen.usable);
}

/* The MXCSR a kernel_fpu_begin() section starts with, where the kernel enabled SSE. */
static void kt_run_mxcsr(void)
{
	u32 mxcsr;
	bool ok;

	if (!boot_cpu_has(X86_FEATURE_XMM)) {
		pr_info(KT_INDENT "ok %d mxcsr_default # SKIP the kernel does not use SSE\n", kt_next++);
		return;
	}
	kernel_fpu_begin();
	asm volatile("stmxcsr %0" : "=m"(mxcsr));
	kernel_fpu_end();
	ok = mxcsr == KT_MXCSR_DEFAULT;
	kt_result(ok, "mxcsr_default");
	if (!ok)
		pr_info(KT_INDENT "# expected MXCSR 0x%04x in a section, got 0x%04x\n", KT_MXCSR_DEFAULT,
			mxcsr);
}

static int __init kt_init(void)
{
	struct kt_env env;
	struct kt_ext result, quotient;
	bool usable, ok;
	u16 sw;

	pr_info(KT_INDENT "KTAP version 1\n");
	pr_info(KT_INDENT "1..11\n");

	usable = irq_fpu_usable();
	kt_result(usable, "usable_outside");
	if (!usable)
		pr_info(KT_INDENT "# expected irq_fpu_usable() 1 in task context, got 0\n");

	kernel_fpu_begin();
	kt_store_env(&env);
	usable = irq_fpu_usable();
	kt_double_pi(&result);
	sw = kt_divide_one_by_zero(&quotient);
	kernel_fpu_end();
	kt_check_clean("begin_initializes", &env);
	kt_result(!usable, "not_nestable");
	if (usable)
		pr_info(KT_INDENT "# expected irq_fpu_usable() 0 inside a section, got 1\n");
	kt_check_ext("arithmetic", &two_pi, &result);
	ok = kt_ext_equal(&quotient, &plus_infinity) && (sw & SW_ZE) && !(sw & SW_ES);
	kt_result(ok, "masked_exception");
	if (!ok)
		pr_info(KT_INDENT "# expected +inf (7fff:8000000000000000) and FSW ZE without ES, got %04x:%016llx FSW 0x%04x\n",
			quotient.sign_exponent, quotient.significand, sw);

	kernel_fpu_begin_mask(KFPU_387);
	kt_store_env(&env);
	kernel_fpu_end();
	kt_check_clean("second_section", &env);

	kt_run_softirq();
	kt_run_hardirq("hardirq_usable", HIT_TASK);
	kt_run_hardirq("hardirq_bh_disabled", HIT_BH_DISABLED);
	kt_run_hardirq("hardirq_in_section", HIT_SECTION);
	kt_run_mxcsr();
	return kt_failed ? -EINVAL : 0;
}

static void __exit kt_exit(void)
{
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_DESCRIPTION("fpubench: kernel_fpu_begin()/end() under live user x87 state");
MODULE_LICENSE("GPL");
