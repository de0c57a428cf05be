/*
 * report.html's matrix and its summary (report_matrix.h).
 */
#include "report_matrix.h"

#include "report_html.h"

#include "lib/str.h"
#include "lib/strbuf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text that may wrap after each '_': crash titles and test names are long single words. */
static void text_breakable(struct xmlw *x, const char *s)
{
	struct strbuf safe = STRBUF_INIT, part = STRBUF_INIT;

	report_safe(&safe, s);
	for (const char *p = safe.buf; *p; p++) {
		strbuf_addch(&part, *p);
		if (*p != '_')
			continue;
		xmlw_text(x, part.buf);
		xmlw_element(x, "wbr", NULL, NULL);
		strbuf_reset(&part);
	}
	xmlw_text(x, part.buf);
	strbuf_release(&safe);
	strbuf_release(&part);
}

/* The matrix as a table: one row per (variant, CPU setup), one column per test. */
struct layout {
	const struct matrix_cell **rows;	/* each row's first cell */
	size_t nrows;
	const char **tests;			/* in order of first appearance */
	size_t ntests;
	const struct matrix_cell **grid;	/* nrows x ntests, NULL where none ran */
};

static bool same_row(const struct matrix_cell *a, const struct matrix_cell *b)
{
	return strcmp(a->kernel->variant, b->kernel->variant) == 0 &&
	       strcmp(a->cpu->spec, b->cpu->spec) == 0;
}

static void layout_build(struct layout *l, const struct matrix *m)
{
	size_t *row = xcalloc(m->ncells, sizeof(*row)), *col = xcalloc(m->ncells, sizeof(*col));

	memset(l, 0, sizeof(*l));
	l->rows = xcalloc(m->ncells, sizeof(*l->rows));
	l->tests = xcalloc(m->ncells, sizeof(*l->tests));
	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		for (row[i] = 0; row[i] < l->nrows && !same_row(l->rows[row[i]], c); row[i]++)
			;
		if (row[i] == l->nrows)
			l->rows[l->nrows++] = c;
		for (col[i] = 0; col[i] < l->ntests && strcmp(l->tests[col[i]], c->test); col[i]++)
			;
		if (col[i] == l->ntests)
			l->tests[l->ntests++] = c->test;
	}
	l->grid = xcalloc(l->nrows * l->ntests, sizeof(*l->grid));
	for (size_t i = 0; i < m->ncells; i++)
		l->grid[row[i] * l->ntests + col[i]] = &m->cells[i];
	free(row);
	free(col);
}

static void layout_release(struct layout *l)
{
	free(l->rows);
	free(l->tests);
	free(l->grid);
}

static const struct history_strip *strip_find(const struct history_strips *s,
					      const struct matrix_cell *c)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (str_equal(s->strips[i].variant, c->kernel->variant) &&
		    str_equal(s->strips[i].cpu, c->cpu->spec) && str_equal(s->strips[i].test, c->test))
			return &s->strips[i];
	return NULL;
}

/* The distinct hosts of the run, numbered for the cells: a libvirt URI is too long for one. */
struct hosts {
	const char **uris;
	size_t n;
};

static void hosts_collect(struct hosts *h, const struct matrix *m)
{
	h->uris = xcalloc(m->ncells, sizeof(*h->uris));
	h->n = 0;
	for (size_t i = 0; i < m->ncells; i++) {
		size_t k;

		for (k = 0; k < h->n && !str_equal(h->uris[k], m->cells[i].host); k++)
			;
		if (k == h->n && m->cells[i].host)
			h->uris[h->n++] = m->cells[i].host;
	}
}

/* 1-based, 0 for no host. */
static size_t hosts_number(const struct hosts *h, const char *uri)
{
	for (size_t k = 0; uri && k < h->n; k++)
		if (strcmp(h->uris[k], uri) == 0)
			return k + 1;
	return 0;
}

static void html_strip(struct xmlw *x, const struct history_strip *s)
{
	xmlw_open(x, "div", "class", "strip", NULL);
	for (size_t i = 0; i < s->n; i++) {
		const char *st = report_status_name(s->statuses[i]);
		char *class = xasprintf("status-%s%s", st, i + 1 == s->n ? " now" : "");
		char *title = xasprintf("run %s: %s", s->runs[i], st);

		xmlw_open(x, "span", "class", class, NULL);
		report_html_attribute(x, "title", title);
		xmlw_close(x);
		free(class);
		free(title);
	}
	xmlw_close(x);
}

