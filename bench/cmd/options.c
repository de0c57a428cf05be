#include "options.h"

#include "lib/error.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum opt_type {
	OPT_STRING,	/* the last one given wins */
	OPT_LIST,	/* repeatable; each value kept */
	OPT_LONG,	/* a whole number in [min, max] */
	OPT_SECONDS,	/* a number of seconds above 0, at most max */
	OPT_FLAG,	/* takes no value */
};

struct opt {
	const char *name;
	char short_name;	/* 0: none */
	const char *arg;	/* the value's name in --help; NULL for a flag */
	unsigned commands;
	enum opt_type type;
	size_t offset;		/* of the field in struct options */
	long min, max;
	const char *help;
};

#define BUILDS (CMD_RUN | CMD_TEST | CMD_BISECT)
#define FIELD(f) offsetof(struct options, f)

static const struct opt opt_table[] = {
	{ "cpu", 0, "SETUP", BUILDS | CMD_HISTORY, OPT_LIST, FIELD(cpus), 0, 0,
	  "a CPU setup: MODEL[,-FEATURE|,+FEATURE]...[:KERNEL-PARAMS], as QEMU's -cpu; "
	  "repeatable (default: the setups of the config). history: one setup's cells" },
	{ "append", 0, "PARAMS", BUILDS, OPT_STRING, FIELD(append), 0, 0,
	  "kernel parameters added to every setup's command line, as they are "
	  "(e.g. console=ttyS0,115200)" },
	{ "uri", 0, "[N@]URI", BUILDS, OPT_LIST, FIELD(uris), 0, 0,
	  "a libvirt URI to boot on, N guests at once; repeatable, cells are spread over "
	  "all (default: qemu:///embed?root=CACHE/libvirt, no daemon needed)" },
	{ "config", 0, "FILE", CMD_RUN | CMD_BISECT, OPT_STRING, FIELD(conf_path), 0, 0,
	  "the config (run: default the fpubench.conf that comes with fpubench; bisect: its "
	  "[report] for the mail)" },
	{ "variant", 0, "NAME", CMD_RUN, OPT_LIST, FIELD(variants), 0, 0,
	  "build and boot only this variant of patches/variants; repeatable" },
	{ "patch", 'p', "FILE", CMD_TEST, OPT_LIST, FIELD(patch_files), 0, 0,
	  "apply this patch on top of \"patched\" (git format-patch mail, git diff or "
	  "diff -u at -p1; - reads standard input); repeatable, in order" },
	{ "tree", 0, "DIR", CMD_TEST, OPT_STRING, FIELD(tree), 0, 0,
	  "build the kernel tree DIR as it is checked out, no series (for git bisect run)" },
	{ "coverage", 0, "DIR", CMD_TEST, OPT_STRING, FIELD(coverage), 0, 0,
	  "build the kernel with gcov on its FPU code as a variant of its own and write the "
	  "lines each setup runs to DIR: lcov tracefiles, HTML and summary.txt" },
	{ "list", 0, NULL, CMD_TEST | CMD_PROVENANCE, OPT_FLAG, FIELD(list), 0, 0,
	  "test: list the guest tests and the commits each guards; provenance: list the "
	  "messages the archives hold" },
	{ "repo", 0, "DIR", CMD_BISECT | CMD_PROVENANCE, OPT_STRING, FIELD(repo), 0, 0,
	  "the kernel git repository (default: the current directory); never modified" },
	{ "good", 0, "REV", CMD_BISECT, OPT_STRING, FIELD(good), 0, 0,
	  "a commit that passes" },
	{ "bad", 0, "REV", CMD_BISECT, OPT_STRING, FIELD(bad), 0, 0,
	  "a commit that fails" },
	{ "any-crash", 0, NULL, CMD_BISECT, OPT_FLAG, FIELD(any_crash), 0, 0,
	  "count a step's crash as bad whatever its title (default: a crash titled unlike "
	  "BAD's is another bug and the step is skipped)" },
	{ "fixed", 0, NULL, CMD_BISECT, OPT_FLAG, FIELD(fixed), 0, 0,
	  "find the first commit that passes, the one that fixed the test (git's old/new "
	  "terms): BAD is then the older end, an ancestor of GOOD; no regression mail" },
	{ "runs", 0, "N", CMD_BISECT, OPT_LONG, FIELD(runs), 1, 100,
	  "boot each step N times; any failing boot makes it bad (default: 1)" },
	{ "fragment", 0, "FILE", CMD_BISECT, OPT_STRING, FIELD(fragment), 0, 0,
	  "the kernel config fragment (default: PATCHES/fpu.config)" },
	{ "archive", 0, "PATH", CMD_BISECT | CMD_PROVENANCE, OPT_LIST, FIELD(archives), 0, 0,
	  "a mail archive: mbox, maildir or public-inbox repository; repeatable" },
	{ "test", 0, "NAME", BUILDS | CMD_HISTORY, OPT_LIST, FIELD(tests), 0, 0,
	  "boot only these guest tests and keep only their cells; test and bisect judge by "
	  "them; repeatable (see 'fpubench test --list'). history: one test's cells" },
	{ "history", 0, "FILE", CMD_RUN | CMD_HISTORY, OPT_STRING, FIELD(history), 0, 0,
	  "the history database (default: $XDG_DATA_HOME/fpubench/history.db or "
	  "~/.local/share/fpubench/history.db)" },
	{ "last", 0, "N", CMD_HISTORY, OPT_LONG, FIELD(last), 1, 1000000,
	  "show the N newest runs (default: 10)" },
	{ "all", 0, NULL, CMD_HISTORY, OPT_FLAG, FIELD(all), 0, 0,
	  "show every run" },
	{ "json", 0, "FILE", CMD_CONSOLE | CMD_PROVENANCE, OPT_STRING, FIELD(json), 0, 0,
	  "also write the result as JSON to FILE (- for standard output)" },
	{ "rules", 0, NULL, CMD_CONSOLE, OPT_FLAG, FIELD(rules), 0, 0,
	  "print the rules that begin and title a crash report, from the scanner's table, "
	  "and no LOG" },
	{ "cache", 0, "DIR", BUILDS | CMD_HISTORY | CMD_TREE, OPT_STRING, FIELD(cache), 0, 0,
	  "kernel trees, builds, ccache and the libvirt root (default: "
	  "$FPUBENCH_CACHE, $XDG_CACHE_HOME/fpubench or ~/.cache/fpubench)" },
	{ "patches", 0, "DIR", BUILDS | CMD_TREE, OPT_STRING, FIELD(patches), 0, 0,
	  "where series, variants and fpu.config are (default: the series that comes with "
	  "fpubench)" },
	{ "tarball", 0, "FILE", CMD_RUN | CMD_TEST | CMD_TREE, OPT_STRING, FIELD(tarball), 0, 0,
	  "the kernel source tarball (default: $FPUBENCH_TARBALL or "
	  "/usr/src/linux-source-6.1.tar.xz)" },
	{ "results", 0, "DIR", BUILDS, OPT_STRING, FIELD(results), 0, 0,
	  "where run directories go (default: $XDG_DATA_HOME/fpubench/results or "
	  "~/.local/share/fpubench/results)" },
	{ "guest-dir", 0, "DIR", CMD_RUN | CMD_TEST, OPT_STRING, FIELD(guest_dir), 0, 0,
	  "boot DIR/init instead of the built guest's (a testing aid, e.g. "
	  "build/guest/misbehave/NAME)" },
	{ "jobs", 'j', "N", BUILDS, OPT_LONG, FIELD(jobs), 1, 1024,
	  "make jobs, and guests at once on each host (default: the cores; guests: two per "
	  "core, fewer when memory is short)" },
	{ "timeout", 0, "SECONDS", BUILDS, OPT_SECONDS, FIELD(timeout_s), 0, 86400,
	  "the limit for one boot (default: 60)" },
	{ "verbose", 'v', NULL, CMD_RUN | CMD_TEST, OPT_FLAG, FIELD(verbose), 0, 0,
	  "print every cell, not only the summary with those that missed their expectation" },
	{ "help", 'h', NULL, ~0u, OPT_FLAG, 0, 0, 0, "show this help" },
};

