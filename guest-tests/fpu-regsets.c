/*
 * fpu_regsets: a tracer's FPU requests return exactly what their contract
 * says and copy exact images both ways.
 *
 * Guards arch_ptrace() in arch/x86/kernel/ptrace.c (the FPREGS requests:
 * REGSET_FP at offset 0, their error as it is; the FPXREGS requests:
 * REGSET_XFP at offset 0, 0 on success and -EIO on any error),
 * ptrace_regset() in kernel/ptrace.c (iov_len clamped to the regset and
 * written back only on success), and arch/x86/kernel/fpu/regset.c: on
 * FXSR kernels convert_to_fxsr() and __convert_from_fxsr() (FOP in FCS's
 * upper half, the tag word rebuilt from the registers) leave MXCSR and xmm
 * alone; xfpregs_set() clears xmm8..xmm15 for a 32-bit tracer and refuses
 * MXCSR bits outside the CPU's MXCSR_MASK (fpu__init_system_mxcsr());
 * without FXSR the XFP regset is -ENODEV.  fpu_ptrace_fault has the
 * buffers the kernel cannot reach.
 *
 * The tracee loads an x87 state with every tag class (and, where AT_HWCAP
 * says SSE, MXCSR and xmm0..xmm7) and stops twice.  Every read starts from
 * a sentinel.  getfpregs_live, getfpxregs_live: the tracee's x87, MXCSR
 * and xmm registers.  setfpregs_exact: SETFPREGS of an image with
 * pointers, FOP and every tag class returns 0 and reads back byte for
 * byte, through NT_PRFPREG too, SETREGSET NT_PRFPREG of 200 bytes gives
 * iov_len 108 (FXSR: GETFPXREGS has it, MXCSR and xmm kept);
 * setfpregs_live: the tracee runs with it.  setfpxregs_exact: SETFPXREGS
 * and SETREGSET NT_PRXFPREG (512 and 600 bytes) of a whole image return 0
 * and it reads back, xmm8..xmm15 (set) zero, GETFPREGS in fsave form
 * (FSAVE: -EIO, -ENODEV, nothing changed); regset_xfp_size: 32 bytes read
 * as 32, 30 and a 256-byte write refused; mxcsr_mask: SETFPXREGS of every
 * bit of the CPU's MXCSR_MASK returns 0, of the lowest bit above it -EIO;
 * setfpxregs_live: the tracee runs with the image.
 */
#include "rt/auxv.h"
#include "rt/fpstate.h"
#include "rt/ktap.h"
#include "rt/proc.h"
#include "rt/ptrace.h"
#include "rt/sse.h"
#include "rt/sys.h"
#include "rt/test.h"
#include "rt/x87.h"

#include <stdbool.h>
#include <stdint.h>

#include <asm/errno.h>
#include <asm/ptrace-abi.h>
#include <asm/signal.h>
#include <linux/elf.h>
#include <linux/ptrace.h>

#define RS_LONG_BYTES 600
#define RS_UPPER 0xffff0000u	/* what __convert_from_fxsr() puts above FCW, FSW and tags */

static const long double rs_tracee_values[] = {
	FPSTATE_PI, 0.0L, __builtin_infl(), __LDBL_DENORM_MIN__, -2.5L, FPSTATE_E,
};
static const struct fpstate_spec rs_tracee_spec = {
	.cw = 0x0f7f, .sw_flags = X87_SW_C3 | X87_SW_PE,
	.count = ARRAY_SIZE(rs_tracee_values), .values = rs_tracee_values,
};

/* What SETFPREGS writes... */
static const long double rs_fp_values[] = {
	-0.0L, FPSTATE_TEN_TO_10, -__builtin_infl(), 0.375L, -__LDBL_DENORM_MIN__,
};
static const struct fpstate_spec rs_fp_spec = {
	.cw = 0x067f, .sw_flags = X87_SW_C1 | X87_SW_C3,
	.count = ARRAY_SIZE(rs_fp_values), .values = rs_fp_values,
};

