#include "history.h"
#include "history_db.h"

#include "lib/date.h"
#include "lib/error.h"
#include "lib/strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The flake rule: this many status changes within this many runs. */
#define FLAKY_RUNS 10
#define FLAKY_CHANGES 2

const char *history_run_name(const char *run_dir)
{
	const char *slash = strrchr(run_dir, '/');

	return slash ? slash + 1 : run_dir;
}

/*
 * The last complete run of run_id's line before it, or 0, and its
 * directory (NULL for none) when dir is not NULL; an unknown run is an
 * error.
 */
static int find_previous(struct history *h, int64_t run_id, int64_t *previous, char **dir)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if ((err = history_db_prepare(h, &st, "SELECT p.id, p.run_dir FROM runs r LEFT JOIN runs p"
			      " ON p.id = (SELECT max(id) FROM runs WHERE line = r.line"
			      " AND status = 'complete' AND id < r.id) WHERE r.id = ?1", "read")) < 0)
		return err;
	if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK) {
		err = history_db_error(h, "read");
	} else if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*previous = sqlite3_column_int64(st, 0);
		if (dir && *previous)
			*dir = xstrdup(history_column_str(st, 1));
	} else if (rc == SQLITE_DONE) {
		err = error_set(ERR_GENERIC, "history database '%s' has no run %" PRId64, h->path,
				run_id);
	} else {
		err = history_db_error(h, "read");
	}
	sqlite3_finalize(st);
	return err;
}

/*
 * Every cell of run_id's (variant, cpu, test) keys in the window (the last
 * ?3 complete or interrupted runs of its line up to it, and run_id itself)
 * or in run ?4, grouped by key, each run's cells in the order written.
 */
static const char strips_sql[] =
	"WITH w(id) AS (SELECT id FROM runs"
	"   WHERE line = (SELECT line FROM runs WHERE id = ?1) AND id <= ?1"
	"     AND (status IN ('complete', 'interrupted') OR id = ?1)"
	"   ORDER BY id DESC LIMIT ?2),"
	" c AS (SELECT c.id, c.run_id, k.variant, c.cpu, c.test, c.status, c.crash, r.run_dir"
	"   FROM cells c JOIN kernels k ON k.id = c.kernel_id JOIN runs r ON r.id = c.run_id"
	"   WHERE c.run_id IN w OR c.run_id = ?3)"
	" SELECT variant, cpu, test, run_id, status, run_id IN w, crash, run_dir FROM c"
	" WHERE (variant, cpu, test) IN (SELECT variant, cpu, test FROM c WHERE run_id = ?1)"
	" ORDER BY variant, cpu, test, run_id, id";

static bool strip_is(const struct history_strip *s, sqlite3_stmt *st)
{
	return strcmp(s->variant, history_column_str(st, 0)) == 0 && strcmp(s->cpu, history_column_str(st, 1)) == 0 &&
	       strcmp(s->test, history_column_str(st, 2)) == 0;
}

/* The crash title of the row, or NULL. */
static char *column_crash(sqlite3_stmt *st)
{
	const char *crash = (const char *)sqlite3_column_text(st, 6);

	return crash ? xstrdup(crash) : NULL;
}

/*
 * The strips of run_id over `max` runs; with `before`, also each strip's
 * status in run `previous` (VERDICT_COUNT: none) and its crash title then
 * (or NULL), in arrays the caller frees.  When a run holds a cell twice
 * (a retry), the later one counts.
 */
static int load_strips(struct history *h, int64_t run_id, size_t max, int64_t previous,
		       struct history_strips **out, enum verdict **before, char ***before_crash)
{
	struct history_strips *s = xcalloc(1, sizeof(*s));
	enum verdict *b = NULL;
	char **bc = NULL;
	sqlite3_stmt *st = NULL;
	int err, rc;

