#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "record/history.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct tmpdb {
	char dir[64];
	char *path;
	char host[HOST_NAME_MAX + 1];
	int nruns;		/* add_run() names its runs' directories r1, r2, ... */
};

static int setup(void **state)
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
static int teardown(void **state)
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
static char *query_text(const char *path, const char *sql)
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

static long query_long(const char *path, const char *sql)
{
	char *s = query_text(path, sql);
	long n = strtol(s, NULL, 10);

	free(s);
	return n;
}

static void assert_query(const char *path, const char *sql, const char *expected)
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

static int64_t add_run(struct tmpdb *t, struct history *h, const char *line,
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
static int64_t add_one(struct tmpdb *t, struct history *h, const char *line, enum verdict v,
		       enum run_end end)
{
	const struct cellspec c = { "patched", "486", "fpu_seed", v };

	return add_run(t, h, line, &c, 1, end);
}

static char *print_diff(const struct history_diff *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	history_diff_print(f, d);
	fclose(f);
	return buf;
}

static char *print_history(struct history *h, const struct history_query *q)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(history_print(h, q, f), 0);
	fclose(f);
	return buf;
}

static void test_fresh_db_gets_latest_version(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;
	char *schema;
	int version;

	assert_int_equal(history_open(&h, t->path), 0);
	version = history_schema_version(h);
	assert_true(version >= 1);
	add_one(t, h, "L", VERDICT_PASS, RUN_COMPLETE);
	history_free(h);
	schema = query_text(t->path, "SELECT group_concat(sql, ';') FROM sqlite_master");
	assert_non_null(strstr(schema, "CREATE TABLE cells"));
	assert_query(t->path, "PRAGMA journal_mode", "wal");

	/* Reopening changes nothing: same version, same schema, the run kept. */
	assert_int_equal(history_open(&h, t->path), 0);
	assert_int_equal(history_schema_version(h), version);
	history_free(h);
	assert_query(t->path, "SELECT group_concat(sql, ';') FROM sqlite_master", schema);
	assert_query(t->path, "SELECT status FROM runs", "complete");
	free(schema);
}

static void test_future_version_is_refused(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;
	sqlite3 *db;

	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(history_open(&h, t->path), ERR_INPUT);
	assert_null(h);
	assert_non_null(strstr(error_last(), "is at schema version 999, newer than this bench's"));
	assert_non_null(strstr(error_last(), t->path));
	/* Untouched: no table was created in it. */
	assert_query(t->path, "SELECT count(*) FROM sqlite_master", "0");
}

static void test_bad_files_are_refused(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;
	char *junk = xasprintf("%s/junk.db", t->dir), *missing = xasprintf("%s/no/history.db", t->dir);
	FILE *f = fopen(junk, "w");

	assert_non_null(f);
	fputs("this is not an sqlite database, not at all, not even a little bit\n", f);
	fclose(f);
	assert_int_equal(history_open(&h, junk), ERR_INPUT);
	assert_null(h);
	assert_non_null(strstr(error_last(), "history database"));
	assert_non_null(strstr(error_last(), "is not a database"));

	/* The directory must exist: the cache made it. */
	assert_int_equal(history_open(&h, missing), ERR_GENERIC);
	assert_null(h);
	assert_non_null(strstr(error_last(), "cannot open history database '"));
	assert_non_null(strstr(error_last(), missing));
	free(junk);
	free(missing);
}

static void test_bad_writes_are_refused(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;
	const struct history_kernel bad_json = { .variant = "v", .commit = "", .provenance = "{" };
	int64_t run1, run2, kernel;

	assert_int_equal(history_open(&h, t->path), 0);
	run1 = add_one(t, h, "L", VERDICT_PASS, RUN_LEFT_RUNNING);
	run2 = add_one(t, h, "L", VERDICT_PASS, RUN_LEFT_RUNNING);
	assert_int_equal(history_add_kernel(h, run1, &bad_json, &kernel), ERR_GENERIC);
	assert_int_equal(kernel, 0);
	assert_non_null(strstr(error_last(), "cannot add a kernel to history database '"));

	/* A cell must belong to its kernel's run. */
	const struct history_cell c = { .kernel_id = 1, .cpu = "486", .test = "t",
					.status = VERDICT_PASS };
	assert_int_equal(history_add_cell(h, run2, &c), ERR_GENERIC);
	assert_non_null(strstr(error_last(), "cannot add a cell to history database '"));
	assert_non_null(strstr(error_last(), "FOREIGN KEY constraint failed"));

	assert_int_equal(history_end_run(h, 99, true), ERR_GENERIC);
	assert_non_null(strstr(error_last(), "cannot end run 99 in history database '"));
	assert_non_null(strstr(error_last(), "no such run"));
	history_free(h);
}

