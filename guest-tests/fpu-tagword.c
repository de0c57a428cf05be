/*
 * fpu_tagword: the full (fsave-format) tag word a task sees of its x87
 * registers, in both signal frames and through PTRACE_GETFPREGS, is the
 * CPU's: two bits per physical register, computed from its contents; and
 * the empty bits of a tag word written into a frame or by SETFPREGS are
 * exactly the registers that come back empty.
 *
 * Guards twd_fxsr_to_i387() and twd_i387_to_fxsr() through
 * convert_from_fxsr() (save_fsave_header(), fpregs_get()) and
 * convert_to_fxsr() (__fpu_restore_sig(), fpregs_set()) in
 * arch/x86/kernel/fpu/regset.c and signal.c.  The contract of 6.1 (6.12 is
 * the same): an FXSR kernel keeps only the abridged tag (one bit: empty or
 * not) and rebuilds the full one as fnsave would: 11 empty; for the others
 * by the register's exponent (bits 0-14 of its sign and exponent word) and
 * its four 16-bit significand words: 01 zero (exponent 0 and all four words
 * 0), 10 special (exponent 0x7fff; exponent 0 with any word not 0; or the
 * integer bit, bit 15 of the top word, clear), 00 valid, each at the
 * physical register's place (ST(i) is register (TOP + i) mod 8), the upper
 * half 0xffff.  An FSAVE kernel gives what fnsave stored, the same words.
 * Going in, only "empty or not" of each pair counts.
 *
 * `frame_rt`, `frame_old`: three stacks (all eight registers at TOP 0; three
 * at TOP 5; six with two empty at TOP 2) of edge values: denormals whose
 * only set bits are in one significand word each, a pseudo-denormal, the
 * largest finite and smallest normal numbers, -0.0, +0.0, a
 * pseudo-infinity, a signalling NaN, unnormals at exponents 1 and 0x7ffe,
 * infinity, normal numbers; empty registers hold values.  The frame's tag
 * word and registers are the stack's, and after sigreturn the state is
 * back.  `getfpregs`: a tracer's PTRACE_GETFPREGS of each stack gives the
 * same tag word and registers.  `sigreturn_empty`, `setfpregs_empty`: eight
 * normal numbers, and a tag word whose empty pairs are one register, all
 * but one, none or all, written into the frame's header (both frames), or
 * by SETFPREGS: after sigreturn the CPU's tag word, and GETFPREGS, are that
 * word, the other registers unchanged.
 */
#include "rt/fmt.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/signal.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <linux/ptrace.h>
#include <stdarg.h>
#include <linux/signal.h>
#include <stdbool.h>
#include <stdint.h>

enum { TW_VALID, TW_ZERO, TW_SPECIAL, TW_EMPTY };

/* An 80-bit register: significand (integer bit 63) and sign with exponent, and its class. */
struct tw_reg {
	uint16_t se;
	uint32_t hi, lo;
	unsigned int tag;
};

#define TW_SETS 3u
#define TW_PATTERNS 18u		/* 8 one empty, 8 all but one, none, all */

struct tw_set {
	unsigned int top;
	struct tw_reg st[8];	/* ST(0)..ST(7) */
};

