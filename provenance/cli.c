#include "provenance.h"

#include "archive.h"
#include "lib/date.h"
#include "lib/error.h"
#include "facts.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "match.h"
#include "lib/strlist.h"
#include "subject.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SHORT_SHA 12

static const char *const history_phrases[] = {
	[HISTORY_FIXES] = "fixes",
	[HISTORY_UPSTREAM] = "backport of",
	[HISTORY_CHERRY_PICK] = "cherry-picked from",
	[HISTORY_REVERT] = "reverts",
	[HISTORY_INTRODUCED_BY] = "introduced by",
	[HISTORY_MENTION] = "mentions",
};

/* JSON helpers: a string or null, a list of strings. */
static void json_string(struct strbuf *out, const char *s)
{
	if (!s) {
		strbuf_addstr(out, "null");
		return;
	}
	strbuf_addch(out, '"');
	strbuf_add_json(out, s);
	strbuf_addch(out, '"');
}

static void json_key(struct strbuf *out, const char *key)
{
	strbuf_addstr(out, out->len && out->buf[out->len - 1] != '{' ? ", \"" : "\"");
	strbuf_addstr(out, key);
	strbuf_addstr(out, "\": ");
}

/* {"name": ..., "email": ...}, as commits' authors and mails' senders are written. */
static void json_person(struct strbuf *out, const char *name, const char *email)
{
	strbuf_addch(out, '{');
	json_key(out, "name");
	json_string(out, name);
	json_key(out, "email");
	json_string(out, email);
	strbuf_addch(out, '}');
}

static void json_strings(struct strbuf *out, const char *key, char *const *v, size_t n)
{
	json_key(out, key);
	strbuf_addch(out, '[');
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(out, i ? ", " : "");
		json_string(out, v[i]);
	}
	strbuf_addch(out, ']');
}

static void json_oid(struct strbuf *out, const char *key, const git_oid *id)
{
	json_key(out, key);
	if (git_oid_is_zero(id)) {
		strbuf_addstr(out, "null");
	} else {
		char hex[GIT_OID_HEXSZ + 1];
		json_string(out, git_oid_tostr(hex, sizeof(hex), id));
	}
}

static void json_refs(struct strbuf *out, const char *key, const struct history_ref *refs,
		      size_t n)
{
	json_key(out, key);
	strbuf_addch(out, '[');
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(out, i ? ", {" : "{");
		json_key(out, "kind");
		json_string(out, history_kind_name(refs[i].kind));
		json_key(out, "sha");
		json_string(out, refs[i].sha);
		json_key(out, "subject");
		json_string(out, refs[i].subject);
		strbuf_addch(out, '}');
	}
	strbuf_addch(out, ']');
}

/* The fields a results.json cell and a report entry share. */
static void json_commit_fields(struct strbuf *out, const struct commit_facts *f)
{
	const struct trailers *t = f->trailers;
	char hex[GIT_OID_HEXSZ + 1];
	struct strlist values = STRLIST_INIT, lore = STRLIST_INIT;

	json_key(out, "commit");
	json_string(out, git_oid_tostr(hex, sizeof(hex), &f->id));
	json_key(out, "summary");
	json_string(out, f->summary);
	json_key(out, "author");
	json_person(out, f->author_name, f->author_email);
	for (size_t i = 0; i < t->nlinks; i++)
		strlist_push(&values, xstrdup(t->links[i].value));
	json_strings(out, "links", values.v, values.n);
	json_key(out, "link_kinds");
	strbuf_addch(out, '[');
	for (size_t i = 0; i < t->nlinks; i++) {
		strbuf_addstr(out, i ? ", " : "");
		json_string(out, link_kind_name(t->links[i].kind));
	}
	strbuf_addch(out, ']');
	json_strings(out, "message_ids", t->message_ids.v, t->message_ids.n);
	for (size_t i = 0; i < t->message_ids.n; i++)
		strlist_push(&lore, link_lore_url(t->message_ids.v[i]));
	json_strings(out, "lore_urls", lore.v, lore.n);
	json_oid(out, "patch_id", &f->patch_id);
	json_key(out, "trailers");
	strbuf_addch(out, '[');
	for (size_t i = 0; i < t->nitems; i++) {
		strbuf_addstr(out, i ? ", {" : "{");
		json_key(out, "key");
		json_string(out, t->items[i].key);
		json_key(out, "value");
		json_string(out, t->items[i].value);
		strbuf_addch(out, '}');
	}
	strbuf_addch(out, ']');
	json_refs(out, "fixes", t->fixes, t->nfixes);
	json_strings(out, "closes", t->closes.v, t->closes.n);
	json_strings(out, "reported_by", t->reported_by.v, t->reported_by.n);
	json_strings(out, "change_ids", t->change_ids.v, t->change_ids.n);
	json_strings(out, "signed_off_by", t->signed_off_by.v, t->signed_off_by.n);
	json_refs(out, "history", t->history, t->nhistory);
	strlist_release(&values);
	strlist_release(&lore);
}

