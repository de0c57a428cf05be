/*
 * error: one message per failure, set once where the failure happens.
 *
 * Functions that can fail return 0 or one of the negative codes below and
 * call error_set() at the point of failure.  Callers pass the code up
 * unchanged; the top level prints error_last() and maps the code to an
 * exit status with error_exit_status().  The message is per thread.
 */
#ifndef FPUBENCH_ERROR_H
#define FPUBENCH_ERROR_H

enum error_code {
	ERR_GENERIC = -1,	/* infrastructure: I/O, out of memory, ... */
	ERR_USAGE = -2,		/* bad command line */
	ERR_NOTFOUND = -3,	/* a named input file is missing */
	ERR_APPLY = -4,		/* a patch does not apply */
	ERR_BUILD = -5,		/* the kernel does not build */
	ERR_CONFIG = -6,	/* a config option was dropped */
	ERR_CACHE = -8,		/* the cache directory is not writable */
	ERR_INTERRUPTED = -10,	/* SIGINT or SIGTERM arrived */
	ERR_INPUT = -11,	/* a named input file is malformed */
	/* From here down, codes are the stages' own (the boot stage's: boot/errors.h). */
	ERR_STAGE = -32,
};

/*
 * Exit statuses, documented in docs/fpubench.md: 0 and 1 say what the
 * kernel did, 125 that it could not be tested (`git bisect skip`), 128 and
 * up that the bench could not do its job (`git bisect run` stops).
 * Commands add their own below 125 (bisect: 2-4).
 */
enum exit_status {
	EXIT_OK = 0,
	EXIT_FAILED = 1,	/* a cell failed or missed its expectation */
	EXIT_UNTESTABLE = 125,	/* patch or build failed: `git bisect skip` */
	EXIT_INPUT = 128,	/* a named input is missing or malformed */
	EXIT_USAGE = 129,	/* as git's */
	EXIT_CONFIG = 131,
	/* 132 and 134: the boot stage's (cmd_exit_status()) */
	EXIT_CACHE = 133,
	EXIT_INTERNAL = 136,
	EXIT_INTERRUPTED = 130,	/* 128 + SIGINT; a signal's own status when known */
};

/* Sets the message (printf format) and returns code, for `return error_set(...)`. */
int error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like error_set(), with ": strerror(errno)" appended. */
int error_set_errno(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message set in this thread, or "unknown error". */
const char *error_last(void);

/* Drops the message, so a failure that was handled does not linger. */
void error_clear(void);

/* The exit status of one of the codes above; EXIT_INTERNAL for any other (a stage's: cmd_exit_status()). */
int error_exit_status(int code);

#endif