static const struct tw_set tw_sets[TW_SETS] = {
	{ 0, {
		{ 0x0000, 0, 0x00010000, TW_SPECIAL },		/* denormal: word 1 only */
		{ 0x8000, 0x00000001, 0, TW_SPECIAL },		/* negative denormal: word 2 only */
		{ 0x0000, 0x40000000, 0, TW_SPECIAL },		/* denormal: word 3 only */
		{ 0x0000, 0x80000000, 0, TW_SPECIAL },		/* pseudo-denormal */
		{ 0x7ffe, 0xffffffff, 0xffffffff, TW_VALID },	/* the largest finite */
		{ 0x0001, 0x80000000, 0, TW_VALID },		/* the smallest normal */
		{ 0x8000, 0, 0, TW_ZERO },			/* -0.0 */
		{ 0x7fff, 0, 0, TW_SPECIAL },			/* pseudo-infinity */
	} },
	{ 5, {
		{ 0xffff, 0x80000000, 1, TW_SPECIAL },		/* negative signalling NaN */
		{ 0x0001, 0x40000000, 0, TW_SPECIAL },		/* unnormal, exponent 1 */
		{ 0xbfff, 0x80000000, 0, TW_VALID },		/* -1.0 */
		{ 0x4000, 0x80000000, 0, TW_EMPTY },		/* 2.0, empty */
		{ 0x0000, 0, 0, TW_EMPTY },			/* +0.0, empty */
		{ 0x7fff, 0xc0000000, 0, TW_EMPTY },		/* NaN, empty */
		{ 0x3fff, 0x80000000, 0, TW_EMPTY },		/* 1.0, empty */
		{ 0x0000, 0, 1, TW_EMPTY },			/* denormal, empty */
	} },
	{ 2, {
		{ 0x0000, 0, 0, TW_ZERO },			/* +0.0 */
		{ 0x0000, 0, 0x00000001, TW_SPECIAL },		/* the smallest denormal: word 0 */
		{ 0x7fff, 0x80000000, 0, TW_SPECIAL },		/* +inf */
		{ 0x3fff, 0x80000000, 0, TW_VALID },		/* 1.0 */
		{ 0x4002, 0xa0000000, 0, TW_EMPTY },		/* 10.0, empty */
		{ 0x7ffe, 0x7fffffff, 0xffffffff, TW_SPECIAL },	/* unnormal, exponent 0x7ffe */
		{ 0xc000, 0xc90fdaa2, 0x2168c235, TW_VALID },	/* -pi */
		{ 0x8000, 0, 0, TW_EMPTY },			/* -0.0, empty */
	} },
};

/* Eight normal numbers for the empty-bit patterns, TOP 0. */
static const struct tw_set tw_normals = { 0, {
	{ 0x3fff, 0x80000000, 0, TW_VALID }, { 0xc000, 0xc0000000, 0, TW_VALID },
	{ 0x4001, 0xa0000000, 0, TW_VALID }, { 0x3ffd, 0x80000000, 0, TW_VALID },
	{ 0x4020, 0x9502f900, 0, TW_VALID }, { 0xbff0, 0xfedcba98, 0x76543210, TW_VALID },
	{ 0x4000, 0xc90fdaa2, 0x2168c235, TW_VALID }, { 0x3fff, 0xffffffff, 0xffffffff, TW_VALID },
} };

static void tw_build(struct x87_fsave *image, const struct tw_set *s)
{
	uint32_t tag = 0;

	*image = (struct x87_fsave){ 0 };
	for (unsigned int i = 0; i < 8; i++) {
		const struct tw_reg *r = &s->st[i];

		fpstate_copy(&image->st[i][0], &r->lo, 4);
		fpstate_copy(&image->st[i][4], &r->hi, 4);
		fpstate_copy(&image->st[i][8], &r->se, 2);
		tag |= r->tag << (2 * ((s->top + i) & 7));
	}
	image->env = (struct x87_env){ .cw = X87_CW_DEFAULT, .sw = s->top << X87_SW_TOP_SHIFT,
				       .tag = tag };
}

/* Pattern `p`'s tag word of the eight normals: 11 where empty, 00 elsewhere. */
static uint16_t tw_pattern(unsigned int p)
{
	uint16_t one;

	if (p >= 16)
		return p == 16 ? 0 : 0xffff;
	one = (uint16_t)(3u << (2 * (p & 7)));
	return p < 8 ? one : (uint16_t)~one;
}

/* The image of the normals with the tag word of pattern `p`. */
static void tw_build_pattern(struct x87_fsave *image, unsigned int p)
{
	tw_build(image, &tw_normals);
	image->env.tag = tw_pattern(p);
}

/* What the signal child sends back; [0] rt, [1] old. */
struct tw_sig {
	long err;
	int count;			/* handlers run */
	struct x87_fsave frame[2][TW_SETS], after[2][TW_SETS];
	struct x87_fsave pat_after[2][TW_PATTERNS];
};

static struct tw_sig tw_sig;
static struct x87_fsave *tw_frame_to;	/* where the handler copies the header */
static int tw_write_pattern = -1;	/* the pattern the handler writes, or -1 */

static void tw_handle(struct _fpstate *fp)
{
	struct x87_fsave image;

	tw_sig.count++;
	if (tw_frame_to)
		fpstate_from_frame(tw_frame_to, fp);
	if (tw_write_pattern >= 0) {
		tw_build_pattern(&image, (unsigned int)tw_write_pattern);
		fp->tag = (fp->tag & 0xffff0000u) | (uint16_t)image.env.tag;
	}
	x87_init();	/* a state of the handler's own, which sigreturn must undo */
	__asm__ volatile("fld1\n\tfldz" ::: "memory");
}