/* ...and the x87 part of what SETFPXREGS writes. */
static const long double rs_fxsr_values[] = {
	1.0L, __builtin_nanl(""), FPSTATE_PI, 0.0L, __LDBL_DENORM_MIN__, FPSTATE_E, 1e300L,
};
static const struct fpstate_spec rs_fxsr_spec = {
	.cw = 0x0a7f, .sw_flags = X87_SW_C1 | X87_SW_PE | X87_SW_UE,
	.count = ARRAY_SIZE(rs_fxsr_values), .values = rs_fxsr_values,
};

#define RS_TRACEE_MXCSR 0x3f80	/* round down */
#define RS_FXSR_MXCSR 0x5fa0	/* round up, PE flagged */

/* What the tracee sends back after each stop. */
struct rs_report {
	struct x87_fsave x87[2];
	struct sse_state sse[2];
};

struct rs_run {
	bool fxsr, sse;
	long stop[2], status, got;
	struct x87_fsave a0, b_read, b_regset, b_after_long, c_before, c_fp;
	struct fpstate_fxsr x0, x1, c_read, c_regset;
	long getfpregs, getfpxregs, setfpregs, getregset_fp, setfpxregs, getregset_xfp;
	long setregset_xfp, setregset_xfp_long, setregset_fp_long;
	size_t len_fp, len_fp_long, len_xfp, len_set_xfp, len_xfp_long;
	long short_get, odd_get, short_set;
	uint32_t cpu_mask, mxcsr_all, mxcsr_out;	/* mxcsr_mask */
	long set_mxcsr_all, set_mxcsr_out;
	size_t len_short_get, len_odd_get, len_short_set;
	uint8_t short_buf[PTRACE_FXSR_BYTES];
	struct rs_report report;
};

static struct rs_run rs_seen;

static const struct sse_state *rs_tracee_sse(void)
{
	static struct sse_state s;

	sse_make(&s, 0x11, RS_TRACEE_MXCSR);
	return &s;
}

/* The image SETFPREGS writes: every field set, the upper halves as fnsave stores them. */
static void rs_fp_image(struct x87_fsave *b)
{
	fpstate_build_tagged(b, &rs_fp_spec);
	b->env.cw |= RS_UPPER;
	b->env.sw |= RS_UPPER;
	b->env.tag |= RS_UPPER;
	b->env.ip = 0x0804a1b2;
	b->env.cs = 0x01d90073;		/* FOP 0x1d9, CS 0x73 */
	b->env.dp = 0x0804c3d0;
	b->env.ds = 0x0000007b;
}

/* The image SETFPXREGS writes, and its x87 part as fnsave would store it. */
static void rs_fxsr_image(struct fpstate_fxsr *c, struct x87_fsave *d)
{
	struct sse_state s;
	uint8_t *bytes = (uint8_t *)c;

	for (unsigned int i = 0; i < sizeof(*c); i++)
		bytes[i] = 0;
	fpstate_build_tagged(d, &rs_fxsr_spec);
	fpstate_to_fxsr(c, d);
	c->fop = 0x0123;
	c->fip = 0x08049876;
	c->fcs = 0x0073;
	c->foo = 0x0804d008;
	c->fos = 0x007b;
	sse_make(&s, 0x80, RS_FXSR_MXCSR);
	c->mxcsr = s.mxcsr;
	fpstate_copy(c->xmm_space, s.xmm, sizeof(s.xmm));
	/* Where xmm8..xmm15 would be: xfpregs_set() must clear it for a 32-bit tracer. */
	for (unsigned int i = 0; i < 32; i++)
		c->padding[i] = 0x5a5a0000u + i;
}

/* What GETFPREGS gives on an FXSR kernel for an FXSR image `c` (__convert_from_fxsr()). */
static void rs_fp_of_fxsr(struct x87_fsave *out, const struct fpstate_fxsr *c,
			  const struct x87_fsave *d)
{
	*out = *d;
	out->env.cw = c->cwd | RS_UPPER;
	out->env.sw = c->swd | RS_UPPER;
	out->env.tag = d->env.tag | RS_UPPER;
	out->env.ip = c->fip;
	out->env.cs = (c->fcs & 0xffff) | (uint32_t)c->fop << 16;
	out->env.dp = c->foo;
	out->env.ds = c->fos;
}

