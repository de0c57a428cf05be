/*
 * history_db: what history.c (opening, migrating, writing) and
 * history_read.c (comparing, strips, the listing) share: the handle and
 * the SQLite helpers that set the error message once.  Not for other
 * modules: they use history.h.
 */
#ifndef FPUBENCH_HISTORY_DB_H
#define FPUBENCH_HISTORY_DB_H

#include "history.h"

#include <sqlite3.h>

struct history {
	sqlite3 *db;
	char *path;
};

int history_db_error(struct history *h, const char *what);
int history_db_exec(struct history *h, const char *sql, const char *what);
int history_db_prepare(struct history *h, sqlite3_stmt **st, const char *sql, const char *what);
void history_db_rollback(struct history *h);
const char *history_column_str(sqlite3_stmt *st, int i);
int history_column_verdict(struct history *h, sqlite3_stmt *st, int i, enum verdict *out);

#endif