	*out = NULL;
	if ((err = history_db_prepare(h, &st, strips_sql, "read")) < 0)
		goto out;
	rc = sqlite3_bind_int64(st, 1, run_id);
	rc |= sqlite3_bind_int64(st, 2, max > INT64_MAX ? INT64_MAX : (int64_t)max);
	rc |= sqlite3_bind_int64(st, 3, previous);
	if (rc != SQLITE_OK) {
		err = history_db_error(h, "read");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct history_strip *strip = s->n ? &s->strips[s->n - 1] : NULL;
		int64_t run = sqlite3_column_int64(st, 3);
		enum verdict v;

		if ((err = history_column_verdict(h, st, 4, &v)) < 0)
			goto out;
		if (!strip || !strip_is(strip, st)) {
			s->strips = xrealloc(s->strips, (s->n + 1) * sizeof(*s->strips));
			b = xrealloc(b, (s->n + 1) * sizeof(*b));
			bc = xrealloc(bc, (s->n + 1) * sizeof(*bc));
			bc[s->n] = NULL;
			strip = &s->strips[s->n];
			*strip = (struct history_strip){
				.variant = xstrdup(history_column_str(st, 0)),
				.cpu = xstrdup(history_column_str(st, 1)),
				.test = xstrdup(history_column_str(st, 2)),
			};
			b[s->n++] = VERDICT_COUNT;
		}
		if (run == previous) {
			b[s->n - 1] = v;
			free(bc[s->n - 1]);
			bc[s->n - 1] = column_crash(st);
		}
		if (run == run_id) {
			free(strip->crash);
			strip->crash = column_crash(st);
		}
		if (!sqlite3_column_int(st, 5))
			continue;
		if (!strip->n || strip->run_ids[strip->n - 1] != run) {
			strip->statuses = xrealloc(strip->statuses, (strip->n + 1) * sizeof(*strip->statuses));
			strip->run_ids = xrealloc(strip->run_ids, (strip->n + 1) * sizeof(*strip->run_ids));
			strip->runs = xrealloc(strip->runs, (strip->n + 1) * sizeof(*strip->runs));
			strip->run_ids[strip->n] = run;
			strip->runs[strip->n++] = xstrdup(history_run_name(history_column_str(st, 7)));
		}
		strip->statuses[strip->n - 1] = v;
	}
	if (rc != SQLITE_DONE) {
		err = history_db_error(h, "read");
		goto out;
	}
	*out = s;
	s = NULL;
	if (before) {
		*before = b;
		*before_crash = bc;
		b = NULL;
		bc = NULL;
	}
out:
	sqlite3_finalize(st);
	for (size_t i = 0; bc && i < (s ? s->n : 0); i++)
		free(bc[i]);
	free(bc);
	history_strips_free(s);
	free(b);
	return err;
}

int history_strips(struct history *h, int64_t run_id, size_t max, struct history_strips **out)
{
	int64_t previous;
	int err;

	*out = NULL;
	/* One snapshot for both reads, while another bench may be writing. */
	if ((err = history_db_exec(h, "BEGIN", "read")) < 0)
		return err;
	/* Run ids start at 1: previous 0 asks for no extra run. */
	if ((err = find_previous(h, run_id, &previous, NULL)) == 0)
		err = load_strips(h, run_id, max, 0, out, NULL, NULL);
	history_db_rollback(h);
	return err;
}

void history_strips_free(struct history_strips *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->strips[i].variant);
		free(s->strips[i].cpu);
		free(s->strips[i].test);
		free(s->strips[i].statuses);
		free(s->strips[i].run_ids);
		for (size_t j = 0; j < s->strips[i].n; j++)
			free(s->strips[i].runs[j]);
		free(s->strips[i].runs);
		free(s->strips[i].crash);
	}
	free(s->strips);
	free(s);
}

static bool is_failure(enum verdict v)
{
	return v == VERDICT_FAIL || v == VERDICT_CRASH || v == VERDICT_TIMEOUT;
}

