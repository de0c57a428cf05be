/*
 * history: every run of the bench, kept in an SQLite database (by
 * default in the user's data directory, runtime_user_dir()), and the
 * comparison of a run with the one before.
 *
 * The schema is created and upgraded by numbered migrations in history.c
 * (PRAGMA user_version holds the last one applied), each in a transaction
 * of its own.  Every write is one transaction: a run's row, a kernel's
 * row, a cell's row.  A run is "running" until history_end_run() marks it
 * "complete" or "interrupted"; a run whose bench process died (SIGKILL)
 * stays "running" until the next history_open() finds its pid gone and
 * marks it "interrupted", with no end time.  So a killed run keeps the
 * cells it finished.
 *
 * Runs are compared within a "line": a string naming the kernel tree and
 * configuration (the caller's choice, e.g. tree commit + fragment hash),
 * so that a nightly of one branch is never compared with another's.
 * Cells are matched across runs by (variant, cpu setup, test).
 *
 * What a user reads names a run as its results directory is named
 * (history_run_name()); the row ids (run_id below) stay inside the bench.
 *
 * struct history owns the database handle; history_free() accepts NULL.
 * Strings in the structs below are owned by the struct that holds them.
 */
#ifndef FPUBENCH_HISTORY_H
#define FPUBENCH_HISTORY_H

#include "judge/verdict.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct history;

/* Opens (creating and migrating) the database at path. */
int history_open(struct history **out, const char *path);

void history_free(struct history *h);

/* The schema version the database is at (the number of migrations), or an ERR_* code. */
int history_schema_version(struct history *h);

struct history_run_info {
	const char *line;	/* what runs are compared within */
	const char *command;	/* "run", "test", ... */
	const char *host;	/* gethostname(): pids are checked on their host only */
	const char *version;	/* the bench's version (git describe) */
	const char *run_dir;	/* the run directory, absolute */
	int64_t started;	/* seconds since the epoch */
	long pid;		/* the bench process, to find dead runs */
};

/*
 * A run's name, e.g. "20261205-231552-15996": its directory's last
 * component (a pointer into run_dir).
 */
const char *history_run_name(const char *run_dir);

/* Adds a "running" run; *run_id is its row id. */
int history_begin_run(struct history *h, const struct history_run_info *info, int64_t *run_id);

struct history_kernel {
	const char *variant;
	const char *commit;	/* tree commit, hex; "" for a tree taken as it is */
	const char *config_hash;
	const char *build_id;
	double build_seconds;
	const char *provenance;	/* the commit's provenance as JSON, or NULL */
	const char *version;	/* the tree's Makefile's, "6.1.192", or NULL */
};

int history_add_kernel(struct history *h, int64_t run_id, const struct history_kernel *k,
		       int64_t *kernel_id);

/*
 * Moves the runs of line `from` whose kernels are of the kernel series
 * `series` ("6.1": 6.1.192, 6.1.0-rc3; not 6.12.1) to line `to`, so that a
 * line renamed to say its series keeps its history.  Runs without a kernel
 * version (before schema 2) stay.
 */
int history_move_line(struct history *h, const char *from, const char *series, const char *to);

struct history_cell {
	int64_t kernel_id;
	const char *cpu;	/* the setup as given, e.g. "pentium3:nofxsr" */
	const char *cmdline;	/* the setup's kernel parameters */
	const char *test;
	enum verdict status;
	enum verdict expected;	/* by the [expect] rules (pass when none matched) */
	const char *crash;	/* or NULL */
	const char *reason;	/* or NULL */
	const char *host;	/* the libvirt URI (or "lab NAME") the cell ran on */
	const char *job_url;	/* a lab's job, or NULL */
	double duration_s;
	const char *console;	/* the console log's path, absolute */
};

/* Adds one finished cell, in a transaction of its own. */
int history_add_cell(struct history *h, int64_t run_id, const struct history_cell *c);

/* The commit run_id tested as variant; *commit NULL when it has no such kernel. */
int history_kernel_commit(struct history *h, int64_t run_id, const char *variant, char **commit);

