/*
 * fpu_spurious: an x87 exception trap with no unmasked exception flagged
 * never becomes a SIGFPE.
 *
 * Guards math_error() in arch/x86/kernel/traps.c and
 * fpu__exception_code() in arch/x86/kernel/fpu/core.c: the si_code comes
 * from the status word's exception flags that the control word leaves
 * unmasked (swd & ~cwd); when none is, the trap is spurious, and the kernel
 * returns to the instruction without a signal ("Retry when we get spurious
 * exceptions").
 *
 * Each subtest runs a child that loads an x87 state whose status word has
 * ES and B set, every exception masked, and the flags below, then executes
 * fwait.  QEMU raises #MF at that fwait whenever ES is set (helper_fwait()
 * tests FPUS_SE), so the kernel sees a trap with no unmasked exception, and
 * since returning restores the same state, the trap repeats until the child
 * is killed; a CPU that raises #MF only for unmasked flags runs on and the
 * child exits.  The parent waits until the child is at its fwait, sleeps,
 * then kills it.  The child must have exited normally or died of that
 * SIGKILL, never of SIGFPE:
 *
 *   es_only     no exception flag at all;
 *   masked_pe   precision flagged, masked;
 *   masked_ie   invalid operation flagged, masked;
 *   masked_all  all six flagged, all masked.
 */
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/time.h"
#include "rt/x87.h"

#include <asm/signal.h>
#include <stdint.h>

#define SPURIOUS_TRAP_MS 20	/* hundreds of traps under TCG */
#define WAIT_NOHANG 1		/* wait4's WNOHANG */

struct spurious_case {
	const char *name;
	uint16_t flags;		/* exception flags in the status word, with ES and B */
};

static const struct spurious_case spurious_cases[] = {
	{ "es_only", 0 },
	{ "masked_pe", X87_SW_PE },
	{ "masked_ie", X87_SW_IE },
	{ "masked_all", X87_SW_IE | X87_SW_DE | X87_SW_ZE | X87_SW_OE | X87_SW_UE | X87_SW_PE },
};

static int spurious_child(int write_fd, void *arg)
{
	const struct spurious_case *c = arg;
	struct x87_fsave image;
	char ready = 'r';

	x87_init();
	x87_snapshot(&image);
	image.env.cw = (image.env.cw & ~0xffffu) | X87_CW_DEFAULT;
	image.env.sw = (image.env.sw & ~0xffffu) | X87_SW_B | X87_SW_ES | c->flags;
	if (proc_write(write_fd, &ready, 1) < 0)
		return 2;
	x87_restore(&image);
	x87_wait();
	x87_init();
	return 0;
}

static void spurious_one(struct ktap *subtests, const struct spurious_case *c)
{
	struct ktap_check check;
	struct proc_child child;
	long err, status = -1, got = 0;
	char ready = 0;
	int wstatus = 0;

	err = proc_start(&child, spurious_child, (void *)c);
	if (err == 0)
		got = proc_read(child.read_fd, &ready, 1);
	if (err == 0) {
		time_sleep_ms(SPURIOUS_TRAP_MS);
		if (sys_wait4((int)child.pid, &wstatus, WAIT_NOHANG, NULL) == child.pid)
			status = wstatus;
		else
			sys_kill((int)child.pid, SIGKILL);
		sys_close(child.read_fd);
		if (status < 0)
			status = proc_wait(child.pid);
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && got == 1, "expected the child at its fwait, got %ld %ld",
			  err, got);
	ktap_check_expect(&check, status == 0 || status == SIGKILL,
			  "expected the child to exit 0 or to die of SIGKILL (still trapping), "
			  "got wait status 0x%lx%s", status,
			  (status & 0x7f) == SIGFPE ? ": SIGFPE for a masked or absent exception" : "");
	if (status == SIGKILL)
		ktap_check_note(&check, "the fwait trapped until the child was killed");
	ktap_check_end(subtests, &check, c->name);
}

static void spurious_run(struct ktap *subtests)
{
	ktap_plan(subtests, ARRAY_SIZE(spurious_cases));
	for (unsigned int i = 0; i < ARRAY_SIZE(spurious_cases); i++)
		spurious_one(subtests, &spurious_cases[i]);
}

GT_TEST("fpu_spurious", 10, spurious_run,
	GT_TAGS(GT_FUNC("math_error"), GT_FUNC("fpu__exception_code")),
	"math_error() and fpu__exception_code(): an x87 trap with no unmasked exception flagged "
	"(swd & ~cwd) is retried, never a SIGFPE");
