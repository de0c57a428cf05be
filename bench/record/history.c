#include "history.h"
#include "history_db.h"

#include "lib/array.h"
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


/*
 * Another bench's writes take milliseconds; a lock held longer than this
 * belongs to a stuck process, and saying so beats waiting for ever.
 */
#define BUSY_TIMEOUT_MS 30000


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
	/* 4: what each cell was expected to give; NULL in the cells of the runs before. */
	"ALTER TABLE cells ADD COLUMN expected TEXT"
	"  CHECK (expected IN ('pass', 'skip', 'fail', 'timeout', 'crash', 'error'));",
	/* 5: the LAVA job a lab's cell ran in (its URL), NULL for libvirt's. */
	"ALTER TABLE cells ADD COLUMN job_url TEXT;",
};

#define NMIGRATIONS ((int)(ARRAY_SIZE(migrations)))

/* A file that is no database, or a damaged one, is bad input, not a fault of ours. */
static int error_code_of(sqlite3 *db)
{
	int rc = sqlite3_errcode(db);

	return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? ERR_INPUT : ERR_GENERIC;
}

/* "cannot <what> history database '<path>': <sqlite's message>" */
int history_db_error(struct history *h, const char *what)
{
	return error_set(error_code_of(h->db), "cannot %s history database '%s': %s", what,
			 h->path, sqlite3_errmsg(h->db));
}

int history_db_exec(struct history *h, const char *sql, const char *what)
{
	if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return history_db_error(h, what);
	return 0;
}

int history_db_prepare(struct history *h, sqlite3_stmt **st, const char *sql, const char *what)
{
	if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK)
		return history_db_error(h, what);
	return 0;
}

/* Ends a transaction left open by a failure; reads end here too. */
void history_db_rollback(struct history *h)
{
	if (!sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

/* NOT NULL columns are NULL only when sqlite ran out of memory. */
const char *history_column_str(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

int history_column_verdict(struct history *h, sqlite3_stmt *st, int i, enum verdict *out)
{
	if (verdict_parse(history_column_str(st, i), out) < 0)
		return error_set(ERR_INPUT, "history database '%s' holds an unknown status '%s'",
				 h->path, history_column_str(st, i));
	return 0;
}

static int read_version(struct history *h, int *version)
{
	sqlite3_stmt *st = NULL;
	int err;

	if ((err = history_db_prepare(h, &st, "PRAGMA user_version", "read the version of")) < 0)
		return err;
	if (sqlite3_step(st) == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	else
		err = history_db_error(h, "read the version of");
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

		if ((err = history_db_exec(h, "BEGIN IMMEDIATE", "lock")) < 0 ||
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
		if (err < 0 || (err = history_db_exec(h, "COMMIT", "migrate")) < 0)
			goto out;
	}
out:
	history_db_rollback(h);
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
		return history_db_error(h, "set up");
	if ((err = history_db_prepare(h, &st, "UPDATE runs SET status = 'interrupted'"
			      " WHERE status = 'running' AND host = ?1 AND NOT pid_alive(pid)",
			      "mark dead runs in")) < 0)
		return err;
	if (sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE)
		err = history_db_error(h, "mark dead runs in");
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
		err = history_db_error(h, "open");
		goto out;
	}
	sqlite3_busy_timeout(h->db, BUSY_TIMEOUT_MS);
	/*
	 * WAL lets `fpubench history` read while a run writes.  synchronous
	 * FULL syncs the WAL at every commit, so a finished cell survives a
	 * power cut too, not only a SIGKILL; one fsync per cell is nothing
	 * next to a guest boot.
	 */
	if ((err = history_db_exec(h, "PRAGMA foreign_keys = ON", "set up")) < 0 ||
	    (err = history_db_exec(h, "PRAGMA journal_mode = WAL", "set up")) < 0 ||
	    (err = history_db_exec(h, "PRAGMA synchronous = FULL", "set up")) < 0 ||
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
		err = history_db_error(h, what);
	sqlite3_finalize(st);
	return err;
}

int history_begin_run(struct history *h, const struct history_run_info *info, int64_t *run_id)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	*run_id = 0;
	if ((err = history_db_prepare(h, &st, "INSERT INTO runs (line, command, host, version, run_dir,"
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
	if ((err = history_db_prepare(h, &st, "INSERT INTO kernels (run_id, variant, \"commit\","
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

int history_move_line(struct history *h, const char *from, const char *series, const char *to)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	/* GLOB, not LIKE: "6.1" must not take "6.12.1", nor '_' stand for any character. */
	if ((err = history_db_prepare(h, &st, "UPDATE runs SET line = ?3 WHERE line = ?1 AND id IN"
			      " (SELECT run_id FROM kernels WHERE kernel_version GLOB ?2 || '.*')",
			      "move the runs of")) < 0)
		return err;
	rc = sqlite3_bind_text(st, 1, from, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 2, series, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 3, to, -1, SQLITE_STATIC);
	return step_write(h, st, rc, "move the runs of");
}

int history_kernel_commit(struct history *h, int64_t run_id, const char *variant, char **commit)
{
	sqlite3_stmt *st = NULL;
	int err;

	*commit = NULL;
	if ((err = history_db_prepare(h, &st, "SELECT \"commit\" FROM kernels WHERE run_id = ?1 AND "
			      "variant = ?2 ORDER BY id LIMIT 1", "read")) < 0)
		return err;
	if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
	    sqlite3_bind_text(st, 2, variant, -1, SQLITE_STATIC) != SQLITE_OK)
		err = history_db_error(h, "read");
	else if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		*commit = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return err;
}

int history_add_bisection(struct history *h, int64_t run_id, const struct history_bisection *b)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if ((err = history_db_prepare(h, &st, "INSERT INTO bisections (run_id, variant, cpu, test, good,"
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

	if ((err = history_db_prepare(h, &st, "INSERT INTO cells (run_id, kernel_id, cpu, cmdline, test,"
			      " status, crash, reason, host, duration_s, console, expected, job_url)"
			      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
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
	rc |= sqlite3_bind_text(st, 12, verdict_name(c->expected), -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(st, 13, c->job_url, -1, SQLITE_STATIC);
	return step_write(h, st, rc, "add a cell to");
}

int history_end_run(struct history *h, int64_t run_id, bool complete)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if ((err = history_db_prepare(h, &st, "UPDATE runs SET status = ?2, ended = ?3 WHERE id = ?1",
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

