#include "matrix.h"

#include "judge/console.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "guest.h"
#include "lib/notice.h"
#include "lib/progress.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum group_state { GROUP_WAITING, GROUP_RUNNING, GROUP_DONE };

/* One (kernel, setup) pair and the cells its boots gave. */
struct group {
	const struct matrix_kernel *kernel;
	const struct cpu_setup *cpu;
	size_t index;
	enum group_state state;
	long failed_host;	/* the host it failed on for the infrastructure's sake, or -1 */
	size_t boot_enders;	/* its [expect] rules that end a boot (expect_boot_enders()) */
	bool infra_failed;	/* this attempt's boot failed before the kernel ran */
	bool cancelled;		/* its boot was destroyed when the run stopped early */
	bool complete;		/* every test it was to run has its cell */
	struct matrix_cell *cells;
	size_t ncells;
	int fatal;		/* an error code that ends the whole run */
	char *fatal_message;
};

/* The groups and the hosts' workers, which take groups under `lock`. */
struct runner {
	const struct matrix_options *opts;
	struct group *groups;
	size_t ngroups;
	size_t ndone;
	bool stop;
	bool stopped_early;	/* an unmet cell stopped it (fail_fast) */
	atomic_bool cancel;	/* set with stopped_early: the boots running end (guest_spec) */
	bool *host_lost;	/* by host: its connection died, it takes no more groups */
	bool *lab_failed;	/* by host: a lab that failed a boot for its own sake */
	size_t nguests;		/* for the progress line: guests booted, */
	size_t ncells;		/* cells judged, */
	size_t nunmet;		/* and those not as expected */
	struct progress progress;
	pthread_mutex_t lock;
	pthread_cond_t changed;
};

struct worker {
	struct runner *r;
	size_t host;
};

static void group_error(struct group *g, const char *console, const char *message)
{
	struct matrix_cell *c = cell_add(&g->cells, &g->ncells, "boot", VERDICT_ERROR);

	c->reason = xstrdup(message);
	c->console = console ? xstrdup(console) : NULL;
	c->duration_s = 0;
}

static void group_drop_cells(struct group *g)
{
	for (size_t i = 0; i < g->ncells; i++)
		cell_release(&g->cells[i]);
	free(g->cells);
	g->cells = NULL;
	g->ncells = 0;
}

/* Whether a cell stays: every cell about the boot itself, and the selected tests'. */
static bool cell_selected(const struct matrix_options *o, const struct matrix_cell *c,
			  const struct console_report *r)
{
	bool is_test = false;

	for (size_t i = 0; r && i < r->ntests && !is_test; i++)
		is_test = strcmp(r->tests[i].name, c->test) == 0;
	return !is_test || strv_selects(o->tests, o->ntests, c->test);
}

/* Whether every chosen test has its cell: a boot to resume after a crash would run none. */
static bool group_chosen_tests_done(const struct matrix_options *o, const struct group *g)
{
	if (!o->ntests)
		return false;
	for (size_t t = 0; t < o->ntests; t++) {
		bool seen = false;

		for (size_t i = 0; i < g->ncells && !seen; i++)
			seen = strcmp(g->cells[i].test, o->tests[t]) == 0;
		if (!seen)
			return false;
	}
	return true;
}

/* Fills in what every cell of the group shares, for cells [first, ncells); host -1: none. */
static void group_complete_cells(struct runner *r, struct group *g, size_t first, long host)
{
	const struct matrix_options *o = r->opts;

	for (size_t i = first; i < g->ncells; i++) {
		struct matrix_cell *c = &g->cells[i];

		c->kernel = g->kernel;
		c->cpu = g->cpu;
		c->host = xstrdup(host >= 0 ? o->hosts[host].uri : "none");
		const struct expect_rule *e =
			expect_find(o->expects, o->nexpects, g->kernel->variant,
				    cpu_setup_uses_fsave(g->cpu), c->test);

		c->expected = e ? e->status : VERDICT_PASS;
		c->met = verdict_meets(c->status, c->expected);
	}
}