static void test_cell_is_visible_at_once(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL, *other = NULL;
	int64_t run;

	assert_int_equal(history_open(&h, t->path), 0);
	run = add_one(t, h, "L", VERDICT_CRASH, RUN_LEFT_RUNNING);
	assert_query(t->path, "SELECT status || ' ' || crash FROM cells",
		     "crash fpu exception in fpu__restore");
	assert_query(t->path, "SELECT status FROM runs", "running");

	/* A second bench sees the run alive (our pid) and leaves it running. */
	assert_int_equal(history_open(&other, t->path), 0);
	history_free(other);
	assert_query(t->path, "SELECT status || ' ' || ifnull(ended, 'NULL') FROM runs",
		     "running NULL");
	assert_int_equal(history_end_run(h, run, false), 0);
	assert_query(t->path, "SELECT status || ' ' || (ended > 0) FROM runs", "interrupted 1");
	history_free(h);
}

/* Runs in a child that dies by SIGKILL after writing two cells of three. */
static void killed_child(struct tmpdb *t)
{
	const char *tests[] = { "fpu_seed", "x87_ctx" };
	const struct history_run_info info = {
		.line = "L", .command = "run", .host = t->host, .version = "v1",
		.run_dir = "/tmp/run", .started = 1700000000, .pid = getpid(),
	};
	const struct history_kernel k = { .variant = "patched", .commit = "" };
	struct history *h;
	int64_t run, kernel;

	if (history_open(&h, t->path) < 0 || history_begin_run(h, &info, &run) < 0 ||
	    history_add_kernel(h, run, &k, &kernel) < 0)
		_exit(1);
	for (size_t i = 0; i < 2; i++) {
		const struct history_cell c = { .kernel_id = kernel, .cpu = "486", .test = tests[i],
						.status = VERDICT_PASS, .duration_s = 1 };
		if (history_add_cell(h, run, &c) < 0)
			_exit(1);
	}
	raise(SIGKILL);
	_exit(2);
}

static void test_killed_run_is_interrupted(void **state)
{
	struct tmpdb *t = *state;
	const struct history_run_info elsewhere = {
		.line = "L", .command = "run", .host = "another-host", .version = "v1",
		.run_dir = "/tmp/run", .started = 1700000000,
	};
	struct history *h = NULL;
	int64_t run;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		killed_child(t);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_query(t->path, "SELECT status FROM runs", "running");

	/* The dead child's pid on another host proves nothing there. */
	assert_int_equal(history_open(&h, t->path), 0);
	struct history_run_info other = elsewhere;
	other.pid = pid;
	assert_int_equal(history_begin_run(h, &other, &run), 0);
	history_free(h);

	assert_int_equal(history_open(&h, t->path), 0);
	history_free(h);
	char *runs = xasprintf("%s interrupted NULL, another-host running NULL", t->host);
	assert_query(t->path, "SELECT group_concat(host || ' ' || status || ' ' || ifnull(ended, 'NULL'), "
		     "', ') FROM (SELECT * FROM runs ORDER BY id)", runs);
	free(runs);
	assert_query(t->path, "SELECT group_concat(test || ' ' || status, ', ') FROM "
		     "(SELECT * FROM cells ORDER BY id)", "fpu_seed pass, x87_ctx pass");
	assert_query(t->path, "PRAGMA integrity_check", "ok");
	assert_query(t->path, "SELECT count(*) FROM pragma_foreign_key_check", "0");
}

/*
 * Writes cells until killed: the kill may land anywhere, even in
 * history_open().  Once its run has begun it writes a byte to `begun`.
 */
