/*
 * cmd: the commands of the command line, one file each (cmd_NAME.c), and
 * what run, test and bisect share (cmd.c).  main.c only finds the command,
 * parses its options (options.h) and calls it.
 *
 * The contract: a command returns its exit status (0 or above: the
 * result it reports, e.g. 1 for a failed cell or 2-4 for bisect's
 * outcomes) once it has done its work, or a negative error code with the
 * message set, which main() prints and maps through error_exit_status().
 * Statuses are documented in docs/fpubench.md ("EXIT STATUS").
 */
#ifndef FPUBENCH_CMD_H
#define FPUBENCH_CMD_H

#include "options.h"

#include "lib/runtime.h"
#include "run/conf.h"
#include "run/session.h"

#include <signal.h>

#define CMD_DEFAULT_TARBALL "/usr/src/linux-source-6.1.tar.xz"

/*
 * The whole command line: argv[1] is the command (or --help, --version,
 * help [COMMAND]).  Prints the error of a failure to stderr and returns
 * the exit status.
 */
int cmd_main(int argc, char **argv);

/* The boot stage's exit statuses (boot/errors.h), beside lib/error.h's. */
enum cmd_exit_status {
	EXIT_CPU = 132,		/* libvirt does not know a CPU model or feature */
	EXIT_LIBVIRT = 134,	/* libvirt unreachable, a guest could not start, an error cell */
};

/* The exit status of an error code: lib/error.h's table and the boot stage's codes. */
int cmd_exit_status(int code);

/* The signal that asked the bench to stop, or 0. */
extern volatile sig_atomic_t cmd_stop_signal;

int cmd_run(struct options *o);
int cmd_test(struct options *o);
int cmd_bisect(struct options *o);
int cmd_history(struct options *o);
int cmd_console(struct options *o);
int cmd_provenance(struct options *o);
int cmd_tree(struct options *o);
int cmd_lava(struct options *o);

/* Each command's definition (options.h), beside its code. */
extern const struct command_def cmd_run_def, cmd_test_def, cmd_bisect_def, cmd_history_def,
	cmd_console_def, cmd_provenance_def, cmd_tree_def, cmd_lava_def;

/*
 * What run, test, bisect and history share: fills what the command line
 * (and for run the config) left unset, and parses --uri; the boards of the
 * labs picked are setups too unless --cpu chose.  The defaults are
 * the user's directories and, but for history, fpubench's data beside the
 * executable (runtime_data_path()); o owns them after this (cmd_release()
 * frees them).
 */
int cmd_prepare(struct options *o, const struct conf *c);

/* Adds the board's setup, "@BOARD", to --cpu's list (o owns it). */
void cmd_add_board_setup(struct options *o, const char *board);

/* Sets *field to where `what` is beside the executable, unless it is set; o owns it. */
int cmd_data_default(struct options *o, const char **field, enum runtime_data what);

void cmd_release(struct options *o);

/* The config fragment a build uses (caller frees). */
char *cmd_fragment_path(const struct options *o);

/* Where the i-th --patch is read from: the file named, or for "-" the copy of standard input. */
const char *cmd_patch_path(const struct options *o, size_t i);

/*
 * Refuses unknown or malformed test names, a missing fragment, and patch
 * files that are unreadable, hold no patch or hold junk: before anything is built.
 */
int cmd_check_inputs(const struct options *o, const char *fragment);

/* Whether the test's cells count: no --test means all of them. */
bool cmd_test_selected(const struct options *o, const char *test);

/* Parses the setups and builds the kernels of the command line (run: of `tree`), inputs checked first. */
int cmd_build(struct session *s, const struct options *o, const struct conf_tree *tree);

struct session_config cmd_session_config(const struct options *o, const struct conf *c);

/*
 * run and test: build, boot, write the results; with a tree (run), also
 * keep the run in the history and write the reports.  Ends with the
 * summary on stdout (summary.h), after the whole matrix with --verbose.
 * Returns the exit status or a negative error.
 */
int cmd_matrix(struct session *s, const struct options *o, const struct conf_tree *tree);

#endif
