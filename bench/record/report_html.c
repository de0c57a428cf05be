/*
 * report.html (report.h): one self-contained page, written with libxml2
 * (lib/xmlw.h) as polyglot HTML5, which a browser reads as HTML and a
 * script can read as XML, after report_safe() made every text from a
 * guest or a patch showable.
 */
#include "report.h"

#include "lib/str.h"
#include "lib/strbuf.h"
#include "lib/xmlw.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RIGHT_ARROW "\xe2\x86\x92"	/* U+2192 in UTF-8 */

/* Every text is made safe to show (report.h) before libxml2 escapes it; NULL writes nothing. */
static void text(struct xmlw *x, const char *s)
{
	struct strbuf safe = STRBUF_INIT;

	if (s)
		xmlw_text(x, report_safe(&safe, s));
	strbuf_release(&safe);
}

static void textf(struct xmlw *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void textf(struct xmlw *x, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	text(x, sb.buf);
	strbuf_release(&sb);
}

/* An attribute of the element just opened, made safe as text is; none for a NULL value. */
static void attribute(struct xmlw *x, const char *name, const char *value)
{
	struct strbuf safe = STRBUF_INIT;

	xmlw_attribute(x, name, report_safe(&safe, value));
	strbuf_release(&safe);
}

/* <name class="class">s</name>; a NULL class is none. */
static void element(struct xmlw *x, const char *name, const char *class, const char *s)
{
	xmlw_open(x, name, NULL);
	xmlw_attribute(x, "class", class);
	text(x, s);
	xmlw_close(x);
}

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

/* A lore link from a patch is a link only when it is a web URL. */
static void html_link(struct xmlw *x, const char *url)
{
	if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7)) {
		text(x, url);
		return;
	}
	xmlw_open(x, "a", NULL);
	attribute(x, "href", url);
	text(x, url);
	xmlw_close(x);
}