#define NOPTS (sizeof(opt_table) / sizeof(opt_table[0]))

struct command_help {
	enum cmd cmd;
	const char *name;
	const char *usage;
	const char *summary;
	const char *what;
};

static const struct command_help commands[] = {
	{ CMD_RUN, "run", "fpubench run [OPTION]...",
	  "build the variants and run the matrix, as fpubench.conf says",
	  "Builds every variant of patches/variants (or those named) on each tree of the\n"
	  "config, boots each on every CPU setup and judges every test: a cell per\n"
	  "(kernel, setup, test). Keeps the run in the history, compares it with the\n"
	  "previous one and writes RESULTS/<run>/ with report.html, junit.xml and\n"
	  "kcidb.json. Exits 0 when every cell met its expectation and none newly failed." },
	{ CMD_TEST, "test", "fpubench test [OPTION]... [--patch FILE]... | --tree DIR | --list",
	  "test a patch, or a kernel tree as it is (for git bisect run)",
	  "Builds \"patched\" with the given patches on top (or the kernel tree DIR as it is\n"
	  "checked out) and runs the guest tests on every setup. Exits 0 when every cell\n"
	  "passed, 1 when one failed, crashed or timed out, 125 when the kernel cannot be\n"
	  "tested (git bisect skip), 128 and up on errors (git bisect run stops)." },
	{ CMD_BISECT, "bisect", "fpubench bisect [OPTION]... --good REV --bad REV",
	  "find and verify the commit that broke a test",
	  "Bisects --repo between GOOD and BAD, building and booting each step, then\n"
	  "verifies the culprit (its parent passes, it fails, BAD with it reverted\n"
	  "passes). Writes bisect.log, bisect.json and regression.eml, a reply to the\n"
	  "culprit's posting (found with --archive) for its author and reviewers. Exits\n"
	  "0 for a verified culprit, 2 when skips leave a range, 3 when the ends are\n"
	  "wrong, 4 when not verified." },
	{ CMD_HISTORY, "history", "fpubench history [OPTION]...",
	  "past runs and their cells, newest first",
	  "Prints the newest runs of the history database, each with its cells: what\n"
	  "each gave, what was expected and whether that was met." },
	{ CMD_CONSOLE, "console", "fpubench console [--json FILE] LOG...\n   or: fpubench console --rules",
	  "find and title the crash reports in kernel console logs",
	  "Scans each LOG (serial console, dmesg, CI log) and prints 'LOG: TITLE' with the\n"
	  "first report's syzkaller-style title, or 'LOG: no crash'. Exits 0 when no log\n"
	  "has a crash, 1 when one has." },
	{ CMD_PROVENANCE, "provenance",
	  "fpubench provenance [OPTION]... REV|RANGE...\n"
	  "   or: fpubench provenance --archive PATH... --list",
	  "what each commit says of its postings, and the postings themselves",
	  "For each commit: its trailers, Link message-ids and lore URLs, history\n"
	  "references and patch-id; with mail archives, the postings that match it, how\n"
	  "they matched and the earlier versions of the series." },
	{ CMD_TREE, "tree", "fpubench tree [OPTION]...",
	  "the cached kernel tree and the commit of each variant, to write patches against",
	  "Opens (extracting it the first time) the kernel tree the series applies to and\n"
	  "prints its path, its version, its pristine base and each variant's commit, named\n"
	  "refs/fpubench/variants/NAME in the tree's repository. A patch for 'test --patch'\n"
	  "is written against refs/fpubench/variants/patched." },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command_help *command_find(enum cmd cmd)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (commands[i].cmd == cmd)
			return &commands[i];
	return NULL;
}

