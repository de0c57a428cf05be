#include "kcidb.h"

#include "lib/jsonw.h"
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

static struct json_object *kcidb_kernel_id_json(const struct report_input *in,
						 const struct matrix_kernel *k)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object *o;

	kcidb_kernel_id(&sb, in, k);
	o = json_object_new_string(sb.buf);
	strbuf_release(&sb);
	return o;
}

/* Text made safe as report.h says; safe text is valid UTF-8, which json-c then escapes. */
static struct json_object *kcidb_text(const char *s)
{
	struct strbuf safe = STRBUF_INIT;
	struct json_object *o = json_object_new_string(report_safe(&safe, s));

	strbuf_release(&safe);
	return o;
}

/* "key": safe text; nothing for NULL, as KCIDB allows no nulls. */
static void kcidb_add_text(struct json_object *o, const char *key, const char *value)
{
	if (value)
		json_object_object_add(o, key, kcidb_text(value));
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

static struct json_object *kcidb_checkout(const struct report_input *in,
					  const struct matrix_kernel *k, const char *origin)
{
	const struct report_provenance *p = prov_find(in, k->variant);
	struct json_object *o = json_object_new_object(), *misc = json_object_new_object();

	json_object_object_add(o, "id", kcidb_kernel_id_json(in, k));
	kcidb_add_text(o, "origin", origin);
	kcidb_add_text(o, "tree_name", in->tree_name);
	kcidb_add_text(o, "git_commit_hash", is_sha1_hex(k->commit) ? k->commit : NULL);
	kcidb_add_text(o, "comment", p ? p->summary : NULL);
	kcidb_add_text(o, "start_time", in->run->started);
	/* The tested commit is the patch: none is applied on top of it here. */
	json_object_object_add(o, "patchset_hash", json_object_new_string(""));
	kcidb_add_text(o, "message_id", p && p->message_id && strchr(p->message_id, '@') ?
					    p->message_id : NULL);
	/* Every kernel that has cells was checked out, patched and built. */
	json_object_object_add(o, "valid", json_object_new_boolean(true));
	kcidb_add_text(misc, "variant", k->variant);
	kcidb_add_text(misc, "commit", k->commit);
	kcidb_add_text(misc, "kernel_version", k->version);
	if (p) {
		struct json_object *versions = json_object_new_array();

		kcidb_add_text(misc, "patch_id", p->patch_id);
		kcidb_add_text(misc, "message_id", p->message_id);
		kcidb_add_text(misc, "lore_url", p->lore_url);
		for (size_t i = 0; i < p->nversions; i++)
			json_object_array_add(versions, kcidb_text(p->versions[i]));
		json_object_object_add(misc, "versions", versions);
	}
	json_object_object_add(o, "misc", misc);
	return o;
}

static struct json_object *kcidb_build(const struct report_input *in,
				       const struct matrix_kernel *k, const char *origin)
{
	struct json_object *o = json_object_new_object(), *misc = json_object_new_object();

	json_object_object_add(o, "id", kcidb_kernel_id_json(in, k));
	json_object_object_add(o, "checkout_id", kcidb_kernel_id_json(in, k));
	kcidb_add_text(o, "origin", origin);
	json_object_object_add(o, "architecture", json_object_new_string("i386"));
	json_object_object_add(o, "config_name", json_object_new_string(KCIDB_CONFIG_NAME));
	json_object_object_add(o, "status", json_object_new_string("PASS"));
	kcidb_add_text(misc, "variant", k->variant);
	kcidb_add_text(misc, "build_id", k->build_id);
	json_object_object_add(o, "misc", misc);
	return o;
}

/* A dot-separated test path: the test's name may hold no dots of its own. */
static void kcidb_path(struct strbuf *sb, const char *test)
{
	strbuf_addstr(sb, "fpu.");
	for (const unsigned char *p = (const unsigned char *)test; *p; p++)
		strbuf_addch(sb, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				 (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ? (char)*p : '_');
}

/* Where it ran: the CPU setup, and in misc what the bench knows of it. */
static struct json_object *kcidb_environment(const struct matrix_cell *c)
{
	struct json_object *o = json_object_new_object(), *misc = json_object_new_object();
	char *comment = xasprintf("CPU setup %s", c->cpu->spec);

	kcidb_add_text(o, "comment", comment);
	kcidb_add_text(misc, "cpu", c->cpu->cpu);
	kcidb_add_text(misc, "cmdline", c->cpu->cmdline);
	kcidb_add_text(misc, "host", c->host);
	kcidb_add_text(misc, "fpu_mode", c->fpu_mode);
	json_object_object_add(o, "misc", misc);
	free(comment);
	return o;
}

/* The commits the test guards ("guards": ["f994d99cf140"]) and its contract ("guards_contract"). */
static void kcidb_add_guards(struct json_object *misc, const struct report_guard *g)
{
	struct json_object *commits;

	if (!g)
		return;
	commits = json_object_new_array();
	for (const char *p = g->commits + strspn(g->commits, " "); *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");

		json_object_array_add(commits, json_object_new_string_len(p, (int)n));
		p += n;
	}
	json_object_object_add(misc, "guards", commits);
	kcidb_add_text(misc, "guards_contract", g->contract);
}

static struct json_object *kcidb_test(const struct report_input *in, const struct matrix_cell *c,
				      const char *origin)
{
	struct json_object *o = json_object_new_object(), *misc = json_object_new_object();
	struct strbuf sb = STRBUF_INIT, tail = STRBUF_INIT;
	bool cut = false;

	kcidb_kernel_id(&sb, in, c->kernel);
	strbuf_addch(&sb, ':');
	kcidb_id_part(&sb, c->cpu->spec);
	strbuf_addch(&sb, ':');
	kcidb_id_part(&sb, c->test);
	json_object_object_add(o, "id", json_object_new_string(sb.buf));
	json_object_object_add(o, "build_id", kcidb_kernel_id_json(in, c->kernel));
	kcidb_add_text(o, "origin", origin);
	strbuf_reset(&sb);
	kcidb_path(&sb, c->test);
	json_object_object_add(o, "path", json_object_new_string(sb.buf));
	json_object_object_add(o, "status", json_object_new_string(kcidb_status(c->status)));
	if (c->duration_s >= 0)
		json_object_object_add(o, "duration", jsonw_fixed(c->duration_s, 3));
	kcidb_add_text(o, "comment", c->crash ? c->crash : c->reason);
	json_object_object_add(o, "environment", kcidb_environment(c));
	/* A console is no URL, so the log's path goes in misc; a pass needs no excerpt. */
	if (c->status != VERDICT_PASS && report_console_tail(in, c, &tail, &cut))
		json_object_object_add(o, "log_excerpt",
				       json_object_new_string_len(tail.buf, (int)tail.len));
	/* A failure the plan expects is the bench working: waived, for nobody to act on. */
	json_object_object_add(misc, "verdict", json_object_new_string(report_status_name(c->status)));
	json_object_object_add(misc, "expected",
			       json_object_new_string(report_status_name(c->expected)));
	json_object_object_add(misc, "met", json_object_new_boolean(c->met));
	json_object_object_add(misc, "waived",
			       json_object_new_boolean(c->met && c->expected != VERDICT_PASS));
	kcidb_add_text(misc, "crash", c->crash);
	kcidb_add_text(misc, "reason", c->reason);
	kcidb_add_text(misc, "console", c->console);
	/* A server's job has a URL; a lab of one's log, like a libvirt console, is only a path. */
	if (c->job_url && strstr(c->job_url, "://"))
		kcidb_add_text(o, "log_url", c->job_url);
	kcidb_add_text(misc, "job_id", c->job_id);
	kcidb_add_text(misc, "job_url", c->job_url);
	kcidb_add_guards(misc, report_guard_find(in, c->test));
	json_object_object_add(o, "misc", misc);
	strbuf_release(&sb);
	strbuf_release(&tail);
	return o;
}

int kcidb_format(struct strbuf *sb, const struct report_input *in)
{
	const char *origin = in->origin ? in->origin : KCIDB_ORIGIN;
	const struct matrix *m = in->m;
	const struct matrix_kernel **kernels = xcalloc(m->ncells, sizeof(*kernels));
	struct json_object *doc = json_object_new_object(), *version = json_object_new_object();
	struct json_object *checkouts = json_object_new_array(), *builds = json_object_new_array();
	struct json_object *tests = json_object_new_array();
	size_t nkernels = 0;

	for (size_t i = 0; i < m->ncells; i++) {
		size_t k;

		for (k = 0; k < nkernels && strcmp(kernels[k]->variant, m->cells[i].kernel->variant); k++)
			;
		if (k == nkernels)
			kernels[nkernels++] = m->cells[i].kernel;
	}
	json_object_object_add(version, "major", json_object_new_int(KCIDB_MAJOR));
	json_object_object_add(version, "minor", json_object_new_int(KCIDB_MINOR));
	for (size_t k = 0; k < nkernels; k++) {
		json_object_array_add(checkouts, kcidb_checkout(in, kernels[k], origin));
		json_object_array_add(builds, kcidb_build(in, kernels[k], origin));
	}
	for (size_t i = 0; i < m->ncells; i++)
		json_object_array_add(tests, kcidb_test(in, &m->cells[i], origin));
	json_object_object_add(doc, "version", version);
	json_object_object_add(doc, "checkouts", checkouts);
	json_object_object_add(doc, "builds", builds);
	json_object_object_add(doc, "tests", tests);
	strbuf_addstr(sb, jsonw_text(doc));
	strbuf_addch(sb, '\n');
	json_object_put(doc);
	free(kernels);
	return 0;
}
