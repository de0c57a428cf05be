#include "runlog.h"

#include "build/payload.h"
#include "build/version.h"
#include "lib/error.h"
#include "provenance/provenance.h"
#include "record/history.h"
#include "record/report.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FPUBENCH_VERSION
#define FPUBENCH_VERSION "unknown"
#endif

/* As many past results as the report's strip shows for a cell. */
#define STRIP_RUNS 30

/* What the report's provenance panel says of one kernel, with the strings it owns. */
struct kernel_story {
	struct report_provenance p;
	struct provenance_story story;
};

struct runlog {
	struct session *s;
	struct history *h;
	int64_t run_id;
	char *tree_name;
	int64_t *kernel_ids;	/* by index in s->kernels */
	int store_err;		/* the first cell that could not be stored */
	char *store_message;
	struct history_diff *diff;	/* from runlog_finish() */
	struct history_bisection bisection;	/* from runlog_bisection(); variant NULL: none */
};

static char *host_name(void)
{
	char name[256];

	if (gethostname(name, sizeof(name)) < 0)
		return xstrdup("unknown");
	name[sizeof(name) - 1] = '\0';
	return xstrdup(name);
}

int runlog_begin(struct runlog **out, struct session *s, const char *db_path,
		 const char *command, const char *tree_name, const char *config_hash)
{
	struct runlog *r = xcalloc(1, sizeof(*r));
	char *line, *legacy = NULL, series[32];
	char *host = host_name();
	int err;

	/*
	 * A tarball's tree is one stable series, whatever tarball the tree
	 * names next: 6.1.192 is compared with 6.1.191, never with 6.12.
	 * A git tree's version moves with its branch, so its line does not
	 * name it.  The series came into the line later: earlier runs of it
	 * move over.
	 */
	if (s->tree && s->tree->version) {
		version_series(s->tree->version, series, sizeof(series));
		line = xasprintf("%s %s %s", tree_name, series, config_hash);
		legacy = xasprintf("%s %s", tree_name, config_hash);
	} else {
		line = xasprintf("%s %s", tree_name, config_hash);
	}
	r->s = s;
	r->tree_name = xstrdup(tree_name);
	if ((err = history_open(&r->h, db_path)) < 0 ||
	    (legacy && (err = history_move_line(r->h, legacy, series, line)) < 0))
		goto out;
	struct history_run_info info = {
		.line = line,
		.command = command,
		.host = host,
		.version = FPUBENCH_VERSION,
		.run_dir = s->run_dir,
		.started = (int64_t)time(NULL),
		.pid = (long)getpid(),
	};
	if ((err = history_begin_run(r->h, &info, &r->run_id)) < 0)
		goto out;
	r->kernel_ids = xcalloc(s->nkernels ? s->nkernels : 1, sizeof(*r->kernel_ids));
	for (size_t i = 0; i < s->nkernels; i++) {
		struct history_kernel k = {
			.variant = s->kernels[i].variant,
			.commit = s->kernels[i].commit,
			.config_hash = config_hash,
			.build_id = s->kernels[i].build_id,
			.build_seconds = s->builds[i]->seconds,
			.provenance = s->kernels[i].provenance,
			.version = s->kernels[i].version,
		};
		if ((err = history_add_kernel(r->h, r->run_id, &k, &r->kernel_ids[i])) < 0)
			goto out;
	}
out:
	free(line);
	free(legacy);
	free(host);
	if (err < 0) {
		runlog_free(r);
		return err;
	}
	*out = r;
	return 0;
}

void runlog_boot(void *arg, const struct matrix_cell *cells, size_t ncells, size_t groups_done,
		 size_t ngroups)
{
	struct runlog *r = arg;

	(void)groups_done;
	(void)ngroups;
	for (size_t i = 0; i < ncells; i++) {
		const struct matrix_cell *c = &cells[i];
		char *console = c->console ? xasprintf("%s/%s", r->s->run_dir, c->console) : NULL;
		struct history_cell hc = {
			.kernel_id = r->kernel_ids[c->kernel - r->s->kernels],
			.cpu = c->cpu->spec,
			.cmdline = c->cpu->cmdline,
			.test = c->test,
			.status = c->status,
			.expected = c->expected,
			.crash = c->crash,
			.reason = c->reason,
			.host = c->host,
			.job_url = c->job_url,
			.duration_s = c->duration_s,
			.console = console,
		};
		int err = history_add_cell(r->h, r->run_id, &hc);

		free(console);
		if (err < 0 && !r->store_err) {
			r->store_err = err;
			r->store_message = xstrdup(error_last());
		}
	}
}

static void story_read(struct kernel_story *k, git_repository *repo, const struct matrix_kernel *mk)
{
	git_oid id;

	k->p.variant = mk->variant;
	k->p.commit = mk->commit;
	if (!repo || !*mk->commit || git_oid_fromstr(&id, mk->commit) < 0 ||
	    provenance_story_read(&k->story, repo, &id) < 0) {
		error_clear();
		return;
	}
	k->p.summary = k->story.summary;
	k->p.lore_url = k->story.lore_url;
	k->p.message_id = k->story.message_id;
	k->p.patch_id = *k->story.patch_id ? k->story.patch_id : NULL;
}

