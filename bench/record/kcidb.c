#include "kcidb.h"

#include "lib/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Escaping makes a byte at most four characters, and KCIDB caps log_excerpt at 16384. */
_Static_assert(REPORT_EXCERPT_MAX * 4 <= 16384, "a console excerpt fits KCIDB's log_excerpt");

#define KCIDB_ORIGIN "fpubench"
/* kernel.c builds tinyconfig merged with the bench's fragment. */
#define KCIDB_CONFIG_NAME "tinyconfig+fpubench"

/* KCIDB: PASS, FAIL (the kernel was faulty), ERROR (did not complete), MISS (did not run). */
static const char *kcidb_status(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return "PASS";
	case VERDICT_SKIP:
		return "SKIP";
	case VERDICT_FAIL:
	case VERDICT_CRASH:
		return "FAIL";
	case VERDICT_TIMEOUT:
		return "ERROR";
	default:
		return "MISS";
	}
}

/*
 * One part of an id: [A-Za-z0-9_-] stays and any other byte becomes .XX,
 * so ids keep to [A-Za-z0-9_:.-] and parts, joined by ':', never collide.
 */
static void kcidb_id_part(struct strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '_' || *p == '-')
			strbuf_addch(sb, (char)*p);
		else
			strbuf_addf(sb, ".%02x", *p);
	}
}

/* "ORIGIN:RUN:VARIANT", the checkout's and the build's id (they are different objects). */
static void kcidb_kernel_id(struct strbuf *sb, const struct report_input *in,
			    const struct matrix_kernel *k)
{
	strbuf_addstr(sb, in->origin ? in->origin : KCIDB_ORIGIN);
	strbuf_addch(sb, ':');
	kcidb_id_part(sb, in->run->id);
	strbuf_addch(sb, ':');
	kcidb_id_part(sb, k->variant);
}

/* `, "key": "value"`; nothing for NULL, as KCIDB allows no nulls. */
static void json_field(struct strbuf *sb, const char *key, const char *value)
{
	if (!value)
		return;
	strbuf_addf(sb, ", \"%s\": \"", key);
	report_json_text(sb, value);
	strbuf_addch(sb, '"');
}

