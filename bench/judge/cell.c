#include "cell.h"

#include "console.h"

#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define PLAN_LIST_MAX 5		/* missing or extra tests a plan's reason names */

struct matrix_cell *cell_add(struct matrix_cell **cells, size_t *n, const char *test,
			     enum verdict status)
{
	struct matrix_cell *c;

	*cells = xrealloc(*cells, (*n + 1) * sizeof(**cells));
	c = &(*cells)[(*n)++];
	memset(c, 0, sizeof(*c));
	c->test = xstrdup(test);
	c->status = status;
	c->duration_s = -1;
	return c;
}

static const char *fpu_mode_expected(bool fsave)
{
	return fsave ? "FSAVE" : "FXSAVE";
}

static char *flood_reason(void)
{
	return xasprintf("console flood: over %u MiB, the guest was stopped", CONSOLE_MAX >> 20);
}

/* Why the boot ended outside every test: what the console got to, then how it ended. */
static char *boot_reason(const struct console_report *r, enum cell_boot_end end)
{
	const char *what = r->finished ? "init had finished"
			   : r->reached_init ? "init stopped between tests"
			   : r->ran_init ? "init printed no KTAP"
			   : "the guest never reached init";

	if (end == CELL_BOOT_FLOODED) {
		char *flood = flood_reason(), *s = xasprintf("%s; %s", what, flood);

		free(flood);
		return s;
	}
	return xasprintf("%s%s", what,
			 end == CELL_BOOT_STOPPED && r->rebooted ? ", then the guest rebooted" : "");
}

/* Why a test that began and has no result line has none. */
static char *running_reason(const struct console_report *r, const char *so_far,
			    enum cell_boot_end end)
{
	char *how = end == CELL_BOOT_FLOODED ? flood_reason()
		    : xstrdup(end == CELL_BOOT_TIMED_OUT ? "the guest stopped answering while it ran"
			      : r->rebooted ? "the guest rebooted while it ran"
			      : "the guest ended while it ran");
	char *s;

	/* Its failures so far say more, but a flood is why it has no verdict of its own. */
	if (!so_far)
		return how;
	s = end == CELL_BOOT_FLOODED ? xasprintf("%s; %s", how, so_far) : xstrdup(so_far);
	free(how);
	return s;
}

static int int_compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* "; WHAT: " before the first item of a list, ", " before the others, nothing past the limit. */
static bool plan_list_next(struct strbuf *sb, const char *what, int *listed)
{
	if (*listed == PLAN_LIST_MAX)
		return false;
	if (*listed)
		strbuf_addstr(sb, ", ");
	else
		strbuf_addf(sb, "; %s: ", what);
	++*listed;
	return true;
}

/*
 * How the results of a finished boot differ from its plan (the tests from
 * resumed_at to planned, each once), or NULL.  The plan's count is the
 * guest's, so only the results are walked, never the plan's range.
 */
static char *plan_mismatch(const struct console_report *r)
{
	struct strbuf sb = STRBUF_INIT;
	int *seen;
	int owed = r->planned >= r->resumed_at ? r->planned - r->resumed_at + 1 : 0;
	int nseen = 0, nextra = 0, listed = 0;

	if (r->planned < 0)
		return xstrdup("init printed no plan");
	seen = xcalloc(r->ntests, sizeof(*seen));
	strbuf_addf(&sb, "the plan announced %d tests", r->planned);
	if (r->resumed_at > 1)
		strbuf_addf(&sb, " and the boot resumed at %d", r->resumed_at);
	strbuf_addf(&sb, ", the guest reported %zu", r->ntests);
	for (size_t i = 0; i < r->ntests; i++) {
		const struct console_test *t = &r->tests[i];
		bool again = false;

		for (int j = 0; j < nseen && !again; j++)
			again = seen[j] == t->index;
		if (!again && t->index >= r->resumed_at && t->index <= r->planned) {
			seen[nseen++] = t->index;
			continue;
		}
		nextra++;
		if (plan_list_next(&sb, "extra", &listed))
			strbuf_addf(&sb, "%d '%s'", t->index, t->name);
	}
	if (nextra > listed)
		strbuf_addf(&sb, " and %d more", nextra - listed);

	/* The missing tests are the gaps between the ones seen, in order. */
	qsort(seen, (size_t)nseen, sizeof(*seen), int_compare);
	listed = 0;
	long long want = r->resumed_at;
	for (int j = 0; j <= nseen && listed < PLAN_LIST_MAX; j++) {
		long long upto = j < nseen ? seen[j] : (long long)r->planned + 1;

		for (; want < upto && plan_list_next(&sb, "missing", &listed); want++)
			strbuf_addf(&sb, "%lld", want);
		want = upto + 1;
	}
	if (owed - nseen > listed)
		strbuf_addf(&sb, " and %d more", owed - nseen - listed);
	free(seen);
	if (!nextra && owed == nseen)
		strbuf_release(&sb);
	return sb.len ? strbuf_detach(&sb) : NULL;
}