/* `x` with the fsave image `b` folded in, as convert_to_fxsr() does. */
static void rs_fxsr_with_fp(struct fpstate_fxsr *out, const struct fpstate_fxsr *x,
			    const struct x87_fsave *b)
{
	*out = *x;
	out->cwd = (uint16_t)b->env.cw;
	out->swd = (uint16_t)b->env.sw;
	out->twd = fpstate_abridged_tag(b->env.tag);
	out->fop = (uint16_t)(b->env.cs >> 16);
	out->fip = b->env.ip;
	out->fcs = b->env.cs & 0xffff;
	out->foo = b->env.dp;
	out->fos = b->env.ds;
	for (unsigned int i = 0; i < 8; i++)
		fpstate_copy(out->st_space[i], b->st[i], 10);
}

static int rs_tracee(int write_fd, void *arg)
{
	struct rs_report report;
	int pid = (int)sys_getpid();
	bool sse = sse_enabled();

	(void)arg;
	if (sys_ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 1;
	fpstate_load(&rs_tracee_spec);
	if (sse)
		sse_load(rs_tracee_sse());
	for (unsigned int i = 0; i < 2; i++) {
		sys_kill(pid, SIGSTOP);
		x87_snapshot(&report.x87[i]);
		if (sse)
			sse_store(&report.sse[i]);
	}
	return proc_write(write_fd, &report, sizeof(report)) < 0;
}

/* At the first stop: the reads, the refused requests, then SETFPREGS. */
static void rs_first_stop(struct rs_run *r, long pid)
{
	struct x87_fsave b;
	uint8_t long_fp[200];

	r->getfpregs = ptrace_fp_read(PTRACE_FP_FPREGS, pid, &r->a0, NULL);
	r->getfpxregs = ptrace_fp_read(PTRACE_FP_FPXREGS, pid, &r->x0, NULL);
	rs_fp_image(&b);
	r->setfpregs = ptrace_fp_request(PTRACE_FP_FPREGS, true, pid, (unsigned long)&b, NULL);
	ptrace_fp_read(PTRACE_FP_FPREGS, pid, &r->b_read, NULL);
	r->len_fp = PTRACE_FP_BYTES;
	r->getregset_fp = ptrace_fp_read(PTRACE_FP_REGSET_FP, pid, &r->b_regset,
				  &r->len_fp);
	ptrace_fp_read(PTRACE_FP_FPXREGS, pid, &r->x1, NULL);
	fpstate_copy(long_fp, &b, sizeof(b));
	r->len_fp_long = sizeof(long_fp);
	r->setregset_fp_long = ptrace_fp_request(PTRACE_FP_REGSET_FP, true, pid, (unsigned long)long_fp,
				       &r->len_fp_long);
	ptrace_fp_read(PTRACE_FP_FPREGS, pid, &r->b_after_long, NULL);
}

/* The CPU's MXCSR_MASK from an fxsave of our own, or the default 0xffbf where it stores 0. */
static uint32_t rs_cpu_mxcsr_mask(void)
{
	static struct fpstate_fxsr fx __attribute__((aligned(16)));

	__asm__ volatile("fxsave %0" : "=m"(fx) : : "memory");
	return fx.reserved ? fx.reserved : 0xffbf;
}

/*
 * FXSR: every MXCSR bit the CPU supports is accepted (fpu__init_system_mxcsr()
 * took the mask from its fxsave), the lowest one it lacks refused; then the
 * image again.
 */
static void rs_mxcsr_mask(struct rs_run *r, long pid, const struct fpstate_fxsr *c)
{
	struct fpstate_fxsr m = *c, got;
	uint32_t out = 1;

	r->cpu_mask = rs_cpu_mxcsr_mask();
	while (out & r->cpu_mask)
		out <<= 1;
	m.mxcsr = r->cpu_mask;
	r->set_mxcsr_all = ptrace_fp_request(PTRACE_FP_FPXREGS, true, pid, (unsigned long)&m, NULL);
	ptrace_fp_read(PTRACE_FP_FPXREGS, pid, &got, NULL);
	r->mxcsr_all = got.mxcsr;
	m.mxcsr = out;
	r->set_mxcsr_out = ptrace_fp_request(PTRACE_FP_FPXREGS, true, pid, (unsigned long)&m, NULL);
	ptrace_fp_read(PTRACE_FP_FPXREGS, pid, &got, NULL);
	r->mxcsr_out = got.mxcsr;
	ptrace_fp_request(PTRACE_FP_FPXREGS, true, pid, (unsigned long)c, NULL);
}

/* At the second stop: SETFPXREGS, the reads back, and the iov_len rules of NT_PRXFPREG. */
static void rs_second_stop(struct rs_run *r, long pid)
{
	struct fpstate_fxsr c;
	struct x87_fsave d;
	uint8_t long_buf[RS_LONG_BYTES];

	rs_fxsr_image(&c, &d);
	ptrace_fp_read(PTRACE_FP_FPREGS, pid, &r->c_before, NULL);
	r->setfpxregs = ptrace_fp_request(PTRACE_FP_FPXREGS, true, pid, (unsigned long)&c, NULL);
	ptrace_fp_read(PTRACE_FP_FPXREGS, pid, &r->c_read, NULL);
	ptrace_fp_read(PTRACE_FP_FPREGS, pid, &r->c_fp, NULL);
	r->len_set_xfp = PTRACE_FXSR_BYTES;
	r->setregset_xfp = ptrace_fp_request(PTRACE_FP_REGSET_XFP, true, pid, (unsigned long)&c, &r->len_set_xfp);
	fpstate_copy(long_buf, &c, sizeof(c));
	r->len_xfp_long = RS_LONG_BYTES;
	r->setregset_xfp_long = ptrace_fp_request(PTRACE_FP_REGSET_XFP, true, pid, (unsigned long)long_buf,
					&r->len_xfp_long);
	r->len_xfp = PTRACE_FXSR_BYTES;
	r->getregset_xfp = ptrace_fp_read(PTRACE_FP_REGSET_XFP, pid, &r->c_regset,
				   &r->len_xfp);

	ptrace_fill(r->short_buf, sizeof(r->short_buf));
	r->len_short_get = 32;
	r->short_get = ptrace_fp_request(PTRACE_FP_REGSET_XFP, false, pid, (unsigned long)r->short_buf,
			       &r->len_short_get);
	r->len_odd_get = 30;
	r->odd_get = ptrace_fp_request(PTRACE_FP_REGSET_XFP, false, pid, (unsigned long)long_buf, &r->len_odd_get);
	r->len_short_set = 256;
	r->short_set = ptrace_fp_request(PTRACE_FP_REGSET_XFP, true, pid, (unsigned long)&c, &r->len_short_set);
	if (r->fxsr)
		rs_mxcsr_mask(r, pid, &c);
}

static void rs_trace(struct rs_run *r, long pid)
{
	r->stop[0] = proc_wait(pid);
	if (r->stop[0] != PTRACE_STOPPED_BY(SIGSTOP))
		return;
	rs_first_stop(r, pid);
	sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);
	r->stop[1] = proc_wait(pid);
	if (r->stop[1] != PTRACE_STOPPED_BY(SIGSTOP))
		return;
	rs_second_stop(r, pid);
	sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);
}


