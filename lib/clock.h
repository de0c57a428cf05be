/*
 * clock: elapsed time for progress lines, timeouts and measurements.
 */
#ifndef FPUBENCH_CLOCK_H
#define FPUBENCH_CLOCK_H

/* Seconds on CLOCK_MONOTONIC: only differences mean anything. */
double clock_seconds(void);

/* Sleeps for about `seconds`, however often a signal interrupts it. */
void clock_sleep(double seconds);

#endif
