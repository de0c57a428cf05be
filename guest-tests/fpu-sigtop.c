/*
 * fpu_sigtop: a signal frame at the top of a sigaltstack is written whole,
 * also when the page it ends on is not present, and nothing at or above
 * the top is written.
 *
 * Guards copy_fpstate_to_sigframe() and fpu__alloc_mathframe() in
 * arch/x86/kernel/fpu/signal.c and get_sigframe(), __setup_frame() and
 * __setup_rt_frame() in arch/x86/kernel/signal.c.  The contract of 6.1
 * (6.12 is the same): the image goes right below the top, 64-byte aligned
 * (its FXSR part), the frame below it; the kernel writes the image with
 * page faults disabled and, when that faults, clears the whole image
 * (buf_fx, fpstate->user_size bytes), which faults its pages in, and
 * writes again; it writes nothing outside [frame, top).
 *
 * `rt_top_page_fresh`, `old_top_page_fresh`, `rt_top_page_dropped`,
 * `old_top_page_dropped`: a sigaltstack whose top is
 * 16 to 127 bytes above a page boundary, that top page not present (the
 * whole stack mapped anew, or only the top page dropped after use: by
 * MADV_DONTNEED, or a new mapping where madvise is not built): from 64
 * bytes on, an FXSR image ends on that page, which the kernel's write
 * faults on, and its retry must fault in the whole image (buf_fx), not the
 * 512 bytes from the fsave header on (buf), or it loops for ever.  The
 * handler sees the exact state, sigreturn restores it.  QEMU 7.2's TCG
 * fxsave stores only the image's first 288 bytes (do_fxsave(): no probe
 * of the whole area before QEMU 9's X86Access), so there only a CPU that
 * writes all 512 tells the two apart.
 * `above_top`: for each offset 0..63 of the top, both frames, the 256
 * bytes above it (mapped, outside the sigaltstack) keep their pattern.
 * `refault_straddle`: an image across a page boundary of a shared file
 * mapping whose upper page the handler maps anew: sigreturn (FSAVE:
 * frstor from user memory, then fault_in_readable() of the whole image
 * and again) gives the state the handler wrote.
 */
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <asm-generic/mman-common.h>
#include <linux/mman.h>
#include <linux/signal.h>
#include <stdbool.h>
#include <stdint.h>

#define ST_PAGE 4096u
#define ST_OFFSETS 64u		/* the image is 64-byte aligned: every offset mod 64 */

static const long double st_values[] = { FPSTATE_PI, FPSTATE_E, FPSTATE_TEN_TO_10, -1.5L };
static const struct fpstate_spec st_state = {
	.cw = 0x0b7f,
	.sw_flags = X87_SW_C1 | X87_SW_PE,
	.count = ARRAY_SIZE(st_values),
	.values = st_values,
};