static void rs_expect_u32(struct ktap_check *check, const char *field, const char *where,
			  uint32_t want, uint32_t got)
{
	ktap_check_expect(check, want == got, "expected %s 0x%x%s%s, got 0x%x", field,
			  (unsigned int)want, *where ? " " : "", where, (unsigned int)got);
}

/* Every field of the FXSR image but the reserved ones and the registers' padding. */
static void rs_check_fxsr(struct ktap_check *check, const char *where,
			  const struct fpstate_fxsr *want, const struct fpstate_fxsr *got,
			  bool with_sse)
{
	int reg = -1, xmm = -1;

	for (int i = 7; i >= 0; i--) {
		if (!ptrace_same_bytes(want->st_space[i], got->st_space[i], 10))
			reg = i;
		if (!ptrace_same_bytes(&want->xmm_space[4 * i], &got->xmm_space[4 * i], 16))
			xmm = i;
	}
	rs_expect_u32(check, "FCW", where, want->cwd, got->cwd);
	rs_expect_u32(check, "FSW", where, want->swd, got->swd);
	rs_expect_u32(check, "abridged tag word", where, want->twd, got->twd);
	rs_expect_u32(check, "FOP", where, want->fop, got->fop);
	rs_expect_u32(check, "FIP", where, want->fip, got->fip);
	rs_expect_u32(check, "FCS", where, want->fcs, got->fcs);
	rs_expect_u32(check, "FOO", where, want->foo, got->foo);
	rs_expect_u32(check, "FOS", where, want->fos, got->fos);
	ktap_check_expect(check, reg < 0, "expected the registers %s, st%d differs", where, reg);
	if (!with_sse)
		return;
	rs_expect_u32(check, "MXCSR", where, want->mxcsr, got->mxcsr);
	ktap_check_expect(check, xmm < 0, "expected the xmm registers %s, xmm%d differs", where,
			  xmm);
}

