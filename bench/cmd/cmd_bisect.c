#include "cmd.h"

#include "bisect/bisect.h"
#include "bisect/bisect_json.h"
#include "bisect_mail.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/strbuf.h"
#include "provenance/provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FPUBENCH_VERSION
#define FPUBENCH_VERSION "unknown"
#endif

/* bisect's exit statuses beyond 0 (culprit found and verified). */
enum {
	EXIT_BISECT_RANGE = 2,		/* skips leave a range, no single culprit */
	EXIT_BISECT_ENDS = 3,		/* GOOD does not pass or BAD does not fail */
	EXIT_BISECT_UNVERIFIED = 4,	/* a culprit, but a verification check failed */
};

/* What bisect needs from the session for each commit it tests. */
struct bisect_ctx {
	struct session *s;
	const struct options *o;
	const char *fragment;
	double started;
	int steps_done;
	double step_seconds;
	char *crash;		/* the title of BAD's crash: the bug bisected, or NULL */
	char *last_crash;	/* the first crash title of the commit tested last */
};

/* A crash titled unlike BAD's is another bug (unless --any-crash): it says nothing of this one. */
static bool another_bug(const struct bisect_ctx *c, const struct matrix_cell *cell)
{
	return c->crash && !c->o->any_crash && cell->status == VERDICT_CRASH && cell->crash &&
	       strcmp(cell->crash, c->crash) != 0;
}

