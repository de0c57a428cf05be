/*
 * record: what a matrix run leaves behind besides results.json.  Its rows
 * in the history database (by default in the user's data directory),
 * written as each boot ends, so a killed run keeps what it finished; the
 * comparison with the previous complete run of its line, printed; and
 * report.html, junit.xml and kcidb.json in the run directory.
 *
 * A struct record borrows the session it was begun with, which must
 * outlive it; record_free() accepts NULL.
 */
#ifndef FPUBENCH_RECORD_H
#define FPUBENCH_RECORD_H

#include "boot/matrix.h"
#include "record/results.h"
#include "record/history.h"
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
 * counts the cells that went from passing to failing, -1 when there was
 * nothing to compare with.  A cell that could not be stored while the
 * matrix ran is reported here.
 */
int record_finish(struct record *r, const struct results_run *run, const struct matrix *m,
		  long *new_failures);

/* A new failure to bisect: its cell, and the commits of the previous run and of this one. */
struct record_target {
	const char *variant, *cpu, *test;	/* borrowed from the record */
	char *good, *bad;			/* hex */
};

/*
 * After record_finish(): 1 and *t set for the first new failure whose
 * variant has a commit in both runs (and not the same one), 0 when there
 * is none, or an error of the history.  Release *t with
 * record_target_release().
 */
int record_new_failure(struct record *r, struct record_target *t);

void record_target_release(struct record_target *t);

/* Stores a bisection of a new failure in the history and writes the reports again with it. */
int record_bisection(struct record *r, const struct results_run *run, const struct matrix *m,
		     const struct history_bisection *b);

void record_free(struct record *r);

#endif