/* What each guest test guards, from its build's list (none: a testing aid's guest has no list). */
static struct report_guard *guards_read(const char *guest_dir, size_t *n, struct payload_test **tests,
					size_t *ntests)
{
	struct report_guard *g;

	if (payload_read_tests(guest_dir, tests, ntests) < 0) {
		error_clear();
		*n = 0;
		return NULL;
	}
	g = xcalloc(*ntests ? *ntests : 1, sizeof(*g));
	for (size_t i = 0; i < *ntests; i++) {
		g[i].test = (*tests)[i].name;
		g[i].commits = payload_test_tag(&(*tests)[i], "linux-git");
		g[i].contract = (*tests)[i].guards;
	}
	*n = *ntests;
	return g;
}

static int write_reports(struct runlog *r, const struct results_run *run, const struct matrix *m,
			 const struct history_diff *diff)
{
	struct session *s = r->s;
	struct kernel_story *stories = xcalloc(s->nkernels ? s->nkernels : 1, sizeof(*stories));
	struct report_provenance *prov = xcalloc(s->nkernels ? s->nkernels : 1, sizeof(*prov));
	struct history_strips *strips = NULL;
	struct payload_test *tests = NULL;
	size_t ntests = 0, nguards;
	struct report_guard *guards = guards_read(s->cfg.guest_dir, &nguards, &tests, &ntests);
	int err;

	if ((err = history_strips(r->h, r->run_id, STRIP_RUNS, &strips)) < 0)
		goto out;
	for (size_t i = 0; i < s->nkernels; i++) {
		story_read(&stories[i], s->tree ? s->tree->repo : NULL, &s->kernels[i]);
		prov[i] = stories[i].p;
	}
	struct report_input in = {
		.run = run,
		.m = m,
		.run_dir = s->run_dir,
		.diff = diff,
		.strips = strips,
		.prov = prov,
		.nprov = s->nkernels,
		.tree_name = r->tree_name,
		.bisections = &r->bisection,
		.nbisections = r->bisection.variant ? 1 : 0,
		.guards = guards,
		.nguards = nguards,
	};
	err = report_write(&in);
out:
	for (size_t i = 0; i < nguards; i++)
		free((char *)guards[i].commits);
	free(guards);
	payload_tests_free(tests, ntests);
	for (size_t i = 0; i < s->nkernels; i++)
		provenance_story_release(&stories[i].story);
	free(stories);
	free(prov);
	history_strips_free(strips);
	return err;
}

int runlog_finish(struct runlog *r, const struct results_run *run, const struct matrix *m,
		  long *new_failures)
{
	int err;

	*new_failures = -1;
	if (r->store_err)
		return error_set(r->store_err, "%s", r->store_message);
	/* A run stopped early lacks cells: compared, they would read as tests gone. */
	bool complete = !m->interrupted && !m->stopped_early;

	if ((err = history_end_run(r->h, r->run_id, complete)) < 0)
		return err;
	if (complete) {
		if ((err = history_compare(r->h, r->run_id, &r->diff)) < 0)
			return err;
		history_diff_print(stdout, r->diff);
		if (r->diff->previous_run)
			*new_failures = (long)history_diff_count(r->diff, HISTORY_CHANGE_NEW_FAILURE);
	}
	return write_reports(r, run, m, r->diff);
}

void runlog_target_release(struct runlog_target *t)
{
	free(t->good);
	free(t->bad);
	*t = (struct runlog_target){ 0 };
}

int runlog_new_failure(struct runlog *r, struct runlog_target *t)
{
	*t = (struct runlog_target){ 0 };
	for (size_t i = 0; r->diff && i < r->diff->nentries; i++) {
		const struct history_change_entry *e = &r->diff->entries[i];
		int err;

		if (e->change != HISTORY_CHANGE_NEW_FAILURE)
			continue;
		if ((err = history_kernel_commit(r->h, r->diff->previous_run, e->variant, &t->good)) < 0 ||
		    (err = history_kernel_commit(r->h, r->run_id, e->variant, &t->bad)) < 0) {
			runlog_target_release(t);
			return err;
		}
		/* A tree taken as it is has no commit to bisect from. */
		if (t->good && t->bad && *t->good && *t->bad && strcmp(t->good, t->bad) != 0) {
			t->variant = e->variant;
			t->cpu = e->cpu;
			t->test = e->test;
			return 1;
		}
		runlog_target_release(t);
	}
	return 0;
}

int runlog_bisection(struct runlog *r, const struct results_run *run, const struct matrix *m,
		     const struct history_bisection *b)
{
	int err;

	if ((err = history_add_bisection(r->h, r->run_id, b)) < 0)
		return err;
	r->bisection = *b;
	err = write_reports(r, run, m, r->diff);
	r->bisection = (struct history_bisection){ 0 };
	return err;
}

void runlog_free(struct runlog *r)
{
	if (!r)
		return;
	history_diff_free(r->diff);
	history_free(r->h);
	free(r->kernel_ids);
	free(r->tree_name);
	free(r->store_message);
	free(r);
}
