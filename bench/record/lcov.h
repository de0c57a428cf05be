/*
 * lcov: reads lcov tracefiles (geninfo(1)'s format: SF, FN, FNDA, FNF, FNH,
 * DA, LF, LH, end_of_record) and writes the text summary of a coverage
 * run: lines and functions executed per file for each setup, for the FSAVE
 * setups together and for all setups, then the lines that only the FXSAVE
 * setups reach and the lines no setup reaches.
 *
 * Pure, for unit tests; lcov(1) itself writes and merges the tracefiles
 * (the coverage module runs it).  A struct lcov_trace owns everything in
 * it; lcov_trace_free().
 */
#ifndef FPUBENCH_LCOV_H
#define FPUBENCH_LCOV_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

struct lcov_line {
	long line;
	long long hits;
};

struct lcov_function {
	long line;		/* FN: where it starts */
	char *name;
};

struct lcov_file {
	char *path;		/* SF: as written */
	struct lcov_line *lines;	/* DA: in the order written */
	size_t nlines;
	struct lcov_function *fns;	/* FN: in the order written */
	long functions;		/* FN: lines, the length of fns */
	long functions_hit;	/* FNDA: lines with a count above 0 */
};

struct lcov_trace {
	struct lcov_file *files;
	size_t nfiles;
};

/* 0 and *out, or ERR_INPUT naming `name` and the line that is not lcov's. */
int lcov_parse(const char *name, const char *text, struct lcov_trace **out);

void lcov_trace_free(struct lcov_trace *t);

/* The function of `f` that starts last at or before `line`, or NULL before the first. */
const struct lcov_function *lcov_function_at(const struct lcov_file *f, long line);

/* The record of `path` in `t`, or NULL. */
const struct lcov_file *lcov_trace_find(const struct lcov_trace *t, const char *path);

/* The hits of `line` in `f` (NULL: 0), summed over its DA: records. */
long long lcov_file_hits(const struct lcov_file *f, long line);

/* qsort()'s order of line numbers (longs). */
int lcov_cmp_line(const void *a, const void *b);

/* Appends "12, 14-20, 31": the `n` line numbers of `v`, which it sorts. */
void lcov_add_ranges(struct strbuf *out, long *v, size_t n);

/* A tracefile with its title in the summary ("486 (FSAVE)"). */
struct lcov_named {
	const char *title;
	const struct lcov_trace *trace;
};

/*
 * Appends the summary to out: a table per trace of `traces` (each setup),
 * then of `fsave` and `all`, each file's lines and functions executed;
 * then, per file, the line numbers executed in `all` but not in `fsave`,
 * and those executed nowhere.  Files whose path `is_fpu_code` rejects are
 * summed into one row, "(other inlined code)", and left out of the lists.
 */
void lcov_summary(struct strbuf *out, const struct lcov_named *traces, size_t ntraces,
		  const struct lcov_named *fsave, const struct lcov_named *all,
		  bool (*is_fpu_code)(const char *path));

#endif
