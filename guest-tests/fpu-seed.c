/*
 * fpu_seed: a pending x87 exception reaches user space as one SIGFPE and
 * is never raised inside the kernel.
 *
 * Guards f994d99cf140 ("x86-32, fpu: Fix FPU exception handling on non-SSE
 * systems").  On CPUs without FXSR the kernel saves a task's x87 state with
 * fnsave.  With the waiting fsave instead, an unmasked exception that the
 * task left pending is raised again inside the kernel, in
 * save_fpregs_to_fpstate(), and the kernel oopses ("fpu exception").  The
 * kernel saves that state when it handles the task's #MF (math_error()
 * syncs the registers to memory to read the status word) and when it
 * switches the task out, so each path gets a subtest:
 *
 *   fwait            the exception is delivered at once;
 *   wait4            the task first blocks in wait4 on a child that sleeps
 *                    (forked before the divide: fork saves the state too);
 *   clock_nanosleep  the task first sleeps.
 *
 * Each subtest unmasks zero-divide, computes 1.0/0.0, then does the above
 * and executes fwait.  It expects the exception pending (FSW ES|ZE) before
 * the fwait and no SIGFPE before it; a switch away from the task, and
 * success, of the blocking call; exactly one SIGFPE, with si_code
 * FPE_FLTDIV and FSW ES|ZE in the signal frame; and, once the handler has
 * cleared the exception in the frame and returned, no exception pending in
 * the FPU.  On a kernel with the bug the first subtest already takes the
 * kernel down.
 */
#include "rt/ktap.h"
#include "rt/sigfpe.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/time.h"
#include "rt/x87.h"

#include <stdint.h>

#define SEED_SW_ZERO_DIVIDE (X87_SW_ES | X87_SW_ZE)
#define SEED_SLEEP_MS 20

static long seed_context_switches(void)
{
	struct rusage usage;

	if (sys_getrusage(RUSAGE_SELF, &usage) < 0)
		return 0;
	return usage.ru_nvcsw + usage.ru_nivcsw;
}

/*
 * Forked before the exception is made pending, so that fork (which saves
 * the FPU state too) is not what the wait4 subtest tests.
 */
static long seed_fork_sleeper(void)
{
	long pid = sys_fork();

	if (pid == 0)
		sys_exit_group(time_sleep_ms(SEED_SLEEP_MS) ? 1 : 0);
	return pid;
}

/* 0, -errno, or the sleeper's wait status when it is not 0. */
static long seed_block_in_wait4(long sleeper)
{
	int status;
	long r;

	if (sleeper < 0)
		return sleeper;
	r = sys_wait4((int)sleeper, &status, 0, NULL);
	return r < 0 ? r : status;
}

static long seed_block_in_clock_nanosleep(long unused)
{
	(void)unused;
	return time_sleep_ms(SEED_SLEEP_MS);
}

struct seed_case {
	const char *name;
	long (*prepare)(void);		/* before the divide; NULL: nothing */
	long (*block)(long prepared);	/* makes the kernel switch away; NULL: fwait at once */
};

static const struct seed_case seed_cases[] = {
	{ "fwait", NULL, NULL },
	{ "wait4", seed_fork_sleeper, seed_block_in_wait4 },
	{ "clock_nanosleep", NULL, seed_block_in_clock_nanosleep },
};

static void seed_run_case(struct ktap *subtests, const struct seed_case *c)
{
	struct ktap_check check;
	long prepared = 0, block_result = 0, switches = 0;
	uint16_t sw_before, sw_after, frame_sw;
	int sigfpe_before;

	sigfpe_forget();
	x87_init();
	if (c->prepare)
		prepared = c->prepare();
	x87_load_cw(X87_CW_DEFAULT & ~X87_CW_ZM);
	x87_divide_one_by_zero();
	sw_before = x87_store_sw();
	if (c->block) {
		switches = seed_context_switches();
		block_result = c->block(prepared);
		switches = seed_context_switches() - switches;
	}
	sigfpe_before = sigfpe_seen.count;
	x87_wait();
	sw_after = x87_store_sw();
	x87_init();	/* whatever happened, the next subtest starts clean */
	frame_sw = (uint16_t)sigfpe_seen.frame.env.sw;

	ktap_check_begin(&check);
	ktap_check_expect(&check, (sw_before & X87_SW_FLAGS) == SEED_SW_ZERO_DIVIDE,
			  "expected FSW flags 0x%02x (ES|ZE) before the fwait, got 0x%04x",
			  SEED_SW_ZERO_DIVIDE, sw_before);
	if (c->block) {
		ktap_check_expect(&check, block_result == 0, "expected %s to return 0, got %ld",
				  c->name, block_result);
		ktap_check_expect(&check, switches > 0,
				  "expected a context switch during %s, got none", c->name);
	}
	ktap_check_expect(&check, sigfpe_before == 0, "expected no SIGFPE before the fwait, got %d",
			  sigfpe_before);
	ktap_check_expect(&check, sigfpe_seen.count == 1, "expected 1 SIGFPE, got %d",
			  sigfpe_seen.count);
	if (sigfpe_seen.count) {
		ktap_check_expect(&check, sigfpe_seen.si_code == FPE_FLTDIV,
				  "expected si_code %d (FPE_FLTDIV), got %d", FPE_FLTDIV,
				  sigfpe_seen.si_code);
		ktap_check_expect(&check, !sigfpe_seen.frame_missing,
				  "expected an FPU image in the signal frame, got none");
	}
	if (sigfpe_seen.count && !sigfpe_seen.frame_missing)
		ktap_check_expect(&check, (frame_sw & X87_SW_FLAGS) == SEED_SW_ZERO_DIVIDE,
				  "expected FSW flags 0x%02x (ES|ZE) in the signal frame, got 0x%04x",
				  SEED_SW_ZERO_DIVIDE, frame_sw);
	ktap_check_expect(&check, (sw_after & X87_SW_PENDING) == 0,
			  "expected no exception pending after the handler, got FSW 0x%04x", sw_after);
	ktap_check_note(&check,
			"saw %d SIGFPE, si_code %d, frame FSW 0x%04x, FSW 0x%04x before and 0x%04x after the fwait, %ld context switches",
			sigfpe_seen.count, sigfpe_seen.si_code, frame_sw, sw_before, sw_after, switches);
	ktap_check_end(subtests, &check, c->name);
}

static void seed_run(struct ktap *subtests)
{
	long err;

	ktap_plan(subtests, (int)ARRAY_SIZE(seed_cases));
	err = sigfpe_install(NULL);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the SIGFPE handler (error %ld)", err);
		return;
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(seed_cases); i++)
		seed_run_case(subtests, &seed_cases[i]);
}

GT_TEST("fpu_seed", 10, seed_run,
	GT_TAGS(GT_GIT("f994d99cf140"), GT_FUNC("save_fpregs_to_fpstate")),
	"the legacy save path saves with fnsave, so a pending unmasked x87 exception is not raised "
	"inside the kernel (\"x86-32, fpu: Fix FPU exception handling on non-SSE systems\")");
