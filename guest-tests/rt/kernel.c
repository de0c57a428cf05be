#include "kernel.h"

#include "sys.h"

#include <linux/utsname.h>

/* The leading number at *p, advancing p past it; -1 when there is none. */
static long release_number(const char **p)
{
	long n = -1;

	for (; **p >= '0' && **p <= '9' && n < 100000; (*p)++)
		n = (n < 0 ? 0 : n * 10) + (**p - '0');
	return n;
}

bool kernel_at_least(unsigned int major, unsigned int minor)
{
	struct new_utsname u;
	const char *p = u.release;
	long have_major, have_minor = 0;

	if (sys_call3(__NR_uname, (long)&u, 0, 0) < 0)
		return true;
	u.release[sizeof(u.release) - 1] = '\0';
	have_major = release_number(&p);
	if (*p == '.') {
		p++;
		have_minor = release_number(&p);
	}
	if (have_major < 0 || have_minor < 0)
		return true;
	return have_major > (long)major || (have_major == (long)major && have_minor >= (long)minor);
}
