/*
 * fpstate: whole x87 states with known contents, to load with frstor and
 * to compare with what comes back (from the FPU, a signal frame, ptrace or
 * another process).
 *
 * A state is an fsave image: FCW, FSW, full tag word and ST(0)..ST(n-1)
 * holding the given values, the other registers empty.  Values are normal
 * numbers, so every kernel path gives back the same tag word (an FXSR
 * kernel keeps an abridged one and rebuilds it from the values).  An image
 * whose FSW has ES and a flag that its FCW unmasks leaves that exception
 * pending once loaded.  Only the low 16 bits of FCW, FSW and the tag word
 * are compared: the upper halves are reserved.
 */
#ifndef GT_FPSTATE_H
#define GT_FPSTATE_H

#include "ktap.h"
#include "x87.h"

#include <stdbool.h>
#include <stdint.h>

/* Known values for the stacks, rounded to 80 bits by the compiler. */
#define FPSTATE_PI 3.14159265358979323846264338327950288L
#define FPSTATE_E 2.71828182845904523536028747135266250L
#define FPSTATE_TEN_TO_10 10000000000.0L	/* exact; too big for fist's 16 and 32 bits */

struct fpstate_spec {
	uint16_t cw;
	uint16_t sw_flags;		/* FSW without TOP, which follows from `count` */
	unsigned int count;		/* values on the stack, at most 8 */
	const long double *values;	/* values[0] is ST(0) */
};

void fpstate_build(struct x87_fsave *image, const struct fpstate_spec *spec);

/*
 * fpstate_build() with the tag word the FPU gives (what fnsave stores):
 * 01 zero, 10 special (infinity, NaN, denormal, unnormal), 00 valid, for
 * specs whose values are not all normal numbers.
 */
void fpstate_build_tagged(struct x87_fsave *image, const struct fpstate_spec *spec);

/* struct user_fxsr_struct of <sys/user.h>, the fxsave image: 512 bytes. */
struct fpstate_fxsr {
	uint16_t cwd, swd, twd, fop;
	uint32_t fip, fcs, foo, fos, mxcsr, reserved;
	uint8_t st_space[8][16];	/* ST(0)..ST(7), 10 bytes each */
	uint32_t xmm_space[32];		/* xmm0..xmm7 */
	uint32_t padding[56];
};

/*
 * The x87 part of the FXSR image of an fsave image, what fxsave would
 * store: FCW, FSW, the abridged tag word and the registers (their padding
 * zeroed).  The pointers, MXCSR and xmm registers are left as they are.
 */
void fpstate_to_fxsr(struct fpstate_fxsr *fx, const struct x87_fsave *image);

/* fninit, then loads the state of `spec`. */
void fpstate_load(const struct fpstate_spec *spec);

/* Whether FCW, FSW, tag word and the non-empty registers of `got` are those of `want`. */
bool fpstate_equal(const struct x87_fsave *want, const struct x87_fsave *got);

/*
 * ktap_check_expect() on each field of fpstate_equal(), saying which one
 * differs `where` ("after fork"), and then noting both stacks.
 */
void fpstate_check(struct ktap_check *check, const char *where, const struct x87_fsave *want,
		   const struct x87_fsave *got);

/* The same for the tag word and the registers only. */
void fpstate_check_stack(struct ktap_check *check, const char *where,
			 const struct x87_fsave *want, const struct x87_fsave *got);

/* The first of all eight registers (empty ones too) that differs between `a` and `b`, or -1. */
int fpstate_first_st_difference(const struct x87_fsave *a, const struct x87_fsave *b);

/* Whether FIP, FCS with the opcode, FOO and FOS (the env's last four words) are the same. */
bool fpstate_pointers_equal(const struct x87_fsave *a, const struct x87_fsave *b);

/* Notes FCW, FSW, tag and registers of `image` under `label`. */
void fpstate_note(struct ktap_check *check, const char *label, const struct x87_fsave *image);

/* memcpy, which a binary without libc lacks. */
void fpstate_copy(void *to, const void *from, unsigned int n);

/* The FXSR abridged tag of a full tag word: one bit per physical register, set when not empty. */
uint8_t fpstate_abridged_tag(uint32_t tag);

/* Copies the fsave-format header of a signal frame (either format), which has the same layout. */
void fpstate_from_frame(struct x87_fsave *image, const struct _fpstate *fp);

#endif
