/*
 * init: PID 1 of the guest.  Runs every registered test (rt/test.h) in a
 * child process with its timeout, reports in the console protocol
 * (README.md), and reboots, which ends the guest: the host runs it with
 * on_reboot=destroy (QEMU: -no-reboot).
 *
 * PID 1 must never exit: the kernel would panic, and the panic would pass
 * for a crash under the last test.  main() therefore ends in init_reboot(),
 * which does not return.
 */
#include "rt/cpu.h"
#include "rt/fmt.h"
#include "rt/fresh.h"
#include "rt/gcov.h"
#include "rt/ktap.h"
#include "rt/park.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/time.h"

#include <asm/errno.h>
#include <linux/prctl.h>
#include <linux/reboot.h>
#include <linux/wait.h>

/* The kernel hands unknown key=value parameters of its command line to init as environment. */
#define START_VARIABLE "fpubench_start="
#define TESTS_VARIABLE "fpubench_tests="
/* A boot to save: init parks before its tests (rt/park.h). */
#define PARK_VARIABLE "fpubench_park="
/* A coverage boot: the kernel has gcov data to send once the tests are done. */
#define GCOV_VARIABLE "fpubench_gcov="

/* The test child, and so its process group, that the alarm kills; 0 between tests. */
static volatile long running_pid;
static volatile int timed_out;

static void init_handle_alarm(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	timed_out = 1;
	if (running_pid > 0)
		sys_kill((int)-running_pid, SIGKILL);
}

static void init_setup_timeouts(const struct ktap *top)
{
	long err = signal_set_action(SIGALRM, init_handle_alarm);

	if (err == 0)
		err = sys_alarm(0);
	if (err < 0)
		ktap_diag(top, "fpubench: tests have no timeout (error %ld)", err);
}

static void init_print_cpu(const struct ktap *top)
{
	struct cpu_info cpu;

	if (!cpu_identify(&cpu)) {
		ktap_diag(top, "fpubench: cpu cpuid=0");
		return;
	}
	ktap_diag(top, "fpubench: cpu vendor=%s family=%u model=%u fpu=%d fxsr=%d sse=%d sse2=%d sse3=%d cmov=%d",
		  cpu.vendor, cpu.family, cpu.model, !!(cpu.edx & CPU_EDX_FPU),
		  !!(cpu.edx & CPU_EDX_FXSR), !!(cpu.edx & CPU_EDX_SSE), !!(cpu.edx & CPU_EDX_SSE2),
		  !!(cpu.ecx & CPU_ECX_SSE3), !!(cpu.edx & CPU_EDX_CMOV));
}

/* The value of `name_eq` ("NAME=") in the environment, or NULL. */
static const char *init_getenv(char **envp, const char *name_eq)
{
	for (char **e = envp; *e; e++) {
		const char *n = name_eq, *p = *e;

		while (*n && *p == *n) {
			n++;
			p++;
		}
		if (!*n)
			return p;
	}
	return NULL;
}

/* K of a well-formed "fpubench_start=K" (1 <= K <= 99999), else 0. */
static int init_parse_start(const char *value)
{
	int k = 0;

	for (const char *p = value; *p; p++) {
		if (*p < '0' || *p > '9' || k > 9999)
			return 0;
		k = k * 10 + (*p - '0');
	}
	return k;
}

/*
 * The number of the first test to run: K of fpubench_start=K (`value`), else 1.
 * The host sets it to go on after a test that took the kernel down.
 */
static int init_first_test(const struct ktap *top, const char *value)
{
	int k;

	if (!value)
		return 1;
	k = init_parse_start(value);
	if (!k) {
		ktap_diag(top, "fpubench: ignoring " START_VARIABLE "%s", value);
		return 1;
	}
	ktap_diag(top, "fpubench: resume %d", k);
	return k;
}

/*
 * Whether test `name` runs: all do, unless fpubench_tests=A,B,... names
 * some (the host judges only those).
 */
static bool init_test_selected(const char *list, const char *name)
{
	if (!list)
		return true;
	for (const char *p = list; *p;) {
		const char *n = name;

		while (*n && *p == *n) {
			n++;
			p++;
		}
		if (!*n && (*p == ',' || !*p))
			return true;
		while (*p && *p != ',')
			p++;
		if (*p == ',')
			p++;
	}
	return false;
}

/* "# tags: linux-git=f994d99cf140 function=save_fpregs_to_fpstate", as tests.list has them. */
static void test_print_tags(const struct ktap *subtests, const struct gt_tag *tags)
{
	char line[KTAP_LINE_MAX];
	struct fmt_buf b;

	if (!tags[0].name)
		return;
	fmt_init(&b, line, sizeof(line));
	for (const struct gt_tag *tag = tags; tag->name; tag++)
		fmt_addf(&b, "%s%s=%s", tag == tags ? "" : " ", tag->name, tag->value);
	ktap_diag(subtests, "tags: %s", line);
}

