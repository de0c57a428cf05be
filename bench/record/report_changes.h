/*
 * report_changes: report.html's lists of cells.  Above the matrix, what a
 * reader came for (section "attention"): the new failures since the
 * previous run, when there was one, and the cells that missed their
 * expectation, each with its status, its expectation, its crash title (or
 * reason) and its console log.  Below it, the other changes since the
 * previous run (fixed, flaky, crash title changed), after a link to the
 * previous run's report.html when it is a sibling directory, or a line
 * saying there was no previous run.  A cell of this run is named with a
 * link to it in the matrix ("#cell-I"); a cell only the history has is
 * named without one.  Both write through x and keep nothing.
 */
#ifndef FPUBENCH_REPORT_CHANGES_H
#define FPUBENCH_REPORT_CHANGES_H

#include "report.h"
#include "lib/xmlw.h"

void report_changes_write_attention(struct xmlw *x, const struct report_input *in);
void report_changes_write(struct xmlw *x, const struct report_input *in);

#endif