/* Builds and boots one commit `runs` times; any failing boot makes it bad. */
static int bisect_test(void *arg, const git_oid *commit, struct bisect_step *step)
{
	struct bisect_ctx *c = arg;
	struct session *s = c->s;
	struct matrix *m = NULL;
	struct strbuf note = STRBUF_INIT, other = STRBUF_INIT;
	double start = clock_seconds();
	int err, untestable_runs = 0;

	session_clear_kernels(s);
	err = session_add_kernel(s, "bisect", commit, c->fragment);
	step->build_s = clock_seconds() - start;
	/* A build that SIGINT or SIGTERM ended says nothing of the commit. */
	if (err < 0 && cmd_stop_signal)
		return ERR_INTERRUPTED;
	if (err == ERR_BUILD || err == ERR_CONFIG) {
		step->verdict = BISECT_SKIP;
		step->note = xasprintf("does not build: %s", error_last());
		return 0;
	}
	if (err < 0)
		return err;
	bisect_mail_keep_config(step, s->run_dir, s->builds[0]->dir);
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
	free(c->last_crash);
	c->last_crash = NULL;
	for (int r = 0; r < c->o->runs; r++) {
		bool failed = false, untestable = false;

		for (size_t i = r * per_round; i < (r + 1) * per_round && i < m->ncells; i++) {
			const struct matrix_cell *cell = &m->cells[i];

			if (cell->no_init || cell->status == VERDICT_ERROR) {
				untestable = true;
			} else if (cmd_test_selected(c->o, cell->test) && another_bug(c, cell)) {
				if (!other.len)
					strbuf_addf(&other, "another bug: %s %s %s", cell->cpu->spec, cell->test,
						    cell->crash);
				untestable = true;
			} else if (cmd_test_selected(c->o, cell->test) &&
				   !verdict_meets(cell->status, VERDICT_PASS)) {
				if (!c->last_crash && cell->crash)
					c->last_crash = xstrdup(cell->crash);
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
		strbuf_addstr(&note, other.len ? other.buf : "the guest never reached init");
	step->note = note.len ? strbuf_detach(&note) : NULL;
	strbuf_release(&note);
	strbuf_release(&other);
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

static int write_bisect_outputs(struct session *s, const struct bisect *b,
				const struct bisect_step *good_end,
				const struct bisect_step *bad_end, const struct bisect_verification *v)
{
	struct strbuf sb = STRBUF_INIT, provenance = STRBUF_INIT;
	char *log = xasprintf("%s/bisect.log", s->run_dir);
	char *json = xasprintf("%s/bisect.json", s->run_dir);
	int err;

	bisect_format_log(&sb, b, good_end, bad_end);
	if ((err = file_write_atomic(log, sb.buf, sb.len)) < 0)
		goto out;
	/* Its Link:, Fixes:, patch-id and "introduced by" hints, for whoever reads the result. */
	if (b->found && provenance_commit_json(s->tree->repo, &b->culprit, &provenance) < 0) {
		error_clear();
		strbuf_reset(&provenance);
	}
	if ((err = bisect_json_write(json, b, good_end, bad_end, v,
				     provenance.len ? provenance.buf : NULL)) < 0)
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

/* The culprit and each check of it; returns whether all passed. */
static bool print_verification(const struct options *o, const struct bisect *b,
			       const struct bisect_verification *v)
{
	/* A fix search's old commits fail: each check the other way round. */
	enum bisect_verdict old = o->fixed ? BISECT_BAD : BISECT_GOOD;
	enum bisect_verdict new = o->fixed ? BISECT_GOOD : BISECT_BAD;

	printf("bisect: first %s commit %s %s\n", o->fixed ? "fixed" : "bad",
	       git_oid_tostr_s(&b->culprit), v->culprit.subject ? v->culprit.subject : "");
	print_check(o->fixed ? "its parent fails" : "its parent passes", v->have_parent, &v->parent,
		    old);
	print_check(o->fixed ? "it passes" : "it fails", true, &v->culprit, new);
	printf("  %-40s %s\n", o->fixed ? "it reverts cleanly on GOOD" : "it reverts cleanly on BAD",
	       v->reverts_cleanly ? "ok" : "no");
	print_check(o->fixed ? "GOOD with it reverted fails" : "BAD with it reverted passes",
		    v->have_revert, &v->revert, old);
	return v->have_parent && v->parent.verdict == old && v->culprit.verdict == new &&
	       v->have_revert && v->revert.verdict == old;
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
			const struct bisect_verification *v)
{
	struct strbuf test = STRBUF_INIT, bisect = STRBUF_INIT;
	const char *setup = v->culprit.setups ? v->culprit.setups : "";
	const char *sep = strstr(setup, ", ");

	/* The first setup that failed and the test: what `test --tree .` needs to show it. */
	char *first = xstrndup(setup, sep ? (size_t)(sep - setup) : strlen(setup));
	strbuf_addstr(&test, " --cpu ");
	add_shell_word(&test, first);
	free(first);
	strbuf_addstr(&test, " --test ");
	add_shell_word(&test, v->culprit.test ? v->culprit.test : "");
	/* The bisection's own options, and none that names a file of this machine. */
	for (size_t i = 0; i < o->cpus.n; i++) {
		strbuf_addstr(&bisect, " --cpu ");
		add_shell_word(&bisect, o->cpus.v[i]);
	}
	for (size_t i = 0; i < o->tests.n; i++) {
		strbuf_addstr(&bisect, " --test ");
		add_shell_word(&bisect, o->tests.v[i]);
	}
	if (o->runs > 1)
		strbuf_addf(&bisect, " --runs %ld", o->runs);
	if (o->any_crash)
		strbuf_addstr(&bisect, " --any-crash");
	struct bisect_mail in = {
		.repo = s->tree->repo, .repo_dir = o->repo, .run_dir = s->run_dir, .b = b,
		.good_end = good_end, .bad_end = bad_end, .culprit = &v->culprit,
		.revert_verified = v->have_revert && v->revert.verdict == BISECT_GOOD,
		.archives = o->archives.v, .narchives = o->archives.n, .conf_from = o->report_from,
		.version = FPUBENCH_VERSION, .test_args = test.buf, .bisect_args = bisect.buf,
	};
	free(bisect_mail_write(&in));
	strbuf_release(&test);
	strbuf_release(&bisect);
}

/* The question, checked in the user's repository before anything is created or built. */
static int check_ends(const struct options *o, const git_oid *good, const git_oid *bad)
{
	git_repository *repo = NULL;
	int err;

	if (git_repository_open_ext(&repo, o->repo, 0, NULL) < 0)
		return error_set(ERR_INPUT, "'%s' is not a git repository: %s", o->repo,
				 gitutil_error());
	/* Both ends kernels the bench builds, said of the user's repository before the cache has a work tree of it. */
	if ((err = bisect_check_ends(repo, good, o->good, bad, o->bad, o->fixed)) == 0 &&
	    (err = kernel_tree_check_commit(repo, o->repo, bad)) == 0)
		err = kernel_tree_check_commit(repo, o->repo, good);
	git_repository_free(repo);
	return err;
}

/* Says which end is wrong, keeps the ends' results (they say why): EXIT_BISECT_ENDS or an error. */
static int refuse_ends(struct session *s, const struct options *o,
		       const struct bisect_step *good_end, const struct bisect_step *bad_end,
		       const struct bisect_verification *v)
{
	struct bisect none = { .repo = s->tree->repo };
	int err;

	if (good_end->verdict != BISECT_GOOD)
		fprintf(stderr, "fpubench: GOOD '%s' does not pass: %s\n", o->good,
			good_end->note ? good_end->note : bisect_verdict_name(good_end->verdict, false));
	if (bad_end->verdict != BISECT_BAD)
		fprintf(stderr, "fpubench: BAD '%s' does not fail (%s)\n", o->bad,
			bisect_verdict_name(bad_end->verdict, false));
	err = write_bisect_outputs(s, &none, good_end, bad_end, v);
	return err == 0 ? EXIT_BISECT_ENDS : err;
}

static int bisect_command(struct session *s, const struct options *o)
{
	struct bisect_ctx c = { .s = s, .o = o, .started = clock_seconds() };
	struct bisect_step good_end = { 0 }, bad_end = { 0 };
	struct bisect_verification v = { 0 };
	struct bisect *b = NULL;
	char *fragment = cmd_fragment_path(o);
	git_oid good, bad;
	int err;

	c.fragment = fragment;
	if ((err = cmd_check_inputs(o, fragment)) < 0 ||
	    (err = kernel_tree_resolve(o->repo, o->good, &good)) < 0 ||
	    (err = kernel_tree_resolve(o->repo, o->bad, &bad)) < 0 ||
	    (err = check_ends(o, &good, &bad)) < 0 ||
	    (err = session_parse_setups(s, o->cpus.v, o->cpus.n)) < 0 ||
	    (err = kernel_tree_open_repo(&s->tree, s->cfg.cache, o->repo)) < 0 ||
	    (err = session_connect(s)) < 0 || (err = session_create_run_dir(s)) < 0)
		goto out;

	printf("bisect: checking the ends\n");
	if ((err = bisect_test_once(s->tree->repo, NULL, &good, bisect_test, &c, &good_end)) < 0 ||
	    (err = bisect_test_once(s->tree->repo, NULL, &bad, bisect_test, &c, &bad_end)) < 0)
		goto out;
	/* BAD's crash is the bug: a step that crashes otherwise shows another one. */
	c.crash = c.last_crash;
	c.last_crash = NULL;
	if (c.crash)
		printf("bisect: BAD crashes with '%s'%s\n", c.crash,
		       o->any_crash ? "; --any-crash: any crash counts" : "");
	if (good_end.verdict != BISECT_GOOD || bad_end.verdict != BISECT_BAD) {
		err = refuse_ends(s, o, &good_end, &bad_end, &v);
		goto out;
	}

	if ((err = bisect_run(s->tree->repo, &good, &bad, o->fixed, bisect_test, &c, bisect_progress,
			      &b)) < 0)
		goto out;
	if (b->found && (err = bisect_verify(b, &good_end, &bad_end, bisect_test, &c, &v)) < 0)
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
	bool verified = print_verification(o, b, &v);
	printf("results: %s\n", s->run_dir);
	err = verified ? EXIT_OK : EXIT_BISECT_UNVERIFIED;
	/* A fix is news for nobody's regression list: bisect.log and bisect.json say it. */
	if (!o->fixed && v.have_parent && v.parent.verdict == BISECT_GOOD &&
	    v.culprit.verdict == BISECT_BAD)
		bisect_tell(s, o, b, &good_end, &bad_end, &v);
out:
	free(c.crash);
	free(c.last_crash);
	bisect_step_release(&good_end);
	bisect_step_release(&bad_end);
	bisect_step_release(&v.parent);
	bisect_step_release(&v.culprit);
	bisect_step_release(&v.revert);
	bisect_free(b);
	free(fragment);
	return err;
}


int cmd_bisect(struct options *o)
{
	struct session s = { 0 };
	int err;

	if (!o->good || !o->bad)
		return error_set(ERR_USAGE, "'bisect' needs --good REV and --bad REV");
	/* A config gives the mail's sender and archives (and what it gives a run). */
	struct conf *c = NULL;
	if ((o->conf_path && (err = conf_load(&c, o->conf_path)) < 0) ||
	    (err = cmd_prepare(o, c)) < 0) {
		conf_free(c);
		return err;
	}
	s.cfg = cmd_session_config(o, c);
	err = bisect_command(&s, o);
	session_release(&s);
	conf_free(c);
	return err;
}

static const struct opt bisect_options[] = {
	OPT_ROW_CPU,
	OPT_ROW_APPEND,
	OPT_ROW_URI,
	{ "config", 0, "FILE", OPT_STRING, OPT_FIELD(conf_path), 0, 0,
	  "a config whose [report] section gives the regression mail's sender" },
	OPT_ROW_REPO,
	{ "good", 0, "REV", OPT_STRING, OPT_FIELD(good), 0, 0,
	  "a commit that passes" },
	{ "bad", 0, "REV", OPT_STRING, OPT_FIELD(bad), 0, 0,
	  "a commit that fails" },
	{ "any-crash", 0, NULL, OPT_FLAG, OPT_FIELD(any_crash), 0, 0,
	  "count a step's crash as bad whatever its title (default: a crash titled unlike "
	  "BAD's is another bug and the step is skipped)" },
	{ "fixed", 0, NULL, OPT_FLAG, OPT_FIELD(fixed), 0, 0,
	  "find the first commit that passes, the one that fixed the test (git's old/new "
	  "terms): BAD is then the older end, an ancestor of GOOD; no regression mail" },
	{ "runs", 0, "N", OPT_LONG, OPT_FIELD(runs), 1, 100,
	  "boot each step N times; any failing boot makes it bad (default: 1)" },
	{ "fragment", 0, "FILE", OPT_STRING, OPT_FIELD(fragment), 0, 0,
	  "the kernel config fragment (default: PATCHES/fpu.config)" },
	OPT_ROW_ARCHIVE,
	OPT_ROW_TEST,
	OPT_ROW_CACHE,
	OPT_ROW_PATCHES,
	OPT_ROW_RESULTS,
	OPT_ROW_JOBS,
	OPT_ROW_TIMEOUT,
	OPT_ROW_NO_RESTORE,
	OPT_END,
};

const struct command_def cmd_bisect_def = {
	CMD_BISECT, "bisect", "fpubench bisect [OPTION]... --good REV --bad REV",
	"find and verify the commit that broke a test",
	"Bisects --repo between GOOD and BAD, building and booting each step, then\n"
	"verifies the culprit (its parent passes, it fails, BAD with it reverted\n"
	"passes). Writes bisect.log, bisect.json and regression.eml, a reply to the\n"
	"culprit's posting (found with --archive) for its author and reviewers. Exits\n"
	"0 for a verified culprit, 2 when skips leave a range, 3 when the ends are\n"
	"wrong, 4 when not verified.",
	bisect_options, cmd_bisect, false,
};
