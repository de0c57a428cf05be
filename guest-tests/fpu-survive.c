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
 *                  writes the known FCW and FSW into the frame and returns;
 *   signal_switched_out
 *                  blocked in read, the task gets a SIGUSR1 from a child
 *                  that loaded other values once the task had loaded its
 *                  state (a pipe says when): the signal is delivered while
 *                  TIF_NEED_FPU_LOAD is set and the registers hold the
 *                  child's state, so copy_fpstate_to_sigframe() must load
 *                  the task's own first (the frame and the state after
 *                  sigreturn are compared);
 *   vfork          vfork(): the child starts with the state (it fnsaves it
 *                  at once into the shared memory), and the parent keeps it;
 *   clone_vfork    the same with clone(CLONE_VM|CLONE_VFORK|SIGCHLD);
 *   thread         a thread (clone(CLONE_VM|CLONE_THREAD|CLONE_SIGHAND...),
 *                  its own stack) starts with the state, loads other values
 *                  and blocks; the parent still has its own; the thread
 *                  still has its own when it runs again: threads do not
 *                  share x87 state (fpu_clone() with CLONE_THREAD);
 *   fork_pending   fork with a zero-divide pending: fpu_clone() copies the
 *                  registers as they are, so the child starts with ES|ZE
 *                  and its first fwait raises one SIGFPE (FPE_FLTDIV), as
 *                  does the parent's.  Last: on the fsave regression it
 *                  meets the oops that sigfpe meets.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sigfpe.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/task.h"
#include "rt/test.h"
#include "rt/time.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

#include <linux/sched.h>	/* CLONE_* */

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

/*
 * The outer SIGUSR1 handler's state, as it loaded it and as it found it
 * after the inner one, and the fsave header of its frame.
 */
static struct x87_fsave outer_image, outer_after_inner, outer_frame;
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
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	if (uc->uc_mcontext.fpstate)
		fpstate_from_frame(&outer_frame, uc->uc_mcontext.fpstate);
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

static struct proc_child survive_signaller;
static int survive_go[2];	/* the parent says it has loaded its state */

/*
 * The child of signal_switched_out: once the parent has loaded its state,
 * other values, then SIGUSR1 to the parent, which is switched out.
 */
static int survive_signal_parent(int write_fd, void *arg)
{
	char byte;

	(void)write_fd;
	if (proc_read(survive_go[0], &byte, 1) != 1)
		return 1;
	fpstate_load(&inner_spec);
	return sys_kill((int)(long)arg, SIGUSR1) < 0;
}

static long survive_start_signaller(void)
{
	long err = sys_pipe(survive_go);

	outer_ran = false;
	raise_inner = false;
	if (err == 0)
		err = proc_start(&survive_signaller, survive_signal_parent, (void *)sys_getpid());
	return err;
}

