/*
 * summary: what a run or a test says on stdout when it ends, in place of
 * its whole matrix (results_print_matrix(), with --verbose): how many
 * cells met their expectation, a row for each that did not (with its
 * console log for `test`), how many pairs a run stopped early left not run, the new failures since the previous run, and
 * where the results and report.html are.
 */
#ifndef FPUBENCH_SUMMARY_H
#define FPUBENCH_SUMMARY_H

#include "boot/matrix.h"

#include <stdbool.h>
#include <stdio.h>

struct summary {
	const struct matrix *m;
	const char *run_dir;	/* absolute */
	bool consoles;		/* name each unmet cell's console log */
	bool report;		/* the run directory holds report.html */
	long new_failures;	/* since the previous run of its line; -1: not compared */
};

void summary_print(FILE *f, const struct summary *s);

#endif
