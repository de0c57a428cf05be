/*
 * fpu_edges: an unmasked x87 exception left pending at the edges of a
 * process's life does no harm and is not lost.
 *
 * Guards the kernel's handling of a task whose saved x87 state has ES
 * set, where no instruction of the task will wait for it:
 *
 *   exit            the task exits with a zero-divide pending (exit_thread()
 *                   and fpu__drop() in arch/x86/kernel/fpu/core.c): the
 *                   parent sees the exit status the child gave, and the
 *                   kernel does not oops;
 *   execve_KIND     the task execve()s with it pending (fpu_flush_thread()):
 *                   the new program starts in the fninit state (rt/fresh.c);
 *   signal_first_KIND
 *                   another signal (SIGUSR1) comes first: its handler starts
 *                   with a clean FPU (fpu__clear_user_states() from
 *                   handle_signal(), arch/x86/kernel/fpu/signal.c), can run a
 *                   waiting instruction without a SIGFPE, and after
 *                   sigreturn the exception is still pending and arrives as
 *                   one SIGFPE with the kind's si_code at the next fwait.
 *
 * KIND is each exception the x87 can leave pending: invalid, denormal,
 * zero_divide, overflow, underflow, precision and stack_fault.  Each is
 * loaded with frstor (its flag and ES in FSW, its mask clear in FCW), so
 * it needs no arithmetic that QEMU's TCG may not model.
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
#include "rt/time.h"
#include "rt/x87.h"

#include <stdbool.h>

#define EDGES_EXIT_STATUS 42
#define EDGES_EXIT_SETTLE_MS 20	/* for the parent to reach wait4 */

static const long double edges_values[] = { FPSTATE_PI, FPSTATE_E };
struct edges_kind {
	const char *name;
	uint16_t mask;		/* the FCW bit that masks it */
	uint16_t flags;		/* its FSW flags, without ES */
	int si_code;
	const char *si_code_name;
};

#define EDGES_ZERO_DIVIDE 2	/* the kind that `exit` leaves pending */

/* fpu__exception_code() gives FPE_FLTUND for a denormal operand as for underflow. */
static const struct edges_kind edges_kinds[] = {
	{ "invalid", X87_CW_IM, X87_SW_IE, FPE_FLTINV, "FPE_FLTINV" },
	{ "denormal", X87_CW_DM, X87_SW_DE, FPE_FLTUND, "FPE_FLTUND" },
	{ "zero_divide", X87_CW_ZM, X87_SW_ZE, FPE_FLTDIV, "FPE_FLTDIV" },
	{ "overflow", X87_CW_OM, X87_SW_OE, FPE_FLTOVF, "FPE_FLTOVF" },
	{ "underflow", X87_CW_UM, X87_SW_UE, FPE_FLTUND, "FPE_FLTUND" },
	{ "precision", X87_CW_PM, X87_SW_PE, FPE_FLTRES, "FPE_FLTRES" },
	{ "stack_fault", X87_CW_IM, X87_SW_IE | X87_SW_SF | X87_SW_C1, FPE_FLTINV, "FPE_FLTINV" },
};

static struct fpstate_spec edges_kind_spec(const struct edges_kind *kind)
{
	return (struct fpstate_spec){
		.cw = X87_CW_DEFAULT & ~kind->mask,
		.sw_flags = X87_SW_ES | kind->flags,
		.count = ARRAY_SIZE(edges_values),
		.values = edges_values,
	};
}

/* "execve_invalid" */
static const char *edges_name(char *storage, unsigned int size, const char *what,
			      const struct edges_kind *kind)
{
	struct fmt_buf b;

	fmt_init(&b, storage, size);
	fmt_addf(&b, "%s_%s", what, kind->name);
	return storage;
}

/*
 * The exception must still be in the registers when fpu__drop() waits.  At
 * exit, closing the pipe would wake the parent before exit_thread(), and a
 * parent that ran then would load its own registers over the child's; so
 * the pipe is closed first and the parent left time to block in wait4,
 * which only exit_notify() ends.
 */
static int edges_exit_pending(int write_fd, void *arg)
{
	struct fpstate_spec spec = edges_kind_spec(arg);

	sys_close(write_fd);
	time_sleep_ms(EDGES_EXIT_SETTLE_MS);
	fpstate_load(&spec);
	return EDGES_EXIT_STATUS;
}

static void edges_run_exit(struct ktap *subtests)
{
	struct ktap_check check;
	struct proc_child child;
	long err, status = 0, got = 0;
	char none;

	err = proc_start(&child, edges_exit_pending, (void *)&edges_kinds[EDGES_ZERO_DIVIDE]);
	if (err == 0)
		status = proc_finish(&child, &none, sizeof(none), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == EDGES_EXIT_STATUS << 8,
			  "expected wait status 0x%x (exit %d), got 0x%lx", EDGES_EXIT_STATUS << 8,
			  EDGES_EXIT_STATUS, status);
	ktap_check_end(subtests, &check, "exit");
}

static void edges_run_execve(struct ktap *subtests, const struct edges_kind *kind)
{
	struct ktap_check check;
	struct fpstate_spec spec = edges_kind_spec(kind);
	char name[40];

	ktap_check_begin(&check);
	fresh_run_probe(&check, &spec);
	ktap_check_end(subtests, &check, edges_name(name, sizeof(name), "execve", kind));
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

static void edges_run_signal_first(struct ktap *subtests, const struct edges_kind *kind)
{
	struct ktap_check check;
	struct fpstate_spec spec = edges_kind_spec(kind);
	uint16_t pending_sw = X87_SW_ES | kind->flags;
	uint16_t sw_after_handler;
	char name[40];
	long err;

	sigfpe_forget();
	handler_ran = false;
	fpstate_load(&spec);
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
			  "expected FSW flags 0x%04x after sigreturn, got 0x%04x", pending_sw,
			  sw_after_handler);
	ktap_check_expect(&check, sigfpe_seen.count == 1, "expected 1 SIGFPE in all, got %d",
			  sigfpe_seen.count);
	if (sigfpe_seen.count)
		ktap_check_expect(&check, sigfpe_seen.si_code == kind->si_code,
				  "expected si_code %d (%s), got %d", kind->si_code,
				  kind->si_code_name, sigfpe_seen.si_code);
	ktap_check_end(subtests, &check, edges_name(name, sizeof(name), "signal_first", kind));
}

static void edges_run(struct ktap *subtests)
{
	long err;

	ktap_plan(subtests, 1 + 2 * (int)ARRAY_SIZE(edges_kinds));
	err = sigfpe_install(NULL);
	if (err == 0)
		err = signal_set_action(SIGUSR1, edges_handle_usr1);
	if (err < 0) {
		ktap_diag(subtests, "cannot install the signal handlers (error %ld)", err);
		return;
	}
	edges_run_exit(subtests);
	for (unsigned int i = 0; i < ARRAY_SIZE(edges_kinds); i++) {
		edges_run_execve(subtests, &edges_kinds[i]);
		edges_run_signal_first(subtests, &edges_kinds[i]);
	}
}

GT_TEST("fpu_edges", 10, edges_run,
	GT_TAGS(GT_FUNC("fpu__drop"), GT_FUNC("fpu_flush_thread"), GT_FUNC("handle_signal"),
		GT_FUNC("fpu__clear_user_states")),
	"fpu__drop(), fpu_flush_thread(), handle_signal()'s fpu__clear_user_states(): "
	"a pending x87 exception does not outlive exit, execve or a handler's start");
