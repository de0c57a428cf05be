#include "cmd.h"
#include "nightly_bisect.h"

#include "build/patchfile.h"
#include "build/payload.h"
#include "lib/date.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"
#include "record/results.h"
#include "run/coverage.h"
#include "run/kernels.h"
#include "record/summary.h"
#include "run/runlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t cmd_stop_signal;

/* Keeps s for cmd_release() and returns it, for a default the bench found. */
static const char *own(struct options *o, char *s)
{
	strlist_push(&o->owned, s);
	return s;
}

int cmd_data_default(struct options *o, const char **field, enum runtime_data what)
{
	char *path;
	int err;

	if (*field)
		return 0;
	if ((err = runtime_data_path(&path, what)) < 0)
		return err;
	*field = own(o, path);
	return 0;
}

/* The user's data directory's `name`: the results or the history (caller frees). */
static char *user_data(const char *name)
{
	char *dir = runtime_user_dir(RUNTIME_USER_DATA);
	char *path = xasprintf("%s/%s", dir, name);

	free(dir);
	return path;
}

/*
 * The history is the user's data; one that an earlier fpubench kept in the
 * cache is used where it is, so a nightly still compares with its past runs.
 */
static char *default_history(const char *cache)
{
	char *path = user_data("history.db");
	char *old = xasprintf("%s/history.db", cache);

	if (!file_exists(path) && file_exists(old)) {
		free(path);
		return old;
	}
	free(old);
	return path;
}

/*
 * Without --cpu, and without setups in the config given, the setups are
 * the default config's [cpu]: the one list of the default matrix.
 */
static int default_setups(struct options *o)
{
	struct conf *d = NULL;
	const char *path = NULL;
	int err;

	if ((err = cmd_data_default(o, &path, RUNTIME_CONF)) < 0 || (err = conf_load(&d, path)) < 0)
		return err;
	for (size_t i = 0; i < d->nsetups; i++)
		optlist_push(&o->cpus, own(o, xstrdup(d->setups[i])));
	if (!d->nsetups)
		err = error_set(ERR_INPUT, "the default config '%s' has no [cpu] setup", path);
	conf_free(d);
	return err;
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

/* `--lab local` without a [lab local]: lava-run on this machine, every default. */
static struct conf_lab local_lab = { .name = (char[]){ CONF_LAB_LOCAL }, .engine = CONF_LAB_LAVA_RUN };

/*
 * The labs to boot on: those --lab names (a [lab] of the config, or
 * `local`), else the config's; a REST lab's token is read now, so that a
 * missing one stops the bench before it builds.
 */
static int choose_labs(struct options *o, const struct conf *c)
{
	size_t n = o->labs.n ? o->labs.n : c ? c->nlabs : 0;

	o->lab_confs = xcalloc(n + 1, sizeof(*o->lab_confs));
	for (size_t i = 0; i < n; i++) {
		const char *name = o->labs.n ? o->labs.v[i] : c->labs[i].name;
		const struct conf_lab *lab = c ? conf_lab_find(c->labs, c->nlabs, name) : NULL;
		char *token = NULL;
		int err;

		if (!lab && strcmp(name, CONF_LAB_LOCAL) == 0)
			lab = &local_lab;
		if (!lab)
			return error_set(ERR_USAGE, "unknown lab '%s' (%s)", name,
					 c ? "no such [lab] in the config" : "only 'local' without a config");
		for (size_t j = 0; j < o->nlab_confs; j++)
			if (o->lab_confs[j] == lab)
				return error_set(ERR_USAGE, "lab '%s' is given twice", name);
		if (lab->engine == CONF_LAB_REST && (err = conf_lab_token(lab, &token)) < 0)
			return err;
		free(token);
		o->lab_confs[o->nlab_confs++] = lab;
	}
	return 0;
}

void cmd_add_board_setup(struct options *o, const char *board)
{
	optlist_push(&o->cpus, own(o, xasprintf("@%s", board)));
}

/* The boards of the labs picked are setups of their own unless --cpu chose. */
static void add_board_setups(struct options *o)
{
	for (size_t l = 0; l < o->nlab_confs; l++)
		for (size_t b = 0; b < o->lab_confs[l]->nboards; b++)
			cmd_add_board_setup(o, o->lab_confs[l]->boards[b]);
}

int cmd_prepare(struct options *o, const struct conf *c)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	bool chose_cpus = o->cpus.n > 0;
	int err;

	for (size_t i = 0; i < o->uris.n; i++) {
		o->hosts = xrealloc(o->hosts, (o->nhosts + 1) * sizeof(*o->hosts));
		if ((err = conf_host_parse(o->uris.v[i], &o->hosts[o->nhosts])) < 0)
			return err;
		o->nhosts++;
	}
	if (c)
		options_from_conf(o, c);
	if ((err = choose_labs(o, c)) < 0)
		return err;
	/* Guests per host follow --jobs when given, else what each host holds. */
	o->guests = o->jobs;
	if (!o->results)
		o->results = own(o, user_data("results"));
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
	if (!o->cache)
		o->cache = own(o, runtime_user_dir(RUNTIME_USER_CACHE));
	if (!o->history)
		o->history = own(o, default_history(o->cache));
	/* history reads the database alone; the others build and boot. */
	if (o->command == CMD_HISTORY)
		return 0;
	if ((err = cmd_data_default(o, &o->patches, RUNTIME_SERIES)) < 0 ||
	    (err = cmd_data_default(o, &o->guest_dir, RUNTIME_GUEST)) < 0 ||
	    (!o->cpus.n && o->command != CMD_TREE && (err = default_setups(o)) < 0))
		return err;
	if (!chose_cpus && o->command != CMD_TREE)
		add_board_setups(o);
	return cmd_data_default(o, &o->kmod_src, RUNTIME_KMOD);
}