static void tw_handle_rt(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	tw_handle(((struct ucontext *)ucontext)->uc_mcontext.fpstate);
}

static void tw_handle_old(int sig, struct sigcontext sc)
{
	(void)sig;
	tw_handle(sc.fpstate);
}

/* Loads `image`, sends SIGUSR1, snapshots the state after into `after`. */
static long tw_deliver(const struct x87_fsave *image, struct x87_fsave *after)
{
	long err;

	x87_init();
	x87_restore(image);
	err = sys_kill((int)sys_getpid(), SIGUSR1);
	x87_snapshot(after);
	x87_init();
	return err;
}

static int tw_sig_child(int write_fd, void *arg)
{
	struct x87_fsave image;
	long err = 0;

	(void)arg;
	for (unsigned int k = 0; k < 2 && err == 0; k++) {
		err = k ? signal_set_old_action(SIGUSR1, tw_handle_old, 0)
			: signal_set_action(SIGUSR1, tw_handle_rt);
		for (unsigned int s = 0; s < TW_SETS && err == 0; s++) {
			tw_build(&image, &tw_sets[s]);
			tw_frame_to = &tw_sig.frame[k][s];
			err = tw_deliver(&image, &tw_sig.after[k][s]);
		}
		tw_frame_to = NULL;
		for (unsigned int p = 0; p < TW_PATTERNS && err == 0; p++) {
			tw_build(&image, &tw_normals);
			tw_write_pattern = (int)p;
			err = tw_deliver(&image, &tw_sig.pat_after[k][p]);
		}
		tw_write_pattern = -1;
	}
	tw_sig.err = err;
	return proc_write(write_fd, &tw_sig, sizeof(tw_sig)) < 0;
}

__attribute__((format(printf, 2, 3)))
static const char *tw_where(char where[64], const char *fmt, ...)
{
	struct fmt_buf b;
	va_list ap;

	fmt_init(&b, where, 64);
	va_start(ap, fmt);
	fmt_vaddf(&b, fmt, ap);
	va_end(ap);
	return where;
}

/* FCW, FSW, tag word and the non-empty registers of `want` in `got`, noted only if not. */
static void tw_expect(struct ktap_check *check, const char *where, const struct x87_fsave *want,
		      const struct x87_fsave *got)
{
	if (!fpstate_equal(want, got))
		fpstate_check(check, where, want, got);
}

static void tw_run_sig(struct ktap *subtests)
{
	static const char *const kinds[2] = { "rt", "old" };
	static struct tw_sig r;
	struct proc_child child;
	struct ktap_check check;
	struct x87_fsave want;
	char where[64];
	long err, status = -1, got = 0;

	r = (struct tw_sig){ .err = -1 };
	err = proc_start(&child, tw_sig_child, NULL);
	if (err == 0)
		status = proc_finish(&child, &r, sizeof(r), &got);
	for (unsigned int k = 0; k < 2; k++) {
		ktap_check_begin(&check);
		ktap_check_expect(&check, err == 0 && status == 0 && got == (long)sizeof(r) &&
				  r.err == 0, "expected the child to report, got fork %ld, status "
				  "0x%lx, %ld bytes, error %ld", err, status, got, r.err);
		ktap_check_expect(&check, r.count == (int)(2 * (TW_SETS + TW_PATTERNS)),
				  "expected %u handlers to run, got %d", 2 * (TW_SETS + TW_PATTERNS),
				  r.count);
		for (unsigned int s = 0; s < TW_SETS && got == (long)sizeof(r); s++) {
			tw_build(&want, &tw_sets[s]);
			tw_where(where, "in the %s frame of stack %u", kinds[k], s);
			tw_expect(&check, where, &want, &r.frame[k][s]);
			tw_where(where, "after the %s sigreturn of stack %u",
				   kinds[k], s);
			tw_expect(&check, where, &want, &r.after[k][s]);
		}
		ktap_check_end(subtests, &check, k ? "frame_old" : "frame_rt");
	}
	ktap_check_begin(&check);
	for (unsigned int k = 0; k < 2 && got == (long)sizeof(r); k++)
		for (unsigned int p = 0; p < TW_PATTERNS; p++) {
			tw_build_pattern(&want, p);
			tw_where(where, "after the %s sigreturn of pattern %u",
				   kinds[k], p);
			tw_expect(&check, where, &want, &r.pat_after[k][p]);
		}
	ktap_check_expect(&check, got == (long)sizeof(r), "expected the child's report");
	ktap_check_end(subtests, &check, "sigreturn_empty");
}

