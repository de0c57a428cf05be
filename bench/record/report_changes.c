/*
 * report.html's lists of new failures, unmet cells and other changes
 * (report_changes.h).
 */
#include "report_changes.h"

#include "report_html.h"
#include "lib/array.h"

#include <stdlib.h>
#include <string.h>

#define RIGHT_ARROW "\xe2\x86\x92"	/* U+2192 in UTF-8 */

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
		report_html_element(x, "code", NULL, name);
		xmlw_close(x);
		free(href);
	} else {
		report_html_element(x, "code", NULL, name);
	}
	xmlw_text(x, ".");
	xmlw_close(x);
	xmlw_text(x, "\n");
}

/* <span class="status-S">S</span> */
static void html_status(struct xmlw *x, enum verdict v)
{
	char *class = xasprintf("status-%s", report_status_name(v));

	report_html_element(x, "span", class, report_status_name(v));
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
	report_html_textf(x, "%s %s %s", variant, cpu, test);
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
		report_html_textf(x, ": %s " RIGHT_ARROW " %s", e->crash_before, e->crash_now);
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
	report_html_textf(x, "%s (%zu)", title, n);
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
	report_html_textf(x, ", expected %s", report_status_name(c->expected));
	if (details)
		report_html_textf(x, ": %s", details);
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
void report_changes_write_attention(struct xmlw *x, const struct report_input *in)
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
void report_changes_write(struct xmlw *x, const struct report_input *in)
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
	for (size_t k = 0; k < ARRAY_SIZE(change_kinds); k++)
		if (k != HISTORY_CHANGE_NEW_FAILURE)
			html_change_list(x, in, (enum history_change)k);
}
