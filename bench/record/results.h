/*
 * results: the run directory's files and the matrix on stdout.
 *
 * Every file is written atomically (fileutil), and results.json last of
 * all but the `latest` link, so a results.json that exists is complete.
 */
#ifndef FPUBENCH_RESULTS_H
#define FPUBENCH_RESULTS_H

#include "boot/matrix.h"
#include "lib/strbuf.h"

#include <stdio.h>

struct results_run {
	const char *id;
	const char *command;	/* "run" or "test" */
	const char *started;	/* ISO 8601, UTC */
	const char *finished;
	const struct matrix_host *hosts;
	size_t nhosts;
};

/* The cells as a JSON array, one object per cell, into sb. */
void results_format_json(struct strbuf *sb, const struct results_run *run,
			 const struct matrix *m);

/* The matrix as KTAP: one top-level test, one subtest per cell. */
void results_format_ktap(struct strbuf *sb, const struct matrix *m);

/* The readable table. */
void results_print_matrix(FILE *f, const struct matrix *m);

/* Writes run.json, results.ktap and, last, results.json into dir. */
int results_write(const char *dir, const struct results_run *run, const struct matrix *m);

#endif
