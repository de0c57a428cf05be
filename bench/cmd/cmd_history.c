#include "cmd.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "record/history.h"

#include <stdio.h>

/* history: past runs, newest first, and their cells with a line per run. */
int cmd_history(struct options *o)
{
	struct history *h;
	struct history_query q = {
		.test = o->tests.n ? o->tests.v[0] : NULL,
		.cpu = o->cpus.n ? o->cpus.v[0] : NULL,
	};
	int err;

	if ((err = cmd_prepare(o, NULL)) < 0)
		return err;
	q.last = o->all ? 0 : o->last ? (size_t)o->last : 10;
	if (o->tests.n > 1 || o->cpus.n > 1)
		return error_set(ERR_USAGE, "'history' takes one --test and one --cpu");
	if (!file_exists(o->history))
		return error_set(ERR_NOTFOUND, "no history database '%s' (no run yet?)", o->history);
	if ((err = history_open(&h, o->history)) < 0)
		return err;
	err = history_print(h, &q, stdout);
	history_free(h);
	return err;
}

