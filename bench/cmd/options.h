/*
 * options: the command line of every fpubench command.
 *
 * Each command declares its own option rows beside its code (cmd_NAME.c:
 * its struct command_def, with the rows it takes, ended by OPT_END), as
 * git's parse-options does; rows several commands share are the OPT_ROW_*
 * macros below.  A row says the option's long and short names, the name of
 * its value, how the value is parsed and where it is stored, and its help
 * line.  Parsing, each command's --help (every command takes -h/--help),
 * the man pages' OPTIONS and the "not an option of this command" error all
 * come from the rows; command_defs[] (dispatch.c) lists the commands.
 *
 * Syntax: `--name VALUE`, `--name=VALUE`, a unique prefix of one of the
 * command's long names (`--tim 5`), `-j4` or `-j 4` for the options with a
 * short name, `--` to end the options.  A value of `-` is standard input or
 * output where the option says so.  Numbers are whole decimal numbers
 * within the option's range; seconds may have a fraction.  The words that
 * are not options are the command's operands (LOG... for console, REV...
 * for provenance).
 *
 * struct options borrows every string from argv (or from the config it was
 * completed from); options_release() frees only the lists' arrays, and
 * cmd_release() what cmd_prepare() added.
 */
#ifndef FPUBENCH_OPTIONS_H
#define FPUBENCH_OPTIONS_H

#include "lib/strlist.h"
#include "run/conf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The commands, as bits, so a row names all the commands that take it. */
enum cmd {
	CMD_RUN = 1 << 0,
	CMD_TEST = 1 << 1,
	CMD_BISECT = 1 << 2,
	CMD_HISTORY = 1 << 3,
	CMD_CONSOLE = 1 << 4,
	CMD_PROVENANCE = 1 << 5,
	CMD_TREE = 1 << 6,
	CMD_LAVA = 1 << 7,
};

/* A repeatable option's values, in command-line order. */
struct optlist {
	const char **v;
	size_t n;
};

struct options {
	enum cmd command;
	const char *command_name;
	const char *cache;
	const char *patches;
	const char *results;
	const char *tarball;
	const char *tree;
	const char *repo;
	const char *good;
	const char *bad;
	const char *fragment;
	const char *conf_path;
	const char *history;
	const char *guest_dir;
	const char *append;	/* kernel parameters for every setup */
	const char *json;	/* console, provenance: FILE, or "-" for stdout */
	const char *stdin_patch;	/* test: where `--patch -` was copied (cmd_patch_path()) */
	const char *coverage;	/* test: the coverage output directory, or NULL */
	const char *emit;	/* lava: where the jobs and artefacts go */
	const char *url;	/* lava: the URL the artefacts are fetched from, or NULL */
	long jobs;
	long guests;		/* per host, when --jobs or the config says; else 0 */
	long last;
	long runs;
	double timeout_s;
	bool list;
	bool all;
	bool any_crash;		/* bisect: a crash with another title is bad, not skipped */
	bool rules;		/* console: print the title rules instead of scanning */
	bool fixed;		/* bisect: find the fix, BAD an ancestor of GOOD */
	bool verbose;		/* run, test: the whole matrix, not only the summary */
	bool no_restore;	/* run, test, bisect: boot every guest cold */
	bool fail_fast;		/* run, test: stop at the first unmet cell */
	struct optlist cpus;
	struct optlist variants;
	struct optlist patch_files;
	struct optlist tests;
	struct optlist archives;
	struct optlist uris;
	struct optlist labs;
	struct optlist operands;
	/* From the config (cmd_prepare()): */
	const char *report_from;	/* [report] from, the sender of regression.eml */
	int bisect;			/* [run] bisect: CONF_UNSET, CONF_YES or CONF_NO */
	double bisect_budget_s;		/* [run] bisect-budget; 0: the default */
	/* Filled by cmd_prepare() (cmd.h), which owns them: */
	struct conf_host *hosts;	/* from --uri */
	size_t nhosts;
	const struct conf_lab **lab_confs;	/* the labs --lab names (or the config's) */
	size_t nlab_confs;
	const char *kmod_src;		/* the test module's sources */
	struct strlist owned;		/* the defaults it found, which the fields above borrow */
};

enum opt_type {
	OPT_STRING,	/* the last one given wins */
	OPT_LIST,	/* repeatable; each value kept */
	OPT_LONG,	/* a whole number in [min, max] */
	OPT_SECONDS,	/* a number of seconds above 0, at most max */
	OPT_FLAG,	/* takes no value */
};

