/*
 * options: the command line of every fpubench command, as one table.
 *
 * Each option is a row of opt_table[] (options.c): its long and short
 * names, the name of its value, the commands that take it, how its value
 * is parsed and where it is stored, and its help line.  Parsing, each
 * command's --help and the "not an option of this command" error all come
 * from that table, as git's parse-options does; nothing else knows which
 * command takes which option.
 *
 * Syntax: `--name VALUE`, `--name=VALUE`, a unique prefix of a long name
 * (`--tim 5`), `-j4` or `-j 4` for the options with a short name, `--` to
 * end the options.  A value of `-` is standard input or output where the
 * option says so.  Numbers are whole decimal numbers within the option's
 * range; seconds may have a fraction.  The words that are not options
 * are the command's operands (LOG... for console, REV... for provenance).
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
	struct optlist cpus;
	struct optlist variants;
	struct optlist patch_files;
	struct optlist tests;
	struct optlist archives;
	struct optlist uris;
	struct optlist operands;
	/* From the config (cmd_prepare()): */
	const char *report_from;	/* [report] from, the sender of regression.eml */
	int bisect;			/* [run] bisect: CONF_UNSET, CONF_YES or CONF_NO */
	double bisect_budget_s;		/* [run] bisect-budget; 0: the default */
	/* Filled by cmd_prepare() (cmd.h), which owns them: */
	struct conf_host *hosts;	/* from --uri */
	size_t nhosts;
	const char *kmod_src;		/* the test module's sources */
	struct strlist owned;		/* the defaults it found, which the fields above borrow */
};

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
