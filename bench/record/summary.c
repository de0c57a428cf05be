#include "summary.h"

#include <string.h>

static size_t wider(size_t w, const char *s)
{
	size_t n = strlen(s);

	return n > w ? n : w;
}

static void print_unmet(FILE *f, const struct summary *s)
{
	const struct matrix *m = s->m;
	size_t wk = 0, wc = 0, wt = 0, wv = 0;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		if (c->met || c->not_run)
			continue;
		wk = wider(wk, c->kernel->variant);
		wc = wider(wc, c->cpu->spec);
		wt = wider(wt, c->test);
		wv = wider(wv, verdict_name(c->status));
	}
	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];
		const char *details = c->crash ? c->crash : c->reason;

		if (c->met || c->not_run)
			continue;
		fprintf(f, "  %-*s  %-*s  %-*s  %-*s  expected %s%s%s\n", (int)wk, c->kernel->variant,
			(int)wc, c->cpu->spec, (int)wt, c->test, (int)wv, verdict_name(c->status),
			verdict_name(c->expected), details ? ": " : "", details ? details : "");
		if (s->consoles && c->console)
			fprintf(f, "    console: %s/%s\n", s->run_dir, c->console);
	}
}

void summary_print(FILE *f, const struct summary *s)
{
	size_t unmet = 0, n = 0, not_run = 0;

	/* The not-run cells are counted apart: they judged nothing. */
	for (size_t i = 0; i < s->m->ncells; i++) {
		not_run += s->m->cells[i].not_run;
		n += !s->m->cells[i].not_run;
		unmet += !s->m->cells[i].met && !s->m->cells[i].not_run;
	}
	if (!n)
		fprintf(f, "no cells\n");
	else if (n == 1)
		fprintf(f, "1 cell, which %s its expectation%s\n", unmet ? "did not meet" : "met",
			unmet ? ":" : "");
	else if (!unmet)
		fprintf(f, "%zu cells, all met their expectation\n", n);
	else
		fprintf(f, "%zu cells, %zu met %s expectation, %zu did not:\n", n, n - unmet,
			n - unmet == 1 ? "its" : "their", unmet);
	print_unmet(f, s);
	if (s->m->stopped_early)
		fprintf(f, "stopped early (--fail-fast): %zu kernel-setup pair%s not run to the end\n",
			not_run, not_run == 1 ? "" : "s");
	if (s->new_failures >= 0)
		fprintf(f, "new failures since the previous run: %ld\n", s->new_failures);
	fprintf(f, "results: %s\n", s->run_dir);
	if (s->report)
		fprintf(f, "report: %s/report.html\n", s->run_dir);
}
