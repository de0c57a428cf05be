#include "cmd.h"

#include "lib/error.h"

#include <stdio.h>

/* run: each tree of the config is a run of its own; the worst status wins. */
static int run_trees(struct options *o, const struct conf *c)
{
	int status = EXIT_OK;

	for (size_t i = 0; i < c->ntrees && !cmd_stop_signal; i++) {
		struct session s = { .cfg = cmd_session_config(o, c) };
		int err;

		if (c->ntrees > 1)
			printf("tree %s\n", c->trees[i].name);
		err = cmd_matrix(&s, o, &c->trees[i]);
		session_release(&s);
		if (err < 0) {
			if (cmd_stop_signal)
				return err;
			fprintf(stderr, "fpubench: %s\n", error_last());
			err = cmd_exit_status(err);
		}
		if (err > status)
			status = err;
	}
	return status;
}


int cmd_run(struct options *o)
{
	struct conf *c = NULL;
	int err;

	if ((err = cmd_data_default(o, &o->conf_path, RUNTIME_CONF)) == 0 &&
	    (err = conf_load(&c, o->conf_path)) == 0 && (err = cmd_prepare(o, c)) == 0)
		err = run_trees(o, c);
	conf_free(c);
	return err;
}

static const struct opt run_options[] = {
	OPT_ROW_CPU,
	OPT_ROW_APPEND,
	OPT_ROW_URI,
	OPT_ROW_LAB,
	{ "config", 0, "FILE", OPT_STRING, OPT_FIELD(conf_path), 0, 0,
	  "the config (default: the fpubench.conf that comes with fpubench)" },
	{ "variant", 0, "NAME", OPT_LIST, OPT_FIELD(variants), 0, 0,
	  "build and boot only this variant of patches/variants; repeatable" },
	OPT_ROW_TEST,
	OPT_ROW_HISTORY,
	OPT_ROWS_MATRIX,
	OPT_END,
};

const struct command_def cmd_run_def = {
	CMD_RUN, "run", "fpubench run [OPTION]...",
	"build the variants and run the matrix, as fpubench.conf says",
	"Builds every variant of patches/variants (or those named) on each tree of the\n"
	"config, boots each on every CPU setup and judges every test: a cell per\n"
	"(kernel, setup, test). Keeps the run in the history, compares it with the\n"
	"previous one and writes RESULTS/<run>/ with report.html, junit.xml and\n"
	"kcidb.json. Exits 0 when every cell met its expectation and none newly failed.",
	run_options, cmd_run, false,
};
