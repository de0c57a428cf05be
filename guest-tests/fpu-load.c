/*
 * fpu_load: two processes that switch often, each with its own x87 values
 * and an exception pending across every switch, never see each other's
 * state, and each gets its own exception.
 *
 * Guards the lazy restore of arch/x86/kernel/fpu/context.h
 * (switch_fpu_prepare()/switch_fpu_finish(), TIF_NEED_FPU_LOAD, the
 * per-CPU owner in fpregs_state_valid()) and save_fpregs_to_fpstate() in
 * arch/x86/kernel/fpu/core.c, which on FSAVE CPUs must save with fnsave
 * (f994d99cf140 ("x86-32, fpu: Fix FPU exception handling on non-SSE
 * systems")); then math_error() in arch/x86/kernel/traps.c for each
 * exception.
 *
 * The parent (pi and e, zero-divide pending) and a child (1e10, -1.5 and
 * 0.125, invalid operation pending, another FCW) each load their state,
 * hand a byte to the other through a pipe and block until it comes back,
 * so that every iteration switches tasks twice while both exceptions are
 * pending.  Then each compares its whole state with what it loaded and
 * executes fwait, which must raise one SIGFPE with its own si_code.
 * LOAD_ITERATIONS keeps it near a second of guest time under TCG.
 *
 *   parent  every iteration of the parent found its state and its SIGFPE;
 *   child   the same for the child, whose counts come through a pipe;
 *   steps   first, without exceptions: while a child loads its own values
 *           and yields in a loop, the parent sleeps, yields, loads another
 *           state and sleeps, and so on, and compares its whole state after
 *           each step (the switch to the idle task keeps the registers
 *           loaded, fpregs_state_valid(), and the switch to the child does
 *           not).
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sigfpe.h"
#include "rt/sys.h"
#include "rt/task.h"
#include "rt/test.h"
#include "rt/time.h"
#include "rt/x87.h"

#include <stdbool.h>

#define LOAD_ITERATIONS 6000

static const long double parent_values[] = { FPSTATE_PI, FPSTATE_E };
static const long double child_values[] = { FPSTATE_TEN_TO_10, -1.5L, 0.125L };

struct load_side {
	const char *name;
	struct fpstate_spec spec;
	int si_code;
};

static const struct load_side load_sides[] = {
	{ "parent",
	  { .cw = X87_CW_DEFAULT & ~X87_CW_ZM, .sw_flags = X87_SW_ES | X87_SW_ZE,
	    .count = ARRAY_SIZE(parent_values), .values = parent_values },
	  FPE_FLTDIV },
	{ "child",
	  { .cw = 0x0b7f & ~X87_CW_IM, .sw_flags = X87_SW_ES | X87_SW_IE,
	    .count = ARRAY_SIZE(child_values), .values = child_values },
	  FPE_FLTINV },
};

struct load_result {
	int iterations;		/* completed round trips */
	int wrong_state;	/* iterations whose state differed */
	int wrong_sigfpe;	/* iterations without exactly one SIGFPE of the right si_code */
	int first_wrong;	/* the first such iteration, -1 if none */
	int si_code;		/* of the first wrong SIGFPE */
	int sigfpe_count;	/* ... and how many came */
	struct x87_fsave first_state;	/* of the first wrong state */
};

struct load_pipes {
	int to_child[2];
	int to_parent[2];
};

static void load_loop(const struct load_side *side, int in_fd, int out_fd, bool send_first,
		      struct load_result *r)
{
	struct x87_fsave want, got;
	char token = 'x';

	fpstate_build(&want, &side->spec);
	*r = (struct load_result){ .first_wrong = -1 };
	for (int i = 0; i < LOAD_ITERATIONS; i++) {
		bool state_ok, sigfpe_ok;

		sigfpe_forget();
		fpstate_load(&side->spec);
		if (send_first && proc_write(out_fd, &token, 1) < 0)
			break;
		if (proc_read(in_fd, &token, 1) != 1)
			break;
		if (!send_first && proc_write(out_fd, &token, 1) < 0)
			break;
		x87_snapshot(&got);
		x87_wait();
		x87_init();
		state_ok = fpstate_equal(&want, &got);
		sigfpe_ok = sigfpe_seen.count == 1 && sigfpe_seen.si_code == side->si_code;
		r->wrong_state += !state_ok;
		r->wrong_sigfpe += !sigfpe_ok;
		if ((!state_ok || !sigfpe_ok) && r->first_wrong < 0) {
			r->first_wrong = i;
			r->first_state = got;
			r->si_code = sigfpe_seen.si_code;
			r->sigfpe_count = sigfpe_seen.count;
		}
		r->iterations++;
	}
}

static int load_child(int write_fd, void *arg)
{
	struct load_pipes *p = arg;
	struct load_result r;

	sys_close(p->to_child[1]);
	sys_close(p->to_parent[0]);
	load_loop(&load_sides[1], p->to_child[0], p->to_parent[1], false, &r);
	return proc_write(write_fd, &r, sizeof(r)) < 0;
}