static void writing_child(struct tmpdb *t, int begun)
{
	const struct history_run_info info = {
		.line = "L", .command = "run", .host = t->host, .version = "v1",
		.run_dir = "/tmp/run", .started = 1700000000, .pid = getpid(),
	};
	const struct history_kernel k = { .variant = "patched", .commit = "" };
	struct history *h;
	int64_t run, kernel;

	if (history_open(&h, t->path) < 0 || history_begin_run(h, &info, &run) < 0 ||
	    history_add_kernel(h, run, &k, &kernel) < 0 || write(begun, "b", 1) != 1)
		_exit(1);
	for (;;) {
		const struct history_cell c = { .kernel_id = kernel, .cpu = "486", .test = "fpu_seed",
						.status = VERDICT_PASS, .crash = "none",
						.duration_s = 1 };
		if (history_add_cell(h, run, &c) < 0)
			_exit(1);
	}
}

static void test_twenty_kills_leave_a_consistent_db(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;

	srand(20);
	for (int i = 0; i < 20; i++) {
		int status, begun[2];
		pid_t pid;
		char b;

		assert_int_equal(pipe(begun), 0);
		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			writing_child(t, begun[1]);
		close(begun[1]);
		/* The last child is killed after its run began, however slow the machine. */
		if (i == 19)
			assert_int_equal(read(begun[0], &b, 1), 1);
		usleep((useconds_t)(rand() % 40000));
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		close(begun[0]);	/* only now: an early close would end the child by SIGPIPE */
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	}
	assert_int_equal(history_open(&h, t->path), 0);
	history_free(h);
	assert_query(t->path, "SELECT count(*) FROM runs WHERE status <> 'interrupted'", "0");
	assert_true(query_long(t->path, "SELECT count(*) FROM runs") > 0);
	assert_query(t->path, "SELECT count(*) FROM cells WHERE crash IS NOT 'none'", "0");
	assert_query(t->path, "PRAGMA integrity_check", "ok");
	assert_query(t->path, "SELECT count(*) FROM pragma_foreign_key_check", "0");
}

/* Two benches (four, here) write one database at once. */
static void test_concurrent_benches_share_the_db(void **state)
{
	struct tmpdb *t = *state;
	pid_t pids[4];

	fflush(NULL);
	for (size_t i = 0; i < 4; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			const struct history_run_info info = {
				.line = "L", .command = "run", .host = t->host, .version = "v1",
				.run_dir = "/tmp/run", .started = 1700000000, .pid = getpid(),
			};
			const struct history_kernel k = { .variant = "patched", .commit = "" };
			struct history *h;
			int64_t run, kernel;

			if (history_open(&h, t->path) < 0 || history_begin_run(h, &info, &run) < 0 ||
			    history_add_kernel(h, run, &k, &kernel) < 0)
				_exit(1);
			for (int j = 0; j < 25; j++) {
				const struct history_cell c = { .kernel_id = kernel, .cpu = "486",
								.test = "fpu_seed",
								.status = VERDICT_PASS };
				if (history_add_cell(h, run, &c) < 0)
					_exit(1);
			}
			_exit(history_end_run(h, run, true) < 0 ? 1 : 0);
		}
	}
	for (size_t i = 0; i < 4; i++) {
		int status;

		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_query(t->path, "SELECT count(*) FROM runs WHERE status = 'complete'", "4");
	assert_query(t->path, "SELECT count(*) FROM cells", "100");
}

static void test_compare_without_previous_run(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;
	struct history_diff *d = NULL;
	int64_t run;
	char *text;

	assert_int_equal(history_open(&h, t->path), 0);
	run = add_one(t, h, "L", VERDICT_CRASH, RUN_COMPLETE);
	assert_int_equal(history_compare(h, run, &d), 0);
	assert_int_equal(d->previous_run, 0);
	assert_null(d->previous_dir);
	assert_int_equal(d->nentries, 0);
	text = print_diff(d);
	assert_string_equal(text, "no previous complete run to compare with\n");
	free(text);
	history_diff_free(d);

	assert_int_equal(history_compare(h, 42, &d), ERR_GENERIC);
	assert_null(d);
	assert_non_null(strstr(error_last(), "has no run 42"));
	history_free(h);
}

