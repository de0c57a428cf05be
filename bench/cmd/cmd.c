#include "cmd.h"
#include "nightly_bisect.h"

#include "build/series.h"
#include "lib/date.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "record/results.h"
#include "record/summary.h"
#include "run/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t cmd_stop_signal;

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

/* Fills what the command line left unset from fpubench.conf. */
static void options_from_conf(struct options *o, const struct conf *c)
{
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
	/* A list given on the command line replaces the file's; tested once, not per item. */
	if (!o->cpus.n)
		for (size_t i = 0; i < c->nsetups; i++)
			optlist_push(&o->cpus, c->setups[i]);
	if (!o->tests.n)
		for (size_t i = 0; i < c->ntests; i++)
			optlist_push(&o->tests, c->tests[i]);
	if (!o->archives.n)
		for (size_t i = 0; i < c->narchives; i++)
			optlist_push(&o->archives, c->archives[i]);
	o->report_from = c->report_from;
	o->bisect = c->bisect;
	o->bisect_budget_s = c->bisect_budget_s;
}

int cmd_prepare(struct options *o, const struct conf *c)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	for (size_t i = 0; i < o->uris.n; i++) {
		o->hosts = xrealloc(o->hosts, (o->nhosts + 1) * sizeof(*o->hosts));
		int err = conf_host_parse(o->uris.v[i], &o->hosts[o->nhosts]);
		if (err < 0)
			return err;
		o->nhosts++;
	}
	if (c)
		options_from_conf(o, c);
	/* Guests per host follow --jobs when given, else what each host holds. */
	o->guests = o->jobs;
	if (!o->results)
		o->results = "results";
	if (!o->patches)
		o->patches = FPUBENCH_SRCDIR "/patches";
	if (!o->jobs)
		o->jobs = cores > 0 ? cores : 1;
	if (!o->timeout_s)
		o->timeout_s = 60.0;
	if (!o->tarball)
		o->tarball = getenv("FPUBENCH_TARBALL") ? getenv("FPUBENCH_TARBALL")
							: CMD_DEFAULT_TARBALL;
	if (!o->repo)
		o->repo = ".";
	if (!o->runs)
		o->runs = 1;
	if (!o->guest_dir)
		o->guest_dir = FPUBENCH_GUEST_DIR;
	if (!o->cache)
		o->cache = o->cache_buf = default_cache();
	if (!o->history)
		o->history = o->history_buf = xasprintf("%s/history.db", o->cache);
	return 0;
}

void cmd_release(struct options *o)
{
	for (size_t i = 0; i < o->nhosts; i++)
		conf_host_release(&o->hosts[i]);
	free(o->hosts);
	free(o->cache_buf);
	free(o->history_buf);
	options_release(o);
}

char *cmd_fragment_path(const struct options *o)
{
	return o->fragment ? xstrdup(o->fragment) : xasprintf("%s/fpu.config", o->patches);
}

int cmd_read_tests(const struct options *o, struct strlist *names, struct strlist *guards)
{
	char *path = xasprintf("%s/tests.list", o->guest_dir);
	struct strbuf list = STRBUF_INIT;
	int err;

	if (!file_exists(path))
		err = error_set(ERR_NOTFOUND, "no test list '%s' (run make first)", path);
	else if ((err = file_read(path, &list)) == 0) {
		/* Each line is NAME, a tab and what it guards (guest-tests/Makefile). */
		for (char *line = list.buf, *next; *line; line = next) {
			char *tab = strchr(line, '\t');

			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = '\0';
			if (tab)
				*tab = '\0';
			strlist_push(names, xstrdup(line));
			strlist_push(guards, xstrdup(tab ? tab + 1 : ""));
		}
	}
	strbuf_release(&list);
	free(path);
	return err;
}

