/* history.c: opening, migrating and writing the database, by benches that may be killed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_history_db.h"

#include <signal.h>
#include <sys/wait.h>

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
		cmocka_unit_test_setup_teardown(test_kernel_commits_and_bisections, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