/* Lets the signaller go, and blocks until it exits (it writes nothing): its SIGUSR1 comes meanwhile. */
static long survive_signal_switched_out(void)
{
	char byte = 0;
	long got, err = proc_write(survive_go[1], &byte, 1);
	long status = proc_finish(&survive_signaller, &byte, 1, &got);

	sys_close(survive_go[0]);
	sys_close(survive_go[1]);
	return err == 0 && status == 0 && got == 0 ? 0 : -1000 - status;
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
	{ "signal_switched_out", survive_start_signaller, survive_signal_switched_out, 0 },
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
	if (c->act == survive_signal || c->act == survive_nested_signal ||
	    c->act == survive_signal_switched_out)
		ktap_check_expect(&check, outer_ran, "expected the SIGUSR1 handler to run, it did not");
	if (c->act == survive_signal_switched_out && outer_ran)
		fpstate_check(&check, "in the SIGUSR1 frame", &survive_image, &outer_frame);
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

/* The child's state and the parent's after the call, both the known state. */
static void survive_run_vfork(struct ktap *subtests, const char *name, unsigned long flags)
{
	struct ktap_check check;
	struct x87_fsave parent_after, child_image;
	long pid, status = 0;

	fpstate_build(&survive_image, &survive_spec);
	fpstate_build(&child_image, &inner_spec);	/* not what the child will store */
	fpstate_load(&survive_spec);
	pid = task_vfork_snapshot(flags, &child_image);
	x87_snapshot(&parent_after);
	x87_init();
	if (pid > 0)
		status = proc_wait(pid);

	ktap_check_begin(&check);
	ktap_check_expect(&check, pid > 0, "expected %s to succeed, got %ld", name, pid);
	ktap_check_expect(&check, status == 0, "expected the child to exit with 0, got status 0x%lx",
			  status);
	fpstate_check(&check, "in the child", &survive_image, &child_image);
	fpstate_check(&check, "in the parent afterwards", &survive_image, &parent_after);
	ktap_check_end(subtests, &check, name);
}

static struct task_thread survive_thread;
static int survive_to_parent[2], survive_to_thread[2];
static struct x87_fsave thread_start_image, thread_own_image;
static volatile long thread_io;

/* Its first instruction stores the state it starts with. */
static void survive_thread_main(void *arg)
{
	char byte = 0;
	long err;

	(void)arg;
	x87_snapshot(&thread_start_image);
	fpstate_load(&outer_spec);
	err = proc_write(survive_to_parent[1], &byte, 1);
	if (err == 0)
		err = proc_read(survive_to_thread[0], &byte, 1) == 1 ? 0 : -1;
	x87_snapshot(&thread_own_image);
	thread_io = err;
}

static void survive_run_thread(struct ktap *subtests)
{
	struct ktap_check check;
	struct x87_fsave parent_mid, parent_end, thread_image;
	char byte = 0;
	long err, tid = -1, joined = -1;

	fpstate_build(&survive_image, &survive_spec);
	fpstate_build(&thread_image, &outer_spec);
	thread_io = -1;
	err = sys_pipe(survive_to_parent);
	if (err == 0)
		err = sys_pipe(survive_to_thread);
	fpstate_load(&survive_spec);
	if (err == 0)
		tid = task_thread_start(&survive_thread, survive_thread_main, NULL);
	/* Blocks until the thread has loaded its own state. */
	if (tid > 0)
		err = proc_read(survive_to_parent[0], &byte, 1) == 1 ? 0 : -1;
	x87_snapshot(&parent_mid);
	if (tid > 0 && err == 0)
		err = proc_write(survive_to_thread[1], &byte, 1);
	if (tid > 0)
		joined = task_thread_join(&survive_thread);
	x87_snapshot(&parent_end);
	x87_init();

	ktap_check_begin(&check);
	ktap_check_expect(&check, tid > 0, "expected clone of a thread to succeed, got %ld", tid);
	ktap_check_expect(&check, err == 0 && joined == 0 && thread_io == 0,
			  "expected the pipes and the join to work, got %ld, %ld and %ld", err,
			  joined, (long)thread_io);
	if (tid > 0 && joined == 0) {
		fpstate_check(&check, "in the thread at its start", &survive_image,
			      &thread_start_image);
		fpstate_check(&check, "in the thread after the parent ran", &thread_image,
			      &thread_own_image);
	}
	fpstate_check(&check, "in the parent while the thread had its own", &survive_image,
		      &parent_mid);
	fpstate_check(&check, "in the parent after the thread ended", &survive_image, &parent_end);
	ktap_check_end(subtests, &check, "thread");
}

struct survive_pending {
	struct x87_fsave image;
	int sigfpe_count;
	int si_code;
};

static int survive_report_pending(int write_fd, void *arg)
{
	struct survive_pending seen;

	(void)arg;
	x87_snapshot(&seen.image);
	sigfpe_forget();
	x87_wait();
	seen.sigfpe_count = sigfpe_seen.count;
	seen.si_code = sigfpe_seen.si_code;
	return proc_write(write_fd, &seen, sizeof(seen)) < 0;
}

static void survive_run_fork_pending(struct ktap *subtests)
{
	struct fpstate_spec spec = survive_spec;
	struct ktap_check check;
	struct x87_fsave pending;
	struct survive_pending child_seen;
	struct proc_child child;
	long err, status = 0, got = 0;
	int parent_count;

	spec.cw &= (uint16_t)~X87_CW_ZM;
	spec.sw_flags |= X87_SW_ZE | X87_SW_ES;
	fpstate_build(&survive_image, &survive_spec);	/* what the SIGFPE handler puts back */
	fpstate_build(&pending, &spec);
	fpstate_load(&spec);
	err = proc_start(&child, survive_report_pending, NULL);
	sigfpe_forget();
	x87_wait();
	parent_count = sigfpe_seen.count;
	x87_init();
	if (err == 0)
		status = proc_finish(&child, &child_seen, sizeof(child_seen), &got);

	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, parent_count == 1,
			  "expected 1 SIGFPE in the parent after fork, got %d", parent_count);
	ktap_check_expect(&check, status == 0, "expected the child to exit with 0, got status 0x%lx",
			  status);
	ktap_check_expect(&check, got == (long)sizeof(child_seen),
			  "expected %u bytes from the child, got %ld",
			  (unsigned int)sizeof(child_seen), got);
	if (got == (long)sizeof(child_seen)) {
		fpstate_check(&check, "in the child after fork", &pending, &child_seen.image);
		ktap_check_expect(&check, child_seen.sigfpe_count == 1 &&
				  child_seen.si_code == FPE_FLTDIV,
				  "expected 1 SIGFPE with si_code %d in the child, got %d with %d",
				  FPE_FLTDIV, child_seen.sigfpe_count, child_seen.si_code);
	}
	ktap_check_end(subtests, &check, "fork_pending");
}

static void survive_run(struct ktap *subtests)
{
	long err;

	ktap_plan(subtests, (int)ARRAY_SIZE(survive_cases) + 6);
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
	survive_run_vfork(subtests, "vfork", 0);
	survive_run_vfork(subtests, "clone_vfork", CLONE_VM | CLONE_VFORK | SIGCHLD);
	survive_run_thread(subtests);
	survive_run_fork_pending(subtests);
}

GT_TEST("fpu_survive", 10, survive_run,
	GT_TAGS(GT_FUNC("switch_fpu_prepare"), GT_FUNC("fpu_clone"),
		GT_FUNC("copy_fpstate_to_sigframe"), GT_FUNC("fpu__restore_sig")),
	"switch_fpu_prepare(), fpu_clone(), copy_fpstate_to_sigframe(), "
	"fpu__restore_sig(): user x87 state survives switches, fork, vfork, clone, threads "
	"and signals");
