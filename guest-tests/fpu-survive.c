/*
 * fpu_survive: a task's x87 state (register stack, FCW, FSW) is the same
 * after the kernel had to save and restore it.
 *
 * Guards the paths that save and reload user x87 state in
 * arch/x86/kernel/fpu/ and arch/x86/kernel/process_32.c:
 * switch_fpu_prepare()/switch_fpu_finish() at a context switch,
 * fpu_clone() at fork (arch/x86/kernel/fpu/core.c), and the signal frame
 * (arch/x86/kernel/fpu/signal.c: copy_fpstate_to_sigframe(), and
 * fpu__restore_sig() at sigreturn), with save_fpregs_to_fpstate() under
 * all of them.  On FSAVE CPUs fnsave reinitializes the FPU, so a save that
 * forgets to reload (the frstor in save_fpregs_to_fpstate()) loses it.
 *
 * Each subtest loads a known state (FCW 0x0f7f: round toward zero, 64-bit
 * precision; FSW with C1, PE and UE flagged, masked; pi, e and 1e10 on the
 * stack), does one thing, and compares the whole state:
 *
 *   wait4          blocking in wait4 on a child that sleeps;
 *   nanosleep      clock_nanosleep_time64;
 *   fork_parent    fork, in the parent;
 *   fork_child     fork, in the child (sent back through a pipe);
 *   signal         a SIGUSR1 whose handler loads other values and divides;
 *   nested_signal  the same, with a SIGUSR2 raised inside that handler:
 *                  the outer handler's state must survive the inner one too;
 *   sigfpe         the state with a zero-divide pending; the SIGFPE handler
 *                  writes the known FCW and FSW into the frame and returns.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sigfpe.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/time.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

#define SURVIVE_SLEEP_MS 20
#define SURVIVE_CW 0x0f7f
#define SURVIVE_SW_FLAGS (X87_SW_C1 | X87_SW_PE | X87_SW_UE)

static const long double survive_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10 };
static const struct fpstate_spec survive_spec = {
	.cw = SURVIVE_CW,
	.sw_flags = SURVIVE_SW_FLAGS,
	.count = ARRAY_SIZE(survive_values),
	.values = survive_values,
};

/* What the handlers load: other values, another FCW. */
static const long double handler_values[] = { -1.5L, 0.125L };
static const struct fpstate_spec outer_spec = {
	.cw = X87_CW_DEFAULT,
	.count = ARRAY_SIZE(handler_values),
	.values = handler_values,
};
static const struct fpstate_spec inner_spec = {
	.cw = 0x007f,	/* 24-bit precision */
	.count = 1,
	.values = handler_values,
};

static struct x87_fsave survive_image;

/* The outer SIGUSR1 handler's state, as it loaded it and as it found it after the inner one. */
static struct x87_fsave outer_image, outer_after_inner;
static volatile bool outer_ran, raise_inner;

/* Loads `spec` and leaves it busy: 1.0 / 3.0 on top, inexact. */
static void survive_scribble(const struct fpstate_spec *spec)
{
	fpstate_load(spec);
	__asm__ volatile("fld1\n\tfld1\n\tfadd %%st(0), %%st\n\tfadd %%st(1), %%st\n\tfdivrp\n\tfstp %%st(0)"
			 ::: "memory", "st", "st(1)");
}

static void survive_handle_usr2(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	survive_scribble(&inner_spec);
}

static void survive_handle_usr1(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	fpstate_build(&outer_image, &outer_spec);
	fpstate_load(&outer_spec);
	if (raise_inner) {
		sys_kill((int)sys_getpid(), SIGUSR2);
		x87_snapshot(&outer_after_inner);
	}
	survive_scribble(&outer_spec);
	outer_ran = true;
}

/* Puts the known FCW and FSW into the frame: the zero-divide is gone after sigreturn. */
static void survive_fix_frame(struct _fpstate *fp)
{
	fp->cw = survive_image.env.cw;
	fp->sw = survive_image.env.sw;
}

static long survive_sleeper;

static long survive_fork_sleeper(void)
{
	survive_sleeper = sys_fork();
	if (survive_sleeper == 0)
		sys_exit_group(time_sleep_ms(SURVIVE_SLEEP_MS) ? 1 : 0);
	return survive_sleeper < 0 ? survive_sleeper : 0;
}

static long survive_wait4(void)
{
	return proc_wait(survive_sleeper);
}

static long survive_sleep(void)
{
	return time_sleep_ms(SURVIVE_SLEEP_MS);
}

static long survive_signal(void)
{
	outer_ran = false;
	raise_inner = false;
	return sys_kill((int)sys_getpid(), SIGUSR1);
}