static void test_compare_new_failures_and_fixed(void **state)
{
	struct tmpdb *t = *state;
	const struct cellspec before[] = {
		{ "patched", "486", "fpu_seed", VERDICT_PASS },
		{ "patched", "486", "x87_ctx", VERDICT_CRASH },
		{ "unpatched", "486", "fpu_seed", VERDICT_SKIP },
		{ "patched", "pentium3:nofxsr", "fpu_seed", VERDICT_PASS },
		{ "patched", "qemu32", "fpu_seed", VERDICT_TIMEOUT },
		{ "patched", "qemu32", "x87_ctx", VERDICT_FAIL },
	};
	const struct cellspec now[] = {
		{ "unpatched", "486", "fpu_seed", VERDICT_FAIL },
		{ "patched", "486", "fpu_seed", VERDICT_CRASH },
		{ "patched", "486", "x87_ctx", VERDICT_PASS },
		{ "patched", "pentium3:nofxsr", "fpu_seed", VERDICT_ERROR },
		{ "patched", "qemu32", "fpu_seed", VERDICT_CRASH },
		{ "patched", "qemu32", "x87_ctx", VERDICT_SKIP },
		{ "patched", "486", "new_test", VERDICT_CRASH },
	};
	struct history *h = NULL;
	struct history_diff *d = NULL;
	int64_t prev, run;
	char *text;

	assert_int_equal(history_open(&h, t->path), 0);
	prev = add_run(t, h, "L", before, 6, RUN_COMPLETE);
	run = add_run(t, h, "L", now, 7, RUN_LEFT_RUNNING);
	assert_int_equal(history_compare(h, run, &d), 0);
	assert_int_equal(d->previous_run, prev);
	assert_string_equal(d->previous_dir, "/tmp/results/r1");
	/*
	 * Not changes: error is the bench's, skip is no pass, a cell absent
	 * before is no new failure, and one flip is no flake.
	 */
	assert_int_equal(d->nentries, 3);
	assert_int_equal(history_diff_count(d, HISTORY_CHANGE_NEW_FAILURE), 2);
	assert_int_equal(history_diff_count(d, HISTORY_CHANGE_FIXED), 1);
	assert_int_equal(history_diff_count(d, HISTORY_CHANGE_FLAKY), 0);
	assert_int_equal(d->entries[0].change, HISTORY_CHANGE_NEW_FAILURE);
	assert_string_equal(d->entries[0].variant, "patched");
	assert_int_equal(d->entries[0].before, VERDICT_PASS);
	assert_int_equal(d->entries[0].now, VERDICT_CRASH);
	assert_int_equal(d->entries[0].nrecent, 2);
	assert_string_equal(d->entries[1].variant, "unpatched");
	assert_int_equal(d->entries[2].change, HISTORY_CHANGE_FIXED);
	text = print_diff(d);
	assert_string_equal(text, "compared with run r1: new failures 2, fixed 1, flaky 0, crash changed 0\n"
			    "new failure: patched 486 fpu_seed: pass -> crash\n"
			    "new failure: unpatched 486 fpu_seed: skip -> fail\n"
			    "fixed: patched 486 x87_ctx: crash -> pass\n");
	free(text);
	history_diff_free(d);
	history_free(h);
}

/* A run's kernel commits, and the bisections of its new failures. */
static void test_kernel_commits_and_bisections(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;
	char *commit;
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_int_equal(history_open(&h, t->path), 0);
	int64_t run = add_one(t, h, "L", VERDICT_CRASH, RUN_COMPLETE);
	assert_int_equal(history_kernel_commit(h, run, "patched", &commit), 0);
	assert_string_equal(commit, "5abf01bc");
	free(commit);
	assert_int_equal(history_kernel_commit(h, run, "unpatched", &commit), 0);
	assert_null(commit);
	const struct history_bisection b = {
		.variant = "patched", .cpu = "486", .test = "fpu_seed", .good = "1111", .bad = "2222",
		.outcome = "culprit", .culprit = "3333", .confidence = 0.75,
		.mail = "bisect/r2/regression.eml",
	};
	const struct history_bisection over = {
		.variant = "patched", .cpu = "486", .test = "fpu_seed", .good = "1111", .bad = "2222",
		.outcome = "over budget",
	};
	assert_int_equal(history_add_bisection(h, run, &b), 0);
	assert_int_equal(history_add_bisection(h, run, &over), 0);
	history_free(h);
	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT run_id, outcome, culprit, confidence, mail "
					    "FROM bisections ORDER BY id", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), run);
	assert_string_equal((const char *)sqlite3_column_text(st, 2), "3333");
	assert_true(sqlite3_column_double(st, 3) == 0.75);
	assert_string_equal((const char *)sqlite3_column_text(st, 4), "bisect/r2/regression.eml");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 1), "over budget");
	assert_int_equal(sqlite3_column_type(st, 2), SQLITE_NULL);
	assert_int_equal(sqlite3_column_type(st, 3), SQLITE_NULL);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* A cell that crashed before and crashes now under another title shows another bug. */
