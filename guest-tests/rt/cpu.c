#include "cpu.h"

#include <asm/processor-flags.h>

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static bool cpu_has_cpuid(void)
{
	uint32_t before, after;

	/* Flip ID, read EFLAGS back, and put the original EFLAGS back. */
	__asm__ volatile("pushfl\n\t"
			 "popl %0\n\t"
			 "movl %0, %1\n\t"
			 "xorl %2, %1\n\t"
			 "pushl %1\n\t"
			 "popfl\n\t"
			 "pushfl\n\t"
			 "popl %1\n\t"
			 "pushl %0\n\t"
			 "popfl"
			 : "=&r"(before), "=&r"(after)
			 : "i"(X86_EFLAGS_ID)
			 : "cc");
	return (before ^ after) & X86_EFLAGS_ID;
}

static void cpu_cpuid(uint32_t leaf, struct cpuid_regs *r)
{
	__asm__ volatile("cpuid"
			 : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx)
			 : "a"(leaf), "c"(0));
}

static void cpu_copy_vendor(char *out, uint32_t word)
{
	for (int i = 0; i < 4; i++)
		out[i] = (char)(word >> (8 * i));
}

bool cpu_identify(struct cpu_info *info)
{
	struct cpuid_regs r;
	uint32_t max_leaf;

	if (!cpu_has_cpuid())
		return false;
	cpu_cpuid(0, &r);
	max_leaf = r.eax;
	/* The vendor string is EBX, EDX, ECX, in that order. */
	cpu_copy_vendor(info->vendor, r.ebx);
	cpu_copy_vendor(info->vendor + 4, r.edx);
	cpu_copy_vendor(info->vendor + 8, r.ecx);
	info->vendor[12] = '\0';

	info->family = info->model = 0;
	info->edx = info->ecx = 0;
	if (max_leaf < 1)
		return true;
	cpu_cpuid(1, &r);
	info->family = (r.eax >> 8) & 0xf;
	info->model = (r.eax >> 4) & 0xf;
	/* The extended fields count only for these families (Intel SDM, CPUID). */
	if (info->family == 0xf)
		info->family += (r.eax >> 20) & 0xff;
	if (info->family == 0x6 || info->family >= 0xf)
		info->model |= ((r.eax >> 16) & 0xf) << 4;
	info->edx = r.edx;
	info->ecx = r.ecx;
	return true;
}
