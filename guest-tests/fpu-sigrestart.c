/*
 * fpu_sigrestart: a system call that a signal interrupts either fails
 * with EINTR or runs again, as its kind and the handler's SA_RESTART say,
 * and the signal frame shows which: the interrupted %eip and %eax are
 * those the task goes on with.
 *
 * Guards handle_signal() and arch_do_signal_or_restart() in
 * arch/x86/kernel/signal.c.  The contract of 6.1 (6.12 is the same), for a
 * syscall made with int $0x80:
 *
 *   - with a handler: -ERESTARTSYS (a read from an empty pipe) becomes
 *     -EINTR without SA_RESTART; with it the syscall runs again: the
 *     frame's %eax is the syscall's number (orig_ax) and its %eip the
 *     int $0x80 (two bytes back), so that sigreturn re-enters it.
 *     -ERESTARTNOHAND (pause, an absolute clock_nanosleep) and
 *     -ERESTART_RESTARTBLOCK (a relative one) become -EINTR even with
 *     SA_RESTART; the frame then has -EINTR and the %eip after the int;
 *   - without a handler (a SIGSTOP then SIGCONT): the syscall runs again,
 *     a read returns the data that comes later, an absolute nanosleep
 *     sleeps to its deadline, a relative one goes on through
 *     restart_syscall to its first deadline, whatever its argument says
 *     by then.
 *
 * Each case in a child, which makes the syscall through assembly with
 * known labels; a helper process waits RS_DELAY_MS, sends the signal (or
 * SIGSTOP and SIGCONT), then writes a byte into the pipe.  The handler
 * records the frame's %eip and %eax.  Subtests `read_eintr`,
 * `read_restart`, `pause_eintr`, `nanosleep_eintr`, `abs_nanosleep_eintr`
 * (the three with SA_RESTART), `read_stopped`, `nanosleep_stopped`,
 * `abs_nanosleep_stopped`: the syscall's result, the handler
 * count, the frame's %eip and %eax, and the time slept.
 */
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/time.h"

#include <asm-generic/errno.h>
#include <linux/mman.h>
#include <linux/time_types.h>
#include <stdbool.h>
#include <stdint.h>

#define RS_DELAY_MS 30u
#define RS_SLEEP_MS 100u
#define RS_MS_SLACK 1u		/* time_now_ms() truncates to the millisecond */
#define RS_LONG_S 4u		/* what the nanosleep's argument becomes during the stop */

/*
 * syscall(nr, a, b, c), the fourth argument NULL (clock_nanosleep's rmtp),
 * with int $0x80 at rs_int; the kernel returns to rs_after.
 */
long rs_syscall(long nr, long a, long b, long c);
void rs_int(void);
void rs_after(void);
__asm__(".text\n"
	".globl rs_syscall\n"
	"rs_syscall:\n"
	"	pushl %esi\n	pushl %ebx\n"
	"	movl 12(%esp), %eax\n	movl 16(%esp), %ebx\n"
	"	movl 20(%esp), %ecx\n	movl 24(%esp), %edx\n	xorl %esi, %esi\n"
	".globl rs_int\n"
	"rs_int:\n"
	"	int $0x80\n"
	".globl rs_after\n"
	"rs_after:\n"
	"	popl %ebx\n	popl %esi\n"
	"	ret\n");

enum rs_call { RS_READ, RS_PAUSE, RS_NANOSLEEP, RS_ABS_NANOSLEEP };

struct rs_case {
	const char *name;
	enum rs_call call;
	bool handler;		/* SIGUSR1 with a handler; else SIGSTOP, SIGCONT */
	bool restart;		/* SA_RESTART */
};

static const struct rs_case rs_cases[] = {
	{ "read_eintr", RS_READ, true, false },
	{ "read_restart", RS_READ, true, true },
	{ "pause_eintr", RS_PAUSE, true, true },
	{ "nanosleep_eintr", RS_NANOSLEEP, true, true },
	{ "abs_nanosleep_eintr", RS_ABS_NANOSLEEP, true, true },
	{ "read_stopped", RS_READ, false, false },
	{ "nanosleep_stopped", RS_NANOSLEEP, false, false },
	{ "abs_nanosleep_stopped", RS_ABS_NANOSLEEP, false, false },
};

