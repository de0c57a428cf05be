/*
 * sse: the SSE registers a user program sees (MXCSR, xmm0..xmm7) as one
 * block, to load, store and compare.
 *
 * The guest is built for the i486, so only tests that checked
 * sse_enabled() may call these: an SSE instruction raises #UD (SIGILL)
 * unless the CPU has SSE and the kernel set CR4.OSFXSR.  The compiler
 * never uses the xmm registers itself (-march=i486), and it refuses them
 * as clobbers, so the asm statements name none.
 */
#ifndef GT_SSE_H
#define GT_SSE_H

#include <stdbool.h>
#include <stdint.h>

#define SSE_MXCSR_DEFAULT 0x1f80	/* all masked, round to nearest, no flags */

struct sse_state {
	uint32_t mxcsr;
	uint8_t xmm[8][16];
};

/* Whether the kernel says, in AT_HWCAP, that it enabled FXSR and SSE for user space. */
bool sse_enabled(void);

/* ldmxcsr and movups of xmm0..xmm7 from `s`. */
void sse_load(const struct sse_state *s);

/* stmxcsr and movups of xmm0..xmm7 into `s`. */
void sse_store(struct sse_state *s);

/* A state whose sixteen-byte registers are all distinct, told apart by `seed`. */
void sse_make(struct sse_state *s, uint8_t seed, uint32_t mxcsr);

bool sse_equal(const struct sse_state *a, const struct sse_state *b);

#endif