static void load_report(struct ktap *subtests, const struct load_side *side,
			const struct load_result *r, long got)
{
	struct ktap_check check;
	struct x87_fsave want;

	ktap_check_begin(&check);
	ktap_check_expect(&check, got == (long)sizeof(*r), "expected %u bytes of result, got %ld",
			  (unsigned int)sizeof(*r), got);
	if (got == (long)sizeof(*r)) {
		ktap_check_expect(&check, r->iterations == LOAD_ITERATIONS,
				  "expected %d iterations, got %d", LOAD_ITERATIONS, r->iterations);
		ktap_check_expect(&check, r->wrong_state == 0,
				  "expected its own state after every switch, got another in %d iterations, first in iteration %d",
				  r->wrong_state, r->first_wrong);
		ktap_check_expect(&check, r->wrong_sigfpe == 0,
				  "expected 1 SIGFPE with si_code %d each time, got otherwise in %d iterations, first %d SIGFPE with si_code %d in iteration %d",
				  side->si_code, r->wrong_sigfpe, r->sigfpe_count, r->si_code,
				  r->first_wrong);
		if (r->wrong_state) {
			fpstate_build(&want, &side->spec);
			fpstate_note(&check, "expected", &want);
			fpstate_note(&check, "got", &r->first_state);
		}
	}
	ktap_check_end(subtests, &check, side->name);
}

/* The states of `steps`: the two sides' without their pending exceptions. */
static const struct fpstate_spec load_step_specs[] = {
	{ .cw = X87_CW_DEFAULT, .sw_flags = X87_SW_ZE, .count = ARRAY_SIZE(parent_values),
	  .values = parent_values },
	{ .cw = 0x0b7f, .sw_flags = X87_SW_IE, .count = ARRAY_SIZE(child_values),
	  .values = child_values },
};

/* The noise child's: neither of those, nothing pending. */
static const long double load_noise_values[] = { -0.5L };
static const struct fpstate_spec load_noise_spec = {
	.cw = 0x0e7f, .sw_flags = X87_SW_PE, .count = 1, .values = load_noise_values,
};

static long load_step_sleep(void)
{
	return time_sleep_ms(1);
}

static long load_step_yield(void)
{
	for (int i = 0; i < 5; i++)
		task_yield();
	return 0;
}

struct load_step {
	const char *name;
	int load;	/* the index in load_step_specs to load first, or -1 */
	long (*act)(void);
};

static const struct load_step load_steps[] = {
	{ "sleep", 0, load_step_sleep },
	{ "yield", -1, load_step_yield },
	{ "load_sleep", 1, load_step_sleep },
	{ "yield_again", -1, load_step_yield },
	{ "load_yield", 0, load_step_yield },
	{ "sleep_again", -1, load_step_sleep },
};

/* The other FPU user: its own values, again and again, until killed (the bound: never). */
static int load_noise(int write_fd, void *arg)
{
	(void)write_fd;
	(void)arg;
	for (long i = 0; i < 100000000; i++) {
		fpstate_load(&load_noise_spec);
		task_yield();
	}
	return 0;
}

static void load_run_steps(struct ktap *subtests)
{
	struct ktap_check check;
	struct proc_child noise;
	struct x87_fsave want, got;
	long err = proc_start(&noise, load_noise, NULL), result = 0;
	unsigned int i;
	int loaded = 0;

	ktap_check_begin(&check);
	for (i = 0; err == 0 && i < ARRAY_SIZE(load_steps); i++) {
		if (load_steps[i].load >= 0) {
			loaded = load_steps[i].load;
			fpstate_load(&load_step_specs[loaded]);
		}
		result = load_steps[i].act();
		x87_snapshot(&got);
		fpstate_build(&want, &load_step_specs[loaded]);
		if (result < 0 || !fpstate_equal(&want, &got))
			break;
	}
	x87_init();
	if (err == 0) {
		sys_kill((int)noise.pid, SIGKILL);
		sys_close(noise.read_fd);
		proc_wait(noise.pid);
	}
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	if (err == 0 && i < ARRAY_SIZE(load_steps)) {
		ktap_check_expect(&check, result == 0, "expected step %s to succeed, got %ld",
				  load_steps[i].name, result);
		fpstate_check(&check, "after the step", &want, &got);
		ktap_check_note(&check, "the step was %u, %s", i + 1, load_steps[i].name);
	}
	ktap_check_end(subtests, &check, "steps");
}

static void load_run(struct ktap *subtests)
{
	struct load_pipes p;
	struct proc_child child;
	struct load_result parent_result = { .first_wrong = -1 }, child_result;
	long err, got = 0;

	ktap_plan(subtests, 3);
	load_run_steps(subtests);
	err = sigfpe_install(NULL);
	if (err == 0)
		err = sys_pipe(p.to_child);
	if (err == 0)
		err = sys_pipe(p.to_parent);
	if (err == 0)
		err = proc_start(&child, load_child, &p);
	if (err < 0) {
		ktap_diag(subtests, "cannot set up the two processes (error %ld)", err);
		return;
	}
	sys_close(p.to_child[0]);
	sys_close(p.to_parent[1]);
	load_loop(&load_sides[0], p.to_parent[0], p.to_child[1], true, &parent_result);
	sys_close(p.to_child[1]);
	proc_finish(&child, &child_result, sizeof(child_result), &got);
	load_report(subtests, &load_sides[0], &parent_result, (long)sizeof(parent_result));
	load_report(subtests, &load_sides[1], &child_result, got);
}

GT_TEST("fpu_load", 20, load_run,
	GT_TAGS(GT_FUNC("switch_fpu_prepare"), GT_FUNC("switch_fpu_finish"),
		GT_FUNC("fpregs_state_valid")),
	"switch_fpu_prepare(), switch_fpu_finish() and the lazy restore of "
	"arch/x86/kernel/fpu/context.h (fpregs_state_valid())");