static void test_compare_crash_title_changed(void **state)
{
	struct tmpdb *t = *state;
	const struct cellspec before[] = {
		{ "patched", "486", "fpu_seed", VERDICT_CRASH, "WARNING in fpu__drop" },
		{ "patched", "486", "x87_ctx", VERDICT_CRASH, "kernel BUG in fpu__clear" },
	};
	const struct cellspec now[] = {
		{ "patched", "486", "fpu_seed", VERDICT_CRASH, "INFO: task hung in fpu__drop" },
		{ "patched", "486", "x87_ctx", VERDICT_CRASH, "kernel BUG in fpu__clear" },
	};
	struct history *h = NULL;
	struct history_diff *d = NULL;
	int64_t run;
	char *text;

	assert_int_equal(history_open(&h, t->path), 0);
	add_run(t, h, "L", before, 2, RUN_COMPLETE);
	run = add_run(t, h, "L", now, 2, RUN_COMPLETE);
	assert_int_equal(history_compare(h, run, &d), 0);
	assert_int_equal(d->nentries, 1);
	assert_int_equal(d->entries[0].change, HISTORY_CHANGE_CRASH);
	assert_string_equal(d->entries[0].crash_before, "WARNING in fpu__drop");
	assert_string_equal(d->entries[0].crash_now, "INFO: task hung in fpu__drop");
	text = print_diff(d);
	assert_string_equal(text, "compared with run r1: new failures 0, fixed 0, flaky 0, crash changed 1\n"
			    "crash changed: patched 486 fpu_seed: WARNING in fpu__drop -> "
			    "INFO: task hung in fpu__drop\n");
	free(text);
	history_diff_free(d);
	history_free(h);
}

/* The previous run is the last complete one of the same line. */
static void test_compare_within_the_line(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;
	struct history_diff *d = NULL;
	int64_t a1, b1, b2, a2;

	assert_int_equal(history_open(&h, t->path), 0);
	a1 = add_one(t, h, "A", VERDICT_PASS, RUN_COMPLETE);
	b1 = add_one(t, h, "B", VERDICT_CRASH, RUN_COMPLETE);
	add_one(t, h, "A", VERDICT_CRASH, RUN_LEFT_RUNNING);	/* a bench still at it */
	b2 = add_one(t, h, "B", VERDICT_PASS, RUN_COMPLETE);
	a2 = add_one(t, h, "A", VERDICT_CRASH, RUN_COMPLETE);

	assert_int_equal(history_compare(h, a2, &d), 0);
	assert_int_equal(d->previous_run, a1);
	assert_int_equal(d->nentries, 1);
	assert_int_equal(d->entries[0].change, HISTORY_CHANGE_NEW_FAILURE);
	assert_int_equal(d->entries[0].nrecent, 2);	/* the running run is left out */
	history_diff_free(d);

	assert_int_equal(history_compare(h, b2, &d), 0);
	assert_int_equal(d->previous_run, b1);
	assert_int_equal(d->nentries, 1);
	assert_int_equal(d->entries[0].change, HISTORY_CHANGE_FIXED);
	history_diff_free(d);
	history_free(h);
}

static struct history_diff *compare_sequence(struct tmpdb *t, struct history *h, const char *line,
					     const enum verdict *seq, size_t n,
					     const enum run_end *ends)
{
	struct history_diff *d = NULL;
	int64_t run = 0;

	for (size_t i = 0; i < n; i++)
		run = add_one(t, h, line, seq[i], ends ? ends[i] : RUN_COMPLETE);
	assert_int_equal(history_compare(h, run, &d), 0);
	return d;
}