static void html_strip(struct xmlw *x, const struct history_strip *s)
{
	xmlw_open(x, "div", "class", "strip", NULL);
	for (size_t i = 0; i < s->n; i++) {
		const char *st = report_status_name(s->statuses[i]);
		char *class = xasprintf("status-%s%s", st, i + 1 == s->n ? " now" : "");
		char *title = xasprintf("run %s: %s", s->runs[i], st);

		xmlw_open(x, "span", "class", class, NULL);
		attribute(x, "title", title);
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
	attribute(x, "data-variant", c->kernel->variant);
	attribute(x, "data-cpu", c->cpu->spec);
	attribute(x, "data-test", c->test);
	xmlw_attribute(x, "data-status", st);
	xmlw_attribute(x, "data-expected", report_status_name(c->expected));
	xmlw_attribute(x, "data-met", c->met ? "true" : "false");
	attribute(x, "data-host", c->host);
	attribute(x, "title", title);
	if (c->console) {
		xmlw_open(x, "a", "class", "st", NULL);
		xmlw_path_attribute(x, "href", c->console);
		xmlw_attribute(x, "title", "console log");
		text(x, st);
		xmlw_close(x);
	} else {
		element(x, "span", "st", st);
	}
	/* Most cells expect a pass and get it: only what differs from that is said. */
	if (!c->met || c->expected != VERDICT_PASS) {
		line = xasprintf("expected %s: %s", report_status_name(c->expected),
				 c->met ? "met" : "NOT met");
		element(x, "div", "exp", line);
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
		element(x, "div", "host", line);
		free(line);
	}
	if (strip)
		html_strip(x, strip);
	xmlw_close(x);
	free(class);
	free(id);
	free(title);
}

static void html_summary(struct xmlw *x, const struct report_input *in, const struct hosts *hosts)
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
	textf(x, "%s, started %s, finished %s%s.", in->run->command ? in->run->command : "run",
	      in->run->started ? in->run->started : "?", in->run->finished ? in->run->finished : "?",
	      m->interrupted ? " (interrupted: the matrix is incomplete)" : "");
	xmlw_element(x, "br", NULL, NULL);
	snprintf(number, sizeof(number), "%zu", m->ncells);
	xmlw_element(x, "span", number, "id", "cells", NULL);
	xmlw_text(x, " cells:");
	for (int v = 0; v < VERDICT_COUNT; v++)
		if (count[v])
			textf(x, " %zu %s", count[v], verdict_name((enum verdict)v));
	xmlw_text(x, "; ");
	snprintf(number, sizeof(number), "%zu", met);
	xmlw_element(x, "span", number, "id", "met", NULL);
	textf(x, " of %zu met their expectation.", m->ncells);
	xmlw_close(x);
	xmlw_text(x, "\n");
	if (hosts->n == 1) {
		xmlw_open(x, "p", NULL);
		xmlw_text(x, "Every cell ran on ");
		element(x, "code", NULL, hosts->uris[0]);
		xmlw_text(x, ".");
		xmlw_close(x);
		xmlw_text(x, "\n");
	} else if (hosts->n > 1) {
		xmlw_element(x, "p", "Hosts:", NULL);
		xmlw_open(x, "ol", "class", "hosts", NULL);
		for (size_t k = 0; k < hosts->n; k++) {
			xmlw_open(x, "li", NULL);
			element(x, "code", NULL, hosts->uris[k]);
			xmlw_close(x);
		}
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
	xmlw_open(x, "p", "class", "legend", NULL);
	for (int v = 0; v < VERDICT_COUNT; v++) {
		char *class = xasprintf("box status-%s", verdict_name((enum verdict)v));

		element(x, "span", class, verdict_name((enum verdict)v));
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
	element(x, "div", "variant", first->kernel->variant);
	if (first->kernel->version) {
		version = xasprintf("Linux %s", first->kernel->version);
		element(x, "div", "mode", version);
		free(version);
	}
	element(x, "div", "cpu", first->cpu->spec);
	if (mode)
		element(x, "div", "mode", mode);
	xmlw_close(x);
}

static void html_matrix(struct xmlw *x, const struct report_input *in, const struct hosts *hosts)
{
	struct layout l;

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
	for (size_t t = 0; t < l.ntests; t++) {
		xmlw_open(x, "th", "class", "test", NULL);
		text_breakable(x, l.tests[t]);
		xmlw_close(x);
	}
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
				html_cell(x, in, c, hosts);
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
}

/*
 * The previous run, linked to its report when it is a sibling of this one
 * in one results directory, as runs are.
 */
static void html_previous(struct xmlw *x, const char *run_dir, const char *previous_dir)
{
	const char *name = history_run_name(previous_dir);
	size_t parent = (size_t)(name - previous_dir);

	xmlw_open(x, "p", "id", "previous", NULL);
	xmlw_text(x, "Previous run: ");
	if (run_dir && (size_t)(history_run_name(run_dir) - run_dir) == parent &&
	    strncmp(run_dir, previous_dir, parent) == 0) {
		char *href = xasprintf("../%s/report.html", name);

		xmlw_open(x, "a", NULL);
		xmlw_path_attribute(x, "href", href);
		element(x, "code", NULL, name);
		xmlw_close(x);
		free(href);
	} else {
		element(x, "code", NULL, name);
	}
	xmlw_text(x, ".");
	xmlw_close(x);
	xmlw_text(x, "\n");
}

/* <span class="status-S">S</span> */
static void html_status(struct xmlw *x, enum verdict v)
{
	char *class = xasprintf("status-%s", report_status_name(v));

	element(x, "span", class, report_status_name(v));
	free(class);
}

/* The cell of this run, or NULL when it has none (a change names a cell of the history). */
static const struct matrix_cell *cell_find(const struct matrix *m, const char *variant,
					   const char *cpu, const char *test)
{
	for (size_t i = 0; i < m->ncells; i++)
		if (strcmp(m->cells[i].kernel->variant, variant) == 0 &&
		    strcmp(m->cells[i].cpu->spec, cpu) == 0 && strcmp(m->cells[i].test, test) == 0)
			return &m->cells[i];
	return NULL;
}

/* <code>VARIANT CPU TEST</code>, a link to the cell in the matrix when this run has it. */
static void html_cell_name(struct xmlw *x, const struct report_input *in, const char *variant,
			   const char *cpu, const char *test)
{
	const struct matrix_cell *c = cell_find(in->m, variant, cpu, test);
	char *href = c ? xasprintf("#cell-%zu", (size_t)(c - in->m->cells)) : NULL;

	if (href) {
		xmlw_open(x, "a", NULL);
		xmlw_attribute(x, "href", href);
	}
	xmlw_open(x, "code", NULL);
	textf(x, "%s %s %s", variant, cpu, test);
	xmlw_close(x);
	if (href)
		xmlw_close(x);
	free(href);
}

static void html_change(struct xmlw *x, const struct report_input *in,
			const struct history_change_entry *e)
{
	xmlw_open(x, "li", NULL);
	html_cell_name(x, in, e->variant, e->cpu, e->test);
	if (e->change == HISTORY_CHANGE_CRASH) {
		textf(x, ": %s " RIGHT_ARROW " %s", e->crash_before, e->crash_now);
	} else {
		xmlw_text(x, ": ");
		html_status(x, e->before);
		xmlw_text(x, " " RIGHT_ARROW " ");
		html_status(x, e->now);
	}
	xmlw_close(x);
	xmlw_text(x, "\n");
}

/* Opens <section class="changes" id=ID><h3>TITLE (N)</h3>, then a <ul> or "none". */
static void html_list_open(struct xmlw *x, const char *id, const char *title, size_t n)
{
	xmlw_open(x, "section", "class", "changes", "id", id, NULL);
	xmlw_open(x, "h3", NULL);
	textf(x, "%s (%zu)", title, n);
	xmlw_close(x);
	xmlw_text(x, "\n");
	if (!n) {
		xmlw_element(x, "p", "none", NULL);
		xmlw_text(x, "\n");
	} else {
		xmlw_open(x, "ul", NULL);
		xmlw_text(x, "\n");
	}
}

static void html_list_close(struct xmlw *x, size_t n)
{
	if (n)
		xmlw_close(x);
	xmlw_close(x);
	xmlw_text(x, "\n");
}

static const struct {
	const char *id, *title;
} change_kinds[] = {
	[HISTORY_CHANGE_NEW_FAILURE] = { "new-failures", "New failures since the previous run" },
	[HISTORY_CHANGE_FIXED] = { "fixed", "Fixed" },
	[HISTORY_CHANGE_FLAKY] = { "flaky", "Flaky (flipped at least twice in the last 10 runs)" },
	[HISTORY_CHANGE_CRASH] = { "crash-changed", "Crash title changed (another bug)" },
};

static void html_change_list(struct xmlw *x, const struct report_input *in, enum history_change k)
{
	const struct history_diff *d = in->diff;
	size_t n = 0;

	for (size_t i = 0; i < d->nentries; i++)
		n += d->entries[i].change == k;
	html_list_open(x, change_kinds[k].id, change_kinds[k].title, n);
	for (size_t i = 0; i < d->nentries; i++)
		if (d->entries[i].change == k)
			html_change(x, in, &d->entries[i]);
	html_list_close(x, n);
}

/* An unmet cell: what it gave against what it was to give, and where its console is. */
static void html_unmet(struct xmlw *x, const struct report_input *in, const struct matrix_cell *c)
{
	const char *details = c->crash ? c->crash : c->reason;

	xmlw_open(x, "li", NULL);
	html_cell_name(x, in, c->kernel->variant, c->cpu->spec, c->test);
	xmlw_text(x, ": ");
	html_status(x, c->status);
	textf(x, ", expected %s", report_status_name(c->expected));
	if (details)
		textf(x, ": %s", details);
	if (c->console) {
		xmlw_text(x, " (");
		xmlw_open(x, "a", NULL);
		xmlw_path_attribute(x, "href", c->console);
		xmlw_text(x, "console log");
		xmlw_close(x);
		xmlw_text(x, ")");
	}
	xmlw_close(x);
	xmlw_text(x, "\n");
}

/* Above the matrix: what a reader came for, the new failures and the cells that missed. */
static void html_attention(struct xmlw *x, const struct report_input *in)
{
	size_t unmet = 0;

	for (size_t i = 0; i < in->m->ncells; i++)
		unmet += !in->m->cells[i].met;
	xmlw_open(x, "section", "id", "attention", NULL);
	xmlw_text(x, "\n");
	xmlw_element(x, "h2", "New failures and missed expectations", NULL);
	xmlw_text(x, "\n");
	if (in->diff && in->diff->previous_run)
		html_change_list(x, in, HISTORY_CHANGE_NEW_FAILURE);
	html_list_open(x, "unmet", "Cells that missed their expectation", unmet);
	for (size_t i = 0; i < in->m->ncells; i++)
		if (!in->m->cells[i].met)
			html_unmet(x, in, &in->m->cells[i]);
	html_list_close(x, unmet);
	xmlw_close(x);
	xmlw_text(x, "\n");
}

/* The other changes since the previous run; its new failures are above the matrix. */
static void html_changes(struct xmlw *x, const struct report_input *in)
{
	const struct history_diff *d = in->diff;

	xmlw_element(x, "h2", "Compared with the previous run", NULL);
	xmlw_text(x, "\n");
	if (!d || d->previous_run == 0) {
		xmlw_element(x, "p", "No previous run to compare with.", "id", "no-previous", NULL);
		xmlw_text(x, "\n");
		return;
	}
	html_previous(x, in->run_dir, d->previous_dir);
	for (size_t k = 0; k < sizeof(change_kinds) / sizeof(change_kinds[0]); k++)
		if (k != HISTORY_CHANGE_NEW_FAILURE)
			html_change_list(x, in, (enum history_change)k);
}

/*
 * Written as text, so no '<', '>', '&' or '"': libxml2 would escape them,
 * and HTML does not unescape a <style>.
 */
static const char html_style[] =
	"body{font:14px/1.3 system-ui,sans-serif;margin:1.2em;color:#222}\n"
	"h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.4em}h3{font-size:1em}\n"
	"code{font-size:.95em}\n"
	"table.matrix{border-collapse:collapse}\n"
	".matrix th,.matrix td{border:1px solid #999;padding:2px 4px;vertical-align:top}\n"
	".matrix thead th{background:#eee;font-weight:600;font-size:.8em;max-width:7em}\n"
	".matrix th.row{text-align:left;background:#f5f5f5;white-space:nowrap;font-size:.85em}\n"
	".variant{font-weight:700}.cpu{font-weight:400}.mode{color:#555;font-weight:400}\n"
	"td.cell{width:7.5em;font-size:.75em;overflow-wrap:anywhere}\n"
	"td.cell a.st,td.cell span.st{font-weight:700;font-size:1.2em;color:#000}\n"
	/* Red is for a missed expectation, and for nothing else. */
	"td.unmet{outline:3px solid #b00020;outline-offset:-3px}\n"
	".exp{color:#333}.unmet .exp{color:#b00020;font-weight:700}\n"
	".crash{font-weight:600}.reason,.host{color:#444}\n"
	".status-pass{background:#b9e4b9}.status-skip{background:#dddddd}\n"
	".status-fail{background:#ffc56b}.status-timeout{background:#d6b3e6}\n"
	".status-crash{background:#d7b899}.status-error{background:#fff176}\n"
	".status-none{background:#fff}\n"
	/* A failure the plan expects is the bench working: it reads as met, its status at the edge. */
	"td.met.status-fail,td.met.status-crash,td.met.status-timeout,td.met.status-error"
	"{background:#b9e4b9;border-left:8px solid}\n"
	"td.met.status-fail{border-left-color:#f08c00}td.met.status-crash{border-left-color:#8d6e63}\n"
	"td.met.status-timeout{border-left-color:#8e44ad}td.met.status-error{border-left-color:#e6c200}\n"
	".met .exp{color:#1b5e20;font-weight:700}\n"
	"section.bisect{border:2px solid #37474f;padding:.4em 1em;margin:.6em 0;max-width:60em}\n"
	"td.none{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#eee 4px,#eee 8px)}\n"
	/* Thirty results share the cell's width, a sparkline more than boxes. */
	".strip{display:flex;margin-top:3px;height:9px;border:1px solid rgba(0,0,0,.4)}\n"
	".strip span{flex:1 1 0;min-width:1px;border-right:1px solid rgba(255,255,255,.7)}\n"
	".strip span.now{border-right:0;flex-grow:2}\n"
	".strip .status-pass{background:#3d9a3d}.strip .status-crash{background:#8d6e63}\n"
	".strip .status-fail{background:#f08c00}.strip .status-skip{background:#9e9e9e}\n"
	".strip .status-timeout{background:#8e44ad}.strip .status-error{background:#e6c200}\n"
	".legend span.box{display:inline-block;padding:1px 6px;margin-right:4px;border:1px solid #999}\n"
	"section.prov{border:1px solid #bbb;padding:.4em 1em;margin:.6em 0;max-width:60em}\n"
	"dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}dt{font-weight:600}"
	"dd{margin:0}\n";


/* The options of the config fragment each kernel was built without, once per kernel. */
static void html_config_warnings(struct xmlw *x, const struct matrix *m)
{
	const struct matrix_kernel *done[64];
	size_t ndone = 0;
	bool any = false;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_kernel *k = m->cells[i].kernel;
		bool seen = false;

		for (size_t j = 0; j < ndone; j++)
			seen |= done[j] == k;
		if (seen || !k->nwarnings || ndone == sizeof(done) / sizeof(done[0]))
			continue;
		done[ndone++] = k;
		if (!any) {
			xmlw_element(x, "h2", "Config warnings", NULL);
			xmlw_text(x, "\n");
			xmlw_open(x, "ul", "class", "warnings", NULL);
			xmlw_text(x, "\n");
		}
		any = true;
		for (size_t w = 0; w < k->nwarnings; w++) {
			xmlw_open(x, "li", NULL);
			textf(x, "%s: %s", k->variant, k->warnings[w]);
			xmlw_close(x);
			xmlw_text(x, "\n");
		}
	}
	if (any) {
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
}

static void html_dd(struct xmlw *x, const char *term, const char *s)
{
	xmlw_element(x, "dt", term, NULL);
	element(x, "dd", NULL, s ? s : "unknown");
}

static void html_provenance(struct xmlw *x, const struct report_input *in)
{
	xmlw_element(x, "h2", "Provenance", NULL);
	xmlw_text(x, "\n");
	if (!in->nprov) {
		xmlw_element(x, "p", "No provenance was recorded.", NULL);
		xmlw_text(x, "\n");
	}
	for (size_t i = 0; i < in->nprov; i++) {
		const struct report_provenance *p = &in->prov[i];

		xmlw_open(x, "section", "class", "prov", NULL);
		attribute(x, "data-variant", p->variant);
		element(x, "h3", NULL, p->variant);
		xmlw_open(x, "dl", NULL);
		html_dd(x, "commit", p->commit && *p->commit ? p->commit : "the tree as it is");
		html_dd(x, "summary", p->summary);
		xmlw_element(x, "dt", "lore", NULL);
		xmlw_open(x, "dd", NULL);
		if (p->lore_url)
			html_link(x, p->lore_url);
		else
			xmlw_text(x, "no link");
		xmlw_close(x);
		html_dd(x, "patch-id", p->patch_id);
		xmlw_element(x, "dt", "versions", NULL);
		xmlw_open(x, "dd", NULL);
		if (!p->nversions) {
			xmlw_text(x, "no earlier posting known");
		} else {
			xmlw_open(x, "ol", "class", "versions", NULL);
			for (size_t v = 0; v < p->nversions; v++) {
				xmlw_open(x, "li", NULL);
				html_link(x, p->versions[v]);
				xmlw_close(x);
			}
			xmlw_element(x, "li", "this commit", NULL);
			xmlw_close(x);
		}
		xmlw_close(x);
		xmlw_close(x);
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
}

/* A commit as the page shows it: its first 12 hex digits. */
static void html_commit(struct xmlw *x, const char *class, const char *hex)
{
	xmlw_open(x, "code", NULL);
	xmlw_attribute(x, "class", class);
	textf(x, "%.12s", hex);
	xmlw_close(x);
}

/* What the nightly's own bisections of its new failures found. */
static void html_bisections(struct xmlw *x, const struct report_input *in)
{
	if (!in->nbisections)
		return;
	xmlw_element(x, "h2", "Bisections of the new failures", NULL);
	xmlw_text(x, "\n");
	for (size_t i = 0; i < in->nbisections; i++) {
		const struct history_bisection *b = &in->bisections[i];

		xmlw_open(x, "section", "class", "bisect", NULL);
		xmlw_open(x, "p", NULL);
		xmlw_open(x, "b", NULL);
		textf(x, "%s %s %s", b->variant, b->cpu, b->test);
		xmlw_close(x);
		xmlw_text(x, " between ");
		html_commit(x, NULL, b->good);
		xmlw_text(x, " (good) and ");
		html_commit(x, NULL, b->bad);
		xmlw_text(x, " (bad): ");
		if (b->culprit) {
			xmlw_text(x, "culprit ");
			html_commit(x, "culprit", b->culprit);
			textf(x, ", confidence %.0f %%", b->confidence * 100);
			if (strcmp(b->outcome, "culprit") != 0)
				textf(x, " (%s)", b->outcome);
		} else {
			text(x, b->outcome);
		}
		if (b->mail) {
			xmlw_text(x, "; ");
			xmlw_open(x, "a", "class", "mail", NULL);
			xmlw_path_attribute(x, "href", b->mail);
			xmlw_text(x, "the regression report to send");
			xmlw_close(x);
		}
		xmlw_close(x);
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
}

int report_format_html(struct strbuf *sb, const struct report_input *in)
{
	struct hosts hosts;
	struct xmlw x;
	char *doc = NULL;
	int err;

	hosts_collect(&hosts, in->m);
	xmlw_begin_html(&x);
	xmlw_open(&x, "html", "xmlns", "http://www.w3.org/1999/xhtml", "lang", "en", "xml:lang", "en",
		  NULL);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "head", NULL);
	xmlw_text(&x, "\n");
	xmlw_element(&x, "meta", NULL, "charset", "utf-8", NULL);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "title", NULL);
	xmlw_text(&x, "fpubench run ");
	text(&x, in->run->id);
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "style", NULL);
	xmlw_text(&x, "\n");
	xmlw_text(&x, html_style);
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "body", NULL);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "h1", NULL);
	xmlw_text(&x, "fpubench run ");
	element(&x, "code", NULL, in->run->id);
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	html_summary(&x, in, &hosts);
	html_attention(&x, in);
	xmlw_element(&x, "h2", "Matrix", NULL);
	xmlw_text(&x, "\n");
	html_matrix(&x, in, &hosts);
	html_config_warnings(&x, in->m);
	html_changes(&x, in);
	html_bisections(&x, in);
	html_provenance(&x, in);
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	xmlw_close(&x);
	if ((err = xmlw_finish(&x, "report.html", &doc)) == 0)
		strbuf_addstr(sb, doc);
	free(doc);
	free(hosts.uris);
	return err;
}
