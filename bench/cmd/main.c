/*
 * fpubench: the command line.  Each subcommand parses its options and
 * wires the modules together (through bench/session.h); the work is done
 * in the modules.
 */
#include "bisect/bisect.h"
#include "bisect_mail.h"
#include "nightly_bisect.h"
#include "provenance/provenance.h"
#include "lib/date.h"
#include "lib/clock.h"
#include "run/conf.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "boot/guest.h"
#include "record/history.h"
#include "run/record.h"
#include "record/results.h"
#include "build/series.h"
#include "run/session.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef FPUBENCH_SRCDIR
#define FPUBENCH_SRCDIR "."
#endif
#ifndef FPUBENCH_GUEST_DIR
#define FPUBENCH_GUEST_DIR FPUBENCH_SRCDIR "/build/guest"
#endif

#define DEFAULT_TARBALL "/usr/src/linux-source-6.1.tar.xz"
#define DEFAULT_BOOT_TIMEOUT_S 60.0
#define DEFAULT_CONF FPUBENCH_SRCDIR "/bench/fpubench.conf"
#define TEST_VARIANT_BASE "patched"

/* bisect's exit statuses beyond 0 (culprit found and verified). */
enum {
	EXIT_BISECT_RANGE = 2,		/* skips leave a range, no single culprit */
	EXIT_BISECT_ENDS = 3,		/* GOOD does not pass or BAD does not fail */
	EXIT_BISECT_UNVERIFIED = 4,	/* a culprit, but a verification check failed */
};

static volatile sig_atomic_t stop_signal;

static const char usage_text[] =
	"usage: fpubench run    [options] [--config FILE] [--variant NAME]... [--test NAME]...\n"
	"       fpubench test   [options] [--patch FILE]... | --tree DIR [--test NAME]...\n"
	"       fpubench bisect [options] --repo DIR --good REV --bad REV [--test NAME]...\n"
	"                       [--runs N] [--fragment FILE] [--archive PATH]... [--config FILE]\n"
	"       fpubench history [--cpu SETUP] [--test NAME] [--last N] [--history FILE]\n"
	"       fpubench provenance [--repo DIR] [--archive PATH]... [--json FILE] REV|RANGE...\n"
	"       fpubench provenance --archive PATH... --list [--json FILE]\n"
	"\n"
	"  run     builds every variant of patches/variants and runs the reproducers on\n"
	"          every CPU setup, as fpubench.conf says (default: bench/fpubench.conf;\n"
	"          options override it); keeps the run in <cache>/history.db, compares it\n"
	"          with the previous one and writes report.html, junit.xml and kcidb.json;\n"
	"          exits 0 when every cell met its expectation and none newly failed\n"
	"  test    builds \"patched\" with the given patches on top (or the kernel tree DIR\n"
	"          as it is checked out) and runs the reproducers; exits 0 pass, 1 fail,\n"
	"          125 untestable, 128 and up on errors: fit for `git bisect run`\n"
	"  bisect  finds and verifies the commit between GOOD and BAD that broke the tests;\n"
	"          exits 0 verified culprit, 2 range only, 3 ends wrong, 4 not verified;\n"
	"          writes regression.eml, a report for the culprit's author and reviewers\n"
	"  history past runs and their cells, newest first\n"
	"  provenance  what each commit says of its postings (trailers, lore URL, patch-id),\n"
	"          and with mail archives the matching postings and earlier versions\n"
	"\n"
	"options:\n"
	"  --cpu SETUP      MODEL[,-FEATURE]...[:KERNEL-PARAMS]; repeatable (default: 6 setups)\n"
	"  --uri [N@]URI    libvirt URI, N guests at once on it (default: --jobs); repeatable,\n"
	"                   cells are spread over all (default: qemu:///embed?root=CACHE/libvirt)\n"
	"  --cache DIR      kernel tree and build cache (default: $FPUBENCH_CACHE,\n"
	"                   $XDG_CACHE_HOME/fpubench or ~/.cache/fpubench)\n"
	"  --patches DIR    series, variants and fpu.config (default: the repository's)\n"
	"  --results DIR    where run directories go (default: results)\n"
	"  --tarball FILE   the kernel source (default: " DEFAULT_TARBALL ")\n"
	"  --jobs N         make jobs and guests at once per host (default: the cores; for\n"
	"                   guests, two per core of each host, fewer if its memory is short)\n"
	"  --timeout S      limit for one boot in seconds (default: 60)\n"
	"  --test NAME      boot only these tests and keep only their cells; test and\n"
	"                   bisect judge by them; repeatable\n"
	"  --history FILE   run and history: the database (default: CACHE/history.db)\n"
	"  --fragment FILE  bisect: the config fragment (default: PATCHES/fpu.config)\n"
	"  --archive PATH   bisect: a mail archive (mbox, maildir, public-inbox) where the\n"
	"                   culprit's posting is, for regression.eml to reply to; repeatable\n"
	"  --config FILE    run: the config; bisect: its [report] from, the mail's sender\n"
	"  --guest-dir DIR  run and test: boot DIR/init instead of the built guest's, a\n"
	"                   testing aid (e.g. build/guest/misbehave/NAME)\n";

struct options {
	const char *command;
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
	int jobs;
	int guests;		/* per host, when --jobs or the config says; else 0 */
	int last;
	int runs;
	double timeout_s;
	const char **cpus;
	size_t ncpus;
	const char **variants;
	size_t nvariants;
	const char **extra_patches;
	size_t nextra_patches;
	const char **tests;
	size_t ntests;
	const char **archives;		/* bisect: where the culprit's posting may be */
	size_t narchives;
	const char *report_from;	/* the config's [report] from */
	int bisect;			/* the config's [run] bisect: CONF_UNSET, CONF_YES, CONF_NO */
	double bisect_budget_s;		/* [run] bisect-budget; 0: the default */
	struct conf_host *hosts;	/* from --uri */
	size_t nhosts;
};