static const long rs_nr[] = { [RS_READ] = __NR_read, [RS_PAUSE] = __NR_pause,
			      [RS_NANOSLEEP] = __NR_clock_nanosleep_time64,
			      [RS_ABS_NANOSLEEP] = __NR_clock_nanosleep_time64 };

/* What the child sends back. */
struct rs_report {
	long err, ret;
	int count;
	uint32_t eip, eax;	/* the frame's */
	uint32_t slept_ms;
};

static struct rs_report rs_report;

static void rs_handle(int sig, siginfo_t *info, void *ucontext)
{
	struct ucontext *uc = ucontext;

	(void)sig;
	(void)info;
	rs_report.count++;
	rs_report.eip = uc->uc_mcontext.eip;
	rs_report.eax = uc->uc_mcontext.eax;
}

/*
 * The helper: the signal (or a stop and a continue) while `pid` waits,
 * then a byte.  While `pid` is stopped it makes the nanosleep's argument
 * RS_LONG_S seconds: a restart through restart_syscall keeps the first
 * deadline, one that ran the call again with its arguments would not.
 */
static void rs_helper(const struct rs_case *c, int pid, int write_fd,
		      volatile struct __kernel_timespec *ts)
{
	time_sleep_ms(RS_DELAY_MS);
	if (c->handler) {
		sys_kill(pid, SIGUSR1);
	} else {
		sys_kill(pid, SIGSTOP);
		time_sleep_ms(RS_DELAY_MS / 2);
		if (c->call == RS_NANOSLEEP)
			ts->tv_sec = RS_LONG_S;
		sys_kill(pid, SIGCONT);
	}
	time_sleep_ms(RS_DELAY_MS / 2);
	sys_write(write_fd, "x", 1);
	sys_exit_group(0);
}

static long rs_call(const struct rs_case *c, int read_fd, struct __kernel_timespec *ts)
{
	static char byte;

	switch (c->call) {
	case RS_READ:
		return rs_syscall(__NR_read, read_fd, (long)&byte, 1);
	case RS_PAUSE:
		return rs_syscall(__NR_pause, 0, 0, 0);
	case RS_NANOSLEEP:
		return rs_syscall(__NR_clock_nanosleep_time64, CLOCK_MONOTONIC, 0, (long)ts);
	case RS_ABS_NANOSLEEP:
		return rs_syscall(__NR_clock_nanosleep_time64, CLOCK_MONOTONIC, TIMER_ABSTIME,
				  (long)ts);
	}
	return -EINVAL;
}

/* RS_SLEEP_MS from now: relative, or (TIMER_ABSTIME) on CLOCK_MONOTONIC.  0 or -errno. */
static long rs_timespec(const struct rs_case *c, struct __kernel_timespec *ts)
{
	long err = 0;

	*ts = (struct __kernel_timespec){ .tv_nsec = RS_SLEEP_MS * 1000000l };
	if (c->call == RS_ABS_NANOSLEEP) {
		struct __kernel_timespec now;
		uint32_t ns;	/* below 2e9: no 64-bit division, which needs libgcc */

		err = sys_clock_gettime64(CLOCK_MONOTONIC, &now);
		ns = (uint32_t)now.tv_nsec + RS_SLEEP_MS * 1000000u;
		ts->tv_sec = now.tv_sec + (ns >= 1000000000u);
		ts->tv_nsec = ns >= 1000000000u ? ns - 1000000000u : ns;
	}
	return err;
}