/* Test names must be the guest's, as its build lists them (a testing aid's guest has no list). */
static int check_tests(const struct options *o)
{
	struct strlist names = STRLIST_INIT, guards = STRLIST_INIT;
	int err = 0;

	/* The names go on the guest's kernel command line (fpubench_tests=A,B). */
	for (size_t i = 0; i < o->tests.n && !err; i++)
		if (!*o->tests.v[i] || strspn(o->tests.v[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(o->tests.v[i]))
			err = error_set(ERR_USAGE, "test name '%s' is not letters, digits and '_'",
					o->tests.v[i]);

	if (!err && o->tests.n && (err = cmd_read_tests(o, &names, &guards)) == ERR_NOTFOUND) {
		error_clear();
		err = 0;
	} else if (!err) {
		for (size_t i = 0; i < o->tests.n && !err; i++)
			if (!strlist_contains(&names, o->tests.v[i]))
				err = error_set(ERR_USAGE, "unknown test '%s' (see 'fpubench test --list')",
						o->tests.v[i]);
	}
	strlist_release(&names);
	strlist_release(&guards);
	return err;
}

int cmd_check_inputs(const struct options *o, const char *fragment)
{
	int err;

	if ((err = check_tests(o)) < 0)
		return err;
	if (!file_exists(fragment))
		return error_set(ERR_NOTFOUND, "config fragment '%s' is missing", fragment);
	for (size_t i = 0; i < o->patch_files.n; i++) {
		struct stat st;

		if (!file_exists(o->patch_files.v[i]))
			return error_set(ERR_NOTFOUND, "patch '%s' is missing", o->patch_files.v[i]);
		if (stat(o->patch_files.v[i], &st) < 0 || !S_ISREG(st.st_mode) ||
		    access(o->patch_files.v[i], R_OK) < 0)
			return error_set(ERR_NOTFOUND, "patch '%s' is not a readable file",
					 o->patch_files.v[i]);
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
	char *fragment = cmd_fragment_path(o);
	struct series *series = NULL;
	int err;

	if ((err = cmd_check_inputs(o, fragment)) < 0)
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

	if (o->command == CMD_TEST) {
		const struct series_variant *v = series_find_variant(series, CMD_TEST_VARIANT);
		git_oid commit;

		if (!v) {
			err = error_set(ERR_INPUT, "no variant '%s' in '%s/variants'", CMD_TEST_VARIANT,
					o->patches);
			goto out;
		}
		if ((err = kernel_tree_apply_series(s->tree, series, v->npatches, &commit)) < 0)
			goto out;
		for (size_t i = 0; i < o->patch_files.n; i++) {
			git_oid parent = commit;
			if ((err = kernel_tree_apply(s->tree, &parent, o->patch_files.v[i], &commit)) < 0)
				goto out;
		}
		err = session_add_kernel(s, o->patch_files.n ? "test" : CMD_TEST_VARIANT, &commit,
					 fragment);
		goto out;
	}

	for (size_t j = 0; j < o->variants.n; j++) {
		if (!series_find_variant(series, o->variants.v[j])) {
			err = error_set(ERR_USAGE, "unknown variant '%s' (see '%s/variants')",
					o->variants.v[j], o->patches);
			goto out;
		}
	}
	for (size_t i = 0; i < series->nvariants; i++) {
		const struct series_variant *v = &series->variants[i];
		bool wanted = o->variants.n == 0;
		git_oid commit;

		for (size_t j = 0; j < o->variants.n; j++)
			wanted |= strcmp(o->variants.v[j], v->name) == 0;
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

bool cmd_test_selected(const struct options *o, const char *test)
{
	if (!o->tests.n)
		return true;
	for (size_t i = 0; i < o->tests.n; i++)
		if (strcmp(o->tests.v[i], test) == 0)
			return true;
	return false;
}

static int exit_status_for(const struct options *o, const struct matrix *m)
{
	bool is_test = o->command == CMD_TEST;
	bool all_ok = true, error_cell = false, no_init = false;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		error_cell |= c->status == VERDICT_ERROR;
		no_init |= c->no_init;
		if (is_test)
			all_ok &= !cmd_test_selected(o, c->test) || verdict_meets(c->status, VERDICT_PASS);
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

struct session_config cmd_session_config(const struct options *o, const struct conf *c)
{
	return (struct session_config){
		.cache = o->cache,
		.hosts = o->nhosts || !c ? o->hosts : c->hosts,
		.nhosts = o->nhosts || !c ? o->nhosts : c->nhosts,
		.results = o->results,
		.guest_dir = o->guest_dir,
		.kmod_src = FPUBENCH_SRCDIR "/guest-tests/kmod",
		.seed_variant = CMD_TEST_VARIANT,
		.kernel_provenance = o->command != CMD_BISECT,
		.jobs = o->jobs,
		.guests = o->guests,
		.timeout_s = o->timeout_s,
		.expects = c ? c->expects : NULL,
		.nexpects = c ? c->nexpects : 0,
		.append = o->append,
		.tests = o->tests.v,
		.ntests = o->tests.n,
	};
}

/*
 * run and test: build, boot, write the results.  `run` (tree set) also
 * keeps the run in the history and writes the reports.
 */
int cmd_matrix(struct session *s, const struct options *o, const struct conf_tree *tree)
{
	struct matrix *m = NULL;
	struct record *rec = NULL;
	struct results_run run;
	char started[32], finished[32], hash[13];
	char *fragment = cmd_fragment_path(o);
	struct summary sum = { .consoles = o->command == CMD_TEST, .new_failures = -1 };
	int err;

	date_format_iso8601(started, sizeof(started), time(NULL));
	/* The run directory comes last: a run that cannot boot leaves none. */
	if ((err = session_parse_setups(s, o->cpus.v, o->cpus.n)) < 0 ||
	    (err = build_kernels(s, o, tree)) < 0 || (err = session_connect(s)) < 0 ||
	    (err = session_create_run_dir(s)) < 0)
		goto out;
	if (tree) {
		if ((err = fragment_hash(fragment, hash)) < 0 ||
		    (err = record_begin(&rec, s, o->history, o->command_name, tree->name, hash)) < 0)
			goto out;
		s->cfg.on_boot = record_boot;
		s->cfg.on_boot_arg = rec;
	}
	if ((err = session_boot(s, 1, &m)) < 0)
		goto out;
	results_run_init(&run, s, o->command_name, started, finished, sizeof(finished));
	if ((err = results_write(s->run_dir, &run, m)) < 0)
		goto out;
	if (o->verbose)
		results_print_matrix(stdout, m);
	if (rec && (err = record_finish(rec, &run, m, &sum.new_failures)) < 0)
		goto out;
	sum.m = m;
	sum.run_dir = s->run_dir;
	sum.report = rec != NULL;
	if (m->interrupted) {
		summary_print(stdout, &sum);
		err = ERR_INTERRUPTED;
		goto out;
	}
	if ((err = session_mark_latest(s)) < 0)
		goto out;
	if (tree && tree->source == CONF_TREE_GIT && sum.new_failures > 0 && o->bisect != CONF_NO) {
		struct nightly_bisect nb = {
			.s = s, .rec = rec, .run = &run, .m = m, .repo = tree->repo,
			.conf_path = o->conf_path ? o->conf_path : CMD_DEFAULT_CONF,
			.budget_s = o->bisect_budget_s > 0 ? o->bisect_budget_s : NIGHTLY_BISECT_BUDGET_S,
		};
		if ((err = nightly_bisect(&nb)) < 0)
			goto out;
	}
	summary_print(stdout, &sum);
	err = exit_status_for(o, m);
	if (err == EXIT_OK && sum.new_failures > 0)
		err = EXIT_FAILED;
out:
	record_free(rec);
	matrix_free(m);
	free(fragment);
	return err;
}