static long st_map(void *addr, uint32_t len, int flags)
{
	return sys_mmap(addr, len, PROT_READ | PROT_WRITE, flags | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static bool st_failed(long r)
{
	/* An address above 2 GiB is negative as a long: -4095..-1 are the errors. */
	return (unsigned long)r >= -4095ul;
}

static long st_install(bool old, signal_action_fn rt, signal_old_fn plain)
{
	return old ? signal_set_old_action(SIGUSR1, plain, SA_ONSTACK)
		   : signal_set_action_flags(SIGUSR1, rt, SA_ONSTACK);
}

/*
 * The sigaltstack's top this many bytes above a page boundary: from 64 on,
 * an FXSR image ends on the top page and a kernel that faulted in only the
 * first 400 bytes of it (from the fsave header on) would retry forever.
 */
static const uint32_t st_top_offsets[] = { 16, 48, 64, 72, 96, 112, 127 };

struct st_top_case {
	const char *name;
	bool old;
	bool dropped;	/* the top page was in use, then dropped; else all fresh */
};

static const struct st_top_case st_top_cases[] = {
	{ "rt_top_page_fresh", false, false },
	{ "old_top_page_fresh", true, false },
	{ "rt_top_page_dropped", false, true },
	{ "old_top_page_dropped", true, true },
};

/* What a top-page child sends back. */
struct st_top {
	long err;
	int count;			/* handlers run */
	int frame_bad, after_bad;	/* deliveries whose frame, or state after, differed */
	uint32_t first_bad;		/* the first one's offset */
	struct x87_fsave want, frame, after;	/* the first one's */
};

static struct st_top st_top;
static struct x87_fsave st_top_frame;

static void st_top_handle(const struct _fpstate *fp)
{
	st_top.count++;
	fpstate_from_frame(&st_top_frame, fp);
	x87_load_cw(0x0c7f);	/* a state of the handler's own, which sigreturn must undo */
	__asm__ volatile("fld1" ::: "memory");
}

static void st_top_rt(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	st_top_handle(((struct ucontext *)ucontext)->uc_mcontext.fpstate);
}

static void st_top_old(int sig, struct sigcontext sc)
{
	(void)sig;
	st_top_handle(sc.fpstate);
}

/* Leaves the top page of the three at `m` not present: a new mapping, or dropped pages. */
static long st_top_prepare(uint32_t m, bool dropped)
{
	long r;

	if (!dropped) {
		r = st_map((void *)m, 3 * ST_PAGE, MAP_FIXED);
		return st_failed(r) ? r : 0;
	}
	for (uint32_t p = m; p < m + 3 * ST_PAGE; p += ST_PAGE)
		*(volatile uint8_t *)p = 1;
	r = sys_madvise((void *)(m + 2 * ST_PAGE), ST_PAGE, MADV_DONTNEED);
	if (r == -ENOSYS)	/* no CONFIG_ADVISE_SYSCALLS: replace the used page instead */
		r = st_map((void *)(m + 2 * ST_PAGE), ST_PAGE, MAP_FIXED);
	return st_failed(r) ? r : 0;
}

static long st_top_one(const struct st_top_case *c, uint32_t m, uint32_t off,
		       const struct x87_fsave *want)
{
	stack_t ss = { .ss_sp = (void *)m, .ss_size = 2 * ST_PAGE + off };
	struct x87_fsave got;
	int before = st_top.count;
	long err = st_top_prepare(m, c->dropped);

	if (err == 0)
		err = sys_sigaltstack(&ss, NULL);
	x87_init();
	x87_restore(want);
	if (err == 0)
		err = sys_kill((int)sys_getpid(), SIGUSR1);
	x87_snapshot(&got);
	x87_init();
	if (err || st_top.count != before + 1)
		return err;
	st_top.frame_bad += !fpstate_equal(want, &st_top_frame);
	st_top.after_bad += !fpstate_equal(want, &got);
	if ((st_top.frame_bad || st_top.after_bad) && !st_top.first_bad) {
		st_top.first_bad = off;
		st_top.want = *want;
		st_top.frame = st_top_frame;
		st_top.after = got;
	}
	return 0;
}

static int st_top_child(int write_fd, void *arg)
{
	const struct st_top_case *c = arg;
	long m = st_map(NULL, 3 * ST_PAGE, 0);
	struct x87_fsave want;
	long err = st_failed(m) ? m : st_install(c->old, st_top_rt, st_top_old);

	fpstate_build(&want, &st_state);
	for (unsigned int i = 0; i < ARRAY_SIZE(st_top_offsets) && err == 0; i++)
		err = st_top_one(c, (uint32_t)m, st_top_offsets[i], &want);
	st_top.err = err;
	return proc_write(write_fd, &st_top, sizeof(st_top)) < 0;
}

static void st_run_top(struct ktap *subtests, const struct st_top_case *c)
{
	struct ktap_check check;
	struct proc_child child;
	static struct st_top t;
	long err, status = -1, got = 0;

	t = (struct st_top){ .err = -1 };
	err = proc_start(&child, st_top_child, (void *)c);
	if (err == 0)
		status = proc_finish(&child, &t, sizeof(t), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0, "expected fork to succeed, got %ld", err);
	ktap_check_expect(&check, status == 0, "expected the child to exit 0, got wait status 0x%lx",
			  status);
	ktap_check_expect(&check, got == (long)sizeof(t) && t.err == 0,
			  "expected a whole report without error, got %ld bytes, error %ld", got, t.err);
	ktap_check_expect(&check, t.count == (int)ARRAY_SIZE(st_top_offsets),
			  "expected %u handlers to run, got %d", (unsigned int)ARRAY_SIZE(st_top_offsets),
			  t.count);
	ktap_check_expect(&check, t.frame_bad == 0 && t.after_bad == 0, "expected the state in "
			  "every frame and after every sigreturn, %d frames and %d sigreturns differed "
			  "(the first with the top %u bytes above the page)", t.frame_bad, t.after_bad,
			  t.first_bad);
	if (t.first_bad) {
		fpstate_note(&check, "loaded", &t.want);
		fpstate_note(&check, "in the frame", &t.frame);
		fpstate_note(&check, "after sigreturn", &t.after);
	}
	ktap_check_end(subtests, &check, c->name);
}

/* What the above_top child sends back. */
#define ST_CANARY 256u
#define ST_CANARY_BYTE 0xa5

struct st_above {
	long err;
	int count, bad;			/* handlers run; deliveries that wrote above the top */
	uint32_t first_off, first_byte;	/* the first such: its top's offset, the byte's */
};

static struct st_above st_above;

static void st_above_rt(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	(void)ucontext;
	st_above.count++;
}

static void st_above_old(int sig, struct sigcontext sc)
{
	(void)sig;
	(void)sc;
	st_above.count++;
}

static int st_above_child(int write_fd, void *arg)
{
	long m = st_map(NULL, 3 * ST_PAGE, 0);
	long err = st_failed(m) ? m : 0;

	(void)arg;
	for (int kind = 0; kind < 2 && err == 0; kind++) {
		err = st_install(kind, st_above_rt, st_above_old);
		for (uint32_t off = 0; off < ST_OFFSETS && err == 0; off++) {
			volatile uint8_t *top = (volatile uint8_t *)m + 2 * ST_PAGE + off;
			stack_t ss = { .ss_sp = (void *)m, .ss_size = 2 * ST_PAGE + off };
			uint32_t i;

			for (i = 0; i < ST_CANARY; i++)
				top[i] = ST_CANARY_BYTE;
			err = sys_sigaltstack(&ss, NULL);
			if (err == 0)
				err = sys_kill((int)sys_getpid(), SIGUSR1);
			for (i = 0; i < ST_CANARY && top[i] == ST_CANARY_BYTE; i++)
				;
			if (i < ST_CANARY && st_above.bad++ == 0) {
				st_above.first_off = off;
				st_above.first_byte = i;
			}
		}
	}
	st_above.err = err;
	return proc_write(write_fd, &st_above, sizeof(st_above)) < 0;
}

static void st_run_above(struct ktap *subtests)
{
	struct ktap_check check;
	struct proc_child child;
	static struct st_above a;
	long err, status = -1, got = 0;

	a = (struct st_above){ .err = -1 };
	err = proc_start(&child, st_above_child, NULL);
	if (err == 0)
		status = proc_finish(&child, &a, sizeof(a), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && status == 0 && got == (long)sizeof(a) && a.err == 0,
			  "expected the child to report, got fork %ld, wait status 0x%lx, %ld bytes, "
			  "error %ld", err, status, got, a.err);
	ktap_check_expect(&check, a.count == 2 * (int)ST_OFFSETS, "expected %u handlers to run, "
			  "got %d", 2 * ST_OFFSETS, a.count);
	ktap_check_expect(&check, a.bad == 0, "expected nothing written at or above the "
			  "sigaltstack's top, %d deliveries did (the first with the top at offset %u, "
			  "%u bytes above it)", a.bad, a.first_off, a.first_byte);
	ktap_check_end(subtests, &check, "above_top");
}

/*
 * `refault_straddle`: the image crosses a page boundary, on a shared file
 * mapping; the handler writes a state into the frame's fsave header, then
 * maps the upper page anew, so that sigreturn finds it not present (the
 * lower one present): FSAVE's frstor faults part way, and the retry must
 * fault in the whole image, not only its first page.
 */
#define ST_FILE "/fpubench-sigtop"

static const long double st_written_values[] = { -0.375L, 1e100L, FPSTATE_E, 7.0L, -FPSTATE_PI };
static const struct fpstate_spec st_written = {
	.cw = 0x067f,
	.sw_flags = X87_SW_C3 | X87_SW_PE,
	.count = ARRAY_SIZE(st_written_values),
	.values = st_written_values,
};

struct st_refault {
	long err;
	int count;
	struct x87_fsave after;
};

static struct st_refault st_refault;
static uint32_t st_refault_page;	/* the page the handler maps anew */
static int st_refault_fd;

static void st_refault_handle(struct _fpstate *fp)
{
	struct x87_fsave image;
	long r;

	st_refault.count++;
	fpstate_build(&image, &st_written);
	fpstate_copy(fp, &image.env, 12);	/* cw, sw, tag: not the pointers */
	fpstate_copy(fp->_st, image.st, sizeof(image.st));
	x87_init();	/* a state of the handler's own, which sigreturn must undo */
	r = sys_mmap((void *)st_refault_page, ST_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		     st_refault_fd, 2 * ST_PAGE);
	if (st_failed(r) && !st_refault.err)
		st_refault.err = r;
}

static void st_refault_rt(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	st_refault_handle(((struct ucontext *)ucontext)->uc_mcontext.fpstate);
}

static int st_refault_child(int write_fd, void *arg)
{
	long m = -1, err;
	stack_t ss;

	(void)arg;
	st_refault_fd = (int)sys_open(ST_FILE, O_RDWR | O_CREAT | O_TRUNC);
	err = st_refault_fd < 0 ? st_refault_fd : sys_ftruncate(st_refault_fd, 3 * ST_PAGE);
	sys_unlink(ST_FILE);	/* the mapping keeps it */
	if (err == 0)
		m = sys_mmap(NULL, 3 * ST_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, st_refault_fd, 0);
	if (err == 0 && st_failed(m))
		err = m;
	/* The top 64 bytes above the boundary: either image crosses it. */
	ss = (stack_t){ .ss_sp = (void *)m, .ss_size = 2 * ST_PAGE + 64 };
	st_refault_page = (uint32_t)m + 2 * ST_PAGE;
	if (err == 0)
		err = sys_sigaltstack(&ss, NULL);
	if (err == 0)
		err = st_install(false, st_refault_rt, NULL);
	if (err == 0) {
		fpstate_load(&st_state);
		err = sys_kill((int)sys_getpid(), SIGUSR1);
		x87_snapshot(&st_refault.after);
		x87_init();
	}
	if (err && !st_refault.err)
		st_refault.err = err;
	return proc_write(write_fd, &st_refault, sizeof(st_refault)) < 0;
}

static void st_run_refault(struct ktap *subtests)
{
	struct ktap_check check;
	struct proc_child child;
	static struct st_refault r;
	struct x87_fsave want;
	long err, status = -1, got = 0;

	r = (struct st_refault){ .err = -1 };
	err = proc_start(&child, st_refault_child, NULL);
	if (err == 0)
		status = proc_finish(&child, &r, sizeof(r), &got);
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && status == 0 && got == (long)sizeof(r) && r.err == 0,
			  "expected the child to report, got fork %ld, wait status 0x%lx, %ld bytes, "
			  "error %ld", err, status, got, r.err);
	ktap_check_expect(&check, r.count == 1, "expected the handler to run once, got %d", r.count);
	fpstate_build(&want, &st_written);
	if (got == (long)sizeof(r))
		fpstate_check(&check, "after sigreturn", &want, &r.after);
	ktap_check_end(subtests, &check, "refault_straddle");
}

static void sigtop_run(struct ktap *subtests)
{
	ktap_plan(subtests, ARRAY_SIZE(st_top_cases) + 2);
	for (unsigned int i = 0; i < ARRAY_SIZE(st_top_cases); i++)
		st_run_top(subtests, &st_top_cases[i]);
	st_run_above(subtests);
	st_run_refault(subtests);
}

GT_TEST("fpu_sigtop", 20, sigtop_run,
	GT_TAGS(GT_FUNC("copy_fpstate_to_sigframe"), GT_FUNC("fpu__alloc_mathframe"),
		GT_FUNC("get_sigframe"), GT_FUNC("__setup_frame"), GT_FUNC("__setup_rt_frame"),
		GT_FUNC("restore_fpregs_from_user")),
	"a signal frame at the top of a sigaltstack whose top page is not present carries the "
	"exact state and sigreturn restores it, without an endless retry, also when its upper "
	"page is gone at sigreturn; no delivery writes at or above the sigaltstack's top");