int provenance_commit_json(git_repository *repo, const git_oid *commit, struct strbuf *out)
{
	struct commit_facts *f;
	int err = facts_read(&f, repo, commit, 0);

	if (err)
		return err;
	strbuf_addch(out, '{');
	json_commit_fields(out, f);
	strbuf_addch(out, '}');
	facts_free(f);
	return 0;
}

static void json_match(struct strbuf *out, const struct match_result *r,
		       const struct archive *a)
{
	char date[32];

	json_key(out, "postings");
	strbuf_addch(out, '[');
	for (size_t i = 0; r && i < r->npostings; i++) {
		const struct mail *m = a->mails[r->postings[i].mail];
		char *lore = m->message_id ? link_lore_url(m->message_id) : NULL;
		strbuf_addstr(out, i ? ", {" : "{");
		json_key(out, "message_id");
		json_string(out, m->message_id);
		json_key(out, "lore_url");
		json_string(out, lore);
		json_key(out, "subject");
		json_string(out, m->subject);
		json_key(out, "method");
		json_string(out, match_method_name(r->postings[i].method));
		json_key(out, "confidence");
		strbuf_addf(out, "%.2f", r->postings[i].confidence);
		/* Which diff gave the patch-id, when it was not git's default. */
		if (r->postings[i].variant) {
			json_key(out, "diff");
			json_string(out, r->postings[i].variant);
		}
		strbuf_addch(out, '}');
		free(lore);
	}
	strbuf_addch(out, ']');
	json_key(out, "versions");
	strbuf_addch(out, '[');
	for (size_t i = 0; r && i < r->nversions; i++) {
		const struct match_version *v = &r->versions[i];
		const struct mail *m = a->mails[v->mail];
		char *lore = m->message_id ? link_lore_url(m->message_id) : NULL;
		date_format_iso8601(date, sizeof(date), m->time);
		strbuf_addstr(out, i ? ", {" : "{");
		json_key(out, "version");
		strbuf_addf(out, "%u", v->version);
		json_key(out, "resend");
		strbuf_addstr(out, v->resend ? "true" : "false");
		json_key(out, "rfc");
		strbuf_addstr(out, v->rfc ? "true" : "false");
		json_key(out, "date");
		json_string(out, m->time ? date : NULL);
		json_key(out, "message_id");
		json_string(out, m->message_id);
		json_key(out, "lore_url");
		json_string(out, lore);
		json_key(out, "subject");
		json_string(out, m->subject);
		json_key(out, "replies");
		strbuf_addf(out, "%zu", v->replies);
		json_strings(out, "review_tags", v->review_tags.v, v->review_tags.n);
		json_key(out, "changes");
		json_string(out, v->changes);
		json_key(out, "reached_by_link");
		strbuf_addstr(out, v->reached ? "true}" : "false}");
		free(lore);
	}
	strbuf_addch(out, ']');
	if (!r)
		return;
	json_key(out, "applied_changes");
	json_string(out, r->applied_changes);
	json_key(out, "link_quality");
	strbuf_addch(out, '{');
	json_key(out, "link");
	json_string(out, match_link_name(r->link));
	json_key(out, "unreached_reviewed_versions");
	strbuf_addf(out, "%zu}", r->unreached_reviewed);
}

static void print_refs(const struct history_ref *refs, size_t n, const char *label)
{
	for (size_t i = 0; i < n; i++) {
		printf("  %-14s %s %.*s", i ? "" : label, history_phrases[refs[i].kind], SHORT_SHA,
		       refs[i].sha);
		if (refs[i].subject)
			printf(" (\"%s\")", refs[i].subject);
		putchar('\n');
	}
}

static void print_list(const char *label, const struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		printf("  %-14s %s\n", i ? "" : label, l->v[i]);
}

static const char *plural(size_t n)
{
	return n == 1 ? "y" : "ies";
}

