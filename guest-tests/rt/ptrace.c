#include "ptrace.h"

#include "proc.h"
#include "sys.h"

#include <stdint.h>

#include <asm/ptrace-abi.h>
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
