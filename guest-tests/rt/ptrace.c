#include "ptrace.h"

#include "proc.h"
#include "sys.h"

#include <stdint.h>

#include <asm/ptrace-abi.h>
#include <linux/elf.h>
#include <linux/ptrace.h>
#include <linux/uio.h>

long ptrace_regset(long request, long pid, unsigned int type, void *buf, size_t *len)
{
	struct iovec iov = { .iov_base = buf, .iov_len = *len };
	long err = sys_ptrace(request, (int)pid, type, (unsigned long)&iov);

	*len = iov.iov_len;
	return err;
}

long ptrace_reap(long pid)
{
	long status;

	while ((status = proc_wait(pid)) >= 0 && (status & 0xff) == 0x7f)
		sys_ptrace(PTRACE_CONT, (int)pid, 0, 0);
	return status;
}

void ptrace_fill(void *buf, unsigned int size)
{
	uint8_t *p = buf;

	for (unsigned int i = 0; i < size; i++)
		p[i] = PTRACE_SENTINEL;
}

bool ptrace_untouched(const void *buf, unsigned int from, unsigned int to)
{
	const uint8_t *p = buf;

	for (unsigned int i = from; i < to; i++)
		if (p[i] != PTRACE_SENTINEL)
			return false;
	return true;
}

bool ptrace_same_bytes(const void *a, const void *b, unsigned int size)
{
	const uint8_t *x = a, *y = b;

	for (unsigned int i = 0; i < size; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

const char *const ptrace_fp_names[PTRACE_FP_WAYS] = {
	"FPREGS", "FPXREGS", "REGSET NT_PRFPREG", "REGSET NT_PRXFPREG",
};

long ptrace_fp_request(unsigned int way, bool set, long pid, unsigned long addr, size_t *len)
{
	switch (way) {
	case PTRACE_FP_FPREGS:
		return sys_ptrace(set ? PTRACE_SETFPREGS : PTRACE_GETFPREGS, (int)pid, 0, addr);
	case PTRACE_FP_FPXREGS:
		return sys_ptrace(set ? PTRACE_SETFPXREGS : PTRACE_GETFPXREGS, (int)pid, 0, addr);
	default:
		return ptrace_regset(set ? PTRACE_SETREGSET : PTRACE_GETREGSET, pid,
				     way == PTRACE_FP_REGSET_FP ? NT_PRFPREG : NT_PRXFPREG,
				     (void *)addr, len);
	}
}

unsigned int ptrace_fp_bytes(unsigned int way)
{
	return way == PTRACE_FP_FPREGS || way == PTRACE_FP_REGSET_FP ? PTRACE_FP_BYTES
								       : PTRACE_FXSR_BYTES;
}

long ptrace_fp_read(unsigned int way, long pid, void *buf, size_t *len)
{
	ptrace_fill(buf, ptrace_fp_bytes(way));
	return ptrace_fp_request(way, false, pid, (unsigned long)buf, len);
}