static void print_link_quality(const struct match_result *r)
{
	const struct match_version *last = r->nversions ? &r->versions[r->nversions - 1] : NULL;

	switch (r->link) {
	case MATCH_LINK_NONE:
		printf("  %-14s no Link names a message", "Link quality:");
		break;
	case MATCH_LINK_UNKNOWN:
		printf("  %-14s its message-ids are not in the archives", "Link quality:");
		break;
	case MATCH_LINK_FINAL:
		printf("  %-14s names the final version (v%u)", "Link quality:", last->version);
		break;
	case MATCH_LINK_EARLIER:
		printf("  %-14s names an earlier version, not the final v%u", "Link quality:",
		       last->version);
		break;
	case MATCH_LINK_ELSEWHERE:
		printf("  %-14s names a message outside the version chain", "Link quality:");
		break;
	}
	if (r->unreached_reviewed) {
		printf("; %zu earlier version%s with review discussion %s not reachable from it:",
		       r->unreached_reviewed, r->unreached_reviewed == 1 ? "" : "s",
		       r->unreached_reviewed == 1 ? "is" : "are");
		const char *sep = " ";
		for (size_t i = 0; i + 1 < r->nversions; i++) {
			const struct match_version *v = &r->versions[i];
			if (v->replies && !v->reached) {
				printf("%sv%u (%zu repl%s)", sep, v->version, v->replies, plural(v->replies));
				sep = ", ";
			}
		}
	}
	putchar('\n');
}

static void print_match(const struct match_result *r, const struct archive *a)
{
	char date[32];

	if (!r->npostings) {
		printf("  %-14s none found\n", "Postings:");
		return;
	}
	for (size_t i = 0; i < r->npostings; i++) {
		const struct mail *m = a->mails[r->postings[i].mail];
		printf("  %-14s %s%s%s%s %.2f <%s> %s\n", i ? "" : "Postings:",
		       match_method_name(r->postings[i].method),
		       r->postings[i].variant ? " (" : "",
		       r->postings[i].variant ? r->postings[i].variant : "",
		       r->postings[i].variant ? ")" : "", r->postings[i].confidence,
		       m->message_id ? m->message_id : "?", m->subject);
	}
	for (size_t i = 0; i < r->nversions; i++) {
		const struct match_version *v = &r->versions[i];
		const struct mail *m = a->mails[v->mail];
		char *lore = m->message_id ? link_lore_url(m->message_id) : xstrdup("(no message-id)");
		date_format_iso8601(date, sizeof(date), m->time);
		date[10] = '\0';
		printf("  %-14s v%u%s %s, %zu repl%s: %s\n", i ? "" : "Versions:", v->version,
		       v->resend ? " RESEND" : "", m->time ? date : "(no date)", v->replies,
		       plural(v->replies), lore);
		if (i)
			printf("  %-14s   since v%u: %s\n", "", r->versions[i - 1].version, v->changes);
		for (size_t t = 0; t < v->review_tags.n; t++)
			printf("  %-14s   %s\n", "", v->review_tags.v[t]);
		free(lore);
	}
	if (r->applied_changes)
		printf("  %-14s commit, since v%u: %s\n", "", r->versions[r->nversions - 1].version,
		       r->applied_changes);
	print_link_quality(r);
}

static void print_commit(const struct commit_facts *f, const struct match_result *r,
			 const struct archive *a)
{
	const struct trailers *t = f->trailers;
	char hex[GIT_OID_HEXSZ + 1];

	printf("commit %s\n", git_oid_tostr(hex, sizeof(hex), &f->id));
	printf("  %s\n", f->summary);
	printf("  %-14s %s <%s>\n", "Author:", f->author_name, f->author_email);
	printf("  %-14s %s\n", "Patch-id:", git_oid_is_zero(&f->patch_id) ?
	       (f->parents > 1 ? "none (a merge)" : "none (no change)") :
	       git_oid_tostr(hex, sizeof(hex), &f->patch_id));
	for (size_t i = 0; i < t->nlinks; i++) {
		printf("  %-14s %s\n", "Link:", t->links[i].value);
		if (t->links[i].lore_url)
			printf("  %-14s -> %s\n", "", t->links[i].lore_url);
		else
			printf("  %-14s (%s, names no message)\n", "", link_kind_name(t->links[i].kind));
	}
	/* Message-ids that came from Message-ID: trailers rather than from a Link. */
	for (size_t i = 0; i < t->message_ids.n; i++) {
		bool from_link = false;
		for (size_t l = 0; l < t->nlinks; l++)
			from_link |= t->links[l].message_id &&
				     strcmp(t->links[l].message_id, t->message_ids.v[i]) == 0;
		if (from_link)
			continue;
		char *lore = link_lore_url(t->message_ids.v[i]);
		printf("  %-14s %s\n  %-14s -> %s\n", "Message-ID:", t->message_ids.v[i], "", lore);
		free(lore);
	}
	print_refs(t->fixes, t->nfixes, "Fixes:");
	print_refs(t->history, t->nhistory, "History:");
	print_list("Closes:", &t->closes);
	print_list("Reported-by:", &t->reported_by);
	print_list("Change-Id:", &t->change_ids);
	print_list("Signed-off-by:", &t->signed_off_by);
	if (r)
		print_match(r, a);
	putchar('\n');
}