static void on_signal(int sig)
{
	stop_signal = sig;
	guest_interrupt();
	spawn_interrupt();
}

static void push(const char ***list, size_t *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = s;
}

static char *default_cache(void)
{
	const char *env = getenv("FPUBENCH_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		return xstrdup(env);
	if (xdg && *xdg)
		return xasprintf("%s/fpubench", xdg);
	return xasprintf("%s/.cache/fpubench", home && *home ? home : "/tmp");
}

/* Which options each command takes, by getopt value. */
static bool option_allowed(const char *command, int c)
{
	const char *only;

	if (strcmp(command, "history") == 0)
		return strchr("ceLHC", c) != NULL;
	switch (c) {
	case 'v': only = "run"; break;
	case 'F': return strcmp(command, "run") == 0 || strcmp(command, "bisect") == 0;
	case 'H': return strcmp(command, "run") == 0 || strcmp(command, "history") == 0;
	case 'L': only = "history"; break;
	case 'p': case 'd': only = "test"; break;
	case 'R': case 'g': case 'b': case 'n': case 'f': case 'A': only = "bisect"; break;
	case 'G': return strcmp(command, "bisect") != 0;
	default: return true;
	}
	return strcmp(command, only) == 0;
}

static int parse_number(const char *name, const char *arg, double min, double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (*end || end == arg || *out < min)
		return error_set(ERR_USAGE, "bad %s '%s'", name, arg);
	return 0;
}

static int parse_options(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "uri", required_argument, NULL, 'u' },
		{ "cache", required_argument, NULL, 'C' },
		{ "patches", required_argument, NULL, 'P' },
		{ "results", required_argument, NULL, 'r' },
		{ "tarball", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "variant", required_argument, NULL, 'v' },
		{ "patch", required_argument, NULL, 'p' },
		{ "tree", required_argument, NULL, 'd' },
		{ "repo", required_argument, NULL, 'R' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },
		{ "runs", required_argument, NULL, 'n' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'F' },
		{ "history", required_argument, NULL, 'H' },
		{ "last", required_argument, NULL, 'L' },
		{ "test", required_argument, NULL, 'e' },
		{ "guest-dir", required_argument, NULL, 'G' },
		{ "archive", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double number;
	int c, err, which = 0;

	opterr = 0;	/* the messages below name the option */
	while ((c = getopt_long(argc, argv, ":h", longopts, &which)) != -1) {
		if (c != '?' && c != ':' && c != 'h' && !option_allowed(o->command, c))
			return error_set(ERR_USAGE, "'%s' takes no --%s", o->command,
					 longopts[which].name);
		switch (c) {
		case 'c': push(&o->cpus, &o->ncpus, optarg); break;
		case 'u':
			o->hosts = xrealloc(o->hosts, (o->nhosts + 1) * sizeof(*o->hosts));
			if ((err = conf_host_parse(optarg, &o->hosts[o->nhosts])) < 0)
				return err;
			o->nhosts++;
			break;
		case 'C': o->cache = optarg; break;
		case 'P': o->patches = optarg; break;
		case 'r': o->results = optarg; break;
		case 't': o->tarball = optarg; break;
		case 'v': push(&o->variants, &o->nvariants, optarg); break;
		case 'p': push(&o->extra_patches, &o->nextra_patches, optarg); break;
		case 'd': o->tree = optarg; break;
		case 'R': o->repo = optarg; break;
		case 'g': o->good = optarg; break;
		case 'b': o->bad = optarg; break;
		case 'f': o->fragment = optarg; break;
		case 'F': o->conf_path = optarg; break;
		case 'H': o->history = optarg; break;
		case 'L':
			if ((err = parse_number("--last", optarg, 1, &number)) < 0)
				return err;
			o->last = (int)number;
			break;
		case 'e': push(&o->tests, &o->ntests, optarg); break;
		case 'G': o->guest_dir = optarg; break;
		case 'A': push(&o->archives, &o->narchives, optarg); break;
		case 'j':
			if ((err = parse_number("--jobs", optarg, 1, &number)) < 0)
				return err;
			o->jobs = (int)number;
			break;
		case 'n':
			if ((err = parse_number("--runs", optarg, 1, &number)) < 0)
				return err;
			o->runs = (int)number;
			break;
		case 'T':
			if ((err = parse_number("--timeout", optarg, 0.1, &number)) < 0)
				return err;
			o->timeout_s = number;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		case ':':
			return error_set(ERR_USAGE, "option '%s' needs a value", argv[optind - 1]);
		default:
			return error_set(ERR_USAGE, "unknown option '%s' (see 'fpubench --help')",
					 argv[optind - 1]);
		}
	}
	if (optind < argc)
		return error_set(ERR_USAGE, "unexpected argument '%s'", argv[optind]);
	if (o->tree && o->nextra_patches)
		return error_set(ERR_USAGE, "'test' takes --patch or --tree, not both");
	if (strcmp(o->command, "bisect") == 0 && (!o->good || !o->bad))
		return error_set(ERR_USAGE, "'bisect' needs --good REV and --bad REV");
	return 0;
}

static char *fragment_path(const struct options *o)
{
	return o->fragment ? xstrdup(o->fragment) : xasprintf("%s/fpu.config", o->patches);
}

/* Test names must be the guest's, as its build lists them (a testing aid's guest has no list). */
static int check_tests(const struct options *o)
{
	char *list_path = xasprintf("%s/tests.list", o->guest_dir);
	struct strbuf list = STRBUF_INIT;
	int err = 0;

	/* The names go on the guest's kernel command line (fpubench_tests=A,B). */
	for (size_t i = 0; i < o->ntests && !err; i++)
		if (!*o->tests[i] || strspn(o->tests[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(o->tests[i]))
			err = error_set(ERR_USAGE, "test name '%s' is not letters, digits and '_'",
					o->tests[i]);

	if (!err && o->ntests && file_exists(list_path) && (err = file_read(list_path, &list)) == 0) {
		for (size_t i = 0; i < o->ntests && !err; i++) {
			char *line = xasprintf("\n%s\n", o->tests[i]);
			char *text = xasprintf("\n%s", list.buf);

			if (!strstr(text, line))
				err = error_set(ERR_USAGE, "unknown test '%s' (see '%s')", o->tests[i],
						list_path);
			free(line);
			free(text);
		}
	}
	strbuf_release(&list);
	free(list_path);
	return err;
}

static int check_inputs(const struct options *o, const char *fragment)
{
	int err;

	if ((err = check_tests(o)) < 0)
		return err;
	if (!file_exists(fragment))
		return error_set(ERR_NOTFOUND, "config fragment '%s' is missing", fragment);
	for (size_t i = 0; i < o->nextra_patches; i++) {
		struct stat st;

		if (!file_exists(o->extra_patches[i]))
			return error_set(ERR_NOTFOUND, "patch '%s' is missing", o->extra_patches[i]);
		if (stat(o->extra_patches[i], &st) < 0 || !S_ISREG(st.st_mode) ||
		    access(o->extra_patches[i], R_OK) < 0)
			return error_set(ERR_NOTFOUND, "patch '%s' is not a readable file",
					 o->extra_patches[i]);
	}
	return 0;
}

/* A git tree of fpubench.conf: its branch as it is, one kernel named after the tree. */
static int build_git_tree(struct session *s, const struct conf_tree *tree, const char *fragment)
{
	git_oid commit;
	int err;

	if ((err = kernel_tree_resolve(tree->repo, tree->branch ? tree->branch : "HEAD",
				       &commit)) < 0 ||
	    (err = kernel_tree_open_repo(&s->tree, s->cfg.cache, tree->repo)) < 0)
		return err;
	return session_add_kernel(s, tree->name, &commit, fragment);
}

/*
 * The kernels `run` and `test` boot: variants of the series on the Debian
 * tree, a git tree's branch (run with fpubench.conf), or a tree as it is.
 */
static int build_kernels(struct session *s, const struct options *o, const struct conf_tree *tree)
{
	char *fragment = fragment_path(o);
	struct series *series = NULL;
	int err;

	if ((err = check_inputs(o, fragment)) < 0)
		goto out;
	if (tree && tree->source == CONF_TREE_GIT) {
		err = build_git_tree(s, tree, fragment);
		goto out;
	}
	if (o->tree) {
		/* One build directory per tree, so `git bisect run` builds incrementally. */
		char *abs = path_absolute(o->tree), hex[9], *variant;
		git_oid key;

		git_odb_hash(&key, abs, strlen(abs), GIT_OBJECT_BLOB);
		git_oid_tostr(hex, sizeof(hex), &key);
		variant = xasprintf("tree-%s", hex);
		free(abs);
		if ((err = kernel_tree_open_dir(&s->tree, s->cfg.cache, o->tree)) == 0)
			err = session_add_kernel(s, variant, NULL, fragment);
		free(variant);
		goto out;
	}
	if ((err = series_load(&series, o->patches)) < 0 ||
	    (err = kernel_tree_open(&s->tree, s->cfg.cache,
				    tree && tree->tarball ? tree->tarball : o->tarball)) < 0)
		goto out;

	if (strcmp(o->command, "test") == 0) {
		const struct series_variant *v = series_find_variant(series, TEST_VARIANT_BASE);
		git_oid commit;

		if (!v) {
			err = error_set(ERR_INPUT, "no variant '%s' in '%s/variants'", TEST_VARIANT_BASE,
					o->patches);
			goto out;
		}
		if ((err = kernel_tree_apply_series(s->tree, series, v->npatches, &commit)) < 0)
			goto out;
		for (size_t i = 0; i < o->nextra_patches; i++) {
			git_oid parent = commit;
			if ((err = kernel_tree_apply(s->tree, &parent, o->extra_patches[i], &commit)) < 0)
				goto out;
		}
		err = session_add_kernel(s, o->nextra_patches ? "test" : TEST_VARIANT_BASE, &commit,
					 fragment);
		goto out;
	}

	for (size_t j = 0; j < o->nvariants; j++) {
		if (!series_find_variant(series, o->variants[j])) {
			err = error_set(ERR_USAGE, "unknown variant '%s' (see '%s/variants')",
					o->variants[j], o->patches);
			goto out;
		}
	}
	for (size_t i = 0; i < series->nvariants; i++) {
		const struct series_variant *v = &series->variants[i];
		bool wanted = o->nvariants == 0;
		git_oid commit;

		for (size_t j = 0; j < o->nvariants; j++)
			wanted |= strcmp(o->variants[j], v->name) == 0;
		if (!wanted)
			continue;
		if ((err = kernel_tree_apply_series(s->tree, series, v->npatches, &commit)) < 0 ||
		    (err = session_add_kernel(s, v->name, &commit, fragment)) < 0)
			goto out;
	}
out:
	series_free(series);
	free(fragment);
	return err;
}

static bool test_selected(const struct options *o, const char *test)
{
	if (!o->ntests)
		return true;
	for (size_t i = 0; i < o->ntests; i++)
		if (strcmp(o->tests[i], test) == 0)
			return true;
	return false;
}

static int exit_status_for(const struct options *o, const struct matrix *m)
{
	bool is_test = strcmp(o->command, "test") == 0;
	bool all_ok = true, error_cell = false, no_init = false;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		error_cell |= c->status == VERDICT_ERROR;
		no_init |= c->no_init;
		if (is_test)
			all_ok &= !test_selected(o, c->test) || verdict_meets(c->status, VERDICT_PASS);
		else
			all_ok &= c->met;
	}
	if (is_test && error_cell)
		return EXIT_LIBVIRT;	/* the bench, not the kernel, failed: abort a bisect */
	if (is_test && no_init)
		return EXIT_UNTESTABLE;	/* no boot: `git bisect skip` */
	return all_ok ? EXIT_OK : EXIT_FAILED;
}

static void results_run_init(struct results_run *run, const struct session *s,
			     const char *command, const char *started, char *finished, size_t size)
{
	date_format_iso8601(finished, size, time(NULL));
	*run = (struct results_run){
		.id = s->run_id, .command = command, .started = started,
		.finished = finished, .hosts = s->hosts, .nhosts = s->nhosts,
	};
}

/* The config fragment's content hash, which with the tree names a history line. */
static int fragment_hash(const char *fragment, char hash[13])
{
	struct strbuf sb = STRBUF_INIT;
	git_oid oid;
	int err;

	if ((err = file_read(fragment, &sb)) < 0)
		return err;
	git_odb_hash(&oid, sb.buf, sb.len, GIT_OBJECT_BLOB);
	git_oid_tostr(hash, 13, &oid);
	strbuf_release(&sb);
	return 0;
}

/*
 * run and test: build, boot, write the results.  `run` (tree set) also
 * keeps the run in the history and writes the reports.
 */
static int command_matrix(struct session *s, const struct options *o, const struct conf_tree *tree)
{
	struct matrix *m = NULL;
	struct record *rec = NULL;
	struct results_run run;
	char started[32], finished[32], hash[13];
	char *fragment = fragment_path(o);
	bool new_failures = false;
	int err;

	date_format_iso8601(started, sizeof(started), time(NULL));
	/* The run directory comes last: a run that cannot boot leaves none. */
	if ((err = session_parse_setups(s, o->cpus, o->ncpus)) < 0 ||
	    (err = build_kernels(s, o, tree)) < 0 || (err = session_connect(s)) < 0 ||
	    (err = session_create_run_dir(s)) < 0)
		goto out;
	if (tree) {
		if ((err = fragment_hash(fragment, hash)) < 0 ||
		    (err = record_begin(&rec, s, o->history, o->command, tree->name, hash)) < 0)
			goto out;
		s->cfg.on_boot = record_boot;
		s->cfg.on_boot_arg = rec;
	}
	if ((err = session_boot(s, 1, &m)) < 0)
		goto out;
	results_run_init(&run, s, o->command, started, finished, sizeof(finished));
	if ((err = results_write(s->run_dir, &run, m)) < 0)
		goto out;
	results_print_matrix(stdout, m);
	if (rec && (err = record_finish(rec, &run, m, &new_failures)) < 0)
		goto out;
	if (m->interrupted) {
		err = ERR_INTERRUPTED;
		goto out;
	}
	if ((err = session_mark_latest(s)) < 0)
		goto out;
	if (tree && tree->source == CONF_TREE_GIT && new_failures && o->bisect != CONF_NO) {
		struct nightly_bisect nb = {
			.s = s, .rec = rec, .run = &run, .m = m, .repo = tree->repo,
			.conf_path = o->conf_path ? o->conf_path : DEFAULT_CONF,
			.budget_s = o->bisect_budget_s > 0 ? o->bisect_budget_s : NIGHTLY_BISECT_BUDGET_S,
		};
		if ((err = nightly_bisect(&nb)) < 0)
			goto out;
	}
	printf("results: %s\n", s->run_dir);
	err = exit_status_for(o, m);
	if (err == EXIT_OK && new_failures) {
		printf("new failures since the previous run: exit status %d\n", EXIT_FAILED);
		err = EXIT_FAILED;
	}
out:
	record_free(rec);
	matrix_free(m);
	free(fragment);
	return err;
}

/* What bisect needs from the session for each commit it tests. */
struct bisect_ctx {
	struct session *s;
	const struct options *o;
	const char *fragment;
	double started;
	int steps_done;
	double step_seconds;
};

/* Builds and boots one commit `runs` times; any failing boot makes it bad. */
static int bisect_test(void *arg, const git_oid *commit, struct bisect_step *step)
{
	struct bisect_ctx *c = arg;
	struct session *s = c->s;
	struct matrix *m = NULL;
	struct strbuf note = STRBUF_INIT;
	double start = clock_seconds();
	int err, untestable_runs = 0;

	session_clear_kernels(s);
	err = session_add_kernel(s, "bisect", commit, c->fragment);
	step->build_s = clock_seconds() - start;
	if (err == ERR_BUILD || err == ERR_CONFIG) {
		step->verdict = BISECT_SKIP;
		step->note = xasprintf("does not build: %s", error_last());
		return 0;
	}
	if (err < 0)
		return err;
	start = clock_seconds();
	if ((err = session_boot(s, c->o->runs, &m)) < 0)
		return err;
	step->test_s = clock_seconds() - start;
	if (m->interrupted) {
		matrix_free(m);
		return ERR_INTERRUPTED;
	}
	/* Cells come round by round, each round with the same number of cells. */
	size_t per_round = m->ncells / (size_t)c->o->runs;
	for (int r = 0; r < c->o->runs; r++) {
		bool failed = false, untestable = false;

		for (size_t i = r * per_round; i < (r + 1) * per_round && i < m->ncells; i++) {
			const struct matrix_cell *cell = &m->cells[i];

			if (cell->no_init || cell->status == VERDICT_ERROR) {
				untestable = true;
			} else if (test_selected(c->o, cell->test) &&
				   !verdict_meets(cell->status, VERDICT_PASS)) {
				if (!failed && note.len < 200)
					strbuf_addf(&note, "%s%s %s %s", note.len ? "; " : "",
						    cell->cpu->spec, cell->test, verdict_name(cell->status));
				failed = true;
				bisect_mail_note_failure(step, cell->test, cell->crash, cell->console,
							 cell->cpu->spec);
			}
		}
		step->runs++;
		step->failed_runs += failed;
		untestable_runs += untestable && !failed;
	}
	step->verdict = step->failed_runs ? BISECT_BAD
			: untestable_runs ? BISECT_SKIP : BISECT_GOOD;
	if (step->verdict == BISECT_SKIP)
		strbuf_addstr(&note, "the guest never reached init");
	step->note = note.len ? strbuf_detach(&note) : NULL;
	strbuf_release(&note);
	matrix_free(m);
	return 0;
}

static void bisect_progress(void *arg, const struct bisect *b, const git_oid *next, int step,
			    int estimate)
{
	struct bisect_ctx *c = arg;
	double elapsed = clock_seconds() - c->started;
	double per_step = b->nsteps ? elapsed / (double)(b->nsteps + 2) : elapsed / 2;
	git_commit *commit = NULL;

	git_commit_lookup(&commit, b->repo, next);
	printf("bisect: step %d of about %d: %.12s %s (elapsed %.0f s, about %.0f s left)\n",
	       step, estimate, git_oid_tostr_s(next),
	       commit && git_commit_summary(commit) ? git_commit_summary(commit) : "", elapsed,
	       per_step * (estimate - step + 1));
	fflush(stdout);
	git_commit_free(commit);
}

static const char *const bisect_verdict_names[] = {
	[BISECT_GOOD] = "good", [BISECT_BAD] = "bad", [BISECT_SKIP] = "skip",
};

static void json_step(struct strbuf *sb, const char *key, const struct bisect_step *st,
		      double confidence)
{
	strbuf_addf(sb, "%s{\"commit\": \"%s\", \"subject\": \"", key, git_oid_tostr_s(&st->commit));
	strbuf_add_json(sb, st->subject ? st->subject : "");
	strbuf_addf(sb, "\", \"verdict\": \"%s\", \"runs\": %d, \"failed_runs\": %d, "
		    "\"mixed\": %s, \"build_s\": %.1f, \"test_s\": %.1f, \"note\": ",
		    bisect_verdict_names[st->verdict], st->runs, st->failed_runs,
		    st->failed_runs && st->failed_runs < st->runs ? "true" : "false", st->build_s,
		    st->test_s);
	if (st->note) {
		strbuf_addch(sb, '"');
		strbuf_add_json(sb, st->note);
		strbuf_addch(sb, '"');
	} else {
		strbuf_addstr(sb, "null");
	}
	if (st->verdict == BISECT_GOOD)
		strbuf_addf(sb, ", \"confidence\": %.4f", confidence);
	strbuf_addstr(sb, "}");
}

struct verification {
	struct bisect_step parent, culprit, revert;
	bool have_parent, reverts_cleanly, have_revert;
};

static void json_check(struct strbuf *sb, const char *key, bool ran,
		       const struct bisect_step *st, enum bisect_verdict want)
{
	strbuf_addf(sb, ",\n    \"%s\": ", key);
	if (!ran) {
		strbuf_addstr(sb, "null");
		return;
	}
	strbuf_addf(sb, "{\"ok\": %s, \"step\": ", st->verdict == want ? "true" : "false");
	json_step(sb, "", st, 0);
	strbuf_addch(sb, '}');
}

static void bisect_format_json(struct strbuf *sb, const struct bisect *b,
			       const struct bisect_step *good_end, const struct bisect_step *bad_end,
			       const struct verification *v, const char *culprit_provenance)
{
	int failed, total;

	bisect_fail_rate(b, bad_end, &failed, &total);
	strbuf_addstr(sb, "{\n  \"good\": ");
	json_step(sb, "", good_end, bisect_confidence(good_end->runs, failed, total));
	strbuf_addstr(sb, ",\n  \"bad\": ");
	json_step(sb, "", bad_end, 0);
	strbuf_addstr(sb, ",\n  \"steps\": [");
	for (size_t i = 0; i < b->nsteps; i++)
		json_step(sb, i ? ",\n    " : "\n    ", &b->steps[i],
			  bisect_confidence(b->steps[i].runs, failed, total));
	strbuf_addf(sb, "\n  ],\n  \"step_count\": %zu,\n  \"culprit\": ", b->nsteps);
	if (b->found)
		strbuf_addf(sb, "\"%s\"", git_oid_tostr_s(&b->culprit));
	else
		strbuf_addstr(sb, "null");
	strbuf_addf(sb, ",\n  \"culprit_provenance\": %s",
		    culprit_provenance ? culprit_provenance : "null");
	strbuf_addstr(sb, ",\n  \"range\": [");
	for (size_t i = 0; i < b->nrange; i++)
		strbuf_addf(sb, "%s\"%s\"", i ? ", " : "", git_oid_tostr_s(&b->range[i]));
	strbuf_addstr(sb, "],\n  \"verification\": {\n    \"reverts_cleanly\": ");
	strbuf_addstr(sb, !b->found ? "null" : v->reverts_cleanly ? "true" : "false");
	json_check(sb, "parent_passes", v->have_parent, &v->parent, BISECT_GOOD);
	json_check(sb, "culprit_fails", b->found, &v->culprit, BISECT_BAD);
	json_check(sb, "revert_passes", v->have_revert, &v->revert, BISECT_GOOD);
	strbuf_addstr(sb, "\n  }\n}\n");
}

/* Tests a commit, or takes its verdict from the bisection if it was tested there. */
static int test_once(struct bisect_ctx *c, git_repository *repo, const struct bisect *b,
		     const git_oid *commit, struct bisect_step *out)
{
	const struct bisect_step *known = b ? bisect_find_step(b, commit) : NULL;
	git_commit *gc = NULL;

	if (known) {
		bisect_step_copy(out, known);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	git_oid_cpy(&out->commit, commit);
	if (git_commit_lookup(&gc, repo, commit) == 0)
		out->subject = xstrdup(git_commit_summary(gc) ? git_commit_summary(gc) : "");
	git_commit_free(gc);
	return bisect_test(c, commit, out);
}

/* KernelCI's rule: the parent passes, the culprit fails, and reverting it on BAD passes. */
static int bisect_verify(struct bisect_ctx *c, const struct bisect *b,
			 const struct bisect_step *good_end, const struct bisect_step *bad_end,
			 struct verification *v)
{
	git_repository *repo = c->s->tree->repo;
	git_commit *culprit = NULL, *bad = NULL, *revert_commit = NULL;
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_oid, revert_oid;
	int err;

	(void)good_end;
	if ((err = test_once(c, repo, b, &b->culprit, &v->culprit)) < 0)
		return err;
	if (git_commit_lookup(&culprit, repo, &b->culprit) < 0 ||
	    git_commit_lookup(&bad, repo, &bad_end->commit) < 0) {
		err = error_set(ERR_GENERIC, "cannot read the culprit or BAD");
		goto out;
	}
	if (git_commit_parentcount(culprit) > 0) {
		v->have_parent = true;
		if ((err = test_once(c, repo, b, git_commit_parent_id(culprit, 0), &v->parent)) < 0)
			goto out;
	}
	/* A merge is reverted against its first parent, as `git revert -m 1`. */
	git_revert_options opts = GIT_REVERT_OPTIONS_INIT;
	if (git_commit_parentcount(culprit) > 1)
		opts.mainline = 1;
	if (git_revert_commit(&index, repo, culprit, bad, opts.mainline, &opts.merge_opts) < 0 ||
	    git_index_has_conflicts(index)) {
		error_clear();
		goto out;
	}
	v->reverts_cleanly = true;
	char *message = xasprintf("Revert \"%s\"\n\nfpubench: verifying the culprit %s\n",
				  git_commit_summary(culprit), git_oid_tostr_s(&b->culprit));
	if (git_index_write_tree_to(&tree_oid, index, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_oid) < 0 ||
	    git_signature_now(&sig, "fpubench", "fpubench@localhost") < 0 ||
	    git_commit_create(&revert_oid, repo, NULL, sig, sig, NULL, message, tree, 1,
			      (const git_commit **)&bad) < 0) {
		free(message);
		err = error_set(ERR_GENERIC, "cannot commit the revert of %s", git_oid_tostr_s(&b->culprit));
		goto out;
	}
	free(message);
	v->have_revert = true;
	err = test_once(c, repo, NULL, &revert_oid, &v->revert);
out:
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(revert_commit);
	git_index_free(index);
	git_commit_free(culprit);
	git_commit_free(bad);
	return err;
}

static int write_bisect_outputs(struct session *s, const struct bisect *b,
				const struct bisect_step *good_end,
				const struct bisect_step *bad_end, const struct verification *v)
{
	struct strbuf sb = STRBUF_INIT, provenance = STRBUF_INIT;
	char *log = xasprintf("%s/bisect.log", s->run_dir);
	char *json = xasprintf("%s/bisect.json", s->run_dir);
	int err;

	bisect_format_log(&sb, b, good_end, bad_end);
	if ((err = file_write_atomic(log, sb.buf, sb.len)) < 0)
		goto out;
	strbuf_reset(&sb);
	/* Its Link:, Fixes:, patch-id and "introduced by" hints, for whoever reads the result. */
	if (b->found && provenance_commit_json(s->tree->repo, &b->culprit, &provenance) < 0) {
		error_clear();
		strbuf_reset(&provenance);
	}
	bisect_format_json(&sb, b, good_end, bad_end, v, provenance.len ? provenance.buf : NULL);
	if ((err = file_write_atomic(json, sb.buf, sb.len)) < 0)
		goto out;
	err = session_mark_latest(s);
out:
	strbuf_release(&sb);
	strbuf_release(&provenance);
	free(log);
	free(json);
	return err;
}

static void print_check(const char *what, bool ran, const struct bisect_step *st,
			enum bisect_verdict want)
{
	printf("  %-40s %s\n", what, !ran ? "not run" : st->verdict == want ? "ok" : "FAILED");
}

/* A shell word: as it is when it is safe, else in single quotes. */
static void add_shell_word(struct strbuf *sb, const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			 "_-+=/.,:@%") == strlen(w)) {
		strbuf_addstr(sb, w);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *w; w++)
		if (*w == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *w);
	strbuf_addch(sb, '\'');
}

/* regression.eml for the people who must act, with the commands that show the failure. */
static void bisect_tell(struct session *s, const struct options *o, const struct bisect *b,
			const struct bisect_step *good_end, const struct bisect_step *bad_end,
			const struct verification *v)
{
	struct strbuf cmd = STRBUF_INIT;
	const char *setup = v->culprit.setups ? v->culprit.setups : "";

	strbuf_addstr(&cmd, "cd ");
	add_shell_word(&cmd, o->repo);
	strbuf_addf(&cmd, " && git checkout %.12s\nfpubench test --tree . --cpu ",
		    git_oid_tostr_s(&b->culprit));
	const char *sep = strstr(setup, ", ");
	char *first = xstrndup(setup, sep ? (size_t)(sep - setup) : strlen(setup));
	add_shell_word(&cmd, first);
	free(first);
	strbuf_addstr(&cmd, " --test ");
	add_shell_word(&cmd, v->culprit.test ? v->culprit.test : "");
	strbuf_addstr(&cmd, "\nfpubench bisect --repo ");
	add_shell_word(&cmd, o->repo);
	char good[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];
	strbuf_addf(&cmd, " --good %.12s --bad %.12s",
		    git_oid_tostr(good, sizeof(good), &good_end->commit),
		    git_oid_tostr(bad, sizeof(bad), &bad_end->commit));
	for (size_t i = 0; i < o->ncpus; i++) {
		strbuf_addstr(&cmd, " --cpu ");
		add_shell_word(&cmd, o->cpus[i]);
	}
	for (size_t i = 0; i < o->ntests; i++) {
		strbuf_addstr(&cmd, " --test ");
		add_shell_word(&cmd, o->tests[i]);
	}
	if (o->runs > 1)
		strbuf_addf(&cmd, " --runs %d", o->runs);
	struct bisect_mail in = {
		.repo = s->tree->repo, .run_dir = s->run_dir, .b = b, .good_end = good_end,
		.bad_end = bad_end, .culprit = &v->culprit,
		.revert_verified = v->have_revert && v->revert.verdict == BISECT_GOOD,
		.archives = o->archives, .narchives = o->narchives, .conf_from = o->report_from,
		.reproduce = cmd.buf,
	};
	free(bisect_mail_write(&in));
	strbuf_release(&cmd);
}

static int command_bisect(struct session *s, const struct options *o)
{
	struct bisect_ctx c = { .s = s, .o = o, .started = clock_seconds() };
	struct bisect_step good_end = { 0 }, bad_end = { 0 };
	struct verification v = { 0 };
	struct bisect *b = NULL;
	char *fragment = fragment_path(o);
	git_oid good, bad;
	int err;

	c.fragment = fragment;
	if ((err = check_inputs(o, fragment)) < 0 ||
	    (err = kernel_tree_resolve(o->repo, o->good, &good)) < 0 ||
	    (err = kernel_tree_resolve(o->repo, o->bad, &bad)) < 0 ||
	    (err = session_parse_setups(s, o->cpus, o->ncpus)) < 0 ||
	    (err = kernel_tree_open_repo(&s->tree, s->cfg.cache, o->repo)) < 0 ||
	    (err = session_connect(s)) < 0 || (err = session_create_run_dir(s)) < 0)
		goto out;

	printf("bisect: checking the ends\n");
	if ((err = test_once(&c, s->tree->repo, NULL, &good, &good_end)) < 0 ||
	    (err = test_once(&c, s->tree->repo, NULL, &bad, &bad_end)) < 0)
		goto out;
	if (good_end.verdict != BISECT_GOOD || bad_end.verdict != BISECT_BAD) {
		if (good_end.verdict != BISECT_GOOD)
			fprintf(stderr, "fpubench: GOOD '%s' does not pass: %s\n", o->good,
				good_end.note ? good_end.note : bisect_verdict_names[good_end.verdict]);
		if (bad_end.verdict != BISECT_BAD)
			fprintf(stderr, "fpubench: BAD '%s' does not fail (%s)\n", o->bad,
				bisect_verdict_names[bad_end.verdict]);
		/* The ends' results are worth keeping: they say what is wrong. */
		struct bisect none = { .repo = s->tree->repo };
		err = write_bisect_outputs(s, &none, &good_end, &bad_end, &v);
		if (err == 0)
			err = EXIT_BISECT_ENDS;
		goto out;
	}

	if ((err = bisect_run(s->tree->repo, &good, &bad, bisect_test, &c, bisect_progress, &b)) < 0)
		goto out;
	if (b->found && (err = bisect_verify(&c, b, &good_end, &bad_end, &v)) < 0)
		goto out;
	if ((err = write_bisect_outputs(s, b, &good_end, &bad_end, &v)) < 0)
		goto out;

	printf("bisect: %zu steps, %.0f s\n", b->nsteps, clock_seconds() - c.started);
	if (!b->found) {
		printf("bisect: skipped commits leave %zu candidates:\n", b->nrange);
		for (size_t i = 0; i < b->nrange; i++)
			printf("  %s\n", git_oid_tostr_s(&b->range[i]));
		err = EXIT_BISECT_RANGE;
		goto out;
	}
	printf("bisect: first bad commit %s %s\n", git_oid_tostr_s(&b->culprit),
	       v.culprit.subject ? v.culprit.subject : "");
	print_check("its parent passes", v.have_parent, &v.parent, BISECT_GOOD);
	print_check("it fails", true, &v.culprit, BISECT_BAD);
	printf("  %-40s %s\n", "it reverts cleanly on BAD", v.reverts_cleanly ? "ok" : "no");
	print_check("BAD with it reverted passes", v.have_revert, &v.revert, BISECT_GOOD);
	printf("results: %s\n", s->run_dir);
	bool verified = v.have_parent && v.parent.verdict == BISECT_GOOD &&
			v.culprit.verdict == BISECT_BAD && v.have_revert &&
			v.revert.verdict == BISECT_GOOD;
	err = verified ? EXIT_OK : EXIT_BISECT_UNVERIFIED;
	if (v.have_parent && v.parent.verdict == BISECT_GOOD && v.culprit.verdict == BISECT_BAD)
		bisect_tell(s, o, b, &good_end, &bad_end, &v);
out:
	bisect_step_release(&good_end);
	bisect_step_release(&bad_end);
	bisect_step_release(&v.parent);
	bisect_step_release(&v.culprit);
	bisect_step_release(&v.revert);
	bisect_free(b);
	free(fragment);
	return err;
}

/* Fills what the command line left unset from fpubench.conf. */
static void options_from_conf(struct options *o, const struct conf *c)
{
	o->report_from = c->report_from;
	for (size_t i = 0; !o->narchives && i < c->narchives; i++)
		push(&o->archives, &o->narchives, c->archives[i]);
	o->bisect = c->bisect;
	o->bisect_budget_s = c->bisect_budget_s;
	if (!o->results)
		o->results = c->results;
	if (!o->cache)
		o->cache = c->cache;
	if (!o->patches)
		o->patches = c->series;
	if (!o->jobs)
		o->jobs = c->jobs;
	if (!o->timeout_s)
		o->timeout_s = c->timeout_s;
	bool cli_cpus = o->ncpus > 0, cli_tests = o->ntests > 0;

	for (size_t i = 0; !cli_cpus && i < c->nsetups; i++)
		push(&o->cpus, &o->ncpus, c->setups[i]);
	for (size_t i = 0; !cli_tests && i < c->ntests; i++)
		push(&o->tests, &o->ntests, c->tests[i]);
}

static void options_default(struct options *o)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	/* Guests per host follow --jobs when given, else what each host holds. */
	o->guests = o->jobs;
	if (!o->results)
		o->results = "results";
	if (!o->patches)
		o->patches = FPUBENCH_SRCDIR "/patches";
	if (!o->jobs)
		o->jobs = cores > 0 ? (int)cores : 1;
	if (!o->timeout_s)
		o->timeout_s = DEFAULT_BOOT_TIMEOUT_S;
}