static bool strip_has_change(const struct history_strip *s, enum verdict before,
			     const char *before_crash, enum history_change change)
{
	enum verdict now = s->statuses[s->n - 1];
	size_t flips = 0;

	switch (change) {
	case HISTORY_CHANGE_NEW_FAILURE:
		return is_failure(now) && (before == VERDICT_PASS || before == VERDICT_SKIP);
	case HISTORY_CHANGE_FIXED:
		return is_failure(before) && now == VERDICT_PASS;
	case HISTORY_CHANGE_FLAKY:
		for (size_t i = 1; i < s->n; i++)
			flips += s->statuses[i] != s->statuses[i - 1];
		return flips >= FLAKY_CHANGES;
	case HISTORY_CHANGE_CRASH:
		return before == VERDICT_CRASH && now == VERDICT_CRASH && before_crash && s->crash &&
		       strcmp(before_crash, s->crash) != 0;
	}
	return false;
}

static void diff_add(struct history_diff *d, enum history_change change,
		     const struct history_strip *s, enum verdict before, const char *before_crash)
{
	struct history_change_entry *e;

	d->entries = xrealloc(d->entries, (d->nentries + 1) * sizeof(*d->entries));
	e = &d->entries[d->nentries++];
	*e = (struct history_change_entry){
		.change = change,
		.variant = xstrdup(s->variant),
		.cpu = xstrdup(s->cpu),
		.test = xstrdup(s->test),
		.before = before,
		.now = s->statuses[s->n - 1],
		.recent = xmalloc(s->n * sizeof(*e->recent)),
		.nrecent = s->n,
	};
	memcpy(e->recent, s->statuses, s->n * sizeof(*e->recent));
	if (change == HISTORY_CHANGE_CRASH) {
		e->crash_before = xstrdup(before_crash);
		e->crash_now = xstrdup(s->crash);
	}
}

int history_compare(struct history *h, int64_t run_id, struct history_diff **out)
{
	struct history_diff *d = xcalloc(1, sizeof(*d));
	struct history_strips *s = NULL;
	enum verdict *before = NULL;
	char **before_crash = NULL;
	int err;

	*out = NULL;
	if ((err = history_db_exec(h, "BEGIN", "read")) < 0)
		goto out;
	if ((err = find_previous(h, run_id, &d->previous_run, &d->previous_dir)) < 0 ||
	    (err = load_strips(h, run_id, FLAKY_RUNS, d->previous_run, &s, &before, &before_crash)) < 0)
		goto out;
	/* The strips come sorted by key: one pass a kind sorts the entries. */
	for (int change = HISTORY_CHANGE_NEW_FAILURE; change <= HISTORY_CHANGE_CRASH; change++)
		for (size_t i = 0; i < s->n; i++)
			if (strip_has_change(&s->strips[i], before[i], before_crash[i], change))
				diff_add(d, change, &s->strips[i], before[i], before_crash[i]);
	*out = d;
	d = NULL;
out:
	history_db_rollback(h);
	for (size_t i = 0; before_crash && i < s->n; i++)
		free(before_crash[i]);
	free(before_crash);
	history_strips_free(s);
	free(before);
	history_diff_free(d);
	return err;
}

void history_diff_free(struct history_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nentries; i++) {
		free(d->entries[i].variant);
		free(d->entries[i].cpu);
		free(d->entries[i].test);
		free(d->entries[i].recent);
		free(d->entries[i].crash_before);
		free(d->entries[i].crash_now);
	}
	free(d->entries);
	free(d->previous_dir);
	free(d);
}

size_t history_diff_count(const struct history_diff *d, enum history_change change)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nentries; i++)
		n += d->entries[i].change == change;
	return n;
}