/* The FXSR bit of CPUID as the guest's /init read it ("# fpubench: cpu"): 1, 0 (also with no CPUID), or -1. */
static int cpu_line_fxsr(const char *line)
{
	const char *p;

	if (!line)
		return -1;
	if (strcmp(line, "cpuid=0") == 0)
		return 0;
	if (!(p = strstr(line, " fxsr=")) || (p[6] != '0' && p[6] != '1') || (p[7] && p[7] != ' '))
		return -1;
	return p[6] - '0';
}

/*
 * Why a kernel that took another FPU path than the setup's is to blame: it
 * had what it needed for the right one (the CPU's FXSR bit, and nofxsr on
 * its command line).  NULL when its path fits what it was given: then the
 * setup was not applied (libvirt's CPU, or the command line), or the guest
 * did not say what its CPU has.
 */
static char *path_kernel_fault(const struct console_report *r)
{
	int fxsr = cpu_line_fxsr(r->cpu_line);

	if (strcmp(r->fpu_mode, "FSAVE") == 0)
		return fxsr == 1 && !r->nofxsr
			       ? xstrdup("the kernel uses FSAVE on a CPU with FXSR, without nofxsr on its command line")
			       : NULL;
	if (fxsr == 0)
		return xasprintf("the kernel uses %s on a CPU without FXSR", r->fpu_mode);
	if (fxsr == 1 && r->nofxsr && strcmp(r->fpu_mode, "FXSAVE") == 0)
		return xstrdup("the kernel uses FXSAVE though its command line says nofxsr");
	return NULL;
}

/*
 * What the kernel says of the CPU against what the setup should make it
 * say (struct cell_setup), for cells [first, *ncells) and the ones it adds;
 * false when the boot cannot be trusted to go on from (another FPU path,
 * which the setup, not the kernel, gave).
 */
static bool judge_setup(const struct console_report *r, const struct cell_setup *setup,
			double boot_seconds, size_t first, struct matrix_cell **cells, size_t *ncells)
{
	if (r->fdiv_bug && setup->exact_fdiv && r->resumed_at == 1) {
		struct matrix_cell *c = cell_add(cells, ncells, "fdiv_check", VERDICT_FAIL);

		c->reason = xstrdup("the kernel reports the Pentium FDIV erratum on an FPU that divides exactly");
		c->duration_s = boot_seconds;
	}

	/* Every tree since 4.2 says which path it took: saying none, its FPU set-up went wrong. */
	if (r->reached_init && !r->fpu_mode && r->resumed_at == 1) {
		struct matrix_cell *c = cell_add(cells, ncells, "fpu_path", VERDICT_FAIL);

		c->reason = xstrdup("the kernel reported no FPU path (no \"x86/fpu: x87 FPU will use\" line)");
		c->duration_s = boot_seconds;
	}

	/*
	 * Another path than the setup's: the kernel's mistake fails a cell, once a
	 * pair, and the tests stand; a setup that was not applied would test
	 * nothing, and every cell is an error.
	 */
	if (r->reached_init && r->fpu_mode) {
		const char *want = fpu_mode_expected(setup->fsave);
		bool wrong = strcmp(r->fpu_mode, want) != 0;
		char *fault = wrong ? path_kernel_fault(r) : NULL;

		if (fault && r->resumed_at == 1) {
			struct matrix_cell *c = cell_add(cells, ncells, "fpu_path", VERDICT_FAIL);

			c->reason = xasprintf("%s (the setup wants %s)", fault, want);
			c->duration_s = boot_seconds;
		}
		for (size_t i = first; i < *ncells; i++) {
			struct matrix_cell *c = &(*cells)[i];

			c->fpu_mode = xstrdup(r->fpu_mode);
			if (wrong && !fault) {
				free(c->reason);
				c->reason = xasprintf("the setup should make the kernel use %s, it reported %s",
						      want, r->fpu_mode);
				c->status = VERDICT_ERROR;
			}
		}
		free(fault);
		return !wrong || fault;
	}
	return true;
}