static struct session_config session_config_for(const struct options *o, const char *cache,
						const struct conf *c)
{
	return (struct session_config){
		.cache = cache,
		.hosts = o->nhosts || !c ? o->hosts : c->hosts,
		.nhosts = o->nhosts || !c ? o->nhosts : c->nhosts,
		.results = o->results,
		.guest_dir = o->guest_dir,
		.kmod_src = FPUBENCH_SRCDIR "/guest-tests/kmod",
		.seed_variant = TEST_VARIANT_BASE,
		.kernel_provenance = strcmp(o->command, "bisect") != 0,
		.jobs = o->jobs,
		.guests = o->guests,
		.timeout_s = o->timeout_s,
		.expects = c ? c->expects : NULL,
		.nexpects = c ? c->nexpects : 0,
		.tests = o->tests,
		.ntests = o->ntests,
	};
}

/* run: each tree of the config is a run of its own; the worst status wins. */
static int command_run(struct options *o, const struct conf *c, const char *cache)
{
	int status = EXIT_OK;

	for (size_t i = 0; i < c->ntrees && !stop_signal; i++) {
		struct session s = { .cfg = session_config_for(o, cache, c) };
		int err;

		if (c->ntrees > 1)
			printf("tree %s\n", c->trees[i].name);
		err = command_matrix(&s, o, &c->trees[i]);
		session_release(&s);
		if (err < 0) {
			if (stop_signal)
				return err;
			fprintf(stderr, "fpubench: %s\n", error_last());
			err = error_exit_status(err);
		}
		if (err > status)
			status = err;
	}
	return status;
}