static void rs_check_bytes(struct ktap_check *check, const char *where, const void *want,
			   const void *got, unsigned int size)
{
	const uint8_t *w = want, *g = got;
	unsigned int i = 0;

	while (i < size && w[i] == g[i])
		i++;
	ktap_check_expect(check, i == size, "expected the %u bytes %s, byte %u is 0x%02x not 0x%02x",
			  size, where, i, i < size ? g[i] : 0, i < size ? w[i] : 0);
}

static void rs_check_sse(struct ktap_check *check, const char *where,
			 const struct sse_state *want, const struct sse_state *got)
{
	ktap_check_expect(check, sse_equal(want, got),
			  "expected MXCSR 0x%x and xmm0..xmm7 %s, got MXCSR 0x%x, other registers",
			  (unsigned int)want->mxcsr, where, (unsigned int)got->mxcsr);
}

static void rs_check_reads(struct ktap *subtests, const struct rs_run *r)
{
	struct ktap_check check;
	struct x87_fsave a;
	struct fpstate_fxsr want;

	fpstate_build_tagged(&a, &rs_tracee_spec);
	ktap_check_begin(&check);
	rs_expect_u32(&check, "PTRACE_GETFPREGS to return", "", 0, (uint32_t)r->getfpregs);
	fpstate_check(&check, "from PTRACE_GETFPREGS", &a, &r->a0);
	ktap_check_end(subtests, &check, "getfpregs_live");

	ktap_check_begin(&check);
	rs_expect_u32(&check, "PTRACE_GETFPXREGS to return", "", r->fxsr ? 0 : (uint32_t)-EIO,
		      (uint32_t)r->getfpxregs);
	if (r->fxsr) {
		want = r->x0;
		fpstate_to_fxsr(&want, &a);
		if (r->sse) {
			want.mxcsr = rs_tracee_sse()->mxcsr;
			fpstate_copy(want.xmm_space, rs_tracee_sse()->xmm, 128);
		}
		rs_check_fxsr(&check, "from PTRACE_GETFPXREGS", &want, &r->x0, r->sse);
	}
	ktap_check_note(&check, "AT_HWCAP says FXSR %s, SSE %s", r->fxsr ? "on" : "off",
			r->sse ? "on" : "off");
	ktap_check_end(subtests, &check, "getfpxregs_live");
}

static void rs_check_setfpregs(struct ktap *subtests, const struct rs_run *r, bool reported)
{
	struct ktap_check check;
	struct x87_fsave b;
	struct fpstate_fxsr want;

	rs_fp_image(&b);
	ktap_check_begin(&check);
	rs_expect_u32(&check, "PTRACE_SETFPREGS to return", "", 0, (uint32_t)r->setfpregs);
	rs_check_bytes(&check, "from PTRACE_GETFPREGS", &b, &r->b_read, PTRACE_FP_BYTES);
	rs_expect_u32(&check, "GETREGSET NT_PRFPREG to return", "", 0, (uint32_t)r->getregset_fp);
	rs_expect_u32(&check, "iov_len", "", PTRACE_FP_BYTES, (uint32_t)r->len_fp);
	rs_check_bytes(&check, "from GETREGSET NT_PRFPREG", &b, &r->b_regset, PTRACE_FP_BYTES);
	rs_expect_u32(&check, "SETREGSET NT_PRFPREG of 200 bytes to return", "", 0,
		      (uint32_t)r->setregset_fp_long);
	rs_expect_u32(&check, "its iov_len", "", PTRACE_FP_BYTES, (uint32_t)r->len_fp_long);
	rs_check_bytes(&check, "after it", &b, &r->b_after_long, PTRACE_FP_BYTES);
	if (r->fxsr) {
		rs_fxsr_with_fp(&want, &r->x0, &b);
		rs_check_fxsr(&check, "from PTRACE_GETFPXREGS", &want, &r->x1, true);
	}
	ktap_check_end(subtests, &check, "setfpregs_exact");

	ktap_check_begin(&check);
	ktap_check_expect(&check, reported, "expected %u bytes from the tracee, got %ld (status 0x%lx)",
			  (unsigned int)sizeof(r->report), r->got, r->status);
	if (reported)
		fpstate_check(&check, "in the tracee after PTRACE_SETFPREGS", &b, &r->report.x87[0]);
	if (reported && r->sse)
		rs_check_sse(&check, "in the tracee after PTRACE_SETFPREGS", rs_tracee_sse(),
			     &r->report.sse[0]);
	ktap_check_end(subtests, &check, "setfpregs_live");
}

