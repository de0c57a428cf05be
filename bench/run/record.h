/*
 * record: what a matrix run leaves behind besides results.json.  Its rows
 * in the history database (by default <cache>/history.db), written as each boot
 * ends, so a killed run keeps what it finished; the comparison with the
 * previous complete run of its line, printed; and report.html, junit.xml
 * and kcidb.json in the run directory.
 *
 * A struct record borrows the session it was begun with, which must
 * outlive it; record_free() accepts NULL.
 */
#ifndef FPUBENCH_RECORD_H
#define FPUBENCH_RECORD_H

#include "boot/matrix.h"
#include "record/results.h"
#include "session.h"

#include <stdbool.h>

struct record;

/*
 * Opens the history at db_path and adds a "running" run with the session's kernels.
 * Its line, what runs are compared within, is the tree's name and the
 * config fragment's hash.  Call it after the run directory exists, and set the session's
 * on_boot to record_boot with the record as its argument.
 */
int record_begin(struct record **out, struct session *s, const char *db_path,
		 const char *command, const char *tree_name, const char *config_hash);

/* A matrix_boot_fn: stores the boot's cells. */
void record_boot(void *arg, const struct matrix_cell *cells, size_t ncells, size_t groups_done,
		 size_t ngroups);

/*
 * Ends the run (complete unless the matrix was interrupted), prints the
 * comparison with the previous run and writes the reports.  *new_failures
 * says whether a cell went from passing to failing.  A cell that could
 * not be stored while the matrix ran is reported here.
 */
int record_finish(struct record *r, const struct results_run *run, const struct matrix *m,
		  bool *new_failures);

void record_free(struct record *r);

#endif
