#include "history.h"

#include "lib/date.h"
#include "lib/error.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* The flake rule: this many status changes within this many runs. */
#define FLAKY_RUNS 10
#define FLAKY_CHANGES 2

/*
 * Another bench's writes take milliseconds; a lock held longer than this
 * belongs to a stuck process, and saying so beats waiting for ever.
 */
#define BUSY_TIMEOUT_MS 30000

struct history {
	sqlite3 *db;
	char *path;
};

/*
 * The schema: migration i takes the database from user_version i to i + 1.
 * Append only; a migration that shipped is never edited, so its CHECKs
 * spell out the verdict names of its time.
 */
static const char *const migrations[] = {
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  line TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  host TEXT NOT NULL,"
	"  version TEXT NOT NULL,"
	"  run_dir TEXT NOT NULL,"
	"  pid INTEGER NOT NULL CHECK (pid > 0),"
	"  started INTEGER NOT NULL,"
	"  ended INTEGER,"
	"  status TEXT NOT NULL DEFAULT 'running'"
	"    CHECK (status IN ('running', 'complete', 'interrupted')));"
	/* The previous run and the last runs of a line. */
	"CREATE INDEX runs_by_line ON runs (line, id);"
	"CREATE TABLE kernels ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs (id),"
	"  variant TEXT NOT NULL,"
	"  \"commit\" TEXT NOT NULL,"
	"  config_hash TEXT,"
	"  build_id TEXT,"
	"  build_seconds REAL,"
	"  provenance TEXT CHECK (provenance IS NULL OR json_valid(provenance)),"
	/* The target of the cells' foreign key, which keeps a cell in its kernel's run. */
	"  UNIQUE (id, run_id));"
	"CREATE INDEX kernels_by_run ON kernels (run_id);"
	"CREATE TABLE cells ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs (id),"
	"  kernel_id INTEGER NOT NULL,"
	"  cpu TEXT NOT NULL,"
	"  cmdline TEXT,"
	"  test TEXT NOT NULL,"
	"  status TEXT NOT NULL"
	"    CHECK (status IN ('pass', 'skip', 'fail', 'timeout', 'crash', 'error')),"
	"  crash TEXT,"
	"  reason TEXT,"
	"  host TEXT,"
	"  duration_s REAL,"
	"  console TEXT,"
	"  FOREIGN KEY (kernel_id, run_id) REFERENCES kernels (id, run_id));"
	"CREATE INDEX cells_by_run ON cells (run_id, kernel_id);",
	/* The tree's version, as its Makefile gives it: runs of two trees stay apart by it too. */
	"ALTER TABLE kernels ADD COLUMN kernel_version TEXT;",
	/* 3: the bisections a nightly run made of its new failures. */
	"CREATE TABLE bisections ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs (id),"
	"  variant TEXT NOT NULL,"
	"  cpu TEXT NOT NULL,"
	"  test TEXT NOT NULL,"
	"  good TEXT NOT NULL,"
	"  bad TEXT NOT NULL,"
	"  outcome TEXT NOT NULL,"
	"  culprit TEXT,"
	"  confidence REAL,"
	"  mail TEXT);"
	"CREATE INDEX bisections_by_run ON bisections (run_id);",
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

/* A file that is no database, or a damaged one, is bad input, not a fault of ours. */
static int error_code_of(sqlite3 *db)
{
	int rc = sqlite3_errcode(db);

	return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? ERR_INPUT : ERR_GENERIC;
}

/* "cannot <what> history database '<path>': <sqlite's message>" */
static int db_error(struct history *h, const char *what)
{
	return error_set(error_code_of(h->db), "cannot %s history database '%s': %s", what,
			 h->path, sqlite3_errmsg(h->db));
}

static int db_exec(struct history *h, const char *sql, const char *what)
{
	if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(h, what);
	return 0;
}

static int db_prepare(struct history *h, sqlite3_stmt **st, const char *sql, const char *what)
{
	if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_error(h, what);
	return 0;
}

/* Ends a transaction left open by a failure; reads end here too. */
static void db_rollback(struct history *h)
{
	if (!sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

/* NOT NULL columns are NULL only when sqlite ran out of memory. */
static const char *column_str(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

static int column_verdict(struct history *h, sqlite3_stmt *st, int i, enum verdict *out)
{
	if (verdict_parse(column_str(st, i), out) < 0)
		return error_set(ERR_INPUT, "history database '%s' holds an unknown status '%s'",
				 h->path, column_str(st, i));
	return 0;
}

static int read_version(struct history *h, int *version)
{
	sqlite3_stmt *st = NULL;
	int err;

	if ((err = db_prepare(h, &st, "PRAGMA user_version", "read the version of")) < 0)
		return err;
	if (sqlite3_step(st) == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	else
		err = db_error(h, "read the version of");
	sqlite3_finalize(st);
	return err;
}

/*
 * Each migration in a transaction of its own, taken with the write lock
 * so that two benches opening a fresh database do not both apply one.
 */
static int migrate(struct history *h)
{
	int version, err;

	for (;;) {
		char *pragma;

		if ((err = db_exec(h, "BEGIN IMMEDIATE", "lock")) < 0 ||
		    (err = read_version(h, &version)) < 0)
			goto out;
		if (version < 0 || version > NMIGRATIONS) {
			err = error_set(ERR_INPUT, "history database '%s' is at schema version %d, "
					"newer than this bench's %d: use a newer fpubench",
					h->path, version, NMIGRATIONS);
			goto out;
		}
		if (version == NMIGRATIONS)
			goto out;
		/* PRAGMA takes no parameters; the number is ours, not input. */
		pragma = xasprintf("PRAGMA user_version = %d", version + 1);
		if (sqlite3_exec(h->db, migrations[version], NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_exec(h->db, pragma, NULL, NULL, NULL) != SQLITE_OK)
			err = error_set(error_code_of(h->db), "cannot migrate history database '%s' "
					"to schema version %d: %s", h->path, version + 1,
					sqlite3_errmsg(h->db));
		free(pragma);
		if (err < 0 || (err = db_exec(h, "COMMIT", "migrate")) < 0)
			goto out;
	}
out:
	db_rollback(h);
	return err;
}

/* pid_alive(pid): EPERM means someone else's process, alive all the same. */
static void sql_pid_alive(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	pid_t pid = (pid_t)sqlite3_value_int64(argv[0]);

	(void)argc;
	sqlite3_result_int(ctx, !(kill(pid, 0) == -1 && errno == ESRCH));
}

/* A pid means something only on its own host. */
static int mark_dead_runs(struct history *h)
{
	char host[HOST_NAME_MAX + 1];
	sqlite3_stmt *st = NULL;
	int err;

	if (gethostname(host, sizeof(host)) < 0)
		return error_set_errno(ERR_GENERIC, "cannot get the host name");
	host[sizeof(host) - 1] = '\0';
	if (sqlite3_create_function(h->db, "pid_alive", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
				    sql_pid_alive, NULL, NULL) != SQLITE_OK)
		return db_error(h, "set up");
	if ((err = db_prepare(h, &st, "UPDATE runs SET status = 'interrupted'"
			      " WHERE status = 'running' AND host = ?1 AND NOT pid_alive(pid)",
			      "mark dead runs in")) < 0)
		return err;
	if (sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE)
		err = db_error(h, "mark dead runs in");
	sqlite3_finalize(st);
	return err;
}

int history_open(struct history **out, const char *path)
{
	struct history *h = xcalloc(1, sizeof(*h));
	char *lock_path = xasprintf("%s.lock", path);
	int err, lock_fd;

	*out = NULL;
	h->path = xstrdup(path);
	/*
	 * Creating the file, switching it to WAL and migrating race between
	 * benches that open a new database at once (sqlite answers "database
	 * is locked" without waiting), so they take turns on a lock file.
	 */
	lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX) < 0) {
		err = error_set_errno(ERR_GENERIC, "cannot open history database '%s'", path);
		goto out;
	}
	if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		err = db_error(h, "open");
		goto out;
	}
	sqlite3_busy_timeout(h->db, BUSY_TIMEOUT_MS);
	/*
	 * WAL lets `fpubench history` read while a run writes.  synchronous
	 * FULL syncs the WAL at every commit, so a finished cell survives a
	 * power cut too, not only a SIGKILL; one fsync per cell is nothing
	 * next to a guest boot.
	 */
	if ((err = db_exec(h, "PRAGMA foreign_keys = ON", "set up")) < 0 ||
	    (err = db_exec(h, "PRAGMA journal_mode = WAL", "set up")) < 0 ||
	    (err = db_exec(h, "PRAGMA synchronous = FULL", "set up")) < 0 ||
	    (err = migrate(h)) < 0 ||
	    (err = mark_dead_runs(h)) < 0)
		goto out;
	*out = h;
	h = NULL;
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(lock_path);
	history_free(h);
	return err;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}

int history_schema_version(struct history *h)
{
	int version, err;

	if ((err = read_version(h, &version)) < 0)
		return err;
	return version;
}

/*
 * The writes below are single statements in autocommit mode: each is a
 * transaction of its own, and sqlite's busy handler covers its lock.
 */
static int step_write(struct history *h, sqlite3_stmt *st, int bound, const char *what)
{
	int err = 0;

	if (bound != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
		err = db_error(h, what);
	sqlite3_finalize(st);
	return err;
}

int history_begin_run(struct history *h, const struct history_run_info *info, int64_t *run_id)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	*run_id = 0;
	if ((err = db_prepare(h, &st, "INSERT INTO runs (line, command, host, version, run_dir,"
			      " pid, started) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
			      "add a run to")) < 0)
		return err;
	rc = sqlite3_bind_text(st, 1, info->line, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 2, info->command, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 3, info->host, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 4, info->version, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 5, info->run_dir, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_int64(st, 6, info->pid);
	rc |= sqlite3_bind_int64(st, 7, info->started);
	if ((err = step_write(h, st, rc, "add a run to")) < 0)
		return err;
	*run_id = sqlite3_last_insert_rowid(h->db);
	return 0;
}

int history_add_kernel(struct history *h, int64_t run_id, const struct history_kernel *k,
		       int64_t *kernel_id)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	*kernel_id = 0;
	if ((err = db_prepare(h, &st, "INSERT INTO kernels (run_id, variant, \"commit\","
			      " config_hash, build_id, build_seconds, provenance, kernel_version)"
			      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", "add a kernel to")) < 0)
		return err;
	rc = sqlite3_bind_int64(st, 1, run_id);
	rc |= sqlite3_bind_text(st, 2, k->variant, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 3, k->commit, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 4, k->config_hash, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 5, k->build_id, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_double(st, 6, k->build_seconds);
	rc |= sqlite3_bind_text(st, 7, k->provenance, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 8, k->version, -1, SQLITE_STATIC);
	if ((err = step_write(h, st, rc, "add a kernel to")) < 0)
		return err;
	*kernel_id = sqlite3_last_insert_rowid(h->db);
	return 0;
}

int history_kernel_commit(struct history *h, int64_t run_id, const char *variant, char **commit)
{
	sqlite3_stmt *st = NULL;
	int err;

	*commit = NULL;
	if ((err = db_prepare(h, &st, "SELECT \"commit\" FROM kernels WHERE run_id = ?1 AND "
			      "variant = ?2 ORDER BY id LIMIT 1", "read")) < 0)
		return err;
	if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
	    sqlite3_bind_text(st, 2, variant, -1, SQLITE_STATIC) != SQLITE_OK)
		err = db_error(h, "read");
	else if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		*commit = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return err;
}

int history_add_bisection(struct history *h, int64_t run_id, const struct history_bisection *b)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if ((err = db_prepare(h, &st, "INSERT INTO bisections (run_id, variant, cpu, test, good,"
			      " bad, outcome, culprit, confidence, mail)"
			      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
			      "add a bisection to")) < 0)
		return err;
	rc = sqlite3_bind_int64(st, 1, run_id);
	rc |= sqlite3_bind_text(st, 2, b->variant, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 3, b->cpu, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 4, b->test, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 5, b->good, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 6, b->bad, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 7, b->outcome, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 8, b->culprit, -1, SQLITE_STATIC);
	rc |= b->culprit ? sqlite3_bind_double(st, 9, b->confidence) : sqlite3_bind_null(st, 9);
	rc |= sqlite3_bind_text(st, 10, b->mail, -1, SQLITE_STATIC);
	return step_write(h, st, rc, "add a bisection to");
}

int history_add_cell(struct history *h, int64_t run_id, const struct history_cell *c)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if ((err = db_prepare(h, &st, "INSERT INTO cells (run_id, kernel_id, cpu, cmdline, test,"
			      " status, crash, reason, host, duration_s, console)"
			      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
			      "add a cell to")) < 0)
		return err;
	rc = sqlite3_bind_int64(st, 1, run_id);
	rc |= sqlite3_bind_int64(st, 2, c->kernel_id);
	rc |= sqlite3_bind_text(st, 3, c->cpu, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 4, c->cmdline, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 5, c->test, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 6, verdict_name(c->status), -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 7, c->crash, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 8, c->reason, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 9, c->host, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_double(st, 10, c->duration_s);
	rc |= sqlite3_bind_text(st, 11, c->console, -1, SQLITE_STATIC);
	return step_write(h, st, rc, "add a cell to");
}

int history_end_run(struct history *h, int64_t run_id, bool complete)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if ((err = db_prepare(h, &st, "UPDATE runs SET status = ?2, ended = ?3 WHERE id = ?1",
			      "end a run in")) < 0)
		return err;
	rc = sqlite3_bind_int64(st, 1, run_id);
	rc |= sqlite3_bind_text(st, 2, complete ? "complete" : "interrupted", -1, SQLITE_STATIC);
	rc |= sqlite3_bind_int64(st, 3, (int64_t)time(NULL));
	if ((err = step_write(h, st, rc, "end a run in")) < 0)
		return err;
	if (sqlite3_changes(h->db) == 0)
		return error_set(ERR_GENERIC, "cannot end run %" PRId64 " in history database '%s': "
				 "no such run", run_id, h->path);
	return 0;
}

/* The last complete run of run_id's line before it, or 0; an unknown run is an error. */
static int find_previous(struct history *h, int64_t run_id, int64_t *previous)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if ((err = db_prepare(h, &st, "SELECT (SELECT max(p.id) FROM runs p WHERE p.line = r.line"
			      " AND p.status = 'complete' AND p.id < r.id) FROM runs r WHERE r.id = ?1",
			      "read")) < 0)
		return err;
	if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK) {
		err = db_error(h, "read");
	} else if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*previous = sqlite3_column_int64(st, 0);
	} else if (rc == SQLITE_DONE) {
		err = error_set(ERR_GENERIC, "history database '%s' has no run %" PRId64, h->path,
				run_id);
	} else {
		err = db_error(h, "read");
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
	" c AS (SELECT c.id, c.run_id, k.variant, c.cpu, c.test, c.status FROM cells c"
	"   JOIN kernels k ON k.id = c.kernel_id WHERE c.run_id IN w OR c.run_id = ?3)"
	" SELECT variant, cpu, test, run_id, status, run_id IN w FROM c"
	" WHERE (variant, cpu, test) IN (SELECT variant, cpu, test FROM c WHERE run_id = ?1)"
	" ORDER BY variant, cpu, test, run_id, id";

static bool strip_is(const struct history_strip *s, sqlite3_stmt *st)
{
	return strcmp(s->variant, column_str(st, 0)) == 0 && strcmp(s->cpu, column_str(st, 1)) == 0 &&
	       strcmp(s->test, column_str(st, 2)) == 0;
}

/*
 * The strips of run_id over `max` runs; with `before`, also each strip's
 * status in run `previous` (VERDICT_COUNT: none), in an array the caller
 * frees.  When a run holds a cell twice (a retry), the later one counts.
 */
static int load_strips(struct history *h, int64_t run_id, size_t max, int64_t previous,
		       struct history_strips **out, enum verdict **before)
{
	struct history_strips *s = xcalloc(1, sizeof(*s));
	enum verdict *b = NULL;
	sqlite3_stmt *st = NULL;
	int err, rc;

	*out = NULL;
	if ((err = db_prepare(h, &st, strips_sql, "read")) < 0)
		goto out;
	rc = sqlite3_bind_int64(st, 1, run_id);
	rc |= sqlite3_bind_int64(st, 2, max > INT64_MAX ? INT64_MAX : (int64_t)max);
	rc |= sqlite3_bind_int64(st, 3, previous);
	if (rc != SQLITE_OK) {
		err = db_error(h, "read");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct history_strip *strip = s->n ? &s->strips[s->n - 1] : NULL;
		int64_t run = sqlite3_column_int64(st, 3);
		enum verdict v;

		if ((err = column_verdict(h, st, 4, &v)) < 0)
			goto out;
		if (!strip || !strip_is(strip, st)) {
			s->strips = xrealloc(s->strips, (s->n + 1) * sizeof(*s->strips));
			b = xrealloc(b, (s->n + 1) * sizeof(*b));
			strip = &s->strips[s->n];
			*strip = (struct history_strip){
				.variant = xstrdup(column_str(st, 0)),
				.cpu = xstrdup(column_str(st, 1)),
				.test = xstrdup(column_str(st, 2)),
			};
			b[s->n++] = VERDICT_COUNT;
		}
		if (run == previous)
			b[s->n - 1] = v;
		if (!sqlite3_column_int(st, 5))
			continue;
		if (!strip->n || strip->run_ids[strip->n - 1] != run) {
			strip->statuses = xrealloc(strip->statuses, (strip->n + 1) * sizeof(*strip->statuses));
			strip->run_ids = xrealloc(strip->run_ids, (strip->n + 1) * sizeof(*strip->run_ids));
			strip->run_ids[strip->n++] = run;
		}
		strip->statuses[strip->n - 1] = v;
	}
	if (rc != SQLITE_DONE) {
		err = db_error(h, "read");
		goto out;
	}
	*out = s;
	s = NULL;
	if (before) {
		*before = b;
		b = NULL;
	}
out:
	sqlite3_finalize(st);
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
	if ((err = db_exec(h, "BEGIN", "read")) < 0)
		return err;
	/* Run ids start at 1: previous 0 asks for no extra run. */
	if ((err = find_previous(h, run_id, &previous)) == 0)
		err = load_strips(h, run_id, max, 0, out, NULL);
	db_rollback(h);
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
	}
	free(s->strips);
	free(s);
}

static bool is_failure(enum verdict v)
{
	return v == VERDICT_FAIL || v == VERDICT_CRASH || v == VERDICT_TIMEOUT;
}

static bool strip_has_change(const struct history_strip *s, enum verdict before,
			     enum history_change change)
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
	}
	return false;
}

