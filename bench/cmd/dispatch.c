#include "cmd.h"

#include "boot/guest.h"
#include "lab/lab.h"
#include "lib/error.h"
#include "lib/spawn.h"

#include <git2.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#ifndef FPUBENCH_VERSION
#define FPUBENCH_VERSION "unknown"
#endif

int cmd_exit_status(int code)
{
	if (code == ERR_CPU)
		return EXIT_CPU;
	if (code == ERR_LIBVIRT)
		return EXIT_LIBVIRT;
	return error_exit_status(code);
}

const struct command_def *const command_defs[] = {
	&cmd_run_def, &cmd_test_def, &cmd_bisect_def, &cmd_history_def, &cmd_console_def,
	&cmd_provenance_def, &cmd_tree_def, &cmd_lava_def, NULL,
};

static void on_signal(int sig)
{
	cmd_stop_signal = sig;
	guest_interrupt();
	lab_interrupt();
	spawn_interrupt();
}

static int usage_error(const char *what, const char *word)
{
	fprintf(stderr, "fpubench: %s '%s' (see 'fpubench --help')\n", what, word);
	return EXIT_USAGE;
}

/* `fpubench`, `--help`, `--version` and `help [COMMAND]`: 0, or a usage error. */
static int global(int argc, char **argv)
{
	if (argc < 2) {
		options_print_commands(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("fpubench %s\n", FPUBENCH_VERSION);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--dump-options") == 0) {	/* for `make man` and `make completion` */
		options_dump(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		options_print_commands(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0) {
		enum cmd cmd = options_command(argv[2]);

		if (!cmd || argc > 3)
			return usage_error("unknown command", argv[argc > 3 ? 3 : 2]);
		options_print_help(stdout, cmd);
		return EXIT_OK;
	}
	if (argv[1][0] == '-')
		return usage_error("options follow the command, not", argv[1]);
	return usage_error("unknown command", argv[1]);
}

int cmd_main(int argc, char **argv)
{
	struct options o = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	enum cmd cmd = argc >= 2 ? options_command(argv[1]) : 0;
	const struct command_def *def = cmd ? options_command_def(cmd) : NULL;
	int status;

	if (!def)
		return global(argc, argv);
	status = options_parse(&o, cmd, argc - 1, argv + 1);
	if (status == 1) {
		options_release(&o);
		return EXIT_OK;
	}
	if (status == 0 && !def->operands && o.operands.n)
		status = error_set(ERR_USAGE, "unexpected argument '%s'", o.operands.v[0]);
	if (status == 0) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		git_libgit2_init();
		status = def->run(&o);
		git_libgit2_shutdown();
	}
	if (status < 0 && cmd_stop_signal) {
		status = 128 + cmd_stop_signal;
	} else if (status < 0) {
		fprintf(stderr, "fpubench: %s\n", error_last());
		status = cmd_exit_status(status);
	}
	cmd_release(&o);
	return status;
}
