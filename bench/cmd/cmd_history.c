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

static const struct opt history_options[] = {
	{ "cpu", 0, "SETUP", OPT_LIST, OPT_FIELD(cpus), 0, 0,
	  "show only this setup's cells" },
	{ "test", 0, "NAME", OPT_LIST, OPT_FIELD(tests), 0, 0,
	  "show only this test's cells" },
	OPT_ROW_HISTORY,
	{ "last", 0, "N", OPT_LONG, OPT_FIELD(last), 1, 1000000,
	  "show the N newest runs (default: 10)" },
	{ "all", 0, NULL, OPT_FLAG, OPT_FIELD(all), 0, 0,
	  "show every run" },
	OPT_ROW_CACHE,
	OPT_END,
};

const struct command_def cmd_history_def = {
	CMD_HISTORY, "history", "fpubench history [OPTION]...",
	"past runs and their cells, newest first",
	"Prints the newest runs of the history database, each with its cells: what\n"
	"each gave, what was expected and whether that was met.",
	history_options, cmd_history, false,
};