void history_diff_print(FILE *f, const struct history_diff *d)
{
	if (d->previous_run)
		fprintf(f, "compared with run %s: new failures %zu, fixed %zu, flaky %zu, "
			"crash changed %zu\n", history_run_name(d->previous_dir),
			history_diff_count(d, HISTORY_CHANGE_NEW_FAILURE),
			history_diff_count(d, HISTORY_CHANGE_FIXED), history_diff_count(d, HISTORY_CHANGE_FLAKY),
			history_diff_count(d, HISTORY_CHANGE_CRASH));
	else
		fprintf(f, "no previous complete run to compare with\n");
	for (size_t i = 0; i < d->nentries; i++) {
		const struct history_change_entry *e = &d->entries[i];

		if (e->change == HISTORY_CHANGE_CRASH) {
			fprintf(f, "crash changed: %s %s %s: %s -> %s\n", e->variant, e->cpu, e->test,
				e->crash_before, e->crash_now);
			continue;
		}
		if (e->change != HISTORY_CHANGE_FLAKY) {
			fprintf(f, "%s: %s %s %s: %s -> %s\n",
				e->change == HISTORY_CHANGE_NEW_FAILURE ? "new failure" : "fixed", e->variant,
				e->cpu, e->test, verdict_name(e->before), verdict_name(e->now));
			continue;
		}
		fprintf(f, "flaky: %s %s %s (", e->variant, e->cpu, e->test);
		for (size_t j = 0; j < e->nrecent; j++)
			fprintf(f, "%s%s", j ? " " : "", verdict_name(e->recent[j]));
		fprintf(f, ")\n");
	}
}

/*
 * A cell (alias a) matches a query's test (?2) and cpu (?3), a setup or
 * its model: the part before ':'.  Shared by the run and the cell selection.
 */
#define CELL_MATCHES(a) \
	"(?2 IS NULL OR " a ".test = ?2) AND (?3 IS NULL OR " a ".cpu = ?3" \
	" OR substr(" a ".cpu, 1, length(?3) + 1) = ?3 || ':')"

/* The runs shown: the last ?1 with a matching cell (any run without a filter). */
#define SHOWN_RUNS \
	"SELECT r.id FROM runs r WHERE (?2 IS NULL AND ?3 IS NULL)" \
	" OR EXISTS (SELECT 1 FROM cells m WHERE m.run_id = r.id AND " CELL_MATCHES("m") ")" \
	" ORDER BY r.id DESC LIMIT ?1"

static const char print_runs_sql[] =
	"SELECT r.id, r.started, r.status, r.line, r.host, r.run_dir FROM runs r"
	" WHERE r.id IN (" SHOWN_RUNS ") ORDER BY r.id DESC";

/*
 * Cells in an order that does not depend on which boot ended first: by
 * kernel, setup and test, and each cell's runs newest first.
 */
static const char print_cells_sql[] =
	"SELECT k.variant || coalesce(' ' || k.kernel_version, ''), c.cpu, c.test, c.status,"
	" c.duration_s, coalesce(c.crash, c.reason, ''), c.expected, r.run_dir"
	" FROM cells c JOIN kernels k ON k.id = c.kernel_id JOIN runs r ON r.id = c.run_id"
	" WHERE c.run_id IN (" SHOWN_RUNS ") AND " CELL_MATCHES("c")
	" ORDER BY k.variant, k.kernel_version, c.cpu, c.test, r.id DESC";

static int bind_query(sqlite3_stmt *st, const struct history_query *q)
{
	/* LIMIT -1 is no limit. */
	int rc = sqlite3_bind_int64(st, 1, q->last == 0 || q->last > INT64_MAX ? -1
										: (int64_t)q->last);

	rc |= sqlite3_bind_text(st, 2, q->test, -1, SQLITE_STATIC);
	return rc | sqlite3_bind_text(st, 3, q->cpu, -1, SQLITE_STATIC);
}

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* What the cell was expected to give and whether it did: "-" for a cell stored without. */
static int cell_expectation(struct history *h, sqlite3_stmt *st, const char **expected,
			    const char **met)
{
	enum verdict status, want;
	int err;

	*expected = *met = "-";
	if (sqlite3_column_type(st, 6) == SQLITE_NULL)
		return 0;
	if ((err = history_column_verdict(h, st, 3, &status)) < 0 ||
	    (err = history_column_verdict(h, st, 6, &want)) < 0)
		return err;
	*expected = verdict_name(want);
	*met = verdict_meets(status, want) ? "yes" : "NO";
	return 0;
}