void cmd_release(struct options *o)
{
	for (size_t i = 0; i < o->nhosts; i++)
		conf_host_release(&o->hosts[i]);
	free(o->hosts);
	free(o->lab_confs);
	strlist_release(&o->owned);
	options_release(o);
}

char *cmd_fragment_path(const struct options *o)
{
	return o->fragment ? xstrdup(o->fragment) : xasprintf("%s/fpu.config", o->patches);
}

/* Test names must be the guest's, as its build lists them (a testing aid's guest has no list). */
static int check_tests(const struct options *o)
{
	struct payload_test *tests = NULL;
	size_t ntests = 0;
	int err = 0;

	/* The names go on the guest's kernel command line (fpubench_tests=A,B). */
	for (size_t i = 0; i < o->tests.n && !err; i++)
		if (!*o->tests.v[i] || strspn(o->tests.v[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(o->tests.v[i]))
			err = error_set(ERR_USAGE, "test name '%s' is not letters, digits and '_'",
					o->tests.v[i]);

	if (!err && o->tests.n &&
	    (err = payload_read_tests(o->guest_dir, &tests, &ntests)) == ERR_NOTFOUND) {
		error_clear();
		err = 0;
	} else if (!err) {
		for (size_t i = 0; i < o->tests.n && !err; i++) {
			size_t j = 0;

			while (j < ntests && strcmp(tests[j].name, o->tests.v[i]) != 0)
				j++;
			if (j == ntests)
				err = error_set(ERR_USAGE, "unknown test '%s' (see 'fpubench test --list')",
						o->tests.v[i]);
		}
	}
	payload_tests_free(tests, ntests);
	return err;
}

const char *cmd_patch_path(const struct options *o, size_t i)
{
	return strcmp(o->patch_files.v[i], "-") == 0 && o->stdin_patch ? o->stdin_patch
									 : o->patch_files.v[i];
}

int cmd_check_inputs(const struct options *o, const char *fragment)
{
	int err;

	if ((err = check_tests(o)) < 0)
		return err;
	if (!file_exists(fragment))
		return error_set(ERR_NOTFOUND, "config fragment '%s' is missing", fragment);
	for (size_t i = 0; i < o->patch_files.n && !err; i++) {
		const char *name = o->patch_files.v[i], *path = cmd_patch_path(o, i);
		struct patchfile_list list = PATCHFILE_LIST_INIT;
		struct stat st;

		if (!file_exists(path))
			return error_set(ERR_NOTFOUND, "patch '%s' is missing", name);
		if (stat(path, &st) < 0 || !(S_ISREG(st.st_mode) || patchfile_is_maildir(path)) ||
		    access(path, R_OK) < 0)
			return error_set(ERR_NOTFOUND, "patch '%s' is not a readable file", name);
		/* Read whole now, so a file that holds no patch or holds junk stops the bench first. */
		err = patchfile_read(&list, path, name);
		patchfile_list_release(&list);
	}
	return err;
}

/* The kernels `run` and `test` boot (kernels.h), once the inputs are checked. */
static int build_kernels(struct session *s, const struct options *o, const struct conf_tree *tree)
{
	const char **paths = xcalloc(o->patch_files.n + 1, sizeof(*paths));
	bool git = tree && tree->source == CONF_TREE_GIT;
	struct kernels_request rq = {
		.git_name = git ? tree->name : NULL,
		.git_repo = git ? tree->repo : NULL,
		.git_branch = git ? tree->branch : NULL,
		.dir = o->tree,
		.tarball = tree && tree->tarball ? tree->tarball : o->tarball,
		.patches = o->patches,
		.fragment = cmd_fragment_path(o),
		.test = o->command == CMD_TEST,
		.patch_paths = paths,
		.patch_names = o->patch_files.v,
		.npatches = o->patch_files.n,
		.coverage = o->coverage,
		.variants = o->variants.v,
		.nvariants = o->variants.n,
	};
	int err;

	for (size_t i = 0; i < o->patch_files.n; i++)
		paths[i] = cmd_patch_path(o, i);
	if ((err = cmd_check_inputs(o, rq.fragment)) == 0)
		err = kernels_add(s, &rq);
	free((char *)rq.fragment);
	free(paths);
	return err;
}

int cmd_build(struct session *s, const struct options *o, const struct conf_tree *tree)
{
	int err = session_parse_setups(s, o->cpus.v, o->cpus.n);

	return err < 0 ? err : build_kernels(s, o, tree);
}

bool cmd_test_selected(const struct options *o, const char *test)
{
	return strv_selects(o->tests.v, o->tests.n, test);
}

static int exit_status_for(const struct options *o, const struct matrix *m)
{
	bool is_test = o->command == CMD_TEST;
	bool all_ok = true, error_cell = false, no_init = false;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		error_cell |= c->status == VERDICT_ERROR;
		no_init |= c->no_init;
		if (c->not_run)
			all_ok = false;	/* a not-run pair passed nothing */
		else if (is_test)
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

/* The history's directory, which the user's data directory may not hold yet. */
static int history_dir_create(const char *history)
{
	const char *slash = strrchr(history, '/');
	char *dir = xstrndup(history, slash ? (size_t)(slash - history) : 0);
	int err = *dir ? dir_create(dir, ERR_GENERIC) : 0;

	free(dir);
	return err;
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
		/* Labs alone on the command line: nothing boots under libvirt. */
		.hosts = o->nhosts || o->labs.n || !c ? o->hosts : c->hosts,
		.nhosts = o->nhosts || o->labs.n || !c ? o->nhosts : c->nhosts,
		.labs = o->lab_confs,
		.nlabs = o->nlab_confs,
		.boards = c ? c->boards : NULL,
		.nboards = c ? c->nboards : 0,
		.results = o->results,
		.guest_dir = o->guest_dir,
		.kmod_src = o->kmod_src,
		.seed_variant = KERNELS_TEST_VARIANT,
		.kernel_provenance = o->command != CMD_BISECT,
		.jobs = o->jobs,
		.guests = o->guests,
		.timeout_s = o->timeout_s,
		.restore = !o->no_restore,
		.expects = c ? c->expects : NULL,
		.nexpects = c ? c->nexpects : 0,
		.append = o->append,
		.tests = o->tests.v,
		.ntests = o->tests.n,
		.fail_fast = o->fail_fast,
	};
}

/*
 * run and test: build, boot, write the results.  `run` (tree set) also
 * keeps the run in the history and writes the reports.
 */
int cmd_matrix(struct session *s, const struct options *o, const struct conf_tree *tree)
{
	struct matrix *m = NULL;
	struct runlog *rec = NULL;
	struct results_run run;
	char started[32], finished[32], hash[13];
	char *fragment = cmd_fragment_path(o);
	struct summary sum = { .consoles = o->command == CMD_TEST, .new_failures = -1 };
	int err;

	date_format_iso8601(started, sizeof(started), time(NULL));
	/* The run directory comes last: a run that cannot boot leaves none. */
	if ((err = cmd_build(s, o, tree)) < 0 || (err = session_connect(s)) < 0 ||
	    (err = session_create_run_dir(s)) < 0)
		goto out;
	if (tree) {
		if ((err = fragment_hash(fragment, hash)) < 0 ||
		    (err = history_dir_create(o->history)) < 0 ||
		    (err = runlog_begin(&rec, s, o->history, o->command_name, tree->name, hash)) < 0)
			goto out;
		s->cfg.on_boot = runlog_boot;
		s->cfg.on_boot_arg = rec;
	}
	if ((err = session_boot(s, 1, &m)) < 0)
		goto out;
	results_run_init(&run, s, o->command_name, started, finished, sizeof(finished));
	if ((err = results_write(s->run_dir, &run, m)) < 0)
		goto out;
	if (o->verbose)
		results_print_matrix(stdout, m);
	if (rec && (err = runlog_finish(rec, &run, m, &sum.new_failures)) < 0)
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
	/* After the run is complete and latest: a failure here costs only the coverage. */
	if (o->coverage) {
		if ((err = coverage_write(s, m, o->coverage, o->patches)) < 0)
			goto out;
		printf("coverage: %s/summary.txt, %s/html/index.html\n", o->coverage, o->coverage);
	}
	if (tree && tree->source == CONF_TREE_GIT && sum.new_failures > 0 && o->bisect != CONF_NO) {
		struct nightly_bisect nb = {
			.s = s, .rec = rec, .run = &run, .m = m, .repo = tree->repo,
			.conf_path = o->conf_path,
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
	runlog_free(rec);
	matrix_free(m);
	free(fragment);
	return err;
}