static void diff_add(struct history_diff *d, enum history_change change,
		     const struct history_strip *s, enum verdict before)
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
}

int history_compare(struct history *h, int64_t run_id, struct history_diff **out)
{
	struct history_diff *d = xcalloc(1, sizeof(*d));
	struct history_strips *s = NULL;
	enum verdict *before = NULL;
	int err;

	*out = NULL;
	if ((err = db_exec(h, "BEGIN", "read")) < 0)
		goto out;
	if ((err = find_previous(h, run_id, &d->previous_run)) < 0 ||
	    (err = load_strips(h, run_id, FLAKY_RUNS, d->previous_run, &s, &before)) < 0)
		goto out;
	/* The strips come sorted by key: one pass a kind sorts the entries. */
	for (int change = HISTORY_CHANGE_NEW_FAILURE; change <= HISTORY_CHANGE_FLAKY; change++)
		for (size_t i = 0; i < s->n; i++)
			if (strip_has_change(&s->strips[i], before[i], change))
				diff_add(d, change, &s->strips[i], before[i]);
	*out = d;
	d = NULL;
out:
	db_rollback(h);
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
	}
	free(d->entries);
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
		fprintf(f, "compared with run %" PRId64 ": new failures %zu, fixed %zu, flaky %zu\n",
			d->previous_run, history_diff_count(d, HISTORY_CHANGE_NEW_FAILURE),
			history_diff_count(d, HISTORY_CHANGE_FIXED), history_diff_count(d, HISTORY_CHANGE_FLAKY));
	else
		fprintf(f, "no previous complete run to compare with\n");
	for (size_t i = 0; i < d->nentries; i++) {
		const struct history_change_entry *e = &d->entries[i];

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
 * A cell matches a query's test (?2) and cpu (?3), a setup or its model:
 * the part before ':'.  Shared by the run and the cell selection.
 */
#define CELL_MATCHES \
	"(?2 IS NULL OR c.test = ?2) AND (?3 IS NULL OR c.cpu = ?3" \
	" OR substr(c.cpu, 1, length(?3) + 1) = ?3 || ':')"

static const char print_runs_sql[] =
	"SELECT r.id, r.started, r.status, r.line, r.host FROM runs r"
	" WHERE (?2 IS NULL AND ?3 IS NULL)"
	"   OR EXISTS (SELECT 1 FROM cells c WHERE c.run_id = r.id AND " CELL_MATCHES ")"
	" ORDER BY r.id DESC LIMIT ?1";

static const char print_cells_sql[] =
	"SELECT k.variant || coalesce(' ' || k.kernel_version, ''), c.cpu, c.test, c.status, c.duration_s,"
	" coalesce(c.crash, c.reason, '') FROM cells c JOIN kernels k ON k.id = c.kernel_id"
	" WHERE c.run_id = ?1 AND " CELL_MATCHES " ORDER BY c.id";

static int bind_query(sqlite3_stmt *st, const struct history_query *q)
{
	int rc = sqlite3_bind_text(st, 2, q->test, -1, SQLITE_STATIC);

	return rc | sqlite3_bind_text(st, 3, q->cpu, -1, SQLITE_STATIC);
}

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Two passes over the cells: the column widths, then the lines. */
static int print_cells(struct history *h, sqlite3_stmt *st, int64_t run_id, FILE *f)
{
	size_t wv = 0, wc = 0, wt = 0, n = 0;
	int rc;

	sqlite3_reset(st);
	if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK)
		return db_error(h, "read");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		wv = max_size(wv, strlen(column_str(st, 0)));
		wc = max_size(wc, strlen(column_str(st, 1)));
		wt = max_size(wt, strlen(column_str(st, 2)));
		n++;
	}
	if (rc != SQLITE_DONE)
		return db_error(h, "read");
	if (n == 0) {
		fprintf(f, "  (no cells)\n");
		return 0;
	}
	sqlite3_reset(st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(f, "  %-*s  %-*s  %-*s  %-7s  %6.1f s%s%s\n", (int)wv, column_str(st, 0),
			(int)wc, column_str(st, 1), (int)wt, column_str(st, 2), column_str(st, 3),
			sqlite3_column_double(st, 4), *column_str(st, 5) ? "  " : "",
			column_str(st, 5));
	if (rc != SQLITE_DONE)
		return db_error(h, "read");
	return 0;
}