static void add_commit(git_oid **ids, size_t *n, const git_oid *id)
{
	*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
	git_oid_cpy(&(*ids)[(*n)++], id);
}

struct numbered_oid {
	git_oid id;
	size_t at;
};

static int compare_numbered(const void *a, const void *b)
{
	const struct numbered_oid *x = a, *y = b;
	int cmp = git_oid_cmp(&x->id, &y->id);

	return cmp ? cmp : x->at < y->at ? -1 : x->at > y->at;
}

/* Keeps the first of repeated commits, in order ("A B A..B" lists B once). */
static void drop_repeats(git_oid *ids, size_t *n)
{
	struct numbered_oid *sorted = xmalloc((*n ? *n : 1) * sizeof(*sorted));
	unsigned char *repeat = xcalloc(*n ? *n : 1, 1);
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++)
		sorted[i] = (struct numbered_oid){ ids[i], i };
	qsort(sorted, *n, sizeof(*sorted), compare_numbered);
	for (size_t i = 1; i < *n; i++)
		if (git_oid_equal(&sorted[i].id, &sorted[i - 1].id))
			repeat[sorted[i].at] = 1;
	for (size_t i = 0; i < *n; i++)
		if (!repeat[i])
			ids[kept++] = ids[i];
	*n = kept;
	free(repeat);
	free(sorted);
}

static int walk_range(git_repository *repo, const git_revspec *spec, const char *arg,
		      git_oid **ids, size_t *n)
{
	git_revwalk *walk = NULL;
	git_oid base, id;
	int rc, err = 0;

	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(walk, git_object_id(spec->to)) < 0)
		goto fail;
	if (spec->flags & GIT_REVSPEC_MERGE_BASE) {
		if (git_revwalk_push(walk, git_object_id(spec->from)) < 0 ||
		    git_merge_base(&base, repo, git_object_id(spec->from), git_object_id(spec->to)) < 0 ||
		    git_revwalk_hide(walk, &base) < 0)
			goto fail;
	} else if (git_revwalk_hide(walk, git_object_id(spec->from)) < 0) {
		goto fail;
	}
	while ((rc = git_revwalk_next(&id, walk)) == 0)
		add_commit(ids, n, &id);
	if (rc == GIT_ITEROVER)
		goto out;
fail:
	err = error_set(ERR_USAGE, "cannot walk '%s': %s", arg, gitutil_error());
out:
	git_revwalk_free(walk);
	return err;
}

static int resolve_revs(git_repository *repo, const char *const *revs, size_t nrevs, git_oid **ids, size_t *n)
{
	int err = 0;

	for (size_t i = 0; i < nrevs && !err; i++) {
		git_revspec spec;
		git_object *commit = NULL;
		if (git_revparse(&spec, repo, revs[i]) < 0) {
			err = error_set(ERR_USAGE, "unknown revision '%s': %s", revs[i], gitutil_error());
			break;
		}
		if (spec.flags & GIT_REVSPEC_SINGLE) {
			if (git_object_peel(&commit, spec.from, GIT_OBJECT_COMMIT) < 0)
				err = error_set(ERR_USAGE, "'%s' is not a commit", revs[i]);
			else
				add_commit(ids, n, git_object_id(commit));
		} else {
			err = walk_range(repo, &spec, revs[i], ids, n);
		}
		git_object_free(commit);
		git_object_free(spec.from);
		git_object_free(spec.to);
	}
	drop_repeats(*ids, n);
	return err;
}

static void list_messages(const struct archive *a, const struct match_index *idx,
			  struct strbuf *json)
{
	char date[32], hex[GIT_OID_HEXSZ + 1];