static bool is_sha1_hex(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

static const struct report_provenance *prov_find(const struct report_input *in,
						 const char *variant)
{
	for (size_t i = 0; i < in->nprov; i++)
		if (in->prov[i].variant && variant && strcmp(in->prov[i].variant, variant) == 0)
			return &in->prov[i];
	return NULL;
}

static void kcidb_checkout(struct strbuf *sb, const struct report_input *in,
			   const struct matrix_kernel *k, const char *origin)
{
	const struct report_provenance *p = prov_find(in, k->variant);

	strbuf_addstr(sb, "    {\"id\": \"");
	kcidb_kernel_id(sb, in, k);
	strbuf_addch(sb, '"');
	json_field(sb, "origin", origin);
	json_field(sb, "tree_name", in->tree_name);
	json_field(sb, "git_commit_hash", is_sha1_hex(k->commit) ? k->commit : NULL);
	json_field(sb, "comment", p ? p->summary : NULL);
	json_field(sb, "start_time", in->run->started);
	/* The tested commit is the patch: none is applied on top of it here. */
	strbuf_addstr(sb, ", \"patchset_hash\": \"\"");
	json_field(sb, "message_id", p && p->message_id && strchr(p->message_id, '@') ?
					     p->message_id : NULL);
	/* Every kernel that has cells was checked out, patched and built. */
	strbuf_addstr(sb, ", \"valid\": true, \"misc\": {\"variant\": \"");
	report_json_text(sb, k->variant);
	strbuf_addch(sb, '"');
	json_field(sb, "commit", k->commit);
	json_field(sb, "kernel_version", k->version);
	if (p) {
		json_field(sb, "patch_id", p->patch_id);
		json_field(sb, "message_id", p->message_id);
		json_field(sb, "lore_url", p->lore_url);
		strbuf_addstr(sb, ", \"versions\": [");
		for (size_t i = 0; i < p->nversions; i++) {
			strbuf_addstr(sb, i ? ", \"" : "\"");
			report_json_text(sb, p->versions[i]);
			strbuf_addch(sb, '"');
		}
		strbuf_addch(sb, ']');
	}
	strbuf_addstr(sb, "}}");
}

static void kcidb_build(struct strbuf *sb, const struct report_input *in,
			const struct matrix_kernel *k, const char *origin)
{
	strbuf_addstr(sb, "    {\"id\": \"");
	kcidb_kernel_id(sb, in, k);
	strbuf_addstr(sb, "\", \"checkout_id\": \"");
	kcidb_kernel_id(sb, in, k);
	strbuf_addch(sb, '"');
	json_field(sb, "origin", origin);
	strbuf_addstr(sb, ", \"architecture\": \"i386\"");
	json_field(sb, "config_name", KCIDB_CONFIG_NAME);
	strbuf_addstr(sb, ", \"status\": \"PASS\", \"misc\": {\"variant\": \"");
	report_json_text(sb, k->variant);
	strbuf_addch(sb, '"');
	json_field(sb, "build_id", k->build_id);
	strbuf_addstr(sb, "}}");
}

/* A dot-separated test path: the test's name may hold no dots of its own. */
static void kcidb_path(struct strbuf *sb, const char *test)
{
	strbuf_addstr(sb, "fpu.");
	for (const unsigned char *p = (const unsigned char *)test; *p; p++)
		strbuf_addch(sb, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				 (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ? (char)*p : '_');
}

static void kcidb_test(struct strbuf *sb, const struct report_input *in,
		       const struct matrix_cell *c, const char *origin)
{
	struct strbuf tail = STRBUF_INIT;
	bool cut = false;

	strbuf_addstr(sb, "    {\"id\": \"");
	kcidb_kernel_id(sb, in, c->kernel);
	strbuf_addch(sb, ':');
	kcidb_id_part(sb, c->cpu->spec);
	strbuf_addch(sb, ':');
	kcidb_id_part(sb, c->test);
	strbuf_addstr(sb, "\", \"build_id\": \"");
	kcidb_kernel_id(sb, in, c->kernel);
	strbuf_addch(sb, '"');
	json_field(sb, "origin", origin);
	strbuf_addstr(sb, ", \"path\": \"");
	kcidb_path(sb, c->test);
	strbuf_addf(sb, "\", \"status\": \"%s\"", kcidb_status(c->status));
	if (c->duration_s >= 0)
		strbuf_addf(sb, ", \"duration\": %.3f", c->duration_s);
	json_field(sb, "comment", c->crash ? c->crash : c->reason);
	strbuf_addstr(sb, ", \"environment\": {\"comment\": \"CPU setup ");
	report_json_text(sb, c->cpu->spec);
	strbuf_addstr(sb, "\", \"misc\": {\"cpu\": \"");
	report_json_text(sb, c->cpu->cpu);
	strbuf_addch(sb, '"');
	json_field(sb, "cmdline", c->cpu->cmdline);
	json_field(sb, "host", c->host);
	json_field(sb, "fpu_mode", c->fpu_mode);
	strbuf_addstr(sb, "}}");
	/* A console is no URL, so the log's path goes in misc; a pass needs no excerpt. */
	if (c->status != VERDICT_PASS && report_console_tail(in, c, &tail, &cut)) {
		strbuf_addstr(sb, ", \"log_excerpt\": \"");
		strbuf_add_json(sb, tail.buf);
		strbuf_addch(sb, '"');
	}
	/* A failure the plan expects is the bench working: waived, for nobody to act on. */
	strbuf_addf(sb, ", \"misc\": {\"verdict\": \"%s\", \"expected\": \"%s\", \"met\": %s, "
		    "\"waived\": %s", report_status_name(c->status), report_status_name(c->expected),
		    c->met ? "true" : "false",
		    c->met && c->expected != VERDICT_PASS ? "true" : "false");
	json_field(sb, "crash", c->crash);
	json_field(sb, "reason", c->reason);
	json_field(sb, "console", c->console);
	strbuf_addstr(sb, "}}");
	strbuf_release(&tail);
}

void kcidb_format(struct strbuf *sb, const struct report_input *in)
{
	const char *origin = in->origin ? in->origin : KCIDB_ORIGIN;
	const struct matrix *m = in->m;
	const struct matrix_kernel **kernels = xcalloc(m->ncells, sizeof(*kernels));
	size_t nkernels = 0;

	for (size_t i = 0; i < m->ncells; i++) {
		size_t k;

		for (k = 0; k < nkernels && strcmp(kernels[k]->variant, m->cells[i].kernel->variant); k++)
			;
		if (k == nkernels)
			kernels[nkernels++] = m->cells[i].kernel;
	}
	strbuf_addf(sb, "{\n  \"version\": {\"major\": %d, \"minor\": %d},\n  \"checkouts\": [\n",
		    KCIDB_MAJOR, KCIDB_MINOR);
	for (size_t k = 0; k < nkernels; k++) {
		kcidb_checkout(sb, in, kernels[k], origin);
		strbuf_addstr(sb, k + 1 < nkernels ? ",\n" : "\n");
	}
	strbuf_addstr(sb, "  ],\n  \"builds\": [\n");
	for (size_t k = 0; k < nkernels; k++) {
		kcidb_build(sb, in, kernels[k], origin);
		strbuf_addstr(sb, k + 1 < nkernels ? ",\n" : "\n");
	}
	strbuf_addstr(sb, "  ],\n  \"tests\": [\n");
	for (size_t i = 0; i < m->ncells; i++) {
		kcidb_test(sb, in, &m->cells[i], origin);
		strbuf_addstr(sb, i + 1 < m->ncells ? ",\n" : "\n");
	}
	strbuf_addstr(sb, "  ]\n}\n");
	free(kernels);
}

