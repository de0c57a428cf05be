/*
 * auxv: the auxiliary vector the kernel put after envp, for what the
 * kernel says about the CPU.  AT_HWCAP on i386 is the CPUID leaf 1 EDX the
 * kernel uses (boot_cpu_data), so a feature the kernel was told not to use
 * (`nofxsr`) is missing there while CPUID still has it.
 *
 * _start (start.c) records where the vector is before main() runs; it
 * stays valid for the life of the process and of its forked children.
 */
#ifndef GT_AUXV_H
#define GT_AUXV_H

#include <stdint.h>

#include <linux/auxvec.h>

#define AUXV_HWCAP_FXSR (1u << 24)
#define AUXV_HWCAP_SSE (1u << 25)

/* Type and value pairs, ended by AT_NULL; set by _start. */
extern const uint32_t *auxv_vector;

/* The value of entry `type`, or 0 when the vector lacks it. */
uint32_t auxv_get(uint32_t type);

#endif
