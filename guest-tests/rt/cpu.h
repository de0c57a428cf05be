/*
 * cpu: what CPUID says about the CPU, for the console's cpu line and for
 * tests that apply to some CPUs only.
 *
 * A 486 may have no CPUID at all; it is there when software can flip
 * EFLAGS.ID (bit 21).  CPUID shows what the CPU has, not what the kernel
 * uses: under `nofxsr` it still reports FXSR.
 */
#ifndef GT_CPU_H
#define GT_CPU_H

#include <stdbool.h>
#include <stdint.h>

/* CPUID leaf 1 feature bits. */
#define CPU_EDX_FPU (1u << 0)
#define CPU_EDX_CMOV (1u << 15)
#define CPU_EDX_FXSR (1u << 24)
#define CPU_EDX_SSE (1u << 25)
#define CPU_EDX_SSE2 (1u << 26)
#define CPU_ECX_SSE3 (1u << 0)
#define CPU_ECX_OSXSAVE (1u << 27)	/* the kernel turned XSAVE on */

struct cpu_info {
	char vendor[13];	/* "GenuineIntel", NUL-terminated */
	unsigned int family;	/* with the extended family and model folded in */
	unsigned int model;
	uint32_t edx;		/* leaf 1 features, 0 when leaf 1 is missing */
	uint32_t ecx;
};

/* Fills `info` and returns true, or returns false when there is no CPUID. */
bool cpu_identify(struct cpu_info *info);

#endif
