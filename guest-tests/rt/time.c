#include "time.h"

#include "sys.h"

#include <linux/time.h>

uint32_t time_now_ms(void)
{
	struct __kernel_timespec now;

	if (sys_clock_gettime64(CLOCK_MONOTONIC, &now) < 0)
		return 0;
	/* 32-bit operands: a 64-bit division would need libgcc. */
	return (uint32_t)now.tv_sec * 1000u + (uint32_t)now.tv_nsec / 1000000u;
}

int time_sleep_ms(uint32_t ms)
{
	struct __kernel_timespec length = {
		.tv_sec = ms / 1000u,
		.tv_nsec = (long long)(ms % 1000u) * 1000000,
	};

	return (int)sys_clock_nanosleep_time64(CLOCK_MONOTONIC, 0, &length, NULL);
}
