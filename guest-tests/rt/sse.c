#include "sse.h"

#include "auxv.h"

bool sse_enabled(void)
{
	uint32_t both = AUXV_HWCAP_FXSR | AUXV_HWCAP_SSE;

	return (auxv_get(AT_HWCAP) & both) == both;
}

void sse_load(const struct sse_state *s)
{
	__asm__ volatile("ldmxcsr %0\n\t"
			 "movups 0(%1), %%xmm0\n\t"
			 "movups 16(%1), %%xmm1\n\t"
			 "movups 32(%1), %%xmm2\n\t"
			 "movups 48(%1), %%xmm3\n\t"
			 "movups 64(%1), %%xmm4\n\t"
			 "movups 80(%1), %%xmm5\n\t"
			 "movups 96(%1), %%xmm6\n\t"
			 "movups 112(%1), %%xmm7"
			 : : "m"(s->mxcsr), "r"(s->xmm) : "memory");
}

void sse_store(struct sse_state *s)
{
	__asm__ volatile("stmxcsr %0\n\t"
			 "movups %%xmm0, 0(%1)\n\t"
			 "movups %%xmm1, 16(%1)\n\t"
			 "movups %%xmm2, 32(%1)\n\t"
			 "movups %%xmm3, 48(%1)\n\t"
			 "movups %%xmm4, 64(%1)\n\t"
			 "movups %%xmm5, 80(%1)\n\t"
			 "movups %%xmm6, 96(%1)\n\t"
			 "movups %%xmm7, 112(%1)"
			 : "=m"(s->mxcsr) : "r"(s->xmm) : "memory");
}

void sse_make(struct sse_state *s, uint8_t seed, uint32_t mxcsr)
{
	s->mxcsr = mxcsr;
	for (unsigned int r = 0; r < 8; r++)
		for (unsigned int b = 0; b < 16; b++)
			s->xmm[r][b] = (uint8_t)(seed + 16 * r + b * 7);
}

bool sse_equal(const struct sse_state *a, const struct sse_state *b)
{
	if (a->mxcsr != b->mxcsr)
		return false;
	for (unsigned int r = 0; r < 8; r++)
		for (unsigned int i = 0; i < 16; i++)
			if (a->xmm[r][i] != b->xmm[r][i])
				return false;
	return true;
}