/* In the child: runs the test and prints its result line. */
static __attribute__((noreturn)) void test_run_child(struct ktap *top, const struct gt_test *t)
{
	struct ktap subtests;
	int ran;

	sys_setpgid(0, 0);
	/* Crash reports name the task ("Comm: fpu_seed"), which helps a reader. */
	sys_prctl(PR_SET_NAME, (unsigned long)t->name);
	ktap_init(&subtests, top->depth + 1);
	ktap_header(&subtests);
	ktap_diag(&subtests, "guards: %s", t->guards);
	test_print_tags(&subtests, t->tags);
	t->run(&subtests);
	ran = subtests.next - 1;
	if (subtests.skip && ran == 0)
		ktap_result_directive(top, true, t->name, "SKIP %s", subtests.skip);
	else if (ran != subtests.planned)
		ktap_result_directive(top, false, t->name, "ran %d subtests of %d planned",
				      ran, subtests.planned);
	else
		ktap_result(top, subtests.failed == 0, t->name);
	sys_exit_group(0);
}

/* The result line for a child that ended without printing its own. */
static void test_report_end(struct ktap *top, const struct gt_test *t, int status, bool late)
{
	int sig = status & 0x7f;
	int code = (status >> 8) & 0xff;

	if (sig == SIGKILL && late)
		ktap_result_directive(top, false, t->name, "TIMEOUT after %u s", t->timeout_s);
	else if (sig)
		ktap_result_directive(top, false, t->name, "killed by signal %d", sig);
	else if (code)
		ktap_result_directive(top, false, t->name, "exit status %d", code);
}

/*
 * Kills what the test left running in its process group and reaps every
 * zombie there is now; stragglers are reaped after a later test.
 */
static void test_clean_up(long pid)
{
	int status;

	sys_kill((int)-pid, SIGKILL);
	while (sys_wait4(-1, &status, WNOHANG | __WALL, NULL) > 0)
		;
}

static void test_supervise(struct ktap *top, const struct gt_test *t)
{
	int status = 0;
	long pid, r;

	pid = sys_fork();
	if (pid == 0)
		test_run_child(top, t);
	if (pid < 0) {
		ktap_result_directive(top, false, t->name, "fork failed (error %ld)", pid);
		return;
	}
	/* The child does the same: whichever runs first, the group exists before an alarm. */
	sys_setpgid((int)pid, (int)pid);
	timed_out = 0;
	running_pid = pid;
	sys_alarm(t->timeout_s);
	while ((r = sys_wait4((int)pid, &status, 0, NULL)) == -EINTR)
		;
	sys_alarm(0);
	running_pid = 0;
	if (r < 0)
		ktap_result_directive(top, false, t->name, "wait4 failed (error %ld)", r);
	else
		test_report_end(top, t, status, timed_out);
	test_clean_up(pid);
}

static void test_run(struct ktap *top, int number, const struct gt_test *t)
{
	uint32_t start;

	ktap_number_next(top, number);
	ktap_diag(top, "fpubench: begin %d %s", number, t->name);
	start = time_now_ms();
	test_supervise(top, t);
	ktap_diag(top, "fpubench: duration_ms %u", time_now_ms() - start);
}

/*
 * Parks until the host restores this guest, which then runs the tests and
 * from the start the host's line names; a guest that cannot park runs as its
 * command line says, which is the whole command line of a cold boot.
 */
static void init_park(const struct ktap *top, struct park_request *req, const char **selected,
		      const char **start)
{
	const char *what;
	long err = park_wait(req);

	if (err < 0) {
		ktap_diag(top, "fpubench: cannot park (error %ld)", err);
		return;
	}
	ktap_diag(top, "fpubench: restored");
	*selected = req->tests && *req->tests ? req->tests : NULL;
	*start = req->start;
	if ((err = park_refresh(req, &what)) < 0)
		ktap_diag(top, "fpubench: restored without a fresh %s (error %ld)", what, err);
}

static __attribute__((noreturn)) void init_reboot(const struct ktap *top)
{
	long err = sys_reboot(LINUX_REBOOT_CMD_RESTART);

	ktap_diag(top, "fpubench: reboot failed (error %ld)", err);
	for (;;)
		time_sleep_ms(60000);
}

int main(int argc, char **argv, char **envp)
{
	const struct gt_test *tests = __start_gt_tests;
	int count = (int)(__stop_gt_tests - __start_gt_tests);
	const char *selected = init_getenv(envp, TESTS_VARIABLE);
	const char *start = init_getenv(envp, START_VARIABLE);
	struct park_request req;
	struct ktap top;
	int first;

	/* First, before any x87 instruction: the probe reports the state it started with. */
	if (fresh_is_probe(argc, argv))
		return fresh_probe_main(argv);
	ktap_init(&top, 0);
	ktap_header(&top);
	init_print_cpu(&top);
	ktap_plan(&top, count);
	if (init_getenv(envp, PARK_VARIABLE))
		init_park(&top, &req, &selected, &start);
	first = init_first_test(&top, start);
	init_setup_timeouts(&top);
	for (int number = first; number <= count; number++) {
		if (init_test_selected(selected, tests[number - 1].name)) {
			test_run(&top, number, &tests[number - 1]);
		} else {
			ktap_number_next(&top, number);
			ktap_result_directive(&top, true, tests[number - 1].name, "SKIP not selected");
		}
	}
	ktap_diag(&top, "fpubench: done");
	/* After "done": the verdicts are in, and a failed transfer costs only the coverage. */
	if (init_getenv(envp, GCOV_VARIABLE))
		gcov_send(&top);
	init_reboot(&top);
}