/* One option of a command. */
struct opt {
	const char *name;	/* the long name; NULL ends a command's rows */
	char short_name;	/* 0: none */
	const char *arg;	/* the value's name in --help; NULL for a flag */
	enum opt_type type;
	size_t offset;		/* of the field in struct options */
	long min, max;
	const char *help;
};

#define OPT_FIELD(f) offsetof(struct options, f)
#define OPT_END { NULL, 0, NULL, OPT_FLAG, 0, 0, 0, NULL }

/* The rows several commands share, with the same meaning for each. */
#define OPT_ROW_CPU \
	{ "cpu", 0, "SETUP", OPT_LIST, OPT_FIELD(cpus), 0, 0, \
	  "a CPU setup: MODEL[,-FEATURE|,+FEATURE]...[:KERNEL-PARAMS], as QEMU's -cpu, or " \
	  "@BOARD[:KERNEL-PARAMS], a lab's board; repeatable (default: the setups of the config " \
	  "and the boards of its labs)" }

#define OPT_ROW_APPEND \
	{ "append", 0, "PARAMS", OPT_STRING, OPT_FIELD(append), 0, 0, \
	  "kernel parameters added to every setup's command line, as they are " \
	  "(e.g. console=ttyS0,115200)" }

#define OPT_ROW_URI \
	{ "uri", 0, "[N@]URI", OPT_LIST, OPT_FIELD(uris), 0, 0, \
	  "a libvirt URI to boot on, N guests at once; repeatable, cells are spread over " \
	  "all (default: qemu:///embed?root=CACHE/libvirt, no daemon needed)" }

#define OPT_ROW_LAB \
	{ "lab", 0, "NAME", OPT_LIST, OPT_FIELD(labs), 0, 0, \
	  "boot on the LAVA lab [lab NAME] of the config (local: lava-run on this machine); " \
	  "repeatable, cells are spread over labs and --uri hosts (only labs: no libvirt)" }

#define OPT_ROW_TEST \
	{ "test", 0, "NAME", OPT_LIST, OPT_FIELD(tests), 0, 0, \
	  "boot only these guest tests and keep only their cells; test and bisect judge by " \
	  "them; repeatable (see 'fpubench test --list')" }

#define OPT_ROW_REPO \
	{ "repo", 0, "DIR", OPT_STRING, OPT_FIELD(repo), 0, 0, \
	  "the kernel git repository (default: the current directory); never modified" }

#define OPT_ROW_ARCHIVE \
	{ "archive", 0, "PATH", OPT_LIST, OPT_FIELD(archives), 0, 0, \
	  "a mail archive: mbox, maildir or public-inbox repository; repeatable" }

#define OPT_ROW_HISTORY \
	{ "history", 0, "FILE", OPT_STRING, OPT_FIELD(history), 0, 0, \
	  "the history database (default: $XDG_DATA_HOME/fpubench/history.db or " \
	  "~/.local/share/fpubench/history.db)" }

#define OPT_ROW_JSON \
	{ "json", 0, "FILE", OPT_STRING, OPT_FIELD(json), 0, 0, \
	  "also write the result as JSON to FILE (- for standard output)" }

#define OPT_ROW_CACHE \
	{ "cache", 0, "DIR", OPT_STRING, OPT_FIELD(cache), 0, 0, \
	  "kernel trees, builds, ccache and the libvirt root (default: " \
	  "$FPUBENCH_CACHE, $XDG_CACHE_HOME/fpubench or ~/.cache/fpubench)" }

#define OPT_ROW_PATCHES \
	{ "patches", 0, "DIR", OPT_STRING, OPT_FIELD(patches), 0, 0, \
	  "where series, variants and fpu.config are (default: the series that comes with " \
	  "fpubench)" }

#define OPT_ROW_TARBALL \
	{ "tarball", 0, "FILE", OPT_STRING, OPT_FIELD(tarball), 0, 0, \
	  "the kernel source tarball (default: $FPUBENCH_TARBALL or " \
	  "/usr/src/linux-source-6.1.tar.xz)" }

#define OPT_ROW_RESULTS \
	{ "results", 0, "DIR", OPT_STRING, OPT_FIELD(results), 0, 0, \
	  "where run directories go (default: $XDG_DATA_HOME/fpubench/results or " \
	  "~/.local/share/fpubench/results)" }