static void test_compare_flaky_rule(void **state)
{
	struct tmpdb *t = *state;
	const enum verdict twice[] = { VERDICT_PASS, VERDICT_CRASH, VERDICT_PASS };
	const enum verdict once[] = { VERDICT_PASS, VERDICT_PASS, VERDICT_CRASH };
	/* Two flips in the last 10 runs; with one run more, the first falls out. */
	const enum verdict edge[] = {
		VERDICT_PASS, VERDICT_CRASH, VERDICT_PASS, VERDICT_PASS, VERDICT_PASS,
		VERDICT_PASS, VERDICT_PASS, VERDICT_PASS, VERDICT_PASS, VERDICT_PASS,
		VERDICT_PASS,
	};
	struct history *h = NULL;
	struct history_diff *d;
	char *text;

	assert_int_equal(history_open(&h, t->path), 0);
	d = compare_sequence(t, h, "twice", twice, 3, NULL);
	assert_int_equal(d->nentries, 2);
	assert_int_equal(d->entries[0].change, HISTORY_CHANGE_FIXED);
	assert_int_equal(d->entries[1].change, HISTORY_CHANGE_FLAKY);
	assert_int_equal(d->entries[1].before, VERDICT_CRASH);
	assert_int_equal(d->entries[1].now, VERDICT_PASS);
	text = print_diff(d);
	assert_non_null(strstr(text, "\nflaky: patched 486 fpu_seed (pass crash pass)\n"));
	free(text);
	history_diff_free(d);

	d = compare_sequence(t, h, "once", once, 3, NULL);
	assert_int_equal(d->nentries, 1);
	assert_int_equal(d->entries[0].change, HISTORY_CHANGE_NEW_FAILURE);
	history_diff_free(d);

	d = compare_sequence(t, h, "edge10", edge, 10, NULL);
	assert_int_equal(d->nentries, 1);
	assert_int_equal(d->entries[0].change, HISTORY_CHANGE_FLAKY);
	assert_int_equal(d->entries[0].nrecent, 10);
	assert_int_equal(d->entries[0].recent[0], VERDICT_PASS);
	assert_int_equal(d->entries[0].recent[1], VERDICT_CRASH);
	history_diff_free(d);
	d = compare_sequence(t, h, "edge11", edge, 11, NULL);
	assert_int_equal(d->nentries, 0);
	history_diff_free(d);
	history_free(h);
}

/* Interrupted runs count for flakes, not as the previous run. */
static void test_compare_flaky_over_interrupted_runs(void **state)
{
	struct tmpdb *t = *state;
	const enum verdict seq[] = { VERDICT_PASS, VERDICT_CRASH, VERDICT_PASS };
	const enum run_end some[] = { RUN_COMPLETE, RUN_INTERRUPTED, RUN_LEFT_RUNNING };
	const enum run_end none[] = { RUN_INTERRUPTED, RUN_INTERRUPTED, RUN_LEFT_RUNNING };
	struct history *h = NULL;
	struct history_diff *d;
	char *text;

	assert_int_equal(history_open(&h, t->path), 0);
	d = compare_sequence(t, h, "some", seq, 3, some);
	assert_int_equal(d->previous_run, 1);
	assert_int_equal(d->nentries, 1);
	assert_int_equal(d->entries[0].change, HISTORY_CHANGE_FLAKY);
	assert_int_equal(d->entries[0].before, VERDICT_PASS);
	history_diff_free(d);

	d = compare_sequence(t, h, "none", seq, 3, none);
	assert_int_equal(d->previous_run, 0);
	assert_int_equal(d->nentries, 1);
	assert_int_equal(d->entries[0].before, VERDICT_COUNT);
	text = print_diff(d);
	assert_string_equal(text, "no previous complete run to compare with\n"
			    "flaky: patched 486 fpu_seed (pass crash pass)\n");
	free(text);
	history_diff_free(d);
	history_free(h);
}