static void rs_check_setfpxregs(struct ktap *subtests, const struct rs_run *r)
{
	struct ktap_check check;
	struct fpstate_fxsr c, zero = { 0 };
	struct x87_fsave d, c_fp;
	bool x = r->fxsr;

	rs_fxsr_image(&c, &d);
	rs_fp_of_fxsr(&c_fp, &c, &d);
	ktap_check_begin(&check);
	rs_expect_u32(&check, "PTRACE_SETFPXREGS to return", "", x ? 0 : (uint32_t)-EIO,
		      (uint32_t)r->setfpxregs);
	rs_expect_u32(&check, "SETREGSET NT_PRXFPREG to return", "", x ? 0 : (uint32_t)-ENODEV,
		      (uint32_t)r->setregset_xfp);
	rs_expect_u32(&check, "its iov_len", "", PTRACE_FXSR_BYTES, (uint32_t)r->len_set_xfp);
	rs_expect_u32(&check, "SETREGSET NT_PRXFPREG of 600 bytes to return", "",
		      x ? 0 : (uint32_t)-ENODEV, (uint32_t)r->setregset_xfp_long);
	rs_expect_u32(&check, "its iov_len", "", x ? PTRACE_FXSR_BYTES : RS_LONG_BYTES,
		      (uint32_t)r->len_xfp_long);
	rs_expect_u32(&check, "GETREGSET NT_PRXFPREG to return", "", x ? 0 : (uint32_t)-ENODEV,
		      (uint32_t)r->getregset_xfp);
	/* Without FXSR, the state the tracee's switch saved stays. */
	rs_check_bytes(&check, "from PTRACE_GETFPREGS", x ? &c_fp : &r->c_before, &r->c_fp,
		       PTRACE_FP_BYTES);
	if (x) {
		rs_check_fxsr(&check, "from PTRACE_GETFPXREGS", &c, &r->c_read, true);
		rs_check_fxsr(&check, "from GETREGSET NT_PRXFPREG", &c, &r->c_regset, true);
		rs_check_bytes(&check, "of xmm8..xmm15 zero", &zero.padding, &r->c_read.padding,
			       128);
	}
	ktap_check_end(subtests, &check, "setfpxregs_exact");

	ktap_check_begin(&check);
	rs_expect_u32(&check, "GETREGSET NT_PRXFPREG of 32 bytes to return", "",
		      x ? 0 : (uint32_t)-ENODEV, (uint32_t)r->short_get);
	rs_expect_u32(&check, "its iov_len", "", 32, (uint32_t)r->len_short_get);
	if (x)
		rs_check_bytes(&check, "of the image's start", &c, r->short_buf, 32);
	ktap_check_expect(&check, ptrace_untouched(r->short_buf, x ? 32 : 0, PTRACE_FXSR_BYTES),
			  "expected the buffer untouched after %u bytes, it was written", x ? 32 : 0);
	rs_expect_u32(&check, "GETREGSET NT_PRXFPREG of 30 bytes to return", "", (uint32_t)-EINVAL,
		      (uint32_t)r->odd_get);
	rs_expect_u32(&check, "its iov_len", "", 30, (uint32_t)r->len_odd_get);
	rs_expect_u32(&check, "SETREGSET NT_PRXFPREG of 256 bytes to return", "",
		      x ? (uint32_t)-EINVAL : (uint32_t)-ENODEV, (uint32_t)r->short_set);
	rs_expect_u32(&check, "its iov_len", "", 256, (uint32_t)r->len_short_set);
	ktap_check_end(subtests, &check, "regset_xfp_size");
}