static int rs_child(int write_fd, void *arg)
{
	const struct rs_case *c = arg;
	int fds[2], pid = (int)sys_getpid();
	long helper, err = sys_pipe(fds);
	/* Shared with the helper, which rewrites it. */
	long ts = sys_mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint32_t start = time_now_ms();	/* before the deadline is set */

	if ((unsigned long)ts >= -4095ul)
		err = err ? err : ts;
	else
		err = err ? err : rs_timespec(c, (struct __kernel_timespec *)ts);
	if (err == 0 && c->handler)
		err = signal_set_action_flags(SIGUSR1, rs_handle, c->restart ? SA_RESTART : 0);
	helper = err ? -1 : sys_fork();
	if (helper == 0)
		rs_helper(c, pid, fds[1], (struct __kernel_timespec *)ts);
	if (helper < 0 && err == 0)
		err = helper;
	if (err == 0)
		rs_report.ret = rs_call(c, fds[0], (struct __kernel_timespec *)ts);
	rs_report.slept_ms = time_now_ms() - start;
	if (err == 0)
		proc_wait(helper);
	rs_report.err = err;
	return proc_write(write_fd, &rs_report, sizeof(rs_report)) < 0;
}

static void rs_check(struct ktap_check *check, const struct rs_case *c, const struct rs_report *r)
{
	bool again = c->call == RS_READ && (c->restart || !c->handler);
	bool sleep = c->call == RS_NANOSLEEP || c->call == RS_ABS_NANOSLEEP;
	long want = again ? 1 : sleep && !c->handler ? 0 : -EINTR;

	ktap_check_expect(check, r->ret == want, "expected the syscall to return %ld, got %ld", want,
			  r->ret);
	ktap_check_expect(check, r->count == (c->handler ? 1 : 0), "expected %d handlers, got %d",
			  c->handler ? 1 : 0, r->count);
	if (c->handler && r->count == 1) {
		uint32_t eip = c->restart && c->call == RS_READ ? (uint32_t)rs_int : (uint32_t)rs_after;
		uint32_t eax = eip == (uint32_t)rs_int ? (uint32_t)rs_nr[c->call] : (uint32_t)-EINTR;

		ktap_check_expect(check, r->eip == eip && r->eax == eax, "expected the frame's %%eip "
				  "0x%08x and %%eax 0x%08x (%s), got 0x%08x and 0x%08x", eip, eax,
				  eip == (uint32_t)rs_int ? "the int $0x80 and orig_ax: run again"
				  : "after the int, -EINTR", r->eip, r->eax);
	}
	if (sleep && !c->handler)
		ktap_check_expect(check, r->slept_ms + RS_MS_SLACK >= RS_SLEEP_MS &&
				  r->slept_ms < RS_LONG_S * 500,
				  "expected to sleep %u ms across the stop (to the first deadline, not "
				  "the %u s written meanwhile), slept %u ms", RS_SLEEP_MS, RS_LONG_S,
				  r->slept_ms);
}

static void rs_run_case(struct ktap *subtests, const struct rs_case *c)
{
	static struct rs_report r;
	struct proc_child child;
	struct ktap_check check;
	long err, status = -1, got = 0;

	r = (struct rs_report){ .err = -1 };
	err = proc_start(&child, rs_child, (void *)c);
	if (err == 0)
		status = proc_finish(&child, &r, sizeof(r), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && status == 0, "expected the child to exit 0, got fork "
			  "%ld, wait status 0x%lx", err, status);
	ktap_check_expect(&check, got == (long)sizeof(r) && r.err == 0, "expected a whole report "
			  "without error, got %ld bytes, error %ld", got, r.err);
	if (got == (long)sizeof(r) && r.err == 0)
		rs_check(&check, c, &r);
	ktap_check_end(subtests, &check, c->name);
}

static void sigrestart_run(struct ktap *subtests)
{
	ktap_plan(subtests, ARRAY_SIZE(rs_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(rs_cases); i++)
		rs_run_case(subtests, &rs_cases[i]);
}

GT_TEST("fpu_sigrestart", 10, sigrestart_run,
	GT_TAGS(GT_FUNC("handle_signal"), GT_FUNC("arch_do_signal_or_restart")),
	"a syscall a signal interrupts fails with EINTR or runs again as its kind and SA_RESTART "
	"say (read, pause, nanosleep), with or without a handler, and the frame's %eip and %eax "
	"are those the task goes on with");