/* Whether the row names another cell than the one before it (kept in *last). */
static bool cell_changed(sqlite3_stmt *st, struct strbuf *last)
{
	struct strbuf key = STRBUF_INIT;
	bool changed;

	for (int i = 0; i < 3; i++) {
		strbuf_addstr(&key, history_column_str(st, i));
		strbuf_addch(&key, '\n');
	}
	changed = !last->buf || strcmp(key.buf, last->buf) != 0;
	strbuf_reset(last);
	strbuf_addstr(last, key.buf);
	strbuf_release(&key);
	return changed;
}

/*
 * Each cell on a line of its own, then a line for each run it was in;
 * two passes: the run column's width, then the lines.
 */
static int print_cells(struct history *h, sqlite3_stmt *st, FILE *f)
{
	struct strbuf last = STRBUF_INIT;
	size_t wr = strlen("run");
	int err = 0, rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		wr = max_size(wr, strlen(history_run_name(history_column_str(st, 7))));
	if (rc != SQLITE_DONE)
		return history_db_error(h, "read");
	fprintf(f, "\n  %-*s  %-7s  %-8s  %-3s  %8s  crash or reason\n", (int)wr, "run", "status",
		"expected", "met", "time");
	sqlite3_reset(st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *expected, *met;

		if ((err = cell_expectation(h, st, &expected, &met)) < 0)
			break;
		if (cell_changed(st, &last))
			fprintf(f, "%s %s %s\n", history_column_str(st, 0), history_column_str(st, 1),
				history_column_str(st, 2));
		fprintf(f, "  %-*s  %-7s  %-8s  %-3s  %6.1f s%s%s\n", (int)wr,
			history_run_name(history_column_str(st, 7)), history_column_str(st, 3),
			expected, met, sqlite3_column_double(st, 4),
			*history_column_str(st, 5) ? "  " : "", history_column_str(st, 5));
	}
	strbuf_release(&last);
	if (!err && rc != SQLITE_DONE)
		err = history_db_error(h, "read");
	return err;
}

int history_print(struct history *h, const struct history_query *q, FILE *f)
{
	sqlite3_stmt *runs = NULL, *cells = NULL;
	size_t nruns = 0;
	int err, rc;

	if ((err = history_db_exec(h, "BEGIN", "read")) < 0 ||
	    (err = history_db_prepare(h, &runs, print_runs_sql, "read")) < 0 ||
	    (err = history_db_prepare(h, &cells, print_cells_sql, "read")) < 0)
		goto out;
	if (bind_query(runs, q) != SQLITE_OK || bind_query(cells, q) != SQLITE_OK) {
		err = history_db_error(h, "read");
		goto out;
	}
	while ((rc = sqlite3_step(runs)) == SQLITE_ROW) {
		char started[32];

		date_format_iso8601(started, sizeof(started), sqlite3_column_int64(runs, 1));
		fprintf(f, "run %s  %s  %-11s  host %s  line %s\n",
			history_run_name(history_column_str(runs, 5)), started, history_column_str(runs, 2),
			history_column_str(runs, 4), history_column_str(runs, 3));
		nruns++;
	}
	if (rc != SQLITE_DONE) {
		err = history_db_error(h, "read");
		goto out;
	}
	if (nruns == 0)
		fprintf(f, "no matching runs\n");
	else
		err = print_cells(h, cells, f);
out:
	sqlite3_finalize(runs);
	sqlite3_finalize(cells);
	history_db_rollback(h);
	return err;
}