static void host_lose(struct runner *r, size_t host)
{
	pthread_mutex_lock(&r->lock);
	if (!r->host_lost[host])
		notice("lost the connection to '%s'; %s",
			r->opts->hosts[host].uri,
			r->opts->nhosts > 1 ? "the other hosts take its cells" : "stopping");
	r->host_lost[host] = true;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

/* Whether a host but `host` (none: any), neither lost nor failed, takes g; under r->lock. */
static bool other_host_takes(const struct runner *r, const struct group *g, long host)
{
	for (size_t h = 0; h < r->opts->nhosts; h++)
		if ((long)h != host && !r->host_lost[h] && !r->lab_failed[h] &&
		    matrix_host_takes(&r->opts->hosts[h], g->cpu))
			return true;
	return false;
}

/*
 * After g's boot failed: a libvirt host whose connection died is lost.  A lab
 * that failed for its own sake (no device took the job, a worker gone, a server
 * silent) on a pair another host boots would likely fail the next after as long
 * a wait, so it takes only its boards from then on; a board's failure is its own.
 */
static void host_failed(struct runner *r, size_t host, const struct group *g)
{
	const struct matrix_host *h = &r->opts->hosts[host];

	if (!h->lab) {
		if (!guest_conn_alive(h->conn))
			host_lose(r, host);
		return;
	}
	if (!g->infra_failed)
		return;
	pthread_mutex_lock(&r->lock);
	if (!r->lab_failed[host] && other_host_takes(r, g, (long)host)) {
		notice("%s failed a boot for its own sake; the other hosts take the pairs they can boot",
		       h->uri);
		r->lab_failed[host] = true;
		pthread_cond_broadcast(&r->changed);
	}
	pthread_mutex_unlock(&r->lock);
}

/* Keeps the cells of [first, ncells) that the options select, each naming its console and job. */
static void group_keep_selected(const struct matrix_options *o, struct group *g, size_t first,
				const struct console_report *report, const char *console_rel,
				const struct matrix_job *job)
{
	size_t kept = first;

	for (size_t i = first; i < g->ncells; i++) {
		if (!cell_selected(o, &g->cells[i], report)) {
			cell_release(&g->cells[i]);
			continue;
		}
		g->cells[kept] = g->cells[i];
		g->cells[kept].job_id = job->id ? xstrdup(job->id) : NULL;
		g->cells[kept].job_url = job->url ? xstrdup(job->url) : NULL;
		g->cells[kept++].console = xstrdup(console_rel);
	}
	g->ncells = kept;
}

/* The one place a boot starts: a libvirt guest or a lab's job. */
static int host_boot(const struct matrix_host *h, const struct guest_spec *spec, double timeout_s,
		     struct guest_outcome *out, struct matrix_job *job)
{
	if (h->lab)
		return h->lab->boot(h->lab->arg, spec, timeout_s, out, job);
	return guest_run(h->conn, spec, timeout_s, out);
}

/* An error cell of the boot, which names the lab's job when there is one. */
static void group_boot_error(struct group *g, const struct matrix_job *job)
{
	group_error(g, NULL, error_last());
	g->cells[g->ncells - 1].job_id = job->id ? xstrdup(job->id) : NULL;
	g->cells[g->ncells - 1].job_url = job->url ? xstrdup(job->url) : NULL;
}

/*
 * Whether the boot was destroyed because the bench or the run stopped: it
 * tells nothing about the kernel, and gives no cells.
 */
static bool boot_cut_short(struct runner *r, struct group *g, const struct guest_outcome *out)
{
	if (out->interrupted) {
		pthread_mutex_lock(&r->lock);
		r->stop = true;
		pthread_mutex_unlock(&r->lock);
	}
	g->cancelled |= out->cancelled;
	return out->interrupted || out->cancelled;
}

static int group_boot(struct runner *r, struct group *g, size_t host, int boot, int start,
		      int *resume)
{
	const struct matrix_options *o = r->opts;
	char *slug = matrix_setup_slug(g->cpu->spec);
	char *console_rel = xasprintf("console/%s-%s-%d.%d.log", g->kernel->variant, slug, o->round,
				      boot);
	char *console = xasprintf("%s/%s", o->run_dir, console_rel);
	char *name = xasprintf(GUEST_NAME_PREFIX "%s-%d-%zu-%d", o->run_id, o->round, g->index, boot);
	struct strbuf cmdline = STRBUF_INIT, base = STRBUF_INIT, tests = STRBUF_INIT, text = STRBUF_INIT;
	struct console_report *report = NULL;
	struct guest_outcome outcome;
	struct matrix_job job = { NULL, NULL };
	bool truncated;
	int err;

	matrix_boot_cmdline(&cmdline, g->cpu, o->tests, o->ntests, start);
	/* A restored guest is told its tests and start instead (guest_spec). */
	matrix_boot_cmdline(&base, g->cpu, NULL, 0, 1);
	matrix_tests_join(&tests, o->tests, o->ntests);
	struct guest_spec spec = {
		.name = name,
		.kernel = g->kernel->bzimage,
		.initrd = g->kernel->initrd,
		.cmdline = cmdline.buf,
		.console = console,
		.cpu = g->cpu,
		.memory_mib = MATRIX_GUEST_MEMORY_MIB,
		.base_cmdline = base.buf,
		.build_id = g->kernel->build_id,
		.tests = o->ntests ? tests.buf : NULL,
		.start = start,
		.run_id = o->run_id, .variant = g->kernel->variant,
		.version = g->kernel->version, .commit = g->kernel->commit,
		.cancel = o->fail_fast ? &r->cancel : NULL,
	};
	*resume = 0;
	err = host_boot(&o->hosts[host], &spec, o->boot_timeout_s, &outcome, &job);
	if (err == ERR_CPU) {
		g->fatal = err;
		g->fatal_message = xstrdup(error_last());
		goto out;
	}
	if (err < 0) {
		group_boot_error(g, &job);
		g->infra_failed = err != ERR_LAB_JOB;
		err = 0;
		host_failed(r, host, g);
		goto out;
	}
	if (boot_cut_short(r, g, &outcome))
		goto out;
	if (file_read_capped(console, CONSOLE_MAX, &text, &truncated) < 0 ||
	    console_scan(text.buf, text.len, &report) < 0) {
		group_error(g, console_rel, error_last());
		goto out;
	}

	/* A guest that flooded and stopped before guest_run() saw it flooded all the same. */
	enum cell_boot_end end = outcome.flooded || truncated ? CELL_BOOT_FLOODED
				   : outcome.timed_out ? CELL_BOOT_TIMED_OUT : CELL_BOOT_STOPPED;
	size_t first = g->ncells;
	struct cell_setup claims = {
		.fsave = cpu_setup_uses_fsave(g->cpu),
		.exact_fdiv = !g->cpu->board,
	};
	*resume = cells_from_report(report, end, &claims, outcome.seconds, &g->cells, &g->ncells);
	group_keep_selected(o, g, first, report, console_rel, &job);
out:
	free(job.id);
	free(job.url);
	console_report_free(report);
	strbuf_release(&cmdline);
	strbuf_release(&base);
	strbuf_release(&tests);
	strbuf_release(&text);
	free(slug);
	free(console_rel);
	free(console);
	free(name);
	return err;
}

/* Tells the caller and the progress line of a boot's cells; under r->lock. */
static void boot_report(struct runner *r, const struct matrix_cell *cells, size_t n,
			size_t groups_done)
{
	if (r->opts->on_boot && n)
		r->opts->on_boot(r->opts->on_boot_arg, cells, n, groups_done, r->ngroups);
	r->ncells += n;
	for (size_t i = 0; i < n; i++)
		r->nunmet += !cells[i].met;
	/* A pair takes one boot, and one more after each crash: the guests to boot are not known. */
	progress_update(&r->progress, (double)groups_done / (double)(r->ngroups ? r->ngroups : 1),
			"%zu guest%s booted, %zu of %zu kernel-setup pairs done, %zu cells, %zu unexpected",
			r->nguests, r->nguests == 1 ? "" : "s", groups_done, r->ngroups, r->ncells,
			r->nunmet);
}

/* A group that failed on one host for the infrastructure's sake gets one more try elsewhere. */
static bool group_retry_elsewhere(const struct runner *r, const struct group *g, size_t host)
{
	return g->infra_failed && g->failed_host < 0 && other_host_takes(r, g, (long)host);
}

/* The first unmet cell stops the run: no more boots, and those running end; under r->lock. */
static void runner_check_stop(struct runner *r, const struct matrix_cell *cells, size_t n)
{
	if (r->stop || !matrix_cells_stop(r->opts, cells, n))
		return;
	r->stop = r->stopped_early = true;
	atomic_store(&r->cancel, true);
	pthread_cond_broadcast(&r->changed);
}

/* A pair the stop left without all its cells gets a not_run cell, which is never met. */
static void group_not_run(struct runner *r, struct group *g)
{
	struct matrix_cell *c = cell_add(&g->cells, &g->ncells, "boot", VERDICT_SKIP);

	c->reason = xstrdup(g->ncells > 1 ? "not run: the run stopped early (--fail-fast) before "
					    "the later tests" : "not run: the run stopped early (--fail-fast)");
	c->duration_s = 0;
	group_complete_cells(r, g, g->ncells - 1, -1);
	c->not_run = true;
	c->met = false;
}

/*
 * A kernel that cannot run on the setup's CPU is not booted: its boot code
 * would refuse the CPU and hang until the time limit.
 */
static bool group_skip_cpu(struct runner *r, struct group *g, size_t host)
{
	int have = cpu_setup_family(g->cpu), need = g->kernel->min_family;

	if (matrix_pair_boots(g->kernel, g->cpu))
		return false;
	struct matrix_cell *c = cell_add(&g->cells, &g->ncells, "boot", VERDICT_SKIP);
	c->reason = xasprintf("kernel requires an i%d86 CPU, and '%s' is an i%d86", need, g->cpu->model,
			      have);
	c->duration_s = 0;
	g->complete = true;
	pthread_mutex_lock(&r->lock);
	group_complete_cells(r, g, 0, (long)host);
	boot_report(r, g->cells, g->ncells, r->ndone + 1);
	pthread_mutex_unlock(&r->lock);
	return true;
}

/* Boots the group on `host` until its tests are done or it is to be retried elsewhere. */
static void group_run(struct runner *r, struct group *g, size_t host)
{
	int start = 1, resume;

	if (group_skip_cpu(r, g, host))
		return;

	/* Each boot either finishes the tests or gets past the one that crashed. */
	for (int boot = 1; start > 0; boot++) {
		size_t first = g->ncells;

		if (boot > MATRIX_MAX_BOOTS) {
			struct matrix_cell *c = cell_add(&g->cells, &g->ncells, "boot", VERDICT_CRASH);
			c->reason = xasprintf("gave up after %d boots, each ended by a test; "
					      "tests from %d on did not run", MATRIX_MAX_BOOTS, start);
			c->duration_s = 0;
			resume = 0;
		} else {
			group_boot(r, g, host, boot, start, &resume);
		}
		pthread_mutex_lock(&r->lock);
		r->nguests += boot <= MATRIX_MAX_BOOTS;
		if (g->fatal)
			r->stop = true;
		if (group_retry_elsewhere(r, g, host)) {
			pthread_mutex_unlock(&r->lock);
			return;
		}
		group_complete_cells(r, g, first, (long)host);
		bool again = resume > start && !group_chosen_tests_done(r->opts, g);
		g->complete = !again && !g->cancelled;
		boot_report(r, g->cells + first, g->ncells - first, r->ndone + (again ? 0 : 1));
		runner_check_stop(r, g->cells + first, g->ncells - first);
		bool stop = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (stop)
			return;
		start = again ? resume : 0;
	}
}

/*
 * The next group this host may take, or NULL; under r->lock.  A libvirt host
 * takes the first waiting one, in matrix order.  A lab takes the one expected
 * to boot fewest times instead: its boot costs tens of seconds (LAVA's
 * scheduler and worker) where a libvirt guest's costs one, and each expected
 * crash is one more boot on the same host, so a lab that took a crashing
 * pair first kept the whole run waiting.
 */
static struct group *group_next(struct runner *r, size_t host)
{
	const struct matrix_host *h = &r->opts->hosts[host];
	struct group *best = NULL;

	for (size_t i = 0; i < r->ngroups; i++) {
		struct group *g = &r->groups[i];

		/* A group that failed here, or any once this lab failed, goes elsewhere if it can. */
		if (g->state != GROUP_WAITING || !matrix_host_takes(h, g->cpu) ||
		    ((g->failed_host == (long)host || r->lab_failed[host]) &&
		     other_host_takes(r, g, (long)host)))
			continue;
		if (!h->lab)
			return g;
		if (!best || g->boot_enders < best->boot_enders)
			best = g;
	}
	return best;
}

/* A pair no host takes (a board that no lab of the run holds): an error cell, before any boot. */
static void group_untaken(struct runner *r, struct group *g)
{
	char *why = xasprintf("no host or lab of this run boots board '%s'", g->cpu->board);

	group_error(g, NULL, why);
	free(why);
	g->state = GROUP_DONE;
	group_complete_cells(r, g, 0, -1);
	boot_report(r, g->cells, g->ncells, ++r->ndone);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct runner *r = w->r;
	struct group *g;

	pthread_mutex_lock(&r->lock);
	while (!r->stop && r->ndone < r->ngroups && !r->host_lost[w->host]) {
		if (!(g = group_next(r, w->host))) {
			/* Wait for a group that failed elsewhere, or for the end. */
			pthread_cond_wait(&r->changed, &r->lock);
			continue;
		}
		g->state = GROUP_RUNNING;
		pthread_mutex_unlock(&r->lock);
		group_run(r, g, w->host);
		pthread_mutex_lock(&r->lock);
		if (group_retry_elsewhere(r, g, w->host)) {
			group_drop_cells(g);
			g->infra_failed = false;
			g->failed_host = (long)w->host;
			g->state = GROUP_WAITING;
		} else {
			g->state = GROUP_DONE;
			r->ndone++;
		}
		pthread_cond_broadcast(&r->changed);
	}
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* A group per (kernel, setup), in matrix order; a pair no host takes is done at once. */
static void groups_init(struct runner *r, const struct matrix_kernel *kernels, size_t nkernels,
			const struct cpu_setup *setups, size_t nsetups)
{
	const struct matrix_options *o = r->opts;

	r->groups = xcalloc(r->ngroups, sizeof(*r->groups));
	for (size_t k = 0; k < nkernels; k++) {
		for (size_t s = 0; s < nsetups; s++) {
			struct group *g = &r->groups[k * nsetups + s];

			g->kernel = &kernels[k];
			g->cpu = &setups[s];
			g->index = k * nsetups + s;
			g->failed_host = -1;
			g->boot_enders = expect_boot_enders(o->expects, o->nexpects, kernels[k].variant,
							    cpu_setup_uses_fsave(&setups[s]));
			if (!other_host_takes(r, g, -1))
				group_untaken(r, g);
		}
	}
}

int matrix_run(const struct matrix_options *opts, const struct matrix_kernel *kernels,
	       size_t nkernels, const struct cpu_setup *setups, size_t nsetups,
	       struct matrix **out)
{
	struct runner r = { .opts = opts, .ngroups = nkernels * nsetups };
	size_t nworkers = 0, started = 0;
	struct matrix *m = xcalloc(1, sizeof(*m));
	char *console_dir = xasprintf("%s/console", opts->run_dir);
	struct worker *workers = NULL;
	pthread_t *threads = NULL;
	int err;

	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.changed, NULL);
	atomic_init(&r.cancel, false);
	r.host_lost = xcalloc(opts->nhosts ? opts->nhosts : 1, sizeof(*r.host_lost));
	r.lab_failed = xcalloc(opts->nhosts ? opts->nhosts : 1, sizeof(*r.lab_failed));
	progress_init(&r.progress, stderr, "booting");
	if ((err = dir_create(console_dir, ERR_GENERIC)) < 0)
		goto out;
	groups_init(&r, kernels, nkernels, setups, nsetups);
	for (size_t h = 0; h < opts->nhosts; h++)
		nworkers += (size_t)(opts->hosts[h].jobs > 0 ? opts->hosts[h].jobs : 1);
	workers = xcalloc(nworkers, sizeof(*workers));
	threads = xcalloc(nworkers, sizeof(*threads));
	for (size_t h = 0, w = 0; h < opts->nhosts; h++) {
		for (int j = 0; j < (opts->hosts[h].jobs > 0 ? opts->hosts[h].jobs : 1); j++, w++) {
			workers[w] = (struct worker){ .r = &r, .host = h };
			if (pthread_create(&threads[started], NULL, worker, &workers[w]) == 0)
				started++;
		}
	}
	if (!started)
		worker(&workers[0]);
	for (size_t j = 0; j < started; j++)
		pthread_join(threads[j], NULL);

	for (size_t i = 0; i < r.ngroups; i++) {
		struct group *g = &r.groups[i];

		if (g->fatal && !err)
			err = error_set(g->fatal, "%s", g->fatal_message);
		if (g->state == GROUP_WAITING && !r.stop) {
			group_error(g, NULL, "no host or lab left to boot it");
			group_complete_cells(&r, g, 0, g->failed_host >= 0 ? g->failed_host : 0);
			boot_report(&r, g->cells, g->ncells, ++r.ndone);
		} else if (r.stopped_early && !g->complete) {
			group_not_run(&r, g);
			boot_report(&r, g->cells + g->ncells - 1, 1, r.ndone);
		}
		m->cells = xrealloc(m->cells, (m->ncells + g->ncells) * sizeof(*m->cells));
		memcpy(m->cells + m->ncells, g->cells, g->ncells * sizeof(*g->cells));
		m->ncells += g->ncells;
		free(g->cells);
		free(g->fatal_message);
	}
	m->interrupted = r.stop && !r.stopped_early && !err;
	m->stopped_early = r.stopped_early && !err;
	progress_end(&r.progress);
out:
	pthread_cond_destroy(&r.changed);
	pthread_mutex_destroy(&r.lock);
	free(r.groups);
	free(r.host_lost);
	free(r.lab_failed);
	free(workers);
	free(threads);
	free(console_dir);
	if (err) {
		matrix_free(m);
		return err;
	}
	*out = m;
	return 0;
}

void matrix_free(struct matrix *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ncells; i++)
		cell_release(&m->cells[i]);
	free(m->cells);
	free(m);
}