int cells_from_report(const struct console_report *r, enum cell_boot_end end,
		      const struct cell_setup *setup, double boot_seconds,
		      struct matrix_cell **cells, size_t *ncells)
{
	size_t first = *ncells;
	int resume = 0;
	char *plan;

	for (size_t i = 0; i < r->ntests; i++) {
		const struct console_test *t = &r->tests[i];
		enum verdict status = t->status;
		bool running = t->index == r->running;

		/* A test that began and never ended took the guest with it. */
		if (running && status != VERDICT_CRASH)
			status = end == CELL_BOOT_TIMED_OUT ? VERDICT_TIMEOUT
				 : end == CELL_BOOT_FLOODED ? VERDICT_FAIL : VERDICT_CRASH;
		struct matrix_cell *c = cell_add(cells, ncells, t->name, status);
		c->crash = t->crash ? xstrdup(t->crash) : NULL;
		c->reason = running ? running_reason(r, t->reason, end)
			    : t->reason ? xstrdup(t->reason) : NULL;
		c->duration_s = t->duration_ms >= 0 ? t->duration_ms / 1000.0 : -1;
		if (running && r->planned > t->index)
			resume = t->index + 1;
	}

	if (!r->reached_init || (!r->running && (!r->finished || end == CELL_BOOT_FLOODED))) {
		/* Nothing to pin it on: the boot itself is the cell. */
		enum verdict status = r->crash || end == CELL_BOOT_STOPPED ? VERDICT_CRASH
				      : end == CELL_BOOT_FLOODED ? VERDICT_FAIL : VERDICT_TIMEOUT;
		struct matrix_cell *c = cell_add(cells, ncells, "boot", status);

		c->crash = r->crash ? xstrdup(r->crash) : NULL;
		c->no_init = !r->reached_init;
		c->reason = boot_reason(r, end);
		c->duration_s = boot_seconds;
	} else {
		if (r->finished && (plan = plan_mismatch(r))) {
			struct matrix_cell *c = cell_add(cells, ncells, "ktap_plan", VERDICT_FAIL);

			c->reason = plan;
		}
		/* A warning or oops that no test owns (at init's start, at reboot) is still one. */
		if (r->crash_outside) {
			struct matrix_cell *c = cell_add(cells, ncells, "boot", VERDICT_CRASH);

			c->crash = xstrdup(r->crash_outside);
			c->reason = xstrdup("a crash report outside every test");
			c->duration_s = boot_seconds;
		}
	}

	if (!judge_setup(r, setup, boot_seconds, first, cells, ncells))
		resume = 0;
	for (size_t i = first; i < *ncells; i++)
		if ((*cells)[i].duration_s < 0)
			(*cells)[i].duration_s = boot_seconds;
	return resume;
}

void cell_release(struct matrix_cell *c)
{
	free(c->test);
	free(c->crash);
	free(c->reason);
	free(c->console);
	free(c->fpu_mode);
	free(c->host);
	free(c->job_id);
	free(c->job_url);
}
