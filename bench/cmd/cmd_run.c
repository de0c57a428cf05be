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
			err = error_exit_status(err);
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