static void rs_check_mxcsr_mask(struct ktap *subtests, const struct rs_run *r)
{
	struct ktap_check check;

	if (!r->fxsr) {
		ktap_result_directive(subtests, true, "mxcsr_mask", "SKIP AT_HWCAP has no FXSR");
		return;
	}
	ktap_check_begin(&check);
	rs_expect_u32(&check, "PTRACE_SETFPXREGS of MXCSR_MASK to return", "", 0,
		      (uint32_t)r->set_mxcsr_all);
	rs_expect_u32(&check, "MXCSR", "after it", r->cpu_mask, r->mxcsr_all);
	rs_expect_u32(&check, "PTRACE_SETFPXREGS of the lowest bit above it to return", "",
		      (uint32_t)-EIO, (uint32_t)r->set_mxcsr_out);
	rs_expect_u32(&check, "MXCSR", "after that", r->cpu_mask, r->mxcsr_out);
	ktap_check_note(&check, "the CPU's MXCSR_MASK 0x%x", (unsigned int)r->cpu_mask);
	ktap_check_end(subtests, &check, "mxcsr_mask");
}

static void rs_check_live(struct ktap *subtests, const struct rs_run *r, bool reported)
{
	struct ktap_check check;
	struct fpstate_fxsr c;
	struct x87_fsave b, d;
	struct sse_state s;

	rs_fp_image(&b);
	rs_fxsr_image(&c, &d);
	s.mxcsr = c.mxcsr;
	fpstate_copy(s.xmm, c.xmm_space, sizeof(s.xmm));
	ktap_check_begin(&check);
	ktap_check_expect(&check, reported, "expected the tracee's report, got %ld bytes", r->got);
	if (reported)
		fpstate_check(&check, "in the tracee after the second stop", r->fxsr ? &d : &b,
			      &r->report.x87[1]);
	if (reported && r->sse)
		rs_check_sse(&check, "in the tracee after PTRACE_SETFPXREGS", &s,
			     &r->report.sse[1]);
	ktap_check_end(subtests, &check, "setfpxregs_live");
}

static void rs_run(struct ktap *subtests)
{
	struct rs_run *r = &rs_seen;
	struct proc_child child;
	long err;
	bool reported;

	ktap_plan(subtests, 8);
	r->fxsr = (auxv_get(AT_HWCAP) & AUXV_HWCAP_FXSR) != 0;
	r->sse = sse_enabled();
	err = proc_start(&child, rs_tracee, NULL);
	if (err == 0) {
		rs_trace(r, child.pid);
		r->status = ptrace_reap(child.pid);
		r->got = proc_read(child.read_fd, &r->report, sizeof(r->report));
		sys_close(child.read_fd);
	} else {
		ktap_diag(subtests, "fork failed (error %ld)", err);
	}
	if (r->stop[0] != PTRACE_STOPPED_BY(SIGSTOP))
		ktap_diag(subtests, "the first stop: 0x%lx", r->stop[0]);
	reported = r->got == (long)sizeof(r->report) && r->status == 0;
	rs_check_reads(subtests, r);
	rs_check_setfpregs(subtests, r, reported);
	rs_check_setfpxregs(subtests, r);
	rs_check_mxcsr_mask(subtests, r);
	rs_check_live(subtests, r, reported);
}

GT_TEST("fpu_regsets", 10, rs_run,
	GT_TAGS(GT_FUNC("arch_ptrace"), GT_FUNC("ptrace_regset"), GT_FUNC("fpregs_get"),
		GT_FUNC("fpregs_set"), GT_FUNC("xfpregs_get"), GT_FUNC("xfpregs_set"),
		GT_FUNC("convert_to_fxsr"), GT_FUNC("__convert_from_fxsr"),
		GT_FUNC("fpu__init_system_mxcsr")),
	"arch_ptrace()'s FPREGS and FPXREGS requests, ptrace_regset(), fpregs_set() and "
	"xfpregs_set(): exact return codes and exact images both ways, MXCSR and xmm "
	"registers included");