static long survive_nested_signal(void)
{
	outer_ran = false;
	raise_inner = true;
	return sys_kill((int)sys_getpid(), SIGUSR1);
}

static long survive_sigfpe(void)
{
	sigfpe_forget();
	x87_wait();
	return sigfpe_seen.count == 1 ? 0 : -1000 - sigfpe_seen.count;
}

static int survive_report_state(int write_fd, void *arg)
{
	struct x87_fsave image;

	(void)arg;
	x87_snapshot(&image);
	return proc_write(write_fd, &image, sizeof(image)) < 0;
}

struct survive_case {
	const char *name;
	long (*prepare)(void);	/* before the state is loaded; NULL: nothing */
	long (*act)(void);	/* 0 or an error */
	uint16_t pending;	/* FCW bits to clear and FSW bits to set for a pending exception */
};

static const struct survive_case survive_cases[] = {
	{ "wait4", survive_fork_sleeper, survive_wait4, 0 },
	{ "nanosleep", NULL, survive_sleep, 0 },
	{ "signal", NULL, survive_signal, 0 },
	{ "nested_signal", NULL, survive_nested_signal, 0 },
	{ "sigfpe", NULL, survive_sigfpe, X87_SW_ZE },
};

static void survive_run_case(struct ktap *subtests, const struct survive_case *c)
{
	struct fpstate_spec spec = survive_spec;
	struct ktap_check check;
	struct x87_fsave after;
	long prepared = 0, result;

	fpstate_build(&survive_image, &survive_spec);
	if (c->prepare)
		prepared = c->prepare();
	if (c->pending) {
		spec.cw &= (uint16_t)~c->pending;
		spec.sw_flags |= c->pending | X87_SW_ES;
	}
	fpstate_load(&spec);
	result = prepared < 0 ? prepared : c->act();
	x87_snapshot(&after);
	x87_init();

	ktap_check_begin(&check);
	ktap_check_expect(&check, result == 0, "expected %s to succeed, got %ld", c->name, result);
	fpstate_check(&check, "afterwards", &survive_image, &after);
	if (c->act == survive_signal || c->act == survive_nested_signal)
		ktap_check_expect(&check, outer_ran, "expected the SIGUSR1 handler to run, it did not");
	if (c->act == survive_nested_signal && outer_ran)
		fpstate_check(&check, "in the outer handler after the inner one", &outer_image,
			      &outer_after_inner);
	ktap_check_end(subtests, &check, c->name);
}

static void survive_run_fork(struct ktap *subtests)
{
	struct ktap_check parent_check, child_check;
	struct x87_fsave parent_after, child_image;
	struct proc_child child;
	long err, status = 0, got = 0;

	fpstate_build(&survive_image, &survive_spec);
	fpstate_load(&survive_spec);
	err = proc_start(&child, survive_report_state, NULL);
	x87_snapshot(&parent_after);
	x87_init();
	if (err == 0)
		status = proc_finish(&child, &child_image, sizeof(child_image), &got);

	ktap_check_begin(&parent_check);
	ktap_check_expect(&parent_check, err == 0, "expected fork to succeed, got %ld", err);
	fpstate_check(&parent_check, "in the parent after fork", &survive_image, &parent_after);
	ktap_check_end(subtests, &parent_check, "fork_parent");

	ktap_check_begin(&child_check);
	ktap_check_expect(&child_check, status == 0, "expected the child to exit with 0, got status 0x%lx",
			  status);
	ktap_check_expect(&child_check, got == (long)sizeof(child_image),
			  "expected %u bytes of state from the child, got %ld",
			  (unsigned int)sizeof(child_image), got);
	if (got == (long)sizeof(child_image))
		fpstate_check(&child_check, "in the child after fork", &survive_image, &child_image);
	ktap_check_end(subtests, &child_check, "fork_child");
}

static void survive_run(struct ktap *subtests)
{
	long err;

	ktap_plan(subtests, (int)ARRAY_SIZE(survive_cases) + 2);
	err = sigfpe_install(survive_fix_frame);
	if (err == 0)
		err = signal_set_action(SIGUSR1, survive_handle_usr1);
	if (err == 0)
		err = signal_set_action(SIGUSR2, survive_handle_usr2);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the signal handlers (error %ld)", err);
		return;
	}
	for (unsigned int i = 0; i < 2; i++)
		survive_run_case(subtests, &survive_cases[i]);
	survive_run_fork(subtests);
	for (unsigned int i = 2; i < ARRAY_SIZE(survive_cases); i++)
		survive_run_case(subtests, &survive_cases[i]);
}

GT_TEST("fpu_survive", 10, survive_run,
	"switch_fpu_prepare(), fpu_clone(), copy_fpstate_to_sigframe(), "
	"fpu__restore_sig(): user x87 state survives switches, fork and signals");
