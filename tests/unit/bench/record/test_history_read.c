/* history_read.c: comparing a run with the one before, the strips and the listing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_history_db.h"

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

/* A run of one passing cell, of a kernel of this version, on line "debian c0ffee". */
static int64_t add_versioned(struct tmpdb *t, struct history *h, const char *version)
{
	char *dir = xasprintf("/tmp/results/r%d", ++t->nruns);
	const struct history_run_info info = {
		.line = "debian c0ffee", .command = "run", .host = t->host, .version = "v1",
		.run_dir = dir, .started = 1700000000, .pid = getpid(),
	};
	const struct history_kernel kern = {
		.variant = "patched", .commit = "5abf01bc", .config_hash = "c0ffee", .build_id = "b1",
		.version = version,
	};
	int64_t run, kernel;

	assert_int_equal(history_begin_run(h, &info, &run), 0);
	free(dir);
	assert_int_equal(history_add_kernel(h, run, &kern, &kernel), 0);
	const struct history_cell c = {
		.kernel_id = kernel, .cpu = "486", .cmdline = "", .test = "fpu_seed",
		.status = VERDICT_PASS, .expected = VERDICT_PASS, .host = "test:///default",
	};
	assert_int_equal(history_add_cell(h, run, &c), 0);
	assert_int_equal(history_end_run(h, run, true), 0);
	return run;
}

/* A line that came to name its series takes the runs of that series only. */
static void test_move_line_by_series(void **state)
{
	struct tmpdb *t = *state;
	struct history *h = NULL;
	struct history_diff *d = NULL;
	char *sql;

	assert_int_equal(history_open(&h, t->path), 0);
	int64_t old61 = add_versioned(t, h, "6.1.190");
	int64_t v612 = add_versioned(t, h, "6.12.5");
	int64_t v6121 = add_versioned(t, h, "6.12.1");
	int64_t v610 = add_versioned(t, h, "6.10.1");
	int64_t rc = add_versioned(t, h, "6.1.0-rc3");
	int64_t none = add_versioned(t, h, NULL);
	assert_int_equal(history_move_line(h, "debian c0ffee", "6.1", "debian 6.1 c0ffee"), 0);
	const int64_t moved[] = { old61, rc }, stayed[] = { v612, v6121, v610, none };
	for (size_t i = 0; i < 2; i++) {
		sql = xasprintf("SELECT line FROM runs WHERE id = %lld", (long long)moved[i]);
		assert_query(t->path, sql, "debian 6.1 c0ffee");
		free(sql);
	}
	for (size_t i = 0; i < 4; i++) {
		sql = xasprintf("SELECT line FROM runs WHERE id = %lld", (long long)stayed[i]);
		assert_query(t->path, sql, "debian c0ffee");
		free(sql);
	}
	/* The next run of the new line is compared with the moved ones, never with 6.12's. */
	int64_t next = add_one(t, h, "debian 6.1 c0ffee", VERDICT_CRASH, RUN_COMPLETE);
	assert_int_equal(history_compare(h, next, &d), 0);
	assert_int_equal(d->previous_run, rc);
	assert_int_equal(history_diff_count(d, HISTORY_CHANGE_NEW_FAILURE), 1);
	history_diff_free(d);
	/* Again: nothing left to move. */
	assert_int_equal(history_move_line(h, "debian c0ffee", "6.1", "debian 6.1 c0ffee"), 0);
	assert_query(t->path, "SELECT count(*) FROM runs WHERE line = 'debian 6.1 c0ffee'", "3");
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
	assert_non_null(strstr(text, "\npatched pentium3:nofxsr fpu_seed\n"
				     "  r2   crash    pass      NO      1.5 s  fpu exception in fpu__restore\n"
				     "  r1   crash    pass      NO      1.5 s  fpu exception in fpu__restore\n"));
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
	assert_non_null(strstr(text, "\n\n"
		"  run  status   expected  met      time  crash or reason\n"
		"patched 486 x86_test_FISTTP\n"
		"  r1   skip     pass      yes     1.5 s\n"
		"patched 486 x87_ctx\n"
		"  r1   fail     pass      NO      1.5 s\n"
		"unpatched pentium3:nofxsr fpu_seed\n"
		"  r1   crash    crash     yes     1.5 s  fpu exception in fpu__restore\n"));
	free(text);

	/* A cell stored before the history kept expectations has none; a bad one is refused. */
	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE cells SET expected = NULL WHERE test = 'x87_ctx'",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE cells SET expected = 'maybe'", NULL, NULL, NULL),
			 SQLITE_CONSTRAINT);
	sqlite3_close(db);
	text = print_history(h, &(struct history_query){ 0 });
	assert_non_null(strstr(text, "patched 486 x87_ctx\n  r1   fail     -         -       1.5 s\n"));
	free(text);
	history_free(h);
}

/*
 * Cells come in the order of their kernel, setup and test, whichever boot
 * ended first, and each has a line per run, newest first.
 */
static void test_print_is_in_a_stable_order(void **state)
{
	struct tmpdb *t = *state;
	const struct cellspec first[] = {
		{ "unpatched", "486", "fpu_seed", VERDICT_CRASH, NULL, VERDICT_CRASH },
		{ "patched", "qemu32", "fpu_seed", VERDICT_PASS },
		{ "patched", "486", "fpu_seed", VERDICT_PASS },
	};
	const struct cellspec second[] = { first[2], first[0], first[1] };
	struct history *h = NULL;
	char *text;

	assert_int_equal(history_open(&h, t->path), 0);
	add_run(t, h, "L", first, 3, RUN_COMPLETE);
	add_run(t, h, "L", second, 3, RUN_COMPLETE);
	text = print_history(h, &(struct history_query){ 0 });
	assert_non_null(strstr(text, "line L\n\n"
		"  run  status   expected  met      time  crash or reason\n"
		"patched 486 fpu_seed\n"
		"  r2   pass     pass      yes     1.5 s\n"
		"  r1   pass     pass      yes     1.5 s\n"
		"patched qemu32 fpu_seed\n"
		"  r2   pass     pass      yes     1.5 s\n"
		"  r1   pass     pass      yes     1.5 s\n"
		"unpatched 486 fpu_seed\n"
		"  r2   crash    crash     yes     1.5 s  fpu exception in fpu__restore\n"
		"  r1   crash    crash     yes     1.5 s  fpu exception in fpu__restore\n"));
	free(text);
	history_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_compare_without_previous_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_new_failures_and_fixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_crash_title_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_move_line_by_series, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_within_the_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_flaky_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_flaky_over_interrupted_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_strips_order_and_max, setup, teardown),
		cmocka_unit_test(test_run_name),
		cmocka_unit_test_setup_teardown(test_print_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_expectations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_is_in_a_stable_order, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
