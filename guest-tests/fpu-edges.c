/*
 * fpu_edges: an unmasked x87 exception left pending at the edges of a
 * process's life does no harm and is not lost.
 *
 * Guards the kernel's handling of a task whose saved x87 state has ES
 * set, where no instruction of the task will wait for it:
 *
 *   exit          the task exits with it pending (exit_thread() and
 *                 fpu__drop() in arch/x86/kernel/fpu/core.c): the parent
 *                 sees the exit status the child gave, and the kernel
 *                 does not oops;
 *   execve        the task execve()s with it pending (fpu_flush_thread()):
 *                 the new program starts in the fninit state (rt/fresh.c);
 *   signal_first  another signal (SIGUSR1) comes first: its handler starts
 *                 with a clean FPU (fpu__clear_user_states() from
 *                 handle_signal(), arch/x86/kernel/fpu/signal.c), can run a
 *                 waiting instruction without a SIGFPE, and after
 *                 sigreturn the exception is still pending and arrives as
 *                 one SIGFPE (FPE_FLTDIV) at the next fwait.
 *
 * On FSAVE CPUs the state is saved with fnsave in each case, which must
 * not raise the exception in the kernel (f994d99cf140 ("x86-32, fpu: Fix
 * FPU exception handling on non-SSE systems")).
 */
#include "rt/fpstate.h"
#include "rt/fresh.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sigfpe.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdbool.h>

#define EDGES_EXIT_STATUS 42

static const long double edges_values[] = { FPSTATE_PI, FPSTATE_E };
static const struct fpstate_spec edges_pending = {
	.cw = X87_CW_DEFAULT & ~X87_CW_ZM,
	.sw_flags = X87_SW_ES | X87_SW_ZE,
	.count = ARRAY_SIZE(edges_values),
	.values = edges_values,
};

static int edges_exit_pending(int write_fd, void *arg)
{
	(void)write_fd;
	(void)arg;
	fpstate_load(&edges_pending);
	return EDGES_EXIT_STATUS;
}

static void edges_run_exit(struct ktap *subtests)
{
	struct ktap_check check;
	struct proc_child child;
	long err, status = 0, got = 0;
	char none;

	err = proc_start(&child, edges_exit_pending, NULL);
	if (err == 0)
		status = proc_finish(&child, &none, sizeof(none), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == EDGES_EXIT_STATUS << 8,
			  "expected wait status 0x%x (exit %d), got 0x%lx", EDGES_EXIT_STATUS << 8,
			  EDGES_EXIT_STATUS, status);
	ktap_check_end(subtests, &check, "exit");
}

static void edges_run_execve(struct ktap *subtests)
{
	struct ktap_check check;

	ktap_check_begin(&check);
	fresh_run_probe(&check, &edges_pending);
	ktap_check_end(subtests, &check, "execve");
}

/* What the SIGUSR1 handler saw. */
static struct x87_fsave handler_state;
static volatile bool handler_ran;
static volatile int handler_sigfpe;

static void edges_handle_usr1(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	x87_snapshot(&handler_state);
	x87_wait();
	handler_sigfpe = sigfpe_seen.count;
	handler_ran = true;
}

static void edges_run_signal_first(struct ktap *subtests)
{
	struct ktap_check check;
	uint16_t pending_sw = X87_SW_ES | X87_SW_ZE;
	uint16_t sw_after_handler;
	long err;

	sigfpe_forget();
	handler_ran = false;
	fpstate_load(&edges_pending);
	err = sys_kill((int)sys_getpid(), SIGUSR1);
	sw_after_handler = x87_store_sw();
	x87_wait();
	x87_init();

	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected kill to succeed, got %ld", err);
	ktap_check_expect(&check, handler_ran, "expected the SIGUSR1 handler to run, it did not");
	if (handler_ran) {
		fresh_check(&check, "in the SIGUSR1 handler", &handler_state);
		ktap_check_expect(&check, handler_sigfpe == 0,
				  "expected no SIGFPE in the SIGUSR1 handler, got %d", handler_sigfpe);
	}
	ktap_check_expect(&check, (sw_after_handler & pending_sw) == pending_sw,
			  "expected FSW flags 0x%02x (ES|ZE) after sigreturn, got 0x%04x", pending_sw,
			  sw_after_handler);
	ktap_check_expect(&check, sigfpe_seen.count == 1, "expected 1 SIGFPE in all, got %d",
			  sigfpe_seen.count);
	if (sigfpe_seen.count)
		ktap_check_expect(&check, sigfpe_seen.si_code == FPE_FLTDIV,
				  "expected si_code %d (FPE_FLTDIV), got %d", FPE_FLTDIV,
				  sigfpe_seen.si_code);
	ktap_check_end(subtests, &check, "signal_first");
}

static void edges_run(struct ktap *subtests)
{
	long err;

	ktap_plan(subtests, 3);
	err = sigfpe_install(NULL);
	if (err == 0)
		err = signal_set_action(SIGUSR1, edges_handle_usr1);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the signal handlers (error %ld)", err);
		return;
	}
	edges_run_exit(subtests);
	edges_run_execve(subtests);
	edges_run_signal_first(subtests);
}

GT_TEST("fpu_edges", 10, edges_run,
	"fpu__drop(), fpu_flush_thread(), handle_signal()'s fpu__clear_user_states(): "
	"a pending x87 exception does not outlive exit, execve or a handler's start");