static void test_strips_order_and_max(void **state)
{
	struct tmpdb *t = *state;
	const struct cellspec first[] = {
		{ "unpatched", "486", "fpu_seed", VERDICT_CRASH },
		{ "patched", "486", "fpu_seed", VERDICT_PASS },
	};
	/* A retried cell: the later result counts. */
	const struct cellspec retried[] = {
		{ "patched", "486", "fpu_seed", VERDICT_ERROR },
		{ "patched", "486", "fpu_seed", VERDICT_FAIL },
		{ "unpatched", "486", "fpu_seed", VERDICT_CRASH },
	};
	const struct cellspec last[] = {
		{ "patched", "486", "fpu_seed", VERDICT_PASS },
		{ "unpatched", "486", "fpu_seed", VERDICT_PASS },
		{ "patched", "486", "x87_ctx", VERDICT_SKIP },
	};
	struct history *h = NULL;
	struct history_strips *s = NULL;
	int64_t r1, r2, r3, r4;

	assert_int_equal(history_open(&h, t->path), 0);
	r1 = add_run(t, h, "L", first, 2, RUN_COMPLETE);
	add_one(t, h, "other", VERDICT_TIMEOUT, RUN_COMPLETE);
	r2 = add_run(t, h, "L", retried, 3, RUN_INTERRUPTED);
	r3 = add_one(t, h, "L", VERDICT_CRASH, RUN_COMPLETE);
	r4 = add_run(t, h, "L", last, 3, RUN_LEFT_RUNNING);

	assert_int_equal(history_strips(h, r4, 30, &s), 0);
	assert_int_equal(s->n, 3);
	assert_string_equal(s->strips[0].test, "fpu_seed");
	assert_string_equal(s->strips[0].variant, "patched");
	assert_int_equal(s->strips[0].n, 4);
	assert_int_equal(s->strips[0].run_ids[0], r1);
	assert_int_equal(s->strips[0].run_ids[1], r2);
	assert_int_equal(s->strips[0].run_ids[2], r3);
	assert_int_equal(s->strips[0].run_ids[3], r4);
	/* What the report shows: the runs' names, the "other" line's run r2 left out. */
	assert_string_equal(s->strips[0].runs[0], "r1");
	assert_string_equal(s->strips[0].runs[1], "r3");
	assert_string_equal(s->strips[0].runs[3], "r5");
	assert_int_equal(s->strips[0].statuses[0], VERDICT_PASS);
	assert_int_equal(s->strips[0].statuses[1], VERDICT_FAIL);
	assert_int_equal(s->strips[0].statuses[2], VERDICT_CRASH);
	assert_int_equal(s->strips[0].statuses[3], VERDICT_PASS);
	assert_string_equal(s->strips[1].test, "x87_ctx");
	assert_int_equal(s->strips[1].n, 1);
	assert_string_equal(s->strips[2].variant, "unpatched");
	assert_int_equal(s->strips[2].n, 3);	/* r3 had no such cell */
	history_strips_free(s);

	assert_int_equal(history_strips(h, r4, 2, &s), 0);
	assert_int_equal(s->strips[0].n, 2);
	assert_int_equal(s->strips[0].run_ids[0], r3);
	assert_int_equal(s->strips[2].n, 1);
	history_strips_free(s);

	/* Up to run_id only. */
	assert_int_equal(history_strips(h, r2, 30, &s), 0);
	assert_int_equal(s->n, 2);
	assert_int_equal(s->strips[0].n, 2);
	assert_int_equal(s->strips[0].run_ids[1], r2);
	history_strips_free(s);
	history_free(h);
}

/* A run is named as its results directory is; the row id is the bench's own. */
static void test_run_name(void **state)
{
	(void)state;
	assert_string_equal(history_run_name("/srv/results/20261205-231552-15996"),
			    "20261205-231552-15996");
	assert_string_equal(history_run_name("/work/main/bench/../results/20261205-200849-4578"),
			    "20261205-200849-4578");
	assert_string_equal(history_run_name("results"), "results");
}