/* The tooltip has all; the cell shows what tells cells apart at a glance. */
static char *cell_title(const struct matrix_cell *c)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s %s %s", c->kernel->variant, c->cpu->spec, c->test);
	if (c->reason)
		strbuf_addf(&sb, ": %s", c->reason);
	if (c->duration_s >= 0)
		strbuf_addf(&sb, " (%.2f s)", c->duration_s);
	strbuf_addf(&sb, " on %s", c->host ? c->host : "an unknown host");
	return strbuf_detach(&sb);
}

static void html_cell(struct xmlw *x, const struct report_input *in,
		      const struct matrix_cell *c, const struct hosts *hosts)
{
	const char *st = report_status_name(c->status);
	const struct history_strip *strip = strip_find(in->strips, c);
	char *class = xasprintf("cell status-%s %s", st, c->met ? "met" : "unmet");
	char *id = xasprintf("cell-%zu", (size_t)(c - in->m->cells));
	char *title = cell_title(c), *line;

	xmlw_open(x, "td", "class", class, "id", id, NULL);
	report_html_attribute(x, "data-variant", c->kernel->variant);
	report_html_attribute(x, "data-cpu", c->cpu->spec);
	report_html_attribute(x, "data-test", c->test);
	xmlw_attribute(x, "data-status", st);
	xmlw_attribute(x, "data-expected", report_status_name(c->expected));
	xmlw_attribute(x, "data-met", c->met ? "true" : "false");
	report_html_attribute(x, "data-host", c->host);
	report_html_attribute(x, "title", title);
	if (c->console) {
		xmlw_open(x, "a", "class", "st", NULL);
		xmlw_path_attribute(x, "href", c->console);
		xmlw_attribute(x, "title", "console log");
		report_html_text(x, st);
		xmlw_close(x);
	} else {
		report_html_element(x, "span", "st", st);
	}
	/* Most cells expect a pass and get it: only what differs from that is said. */
	if (!c->met || c->expected != VERDICT_PASS) {
		line = xasprintf("expected %s: %s", report_status_name(c->expected),
				 c->met ? "met" : "NOT met");
		report_html_element(x, "div", "exp", line);
		free(line);
	}
	/* With a crash, the reason ("the guest ended while it ran") adds little. */
	if (c->crash || c->reason) {
		xmlw_open(x, "div", "class", c->crash ? "crash" : "reason", NULL);
		text_breakable(x, c->crash ? c->crash : c->reason);
		xmlw_close(x);
	}
	if (hosts->n > 1 && c->host) {
		line = xasprintf("host %zu", hosts_number(hosts, c->host));
		report_html_element(x, "div", "host", line);
		free(line);
	}
	if (c->job_url) {
		xmlw_open(x, "a", "class", "job", NULL);
		xmlw_attribute(x, "href", c->job_url);
		report_html_textf(x, "job %s", c->job_id ? c->job_id : "");
		xmlw_close(x);
	}
	if (strip)
		html_strip(x, strip);
	xmlw_close(x);
	free(class);
	free(id);
	free(title);
}

