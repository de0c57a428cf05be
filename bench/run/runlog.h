/*
 * runlog: what a matrix run leaves behind besides results.json.  Its rows
 * in the history database (by default in the user's data directory),
 * written as each boot ends, so a killed run keeps what it finished; the
 * comparison with the previous complete run of its line, printed; and
 * report.html, junit.xml and kcidb.json in the run directory.
 *
 * A struct runlog borrows the session it was begun with, which must
 * outlive it; runlog_free() accepts NULL.
 */
#ifndef FPUBENCH_RUNLOG_H
#define FPUBENCH_RUNLOG_H

#include "boot/matrix.h"
#include "record/results.h"
#include "record/history.h"
#include "session.h"

#include <stdbool.h>

struct runlog;

/*
 * Opens the history at db_path and adds a "running" run with the session's kernels.
 * Its line, what runs are compared within, is the tree's name, for a
 * tarball's tree its kernel series ("6.1"), and the config fragment's
 * hash.  Call it after the run directory exists, and set the session's
 * on_boot to runlog_boot with the runlog as its argument.
 */
int runlog_begin(struct runlog **out, struct session *s, const char *db_path,
		 const char *command, const char *tree_name, const char *config_hash);

/* A matrix_boot_fn: stores the boot's cells. */
void runlog_boot(void *arg, const struct matrix_cell *cells, size_t ncells, size_t groups_done,
		 size_t ngroups);

/*
 * Ends the run (complete unless the matrix was interrupted), prints the
 * comparison with the previous run and writes the reports.  *new_failures
 * counts the cells that went from passing to failing, -1 when there was
 * nothing to compare with.  A cell that could not be stored while the
 * matrix ran is reported here.
 */
int runlog_finish(struct runlog *r, const struct results_run *run, const struct matrix *m,
		  long *new_failures);

/* A new failure to bisect: its cell, and the commits of the previous run and of this one. */
struct runlog_target {
	const char *variant, *cpu, *test;	/* borrowed from the runlog */
	char *good, *bad;			/* hex */
};

/*
 * After runlog_finish(): 1 and *t set for the first new failure whose
 * variant has a commit in both runs (and not the same one), 0 when there
 * is none, or an error of the history.  Release *t with
 * runlog_target_release().
 */
int runlog_new_failure(struct runlog *r, struct runlog_target *t);

void runlog_target_release(struct runlog_target *t);

/* Stores a bisection of a new failure in the history and writes the reports again with it. */
int runlog_bisection(struct runlog *r, const struct results_run *run, const struct matrix *m,
		     const struct history_bisection *b);

void runlog_free(struct runlog *r);

#endif
