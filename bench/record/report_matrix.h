/*
 * report_matrix: report.html's matrix and the summary that explains it
 * (report.h says what a cell shows).  The summary counts the cells by
 * status and those that met their expectation, names the run's host (or
 * numbers its hosts, as the cells name them) and gives the colours'
 * legend.  The matrix is a table with a row per variant + CPU setup, in
 * the order the run met them, and a column per test; a cell that did not
 * run is class "none".  Both write through x and keep nothing.
 */
#ifndef FPUBENCH_REPORT_MATRIX_H
#define FPUBENCH_REPORT_MATRIX_H

#include "report.h"
#include "lib/xmlw.h"

void report_matrix_write_summary(struct xmlw *x, const struct report_input *in);
void report_matrix_write(struct xmlw *x, const struct report_input *in);

#endif
