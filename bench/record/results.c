#include "results.h"

#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void json_field(struct strbuf *sb, const char *key, const char *value, bool last)
{
	strbuf_addf(sb, "    \"%s\": ", key);
	if (value) {
		strbuf_addch(sb, '"');
		strbuf_add_json(sb, value);
		strbuf_addch(sb, '"');
	} else {
		strbuf_addstr(sb, "null");
	}
	strbuf_addstr(sb, last ? "\n" : ",\n");
}

void results_format_json(struct strbuf *sb, const struct results_run *run,
			 const struct matrix *m)
{
	strbuf_addstr(sb, "[\n");
	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		strbuf_addstr(sb, "  {\n");
		json_field(sb, "run", run->id, false);
		json_field(sb, "kernel", c->kernel->variant, false);
		json_field(sb, "commit", c->kernel->commit, false);
		json_field(sb, "build_id", c->kernel->build_id, false);
		json_field(sb, "kernel_version", c->kernel->version, false);
		strbuf_addf(sb, "    \"provenance\": %s,\n",
			    c->kernel->provenance ? c->kernel->provenance : "null");
		json_field(sb, "cpu", c->cpu->cpu, false);
		json_field(sb, "cmdline", c->cpu->cmdline, false);
		json_field(sb, "test", c->test, false);
		json_field(sb, "status", verdict_name(c->status), false);
		json_field(sb, "crash", c->crash, false);
		json_field(sb, "reason", c->reason, false);
		json_field(sb, "expected", verdict_name(c->expected), false);
		strbuf_addf(sb, "    \"met\": %s,\n", c->met ? "true" : "false");
		json_field(sb, "fpu_mode", c->fpu_mode, false);
		json_field(sb, "console", c->console, false);
		json_field(sb, "host", c->host, false);
		strbuf_addf(sb, "    \"duration_s\": %.3f\n", c->duration_s);
		strbuf_addstr(sb, i + 1 < m->ncells ? "  },\n" : "  }\n");
	}
	strbuf_addstr(sb, "]\n");
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

static void format_run(struct strbuf *sb, const struct results_run *run, const struct matrix *m)
{
	size_t met = 0;

	for (size_t i = 0; i < m->ncells; i++)
		met += m->cells[i].met;
	strbuf_addstr(sb, "{\n");
	json_field(sb, "id", run->id, false);
	json_field(sb, "command", run->command, false);
	json_field(sb, "started", run->started, false);
	json_field(sb, "finished", run->finished, false);
	strbuf_addstr(sb, "    \"hosts\": [");
	for (size_t i = 0; i < run->nhosts; i++) {
		strbuf_addstr(sb, i ? ", {\"uri\": \"" : "{\"uri\": \"");
		strbuf_add_json(sb, run->hosts[i].uri);
		strbuf_addf(sb, "\", \"jobs\": %d}", run->hosts[i].jobs);
	}
	strbuf_addstr(sb, "],\n");
	strbuf_addf(sb, "    \"complete\": %s,\n", m->interrupted ? "false" : "true");
	strbuf_addf(sb, "    \"cells\": %zu,\n    \"met\": %zu\n}\n", m->ncells, met);
}

int results_write(const char *dir, const struct results_run *run, const struct matrix *m)
{
	struct strbuf sb = STRBUF_INIT;
	char *run_path = xasprintf("%s/run.json", dir);
	char *ktap = xasprintf("%s/results.ktap", dir);
	char *json = xasprintf("%s/results.json", dir);
	int err;

	format_run(&sb, run, m);
	if ((err = file_write_atomic(run_path, sb.buf, sb.len)) < 0)
		goto out;
	strbuf_reset(&sb);
	results_format_ktap(&sb, m);
	if ((err = file_write_atomic(ktap, sb.buf, sb.len)) < 0)
		goto out;
	strbuf_reset(&sb);
	results_format_json(&sb, run, m);
	err = file_write_atomic(json, sb.buf, sb.len);
out:
	strbuf_release(&sb);
	free(run_path);
	free(ktap);
	free(json);
	return err;
}
