/*
 * report_bisections: what report.html says of the run's own bisections of
 * its new failures (in->bisections; nothing when there were none): a
 * framed section each, naming the cell, the good and bad commits (12 hex
 * digits), then the culprit and the confidence in it, or the outcome
 * without one, and a link to the regression mail to send when one was
 * written.  Writes through x and keeps nothing.
 */
#ifndef FPUBENCH_REPORT_BISECTIONS_H
#define FPUBENCH_REPORT_BISECTIONS_H

#include "report.h"
#include "lib/xmlw.h"

void report_bisections_write(struct xmlw *x, const struct report_input *in);

#endif