enum cmd options_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return commands[i].cmd;
	return 0;
}

void optlist_push(struct optlist *l, const char *s)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = s;
}

int options_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!(*s >= '0' && *s <= '9') && !(*s == '-' && min < 0))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_seconds(const char *s, double max, double *out)
{
	char *end;
	double v;

	if (!(*s >= '0' && *s <= '9') && *s != '.')
		return -1;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int opt_store(struct options *o, const struct opt *opt, const char *value)
{
	void *field = (char *)o + opt->offset;

	switch (opt->type) {
	case OPT_STRING:
		*(const char **)field = value;
		return 0;
	case OPT_LIST:
		optlist_push(field, value);
		return 0;
	case OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_LONG:
		if (options_parse_long(value, opt->min, opt->max, field) < 0)
			return error_set(ERR_USAGE, "bad --%s '%s' (a whole number from %ld to %ld)",
					 opt->name, value, opt->min, opt->max);
		return 0;
	case OPT_SECONDS:
		if (parse_seconds(value, (double)opt->max, field) < 0)
			return error_set(ERR_USAGE, "bad --%s '%s' (seconds, above 0 and at most %ld)",
					 opt->name, value, opt->max);
		return 0;
	}
	return 0;
}

/* The row of a long name or of a unique prefix of one; ERR_USAGE otherwise. */
static int opt_find_long(const char *name, size_t len, const struct opt **out)
{
	const struct opt *found = NULL;
	struct strbuf all = STRBUF_INIT;
	size_t matches = 0;
	int err;

	for (size_t i = 0; i < NOPTS; i++) {
		if (strncmp(opt_table[i].name, name, len) != 0)
			continue;
		if (strlen(opt_table[i].name) == len) {
			*out = &opt_table[i];
			strbuf_release(&all);
			return 0;
		}
		strbuf_addf(&all, "%s--%s", matches ? ", " : "", opt_table[i].name);
		found = &opt_table[i];
		matches++;
	}
	if (matches == 1) {
		*out = found;
		strbuf_release(&all);
		return 0;
	}
	if (matches)
		err = error_set(ERR_USAGE, "ambiguous option '--%.*s' (%s)", (int)len, name, all.buf);
	else
		err = error_set(ERR_USAGE, "unknown option '--%.*s'", (int)len, name);
	strbuf_release(&all);
	return err;
}

static const struct opt *opt_find_short(char c)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opt_table[i].short_name && opt_table[i].short_name == c)
			return &opt_table[i];
	return NULL;
}