/* The run's host, or its hosts numbered as the cells name them. */
static void html_hosts(struct xmlw *x, const struct matrix *m)
{
	struct hosts hosts;

	hosts_collect(&hosts, m);
	if (hosts.n == 1) {
		xmlw_open(x, "p", NULL);
		xmlw_text(x, "Every cell ran on ");
		report_html_element(x, "code", NULL, hosts.uris[0]);
		xmlw_text(x, ".");
		xmlw_close(x);
		xmlw_text(x, "\n");
	} else if (hosts.n > 1) {
		xmlw_element(x, "p", "Hosts:", NULL);
		xmlw_open(x, "ol", "class", "hosts", NULL);
		for (size_t k = 0; k < hosts.n; k++) {
			xmlw_open(x, "li", NULL);
			report_html_element(x, "code", NULL, hosts.uris[k]);
			xmlw_close(x);
		}
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
	free(hosts.uris);
}

void report_matrix_write_summary(struct xmlw *x, const struct report_input *in)
{
	const struct matrix *m = in->m;
	size_t count[VERDICT_COUNT] = { 0 }, met = 0;
	char number[32];

	for (size_t i = 0; i < m->ncells; i++) {
		if ((unsigned)m->cells[i].status < VERDICT_COUNT)
			count[m->cells[i].status]++;
		met += m->cells[i].met;
	}
	xmlw_open(x, "p", "class", "summary", NULL);
	report_html_textf(x, "%s, started %s, finished %s%s.",
			  in->run->command ? in->run->command : "run",
			  in->run->started ? in->run->started : "?",
			  in->run->finished ? in->run->finished : "?",
			  m->interrupted ? " (interrupted: the matrix is incomplete)"
			  : m->stopped_early ? " (stopped early at an unmet cell, --fail-fast: the matrix "
					       "is incomplete)" : "");
	xmlw_element(x, "br", NULL, NULL);
	snprintf(number, sizeof(number), "%zu", m->ncells);
	xmlw_element(x, "span", number, "id", "cells", NULL);
	xmlw_text(x, " cells:");
	for (int v = 0; v < VERDICT_COUNT; v++)
		if (count[v])
			report_html_textf(x, " %zu %s", count[v], verdict_name((enum verdict)v));
	xmlw_text(x, "; ");
	snprintf(number, sizeof(number), "%zu", met);
	xmlw_element(x, "span", number, "id", "met", NULL);
	report_html_textf(x, " of %zu met their expectation.", m->ncells);
	xmlw_close(x);
	xmlw_text(x, "\n");
	html_hosts(x, m);
	xmlw_open(x, "p", "class", "legend", NULL);
	for (int v = 0; v < VERDICT_COUNT; v++) {
		char *class = xasprintf("box status-%s", verdict_name((enum verdict)v));

		report_html_element(x, "span", class, verdict_name((enum verdict)v));
		free(class);
	}
	xmlw_text(x, " A red frame marks a cell that missed its expectation.");
	if (in->strips)
		xmlw_text(x, " The strip under a cell shows its last results, this run last.");
	xmlw_close(x);
	xmlw_text(x, "\n");
}

/* The row's header: variant, kernel version, CPU setup and the FPU mode its cells found. */
static void html_row_header(struct xmlw *x, const struct layout *l, size_t r)
{
	const struct matrix_cell *first = l->rows[r];
	const char *mode = NULL;
	char *version;

	for (size_t t = 0; t < l->ntests && !mode; t++)
		if (l->grid[r * l->ntests + t])
			mode = l->grid[r * l->ntests + t]->fpu_mode;
	xmlw_open(x, "th", "class", "row", NULL);
	report_html_element(x, "div", "variant", first->kernel->variant);
	if (first->kernel->version) {
		version = xasprintf("Linux %s", first->kernel->version);
		report_html_element(x, "div", "mode", version);
		free(version);
	}
	report_html_element(x, "div", "cpu", first->cpu->spec);
	if (mode)
		report_html_element(x, "div", "mode", mode);
	xmlw_close(x);
}

/* A test's column header: its name, the upstream commits it guards, and its contract as a tooltip. */
static void test_header(struct xmlw *x, const struct report_guard *g, const char *test)
{
	xmlw_open(x, "th", "class", "test", NULL);
	if (g)
		report_html_attribute(x, "title", g->contract);
	text_breakable(x, test);
	if (g && *g->commits) {
		xmlw_element(x, "br", NULL, NULL);
		report_html_element(x, "span", "guards", g->commits);
	}
	xmlw_close(x);
}

void report_matrix_write(struct xmlw *x, const struct report_input *in)
{
	struct hosts hosts;
	struct layout l;

	hosts_collect(&hosts, in->m);
	layout_build(&l, in->m);
	xmlw_open(x, "table", "class", "matrix", "id", "matrix", NULL);
	xmlw_text(x, "\n");
	xmlw_open(x, "thead", NULL);
	xmlw_open(x, "tr", NULL);
	xmlw_open(x, "th", NULL);
	xmlw_text(x, "kernel");
	xmlw_element(x, "br", NULL, NULL);
	xmlw_text(x, "CPU setup");
	xmlw_close(x);
	for (size_t t = 0; t < l.ntests; t++)
		test_header(x, report_guard_find(in, l.tests[t]), l.tests[t]);
	xmlw_close(x);
	xmlw_close(x);
	xmlw_text(x, "\n");
	xmlw_open(x, "tbody", NULL);
	xmlw_text(x, "\n");
	for (size_t r = 0; r < l.nrows; r++) {
		xmlw_open(x, "tr", NULL);
		html_row_header(x, &l, r);
		for (size_t t = 0; t < l.ntests; t++) {
			const struct matrix_cell *c = l.grid[r * l.ntests + t];

			if (c)
				html_cell(x, in, c, &hosts);
			else
				xmlw_element(x, "td", "", "class", "none", "title", "not run", NULL);
		}
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
	xmlw_close(x);
	xmlw_close(x);
	xmlw_text(x, "\n");
	layout_release(&l);
	free(hosts.uris);
}
