/*
 * progress: one live line for long work (extracting, building, booting).
 *
 * On a terminal the line is redrawn in place, cut to the terminal's width
 * so that it never wraps onto a second row; otherwise a plain line is
 * printed at most once a second, so logs stay short.  progress_end()
 * prints the final state once.  A struct progress is a plain value, set
 * up by progress_init(); it owns nothing.
 */
#ifndef FPUBENCH_PROGRESS_H
#define FPUBENCH_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

struct progress {
	FILE *f;
	const char *what;	/* "booting", static */
	bool tty;
	bool shown;		/* line is what was printed last */
	double started;
	double last_print;
	char line[256];
};

void progress_init(struct progress *p, FILE *f, const char *what);

/*
 * Sets the state: `fraction` of the work done (negative: unknown), for
 * the ETA, and a detail line (printf format).
 */
void progress_update(struct progress *p, double fraction, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void progress_end(struct progress *p);

#endif