static int opt_allowed(const struct options *o, const struct opt *opt, const char *spelled)
{
	if (opt->commands & o->command)
		return 0;
	return error_set(ERR_USAGE, "'%s' takes no %s (see 'fpubench %s --help')",
			 o->command_name, spelled, o->command_name);
}

int options_parse(struct options *o, enum cmd command, int argc, char **argv)
{
	bool operands_only = false;
	int err;

	o->command = command;
	o->command_name = command_find(command)->name;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *value = NULL, *eq;
		const struct opt *opt = NULL;
		char spelled[64];

		if (operands_only || a[0] != '-' || strcmp(a, "-") == 0) {
			optlist_push(&o->operands, a);
			continue;
		}
		if (strcmp(a, "--") == 0) {
			operands_only = true;
			continue;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			if ((err = opt_find_long(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2),
						 &opt)) < 0)
				return err;
			snprintf(spelled, sizeof(spelled), "--%s", opt->name);
			if (eq)
				value = eq + 1;
		} else {
			if (!(opt = opt_find_short(a[1])))
				return error_set(ERR_USAGE, "unknown option '-%c'", a[1]);
			snprintf(spelled, sizeof(spelled), "-%c", a[1]);
			if (a[2])
				value = a + 2;
		}
		if ((err = opt_allowed(o, opt, spelled)) < 0)
			return err;
		if (strcmp(opt->name, "help") == 0) {
			options_print_help(stdout, command);
			return 1;
		}
		if (opt->type == OPT_FLAG) {
			if (value)
				return error_set(ERR_USAGE, "option '%s' takes no value", spelled);
		} else if (!value) {
			if (i + 1 >= argc)
				return error_set(ERR_USAGE, "option '%s' needs a value", spelled);
			value = argv[++i];
		}
		if ((err = opt_store(o, opt, value)) < 0)
			return err;
	}
	return 0;
}

