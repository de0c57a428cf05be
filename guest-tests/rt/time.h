/*
 * time: a millisecond clock and sleep, on CLOCK_MONOTONIC.
 */
#ifndef GT_TIME_H
#define GT_TIME_H

#include <stdint.h>

/* Milliseconds since boot modulo 2^32 (only differences mean anything); 0 if the clock fails. */
uint32_t time_now_ms(void);

/* Sleeps `ms` milliseconds in clock_nanosleep.  0 or -errno (-EINTR on a signal). */
int time_sleep_ms(uint32_t ms);

#endif
