/*
 * Helpers the history tests share (test_history.c for writing,
 * test_history_read.c for comparing and listing): a database in a
 * temporary directory, runs of given cells, the comparison and the
 * listing as text.  Everything here asserts instead of returning errors.
 * Include after cmocka.h.
 */
#ifndef FPUBENCH_TEST_HISTORY_DB_H
#define FPUBENCH_TEST_HISTORY_DB_H

#include "lib/error.h"
#include "record/history.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tmpdb {
	char dir[64];
	char *path;
	char host[HOST_NAME_MAX + 1];
	int nruns;		/* add_run() names its runs' directories r1, r2, ... */
};

static inline int setup(void **state)
{
	struct tmpdb *t = xcalloc(1, sizeof(*t));

	strcpy(t->dir, "/tmp/fpubench-test-history.XXXXXX");
	if (!mkdtemp(t->dir) || gethostname(t->host, sizeof(t->host)) < 0)
		return -1;
	t->path = xasprintf("%s/history.db", t->dir);
	*state = t;
	return 0;
}

/* The database, its WAL and shm files, and whatever else a test made. */
static inline int teardown(void **state)
{
	struct tmpdb *t = *state;
	DIR *d = opendir(t->dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *p = xasprintf("%s/%s", t->dir, e->d_name);

		if (e->d_name[0] != '.')
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(t->dir);
	free(t->path);
	free(t);
	return 0;
}

/* The first column of the first row, through a connection of its own. */
static inline char *query_text(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *s;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	s = xstrdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL");
	sqlite3_finalize(st);
	sqlite3_close(db);
	return s;
}

static inline long query_long(const char *path, const char *sql)
{
	char *s = query_text(path, sql);
	long n = strtol(s, NULL, 10);

	free(s);
	return n;
}

static inline void assert_query(const char *path, const char *sql, const char *expected)
{
	char *s = query_text(path, sql);

	assert_string_equal(s, expected);
	free(s);
}

struct cellspec {
	const char *variant, *cpu, *test;
	enum verdict status;
	const char *crash;	/* a crash's title; NULL: "fpu exception in fpu__restore" */
	enum verdict expected;	/* pass unless given */
};

enum run_end { RUN_COMPLETE, RUN_INTERRUPTED, RUN_LEFT_RUNNING };

static inline int64_t add_run(struct tmpdb *t, struct history *h, const char *line,
			      const struct cellspec *cells, size_t n, enum run_end end)
{
	char *dir = xasprintf("/tmp/results/r%d", ++t->nruns);
	const struct history_run_info info = {
		.line = line, .command = "run", .host = t->host, .version = "v1",
		.run_dir = dir, .started = 1700000000, .pid = getpid(),
	};
	const char *variants[8];
	int64_t kernels[8], run;
	size_t nk = 0;

	assert_int_equal(history_begin_run(h, &info, &run), 0);
	free(dir);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < nk && strcmp(variants[k], cells[i].variant) != 0)
			k++;
		if (k == nk) {
			const struct history_kernel kern = {
				.variant = cells[i].variant, .commit = "5abf01bc",
				.config_hash = "c0ffee", .build_id = "b1", .build_seconds = 2.5,
				.provenance = "{\"lore\": null}",
			};

			assert_true(nk < 8);
			variants[nk] = cells[i].variant;
			assert_int_equal(history_add_kernel(h, run, &kern, &kernels[nk++]), 0);
		}
		const struct history_cell c = {
			.kernel_id = kernels[k], .cpu = cells[i].cpu, .cmdline = "", .test = cells[i].test,
			.status = cells[i].status, .expected = cells[i].expected,
			.crash = cells[i].status != VERDICT_CRASH ? NULL
				 : cells[i].crash ? cells[i].crash : "fpu exception in fpu__restore",
			.host = "test:///default", .duration_s = 1.5, .console = "/tmp/run/c.log",
		};
		assert_int_equal(history_add_cell(h, run, &c), 0);
	}
	if (end != RUN_LEFT_RUNNING)
		assert_int_equal(history_end_run(h, run, end == RUN_COMPLETE), 0);
	return run;
}

/* A run of one cell: patched 486 fpu_seed. */
static inline int64_t add_one(struct tmpdb *t, struct history *h, const char *line,
			      enum verdict v, enum run_end end)
{
	const struct cellspec c = { "patched", "486", "fpu_seed", v };

	return add_run(t, h, line, &c, 1, end);
}

static inline char *print_diff(const struct history_diff *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	history_diff_print(f, d);
	fclose(f);
	return buf;
}

static inline char *print_history(struct history *h, const struct history_query *q)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(history_print(h, q, f), 0);
	fclose(f);
	return buf;
}

#endif