static void test_print_filters(void **state)
{
	struct tmpdb *t = *state;
	const struct cellspec cells[] = {
		{ "patched", "486", "fpu_seed", VERDICT_PASS },
		{ "patched", "pentium3:nofxsr", "fpu_seed", VERDICT_CRASH },
		{ "patched", "pentium", "x87_ctx", VERDICT_PASS },
	};
	const struct cellspec late = { "patched", "486", "x87_ctx", VERDICT_FAIL };
	struct history *h = NULL;
	char *text;

	assert_int_equal(history_open(&h, t->path), 0);
	add_run(t, h, "L", cells, 3, RUN_COMPLETE);
	add_run(t, h, "L", cells, 3, RUN_INTERRUPTED);
	add_run(t, h, "L", &late, 1, RUN_LEFT_RUNNING);

	text = print_history(h, &(struct history_query){ 0 });
	assert_non_null(strstr(text, "run r3  2023-11-14T22:13:20Z  running      host "));
	assert_non_null(strstr(text, "  line L\n"));
	assert_true(strstr(text, "run r3 ") < strstr(text, "run r2 "));
	assert_true(strstr(text, "run r2 ") < strstr(text, "run r1 "));
	assert_non_null(strstr(text, "interrupted"));
	assert_non_null(strstr(text, "fpu exception in fpu__restore"));
	assert_non_null(strstr(text, "  patched  pentium3:nofxsr  fpu_seed  crash    pass      NO      1.5 s  "));
	free(text);

	text = print_history(h, &(struct history_query){ .last = 2 });
	assert_non_null(strstr(text, "run r2 "));
	assert_null(strstr(text, "run r1 "));
	free(text);

	text = print_history(h, &(struct history_query){ .test = "fpu_seed", .last = 1 });
	assert_non_null(strstr(text, "run r2 "));
	assert_null(strstr(text, "run r3 "));
	assert_null(strstr(text, "run r1 "));
	assert_null(strstr(text, "x87_ctx"));
	free(text);

	/* A model matches its setups, not a model it is a prefix of. */
	text = print_history(h, &(struct history_query){ .cpu = "pentium3" });
	assert_non_null(strstr(text, "pentium3:nofxsr"));
	assert_null(strstr(text, "486"));
	assert_null(strstr(text, "x87_ctx"));
	assert_null(strstr(text, "run r3 "));
	free(text);

	text = print_history(h, &(struct history_query){ .cpu = "486", .test = "x87_ctx" });
	assert_non_null(strstr(text, "run r3 "));
	assert_null(strstr(text, "run r2 "));
	free(text);

	text = print_history(h, &(struct history_query){ .test = "nosuch" });
	assert_string_equal(text, "no matching runs\n");
	free(text);
	history_free(h);
}

/* Each cell with what it was expected to give and whether it did, in aligned columns. */
static void test_print_expectations(void **state)
{
	struct tmpdb *t = *state;
	const struct cellspec cells[] = {
		{ "unpatched", "pentium3:nofxsr", "fpu_seed", VERDICT_CRASH, NULL, VERDICT_CRASH },
		{ "patched", "486", "x87_ctx", VERDICT_FAIL },
		{ "patched", "486", "x86_test_FISTTP", VERDICT_SKIP },
	};
	struct history *h = NULL;
	sqlite3 *db;
	char *text;

	assert_int_equal(history_open(&h, t->path), 0);
	add_run(t, h, "L", cells, 3, RUN_COMPLETE);
	text = print_history(h, &(struct history_query){ 0 });
	assert_non_null(strstr(text, "  complete     host "));
	assert_non_null(strstr(text, "\n"
		"  kernel     cpu setup        test             status   expected  met      time  crash or reason\n"
		"  unpatched  pentium3:nofxsr  fpu_seed         crash    crash     yes     1.5 s  fpu exception in fpu__restore\n"
		"  patched    486              x87_ctx          fail     pass      NO      1.5 s\n"
		"  patched    486              x86_test_FISTTP  skip     pass      yes     1.5 s\n"));
	free(text);

	/* A cell stored before the history kept expectations has none; a bad one is refused. */
	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE cells SET expected = NULL WHERE test = 'x87_ctx'",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE cells SET expected = 'maybe'", NULL, NULL, NULL),
			 SQLITE_CONSTRAINT);
	sqlite3_close(db);
	text = print_history(h, &(struct history_query){ 0 });
	assert_non_null(strstr(text, "  patched    486              x87_ctx          fail     -         -       1.5 s\n"));
	free(text);
	history_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fresh_db_gets_latest_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_future_version_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_writes_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cell_is_visible_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_run_is_interrupted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_twenty_kills_leave_a_consistent_db, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_benches_share_the_db, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_without_previous_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_new_failures_and_fixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_commits_and_bisections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_crash_title_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_within_the_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_flaky_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_flaky_over_interrupted_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_strips_order_and_max, setup, teardown),
		cmocka_unit_test(test_run_name),
		cmocka_unit_test_setup_teardown(test_print_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_expectations, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