/* A bisection of one new failure between the previous run's commit and this run's. */
struct history_bisection {
	const char *variant, *cpu, *test;
	const char *good, *bad;		/* hex */
	const char *outcome;		/* "culprit", "unverified", "range", "over budget", "failed" */
	const char *culprit;		/* hex, or NULL */
	double confidence;		/* of the good verdicts; stored only with a culprit */
	const char *mail;		/* regression.eml, relative to the run directory, or NULL */
};

int history_add_bisection(struct history *h, int64_t run_id, const struct history_bisection *b);

/* Marks the run complete (or interrupted) and sets its end time to now. */
int history_end_run(struct history *h, int64_t run_id, bool complete);

/* What happened to one cell between the previous run and this one. */
enum history_change {
	HISTORY_CHANGE_NEW_FAILURE,	/* pass (or skip) before, fail/crash/timeout now */
	HISTORY_CHANGE_FIXED,		/* fail/crash/timeout before, pass now */
	HISTORY_CHANGE_FLAKY,		/* flipped status at least twice in the last 10 runs */
	HISTORY_CHANGE_CRASH,		/* crashed before and now, under another title: another bug */
};

struct history_change_entry {
	enum history_change change;
	char *variant;
	char *cpu;
	char *test;
	enum verdict before;	/* in the previous run (VERDICT_COUNT: none) */
	enum verdict now;
	enum verdict *recent;	/* its statuses in the last 10 runs, oldest first */
	size_t nrecent;		/* at least 1: the last is `now` */
	char *crash_before;	/* HISTORY_CHANGE_CRASH: the titles then and now */
	char *crash_now;
};

struct history_diff {
	int64_t previous_run;	/* 0: no previous complete run of the line */
	char *previous_dir;	/* its run directory, as stored; NULL with previous_run 0 */
	struct history_change_entry *entries;
	size_t nentries;
};

/*
 * Compares run_id with the last complete run of the same line before it.
 * The last 10 runs are the line's complete and interrupted ones up to
 * run_id, and run_id itself whatever its status.  A run with no complete
 * predecessor gives previous_run 0 and flaky entries only.  A cell that
 * is both a new failure (or fixed) and flaky gets an entry of each kind.
 * Entries are sorted by change, then variant, cpu, test.
 */
int history_compare(struct history *h, int64_t run_id, struct history_diff **out);

void history_diff_free(struct history_diff *d);

/* Counts the entries of one kind. */
size_t history_diff_count(const struct history_diff *d, enum history_change change);

/*
 * The diff as readable lines: a summary, then one line an entry
 * ("new failure: patched 486 fpu_seed: pass -> crash",
 * "flaky: patched 486 fpu_seed (pass crash pass)",
 * "crash changed: patched 486 fpu_seed: WARNING in f -> kernel BUG in g").
 */
void history_diff_print(FILE *f, const struct history_diff *d);

/* The last results of one cell, oldest first, up to and including run_id. */
struct history_strip {
	char *variant;
	char *cpu;
	char *test;
	enum verdict *statuses;
	int64_t *run_ids;
	char **runs;		/* the same runs' names (history_run_name()) */
	size_t n;
	char *crash;		/* its crash title in the strip's own run, or NULL */
};

struct history_strips {
	struct history_strip *strips;
	size_t n;
};

/*
 * One strip for each cell of run_id, sorted by variant, cpu, test, over the
 * last `max` runs of its line (counted as in history_compare()); a run
 * without the cell leaves no entry.
 */
int history_strips(struct history *h, int64_t run_id, size_t max, struct history_strips **out);

void history_strips_free(struct history_strips *s);

/*
 * What `fpubench history` shows: filters may be NULL; last 0 means every
 * run.  With a filter, only runs with a matching cell are shown and counted.
 */
struct history_query {
	const char *test;
	const char *cpu;	/* a setup ("pentium3:nofxsr") or a model ("pentium3") */
	size_t last;		/* the last N runs */
};

/*
 * Prints the matching runs, a line each, newest first; then their
 * matching cells, sorted by kernel, setup and test (not by when a boot
 * ended), each with a line per run it was in, newest first: its status,
 * what it was expected to give and whether it met it ("-" for a cell
 * stored before the history kept expectations).
 */
int history_print(struct history *h, const struct history_query *q, FILE *f);

#endif
