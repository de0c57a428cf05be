/*
 * park: the guest's side of a restored boot (the host's is
 * bench/boot/saved_guest.h).
 *
 * With fpubench_park= on its command line, init parks once it has printed
 * its plan: it waits until the console has sent all it was given, says
 * "parked" on the second serial port (ttyS1), where the host saves the
 * whole guest, and reads one line there:
 *
 *   go start=K tests=A,B time=SEC.NSEC seed=HEX
 *
 * Every boot restored from that save starts at this read, with the line of
 * its own boot: the tests to run and where to start (as fpubench_tests= and
 * fpubench_start= say on a cold boot), the host's clock, and 32 random bytes
 * that reseed the kernel's RNG, so that a restored guest's ASLR and random
 * numbers differ from boot to boot as a cold boot's do.
 */
#ifndef GT_PARK_H
#define GT_PARK_H

#define PARK_LINE_MAX 1024

struct park_request {
	char line[PARK_LINE_MAX];
	const char *start;	/* the values, in line; NULL when absent */
	const char *tests;	/* NULL or "": every test */
	const char *time;
	const char *seed;
};

/* Parks and fills req when the guest is resumed; 0, or -errno if it could not park. */
long park_wait(struct park_request *req);

/*
 * Sets the clock and reseeds the RNG from req; 0, or the -errno of the
 * first that failed (the other is still done), in *what its name.
 */
long park_refresh(const struct park_request *req, const char **what);

#endif
