/*
 * junit.xml, as Jenkins and GitLab read it (report.h): one testsuite per
 * (variant, CPU setup), one testcase per test, written with libxml2
 * (lib/xmlw.h) after report_safe() made every guest-given text showable.
 */
#include "report.h"

#include "lib/str.h"
#include "lib/strbuf.h"
#include "lib/xmlw.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum junit_result { JUNIT_PASS, JUNIT_FAILURE, JUNIT_ERROR, JUNIT_SKIPPED };

/* The mapping report.h explains: CI follows the expectations. */
static enum junit_result junit_result(const struct matrix_cell *c)
{
	if (c->met)
		return c->status == VERDICT_SKIP ? JUNIT_SKIPPED : JUNIT_PASS;
	if (c->status == VERDICT_TIMEOUT || c->status == VERDICT_ERROR)
		return JUNIT_ERROR;
	return JUNIT_FAILURE;
}

static bool same_suite(const struct matrix_cell *a, const struct matrix_cell *b)
{
	return strcmp(a->kernel->variant, b->kernel->variant) == 0 &&
	       strcmp(a->cpu->spec, b->cpu->spec) == 0;
}

/* Jenkins reads the classname's dots as packages, so a name keeps none. */
static char *undotted(const char *s)
{
	char *copy = xstrdup(s);

	for (char *p = copy; *p; p++)
		*p = *p == '.' ? '_' : *p;
	return copy;
}

static char *class_name(const struct matrix_cell *c)
{
	char *variant = undotted(c->kernel->variant), *spec = undotted(c->cpu->spec);
	char *name = xasprintf("fpubench.%s.%s", variant, spec);

	free(variant);
	free(spec);
	return name;
}

static void system_out(struct xmlw *x, const struct report_input *in, const struct matrix_cell *c)
{
	struct strbuf text = STRBUF_INIT, tail = STRBUF_INIT, s = STRBUF_INIT;
	bool cut = false;

	strbuf_addf(&text, "status %s, expected %s (%s)\n", report_status_name(c->status),
		    report_status_name(c->expected), c->met ? "met" : "NOT met");
	if (c->crash)
		strbuf_addf(&text, "crash: %s\n", report_safe(&s, c->crash));
	if (c->reason)
		strbuf_addf(&text, "reason: %s\n", report_safe(&s, c->reason));
	if (c->fpu_mode)
		strbuf_addf(&text, "fpu mode: %s\n", report_safe(&s, c->fpu_mode));
	strbuf_addf(&text, "host: %s\n", c->host ? report_safe(&s, c->host) : "unknown");
	if (report_console_tail(in, c, &tail, &cut))
		strbuf_addf(&text, "console: %s%s%s", report_safe(&s, c->console),
			    cut ? ", its end:\n" : ":\n", tail.buf);
	else
		strbuf_addstr(&text, "console: none readable\n");
	xmlw_element(x, "system-out", text.buf, NULL);
	strbuf_release(&text);
	strbuf_release(&tail);
	strbuf_release(&s);
}

static void testcase(struct xmlw *x, const struct report_input *in, const struct matrix_cell *c)
{
	enum junit_result r = junit_result(c);
	struct strbuf name = STRBUF_INIT, message = STRBUF_INIT;
	char *class = class_name(c), time[32];

	snprintf(time, sizeof(time), "%.3f", c->duration_s > 0 ? c->duration_s : 0.0);
	xmlw_open(x, "testcase", "classname", class, "name", report_safe(&name, c->test), "time", time,
		  NULL);
	if (r == JUNIT_SKIPPED) {
		xmlw_element(x, "skipped", NULL, "message",
			     c->reason ? report_safe(&message, c->reason) : "skipped", NULL);
	} else if (r != JUNIT_PASS) {
		char *unmet = xasprintf("expected %s, got %s", report_status_name(c->expected),
					report_status_name(c->status));
		const char *why = c->crash ? c->crash : c->reason;

		xmlw_element(x, r == JUNIT_ERROR ? "error" : "failure", unmet, "message",
			     why ? report_safe(&message, why) : unmet, "type",
			     report_status_name(c->status), NULL);
		free(unmet);
	}
	system_out(x, in, c);
	xmlw_close(x);
	free(class);
	strbuf_release(&name);
	strbuf_release(&message);
}

