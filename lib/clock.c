#include "clock.h"

#include <errno.h>
#include <time.h>

double clock_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void clock_sleep(double seconds)
{
	struct timespec left = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
}