/* What the tracer saw. */
struct tw_trace {
	long err, stops[TW_SETS + 1], status;
	struct x87_fsave get[TW_SETS];
	long set_ret[TW_PATTERNS];
	struct x87_fsave set_get[TW_PATTERNS];
};

/* Loads each stack and stops; the tracer reads it. */
static int tw_tracee(int write_fd, void *arg)
{
	struct x87_fsave image;

	(void)write_fd;
	(void)arg;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 1;
	for (unsigned int s = 0; s <= TW_SETS; s++) {
		x87_init();
		if (s < TW_SETS) {
			tw_build(&image, &tw_sets[s]);
			x87_restore(&image);
		}
		sys_kill((int)sys_getpid(), SIGSTOP);
	}
	return 0;
}

static void tw_trace(struct tw_trace *t, long pid)
{
	struct x87_fsave image;

	for (unsigned int s = 0; s <= TW_SETS && t->err == 0; s++) {
		t->stops[s] = proc_wait(pid);
		if (t->stops[s] != PTRACE_STOPPED_BY(SIGSTOP)) {
			t->err = -1;
			break;
		}
		if (s < TW_SETS)
			t->err = ptrace_fp_read(PTRACE_FP_FPREGS, pid, &t->get[s], NULL);
		for (unsigned int p = 0; p < TW_PATTERNS && s == TW_SETS; p++) {
			tw_build_pattern(&image, p);
			t->set_ret[p] = ptrace_fp_request(PTRACE_FP_FPREGS, true, pid,
							  (unsigned long)&image, NULL);
			ptrace_fp_read(PTRACE_FP_FPREGS, pid, &t->set_get[p], NULL);
		}
		if (t->err == 0)
			t->err = sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);
	}
}

static void tw_run_trace(struct ktap *subtests)
{
	static struct tw_trace t;
	struct proc_child child;
	struct ktap_check check;
	struct x87_fsave want;
	char where[64];
	long err;

	t = (struct tw_trace){ 0 };
	err = proc_start(&child, tw_tracee, NULL);
	if (err == 0) {
		tw_trace(&t, child.pid);
		t.status = ptrace_reap(child.pid);
		sys_close(child.read_fd);
	}
	ktap_check_begin(&check);
	ktap_check_expect(&check, err == 0 && t.err == 0, "expected the tracee's stops and reads, "
			  "got fork %ld, error %ld", err, t.err);
	for (unsigned int s = 0; s < TW_SETS && t.err == 0; s++) {
		tw_build(&want, &tw_sets[s]);
		tw_where(where, "from PTRACE_GETFPREGS of stack %u", s);
		tw_expect(&check, where, &want, &t.get[s]);
	}
	ktap_check_end(subtests, &check, "getfpregs");
	ktap_check_begin(&check);
	for (unsigned int p = 0; p < TW_PATTERNS && t.err == 0; p++) {
		tw_build_pattern(&want, p);
		ktap_check_expect(&check, t.set_ret[p] == 0, "expected PTRACE_SETFPREGS of pattern "
				  "%u to return 0, got %ld", p, t.set_ret[p]);
		tw_where(where, "from PTRACE_GETFPREGS after pattern %u", p);
		tw_expect(&check, where, &want, &t.set_get[p]);
	}
	ktap_check_expect(&check, t.err == 0 && t.status == 0, "expected the tracee to exit 0, got "
			  "wait status 0x%lx", t.status);
	ktap_check_end(subtests, &check, "setfpregs_empty");
}

static void tagword_run(struct ktap *subtests)
{
	ktap_plan(subtests, 5);
	tw_run_sig(subtests);
	tw_run_trace(subtests);
}

GT_TEST("fpu_tagword", 20, tagword_run,
	GT_TAGS(GT_FUNC("twd_fxsr_to_i387"), GT_FUNC("twd_i387_to_fxsr"),
		GT_FUNC("convert_from_fxsr"), GT_FUNC("convert_to_fxsr"),
		GT_FUNC("save_fsave_header"), GT_FUNC("__fpu_restore_sig"), GT_FUNC("fpregs_get"),
		GT_FUNC("fpregs_set")),
	"the full tag word in both signal frames and from PTRACE_GETFPREGS is the CPU's, "
	"computed per register from its contents (valid, zero, special, empty), and the empty "
	"pairs of a tag word written into a frame or by PTRACE_SETFPREGS are the registers "
	"that come back empty");