struct junit_counts {
	size_t tests, results[JUNIT_SKIPPED + 1];
	double time;
	char text[5][32];	/* tests, failures, errors, skipped, time */
};

static void count(struct junit_counts *n, const struct matrix_cell *c)
{
	n->tests++;
	n->results[junit_result(c)]++;
	n->time += c->duration_s > 0 ? c->duration_s : 0;
	snprintf(n->text[0], sizeof(n->text[0]), "%zu", n->tests);
	snprintf(n->text[1], sizeof(n->text[1]), "%zu", n->results[JUNIT_FAILURE]);
	snprintf(n->text[2], sizeof(n->text[2]), "%zu", n->results[JUNIT_ERROR]);
	snprintf(n->text[3], sizeof(n->text[3]), "%zu", n->results[JUNIT_SKIPPED]);
	snprintf(n->text[4], sizeof(n->text[4]), "%.3f", n->time);
}

static void property(struct xmlw *x, const char *name, const char *value)
{
	struct strbuf s = STRBUF_INIT;

	if (value && *value)
		xmlw_element(x, "property", NULL, "name", name, "value", report_safe(&s, value), NULL);
	strbuf_release(&s);
}

/* The testsuite of the cells like m->cells[first], which is the first of them. */
static void testsuite(struct xmlw *x, const struct report_input *in, size_t first)
{
	const struct matrix *m = in->m;
	const struct matrix_cell *f = &m->cells[first];
	struct junit_counts n = { 0 };
	struct strbuf name = STRBUF_INIT;
	bool one_host = true;

	for (size_t i = first; i < m->ncells; i++) {
		if (!same_suite(&m->cells[i], f))
			continue;
		count(&n, &m->cells[i]);
		one_host &= str_equal(m->cells[i].host, f->host);
	}
	strbuf_addf(&name, "%s %s", f->kernel->variant, f->cpu->spec);
	xmlw_open(x, "testsuite", "name", name.buf, "tests", n.text[0], "failures", n.text[1],
		  "errors", n.text[2], "skipped", n.text[3], "time", n.text[4], NULL);
	/* Optional attributes: a NULL value ends the list early. */
	xmlw_attribute(x, "timestamp", in->run->started);
	xmlw_attribute(x, "hostname", one_host ? f->host : NULL);
	xmlw_open(x, "properties", NULL);
	property(x, "variant", f->kernel->variant);
	property(x, "commit", f->kernel->commit);
	property(x, "build_id", f->kernel->build_id);
	property(x, "kernel_version", f->kernel->version);
	property(x, "cpu", f->cpu->cpu);
	property(x, "cmdline", f->cpu->cmdline);
	xmlw_close(x);
	for (size_t i = first; i < m->ncells; i++)
		if (same_suite(&m->cells[i], f))
			testcase(x, in, &m->cells[i]);
	xmlw_close(x);
	strbuf_release(&name);
}

int junit_format(struct strbuf *sb, const struct report_input *in)
{
	const struct matrix *m = in->m;
	struct junit_counts all = { 0 };
	struct strbuf name = STRBUF_INIT, s = STRBUF_INIT;
	struct xmlw x;
	char *doc = NULL;
	int err;

	for (size_t i = 0; i < m->ncells; i++)
		count(&all, &m->cells[i]);
	strbuf_addstr(&name, "fpubench");
	if (in->run->id)
		strbuf_addf(&name, " %s", report_safe(&s, in->run->id));
	xmlw_begin_document(&x);
	xmlw_open(&x, "testsuites", "name", name.buf, "tests", all.text[0], "failures",
		  all.text[1], "errors", all.text[2], "skipped", all.text[3], "time", all.text[4],
		  NULL);
	for (size_t i = 0; i < m->ncells; i++) {
		size_t j = 0;

		while (j < i && !same_suite(&m->cells[j], &m->cells[i]))
			j++;
		if (j == i)	/* the first cell of its suite */
			testsuite(&x, in, i);
	}
	xmlw_close(&x);
	if ((err = xmlw_finish(&x, "junit.xml", &doc)) == 0)
		strbuf_addstr(sb, doc);
	free(doc);
	strbuf_release(&name);
	strbuf_release(&s);
	return err;
}
