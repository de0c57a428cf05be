/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fixture.c needs of the kernel's headers to compile on its own, for
 * test_gen.py.  The struct layouts and the macro and enum lists are copied
 * from Linux 6.1.192 (Debian's linux-source-6.1, GPL-2.0):
 * arch/x86/include/asm/fpu/types.h (struct fxregs_state, cut to the fields
 * used), arch/x86/include/asm/cpufeatures.h (five X86_FEATURE_ lines, so
 * that X86_FEATURE_FXSR has neighbours), arch/x86/kernel/fpu/xstate.h
 * (enum xstate_copy_mode) and include/uapi/asm-generic/errno-base.h (four
 * lines); the functions are declared, not defined.
 */
#ifndef FIXTURE_STUBS_H
#define FIXTURE_STUBS_H

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define __user
#define likely(x)	__builtin_expect(!!(x), 1)
#define BUILD_BUG_ON(c)	((void)sizeof(char[1 - 2 * !!(c)]))

#define ENODEV		19	/* No such device */
#define ENOTDIR		20	/* Not a directory */
#define EISDIR		21	/* Is a directory */
#define EINVAL		22	/* Invalid argument */

#define X86_FEATURE_ACPI		( 0*32+22) /* ACPI via MSR */
#define X86_FEATURE_MMX			( 0*32+23) /* Multimedia Extensions */
#define X86_FEATURE_FXSR		( 0*32+24) /* FXSAVE/FXRSTOR, CR4.OSFXSR */
#define X86_FEATURE_XMM			( 0*32+25) /* "sse" */
#define X86_FEATURE_XMM2		( 0*32+26) /* "sse2" */

#define XFEATURE_MASK_FPSSE	3

enum xstate_copy_mode {
	XSTATE_COPY_FP,
	XSTATE_COPY_FX,
	XSTATE_COPY_XSAVE,
};

struct _fpxreg {
	u16			significand[4];
	u16			exponent;
	u16			padding[3];
};

struct fregs_state {
	u32			cwd;
	u32			swd;
	u32			twd;
	u32			fip;
	u32			fcs;
	u32			foo;
	u32			fos;
	u32			st_space[20];
	u32			status;
};

struct fxregs_state {
	u16			cwd;
	u16			swd;
	u16			twd;
	u16			fop;
	u32			fip;
	u32			fcs;
	u32			foo;
	u32			fos;
	u32			mxcsr;
	u32			mxcsr_mask;
	u32			st_space[32];
	u32			xmm_space[64];
};

struct xregs_state {
	struct fxregs_state	i387;
	struct { u64 xfeatures; } header;
};

union fpregs_state {
	struct fregs_state	fsave;
	struct fxregs_state	fxsave;
	struct xregs_state	xsave;
};

struct fpstate {
	union fpregs_state	regs;
};

struct fpu {
	struct fpstate		*fpstate;
	struct fpstate		__fpstate;
};

struct task_struct {
	struct { struct fpu fpu; } thread;
};

struct user_regset;

void *memcpy(void *to, const void *from, unsigned long n);
void *memset(void *s, int c, unsigned long n);
struct membuf { void *p; unsigned long left; };

int cpu_feature_enabled(int feature);
int use_xsave(void);
int use_fxsr(void);
int in_ia32_syscall(void);
void os_xsave(struct fpstate *fpstate);
void update_avx_timestamp(struct fpu *fpu);
void fxsave(struct fxregs_state *fx);
void frstor(struct fregs_state *fx);
void sync_fpstate(struct fpu *fpu);
void fpu_force_restore(struct fpu *fpu);
int membuf_write(struct membuf *to, const void *from, unsigned long size);
void copy_xstate_to_uabi_buf(struct membuf to, struct task_struct *tsk,
			     enum xstate_copy_mode mode);
int user_regset_copyin(unsigned int *pos, unsigned int *count, const void **kbuf,
		       const void __user **ubuf, void *data, const int start_pos,
		       const int end_pos);
extern u32 mxcsr_feature_mask;

#endif