/* Writes text from column `indent` on, wrapped before `width`. */
static void print_wrapped(FILE *out, const char *text, int indent, int column, int width)
{
	const char *p = text;

	while (*p) {
		size_t word = strcspn(p, " ");

		if (column > indent && column + 1 + (int)word > width) {
			fprintf(out, "\n%*s", indent, "");
			column = indent;
		} else if (column > indent) {
			fputc(' ', out);
			column++;
		}
		fprintf(out, "%.*s", (int)word, p);
		column += (int)word;
		p += word;
		p += strspn(p, " ");
	}
	fputc('\n', out);
}

void options_print_help(FILE *out, enum cmd command)
{
	const struct command_help *c = command_find(command);

	fprintf(out, "usage: %s\n\n%s\n\noptions:\n", c->usage, c->what);
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *opt = &opt_table[i];
		char head[64];
		int n;

		if (!(opt->commands & command))
			continue;
		if (opt->short_name)
			n = snprintf(head, sizeof(head), "  -%c, --%s%s%s", opt->short_name, opt->name,
				     opt->arg ? " " : "", opt->arg ? opt->arg : "");
		else
			n = snprintf(head, sizeof(head), "      --%s%s%s", opt->name,
				     opt->arg ? " " : "", opt->arg ? opt->arg : "");
		fputs(head, out);
		if (n >= 26) {
			fprintf(out, "\n%*s", 26, "");
			n = 26;
		} else {
			fprintf(out, "%*s", 26 - n, "");
			n = 26;
		}
		print_wrapped(out, opt->help, 26, n, 79);
	}
}

void options_print_commands(FILE *out)
{
	fputs("usage: fpubench [--version] [--help] COMMAND [OPTION]...\n\ncommands:\n", out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-12s%s\n", commands[i].name, commands[i].summary);
	fputs("\n'fpubench help COMMAND' or 'fpubench COMMAND --help' shows a command's options.\n",
	      out);
}

void options_dump(FILE *out)
{
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct command_help *c = &commands[i];
		const char *u = c->usage;

		fprintf(out, "command\t%s\t%s\n", c->name, c->summary);
		while (*u) {
			size_t n = strcspn(u, "\n");

			fprintf(out, "usage\t%s\t%.*s\n", c->name, (int)n, u);
			u += n;
			u += strspn(u, "\n");
			u += strncmp(u, "   or: ", 7) == 0 ? 7 : 0;
		}
		for (size_t j = 0; j < NOPTS; j++) {
			const struct opt *opt = &opt_table[j];
			char short_name[3] = { '-', opt->short_name, '\0' };

			if (!(opt->commands & c->cmd))
				continue;
			fprintf(out, "option\t%s\t%s\t--%s\t%s\t%s\n", c->name,
				opt->short_name ? short_name : "", opt->name, opt->arg ? opt->arg : "",
				opt->help);
		}
	}
}

void options_release(struct options *o)
{
	free(o->cpus.v);
	free(o->variants.v);
	free(o->patch_files.v);
	free(o->tests.v);
	free(o->archives.v);
	free(o->uris.v);
	free(o->operands.v);
}