#define OPT_ROW_GUEST_DIR \
	{ "guest-dir", 0, "DIR", OPT_STRING, OPT_FIELD(guest_dir), 0, 0, \
	  "boot DIR/init instead of the built guest's (a testing aid, e.g. " \
	  "build/guest/misbehave/NAME)" }

#define OPT_ROW_JOBS \
	{ "jobs", 'j', "N", OPT_LONG, OPT_FIELD(jobs), 1, 1024, \
	  "make jobs, and guests at once on each host (default: the cores; guests: two per " \
	  "core, fewer when memory is short)" }

#define OPT_ROW_TIMEOUT \
	{ "timeout", 0, "SECONDS", OPT_SECONDS, OPT_FIELD(timeout_s), 0, 86400, \
	  "the limit for one boot (default: 60)" }

#define OPT_ROW_VERBOSE \
	{ "verbose", 'v', NULL, OPT_FLAG, OPT_FIELD(verbose), 0, 0, \
	  "print every cell, not only the summary with those that missed their expectation" }

#define OPT_ROW_NO_RESTORE \
	{ "no-restore", 0, NULL, OPT_FLAG, OPT_FIELD(no_restore), 0, 0, \
	  "boot every guest cold, not from the cache's saved guests" }

/* pytest's -x, cargo's and go test's fail-fast: a bisect step or a mutant needs one bad cell. */
#define OPT_ROW_FAIL_FAST \
	{ "fail-fast", 0, NULL, OPT_FLAG, OPT_FIELD(fail_fast), 0, 0, \
	  "stop at the first cell that misses its expectation: no more boots, those running " \
	  "are destroyed, the pairs left get a not-run cell" }

/* The rows of the two commands that build, boot and report a matrix: run and test. */
#define OPT_ROWS_MATRIX \
	OPT_ROW_CACHE, OPT_ROW_PATCHES, OPT_ROW_TARBALL, OPT_ROW_RESULTS, OPT_ROW_GUEST_DIR, \
	OPT_ROW_JOBS, OPT_ROW_TIMEOUT, OPT_ROW_NO_RESTORE, OPT_ROW_FAIL_FAST, OPT_ROW_VERBOSE

/* A command: its name, its help, its option rows and what runs it. */
struct command_def {
	enum cmd cmd;
	const char *name;
	const char *usage;
	const char *summary;
	const char *what;
	const struct opt *opts;		/* ended by OPT_END */
	int (*run)(struct options *o);
	bool operands;			/* takes words that are not options */
};

/* Every command, in the order `fpubench --help` lists them; ended by NULL (dispatch.c). */
extern const struct command_def *const command_defs[];

/* The definition of a command, or NULL. */
const struct command_def *options_command_def(enum cmd cmd);

/* The bits of the command called `name`, or 0 when there is none. */
enum cmd options_command(const char *name);

/*
 * Parses argv[1..argc-1] (argv[0] is the command's name) for `command`
 * into o, which the caller zeroed or filled with defaults.  Returns 0,
 * 1 when --help was asked for (the help is printed), or ERR_USAGE with a
 * message that names the option: "unknown option '--x'", "option
 * '--jobs' needs a value", "'history' takes no --patch", "ambiguous
 * option '--t' (--tarball, --test, --timeout, --tree)", "bad --jobs
 * 'x' (a whole number from 1 to 1024)".
 */
int options_parse(struct options *o, enum cmd command, int argc, char **argv);

/* Prints `command`'s usage, what it does and its options, from the table. */
void options_print_help(FILE *out, enum cmd command);

/* Prints every command with its one-line summary. */
void options_print_commands(FILE *out);

/*
 * Prints the table for the generators of the man pages and the shell
 * completion (`fpubench --dump-options`), one tab-separated record a line:
 * "command NAME SUMMARY", "usage NAME LINE" and, for each option a command
 * takes, "option NAME -S --LONG ARG HELP" (-S and ARG empty when none).
 */
void options_dump(FILE *out);

/*
 * Parses a whole decimal number in [min, max] into *out; -1 when s is
 * anything else (a sign where min >= 0, a fraction, spaces, overflow).
 */
int options_parse_long(const char *s, long min, long max, long *out);

void optlist_push(struct optlist *l, const char *s);


void options_release(struct options *o);

#endif