int history_print(struct history *h, const struct history_query *q, FILE *f)
{
	sqlite3_stmt *runs = NULL, *cells = NULL;
	size_t nruns = 0;
	int err, rc;

	if ((err = db_exec(h, "BEGIN", "read")) < 0 ||
	    (err = db_prepare(h, &runs, print_runs_sql, "read")) < 0 ||
	    (err = db_prepare(h, &cells, print_cells_sql, "read")) < 0)
		goto out;
	/* LIMIT -1 is no limit. */
	rc = sqlite3_bind_int64(runs, 1, q->last == 0 || q->last > INT64_MAX ? -1 : (int64_t)q->last);
	rc |= bind_query(runs, q);
	rc |= bind_query(cells, q);
	if (rc != SQLITE_OK) {
		err = db_error(h, "read");
		goto out;
	}
	while ((rc = sqlite3_step(runs)) == SQLITE_ROW) {
		char started[32];

		date_format_iso8601(started, sizeof(started), sqlite3_column_int64(runs, 1));
		fprintf(f, "%srun %" PRId64 "  %s  %-11s  host %s  line %s\n", nruns++ ? "\n" : "",
			(int64_t)sqlite3_column_int64(runs, 0), started, column_str(runs, 2),
			column_str(runs, 4), column_str(runs, 3));
		if ((err = print_cells(h, cells, sqlite3_column_int64(runs, 0), f)) < 0)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		err = db_error(h, "read");
		goto out;
	}
	if (nruns == 0)
		fprintf(f, "no matching runs\n");
out:
	sqlite3_finalize(runs);
	sqlite3_finalize(cells);
	db_rollback(h);
	return err;
}