/* history: past runs and their cells, newest first. */
static int command_history(const struct options *o)
{
	struct history *h;
	struct history_query q = {
		.test = o->ntests ? o->tests[0] : NULL,
		.cpu = o->ncpus ? o->cpus[0] : NULL,
		.last = (size_t)o->last,
	};
	int err;

	if (o->ntests > 1 || o->ncpus > 1)
		return error_set(ERR_USAGE, "'history' takes one --test and one --cpu");
	if (!file_exists(o->history))
		return error_set(ERR_NOTFOUND, "no history database '%s' (no run yet?)", o->history);
	if ((err = history_open(&h, o->history)) < 0)
		return err;
	err = history_print(h, &q, stdout);
	history_free(h);
	return err;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct session s = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct conf *conf = NULL;
	char *cache = NULL, *history = NULL;
	int status;

	if (argc >= 2 && strcmp(argv[1], "provenance") == 0) {
		git_libgit2_init();
		status = provenance_main(argc - 1, argv + 1);
		git_libgit2_shutdown();
		return status;
	}
	if (argc < 2 || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "test") != 0 &&
			 strcmp(argv[1], "bisect") != 0 && strcmp(argv[1], "history") != 0)) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		fprintf(stderr, "fpubench: %s\n%s", argc < 2 ? "no command" : "unknown command",
			usage_text);
		return EXIT_USAGE;
	}
	o = (struct options){
		.command = argv[1],
		.tarball = getenv("FPUBENCH_TARBALL") ? getenv("FPUBENCH_TARBALL") : DEFAULT_TARBALL,
		.repo = ".",
		.guest_dir = FPUBENCH_GUEST_DIR,
		.runs = 1,
	};
	status = parse_options(&o, argc - 1, argv + 1);
	if (status == 0 && (strcmp(o.command, "run") == 0 ||
			    (strcmp(o.command, "bisect") == 0 && o.conf_path)) &&
	    (status = conf_load(&conf, o.conf_path ? o.conf_path : DEFAULT_CONF)) == 0)
		options_from_conf(&o, conf);
	if (status == 0) {
		options_default(&o);
		cache = o.cache ? xstrdup(o.cache) : default_cache();
		history = o.history ? xstrdup(o.history) : xasprintf("%s/history.db", cache);
		o.history = history;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		git_libgit2_init();
		if (strcmp(o.command, "history") == 0) {
			status = command_history(&o);
		} else if (strcmp(o.command, "run") == 0) {
			status = command_run(&o, conf, cache);
		} else {
			s.cfg = session_config_for(&o, cache, NULL);
			status = strcmp(o.command, "bisect") == 0 ? command_bisect(&s, &o)
								 : command_matrix(&s, &o, NULL);
		}
	}
	if (status < 0) {
		if (stop_signal)
			status = 128 + stop_signal;
		else {
			fprintf(stderr, "fpubench: %s\n", error_last());
			status = error_exit_status(status);
		}
	}
	session_release(&s);
	git_libgit2_shutdown();
	conf_free(conf);
	free(cache);
	free(history);
	free(o.cpus);
	free(o.variants);
	free(o.extra_patches);
	free(o.tests);
	free(o.archives);
	for (size_t i = 0; i < o.nhosts; i++)
		conf_host_release(&o.hosts[i]);
	free(o.hosts);
	return status;
}
