#include "results.h"

#include "lib/fileutil.h"
#include "lib/jsonw.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tested commit's provenance, already JSON (provenance.h), as a value. */
static struct json_object *provenance_value(const char *text)
{
	return text ? json_tokener_parse(text) : NULL;
}

static struct json_object *cell_json(const struct results_run *run, const struct matrix_cell *c)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "run", jsonw_string(run->id));
	json_object_object_add(o, "kernel", jsonw_string(c->kernel->variant));
	json_object_object_add(o, "commit", jsonw_string(c->kernel->commit));
	json_object_object_add(o, "build_id", jsonw_string(c->kernel->build_id));
	json_object_object_add(o, "kernel_version", jsonw_string(c->kernel->version));
	json_object_object_add(o, "provenance", provenance_value(c->kernel->provenance));
	json_object_object_add(o, "cpu", jsonw_string(c->cpu->cpu));
	json_object_object_add(o, "cmdline", jsonw_string(c->cpu->cmdline));
	json_object_object_add(o, "test", jsonw_string(c->test));
	json_object_object_add(o, "status", jsonw_string(verdict_name(c->status)));
	json_object_object_add(o, "crash", jsonw_string(c->crash));
	json_object_object_add(o, "reason", jsonw_string(c->reason));
	json_object_object_add(o, "expected", jsonw_string(verdict_name(c->expected)));
	json_object_object_add(o, "met", json_object_new_boolean(c->met));
	json_object_object_add(o, "not_run", json_object_new_boolean(c->not_run));
	json_object_object_add(o, "fpu_mode", jsonw_string(c->fpu_mode));
	json_object_object_add(o, "console", jsonw_string(c->console));
	json_object_object_add(o, "host", jsonw_string(c->host));
	json_object_object_add(o, "job_id", jsonw_string(c->job_id));
	json_object_object_add(o, "job_url", jsonw_string(c->job_url));
	json_object_object_add(o, "duration_s", jsonw_fixed(c->duration_s, 3));
	return o;
}

static struct json_object *cells_json(const struct results_run *run, const struct matrix *m)
{
	struct json_object *cells = json_object_new_array();

	for (size_t i = 0; i < m->ncells; i++)
		json_object_array_add(cells, cell_json(run, &m->cells[i]));
	return cells;
}

void results_format_json(struct strbuf *sb, const struct results_run *run,
			 const struct matrix *m)
{
	struct json_object *cells = cells_json(run, m);

	strbuf_addstr(sb, jsonw_text(cells));
	strbuf_addch(sb, '\n');
	json_object_put(cells);
}

static char *cell_name(const struct matrix_cell *c)
{
	return xasprintf("%s.%s.%s", c->kernel->variant, c->cpu->spec, c->test);
}

/* KTAP's directive and description text must stay on one line. */
static void ktap_text(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, *s == '\n' || *s == '\r' || *s == '#' ? ' ' : *s);
}

void results_format_ktap(struct strbuf *sb, const struct matrix *m)
{
	bool all_met = true;

	strbuf_addstr(sb, "KTAP version 1\n1..1\n    KTAP version 1\n");
	strbuf_addf(sb, "    1..%zu\n", m->ncells);
	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];
		char *name = cell_name(c);

		all_met &= c->met;
		strbuf_addf(sb, "    %s %zu ", c->status == VERDICT_PASS || c->status == VERDICT_SKIP
				? "ok" : "not ok", i + 1);
		ktap_text(sb, name);
		if (c->status == VERDICT_SKIP) {
			strbuf_addstr(sb, " # SKIP ");
			ktap_text(sb, c->reason ? c->reason : "");
		}
		strbuf_addch(sb, '\n');
		if (c->status != VERDICT_PASS && c->status != VERDICT_SKIP) {
			strbuf_addf(sb, "    # %s", verdict_name(c->status));
			if (c->crash) {
				strbuf_addstr(sb, ": ");
				ktap_text(sb, c->crash);
			}
			if (c->reason) {
				strbuf_addstr(sb, " (");
				ktap_text(sb, c->reason);
				strbuf_addch(sb, ')');
			}
			strbuf_addch(sb, '\n');
		}
		strbuf_addf(sb, "    # expected %s: %s\n", verdict_name(c->expected),
			    c->met ? "met" : "NOT met");
		free(name);
	}
	strbuf_addf(sb, "%s 1 fpubench\n", all_met ? "ok" : "not ok");
}

void results_print_matrix(FILE *f, const struct matrix *m)
{
	size_t wk = strlen("kernel"), wc = strlen("cpu setup"), wt = strlen("test");

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];
		size_t lk = strlen(c->kernel->variant), lc = strlen(c->cpu->spec), lt = strlen(c->test);

		wk = lk > wk ? lk : wk;
		wc = lc > wc ? lc : wc;
		wt = lt > wt ? lt : wt;
	}
	fprintf(f, "%-*s  %-*s  %-*s  %-7s  %-8s  %s\n", (int)wk, "kernel", (int)wc, "cpu setup",
		(int)wt, "test", "verdict", "expected", "details");
	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];
		const char *details = c->crash ? c->crash : c->reason ? c->reason : "";

		fprintf(f, "%-*s  %-*s  %-*s  %-7s  %-8s  %s%s\n", (int)wk, c->kernel->variant,
			(int)wc, c->cpu->spec, (int)wt, c->test, verdict_name(c->status),
			verdict_name(c->expected), c->met ? "" : "UNEXPECTED ", details);
	}
}

static struct json_object *run_json(const struct results_run *run, const struct matrix *m)
{
	struct json_object *o = json_object_new_object(), *hosts = json_object_new_array();
	size_t met = 0;

	for (size_t i = 0; i < m->ncells; i++)
		met += m->cells[i].met;
	for (size_t i = 0; i < run->nhosts; i++) {
		struct json_object *h = json_object_new_object();

		json_object_object_add(h, "uri", jsonw_string(run->hosts[i].uri));
		json_object_object_add(h, "jobs", json_object_new_int(run->hosts[i].jobs));
		json_object_array_add(hosts, h);
	}
	json_object_object_add(o, "id", jsonw_string(run->id));
	json_object_object_add(o, "command", jsonw_string(run->command));
	json_object_object_add(o, "started", jsonw_string(run->started));
	json_object_object_add(o, "finished", jsonw_string(run->finished));
	json_object_object_add(o, "hosts", hosts);
	json_object_object_add(o, "complete",
			       json_object_new_boolean(!m->interrupted && !m->stopped_early));
	json_object_object_add(o, "stopped_early", json_object_new_boolean(m->stopped_early));
	json_object_object_add(o, "cells", json_object_new_int64((int64_t)m->ncells));
	json_object_object_add(o, "met", json_object_new_int64((int64_t)met));
	return o;
}

int results_write(const char *dir, const struct results_run *run, const struct matrix *m)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object *runj = run_json(run, m), *cells = cells_json(run, m);
	char *run_path = xasprintf("%s/run.json", dir);
	char *ktap = xasprintf("%s/results.ktap", dir);
	char *json = xasprintf("%s/results.json", dir);
	int err;

	if ((err = jsonw_write(runj, run_path)) < 0)
		goto out;
	results_format_ktap(&sb, m);
	if ((err = file_write_atomic(ktap, sb.buf, sb.len)) < 0)
		goto out;
	/* Last: a results.json that exists is complete (results.h). */
	err = jsonw_write(cells, json);
out:
	json_object_put(runj);
	json_object_put(cells);
	strbuf_release(&sb);
	free(run_path);
	free(ktap);
	free(json);
	return err;
}