	strbuf_addch(json, '[');
	for (size_t i = 0; i < a->nmails; i++) {
		const struct mail *m = a->mails[i];
		const struct subject *s = match_mail_subject(idx, i);
		const git_oid *pid = match_mail_patch_id(idx, i);

		date_format_iso8601(date, sizeof(date), m->time);
		printf("%s v%u %s <%s>\n", m->time ? date : "?", s->version, m->subject,
		       m->message_id ? m->message_id : "?");
		strbuf_addstr(json, i ? ",\n{" : "\n{");
		json_key(json, "message_id");
		json_string(json, m->message_id);
		json_key(json, "subject");
		json_string(json, m->subject);
		json_key(json, "normalized_subject");
		json_string(json, s->normalized);
		json_key(json, "version");
		strbuf_addf(json, "%u", s->version);
		json_key(json, "index");
		strbuf_addf(json, "%u", s->index);
		json_key(json, "total");
		strbuf_addf(json, "%u", s->total);
		json_key(json, "rfc");
		strbuf_addstr(json, s->rfc ? "true" : "false");
		json_key(json, "resend");
		strbuf_addstr(json, s->resend ? "true" : "false");
		json_key(json, "from");
		json_person(json, m->from_name, m->from_email);
		json_key(json, "date");
		json_string(json, m->time ? date : (*m->date ? m->date : NULL));
		json_key(json, "in_reply_to");
		json_string(json, m->in_reply_to);
		json_key(json, "has_patch");
		strbuf_addstr(json, m->patch ? "true" : "false");
		json_key(json, "patch_id");
		json_string(json, git_oid_is_zero(pid) ? NULL : git_oid_tostr(hex, sizeof(hex), pid));
		strbuf_addch(json, '}');
	}
	strbuf_addstr(json, "\n]\n");
}

struct session {
	const struct provenance_request *o;
	git_repository *repo;
	struct archive archive;
	struct match_index *idx;
	git_oid *ids;
	size_t nids;
	struct commit_facts **facts;
	struct strbuf json;
};

static int run(struct session *s)
{
	int err;

	for (size_t i = 0; i < s->o->narchives; i++)
		if ((err = archive_add(&s->archive, s->o->archives[i])) < 0)
			return err;
	if (s->archive.skipped)
		fprintf(stderr, "fpubench: skipped %zu messages that are not mail\n",
			s->archive.skipped);
	if (s->o->narchives)
		s->idx = match_index_new(s->archive.mails, s->archive.nmails);
	if (s->o->list) {
		list_messages(&s->archive, s->idx, &s->json);
		return 0;
	}
	if (git_repository_open_ext(&s->repo, s->o->repo ? s->o->repo : ".",
				    s->o->repo ? GIT_REPOSITORY_OPEN_NO_SEARCH : 0, NULL) < 0)
		return error_set(ERR_NOTFOUND, "cannot open repository '%s': %s",
				 s->o->repo ? s->o->repo : ".", gitutil_error());
	if ((err = resolve_revs(s->repo, s->o->revs, s->o->nrevs, &s->ids, &s->nids)) < 0 ||
	    (err = facts_read_many(&s->facts, s->repo, s->ids, s->nids,
				   s->idx ? FACTS_CHANGES | FACTS_PATCH_VARIANTS : 0)) < 0)
		return err;
	strbuf_addch(&s->json, '[');
	for (size_t i = 0; i < s->nids; i++) {
		struct match_result *r = s->idx ? match_commit(s->idx, s->facts[i]) : NULL;
		print_commit(s->facts[i], r, &s->archive);
		strbuf_addstr(&s->json, i ? ",\n{" : "\n{");
		json_commit_fields(&s->json, s->facts[i]);
		json_match(&s->json, r, &s->archive);
		strbuf_addch(&s->json, '}');
		match_result_free(r);
	}
	strbuf_addstr(&s->json, "\n]\n");
	return 0;
}

int provenance_report(const struct provenance_request *req)
{
	struct session s = { .o = req, .archive = ARCHIVE_INIT, .json = STRBUF_INIT };
	int err;

	if (req->list && !req->narchives)
		return error_set(ERR_USAGE, "--list needs an --archive");
	if (req->list && req->nrevs)
		return error_set(ERR_USAGE, "--list takes no revision, not '%s'", req->revs[0]);
	if (!req->list && !req->nrevs)
		return error_set(ERR_USAGE, "no revision given (see 'fpubench provenance --help')");
	/* git does not re-hash the objects it reads either; this is a fifth of the time. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	err = run(&s);
	if (err == 0 && req->json)
		err = file_write_output(req->json, s.json.buf, s.json.len);
	facts_free_many(s.facts, s.nids);
	free(s.ids);
	match_index_free(s.idx);
	archive_release(&s.archive);
	strbuf_release(&s.json);
	git_repository_free(s.repo);
	return err;
}
