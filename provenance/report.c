/*
 * The report behind `fpubench provenance` (provenance_report_build()) and a
 * commit's provenance as JSON: the commits resolved, read and matched, and
 * the JSON of the same.  Nothing here prints; cmd_provenance() does.
 */
#include "provenance.h"

#include "archive.h"
#include "facts.h"
#include "match.h"
#include "subject.h"

#include "lib/date.h"
#include "lib/error.h"
#include "lib/gitutil.h"
#include "lib/jsonw.h"
#include "lib/strlist.h"

#include <stdlib.h>

/* A list of strings, each a string or null. */
static struct json_object *json_strings(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, jsonw_string(v[i]));
	return a;
}

/* {"name": ..., "email": ...}, as commits' authors and mails' senders are written. */
static struct json_object *json_person(const char *name, const char *email)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", jsonw_string(name));
	json_object_object_add(o, "email", jsonw_string(email));
	return o;
}

/* The id in hex; null for none (a merge's or an empty commit's patch-id). */
static struct json_object *json_oid(const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];

	return git_oid_is_zero(id) ? NULL : jsonw_string(git_oid_tostr(hex, sizeof(hex), id));
}

static struct json_object *json_refs(const struct trailers_ref *refs, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "kind", jsonw_string(trailers_ref_kind_name(refs[i].kind)));
		json_object_object_add(o, "sha", jsonw_string(refs[i].sha));
		json_object_object_add(o, "subject", jsonw_string(refs[i].subject));
		json_object_array_add(a, o);
	}
	return a;
}

/* The fields a results.json cell and a report entry share. */
static struct json_object *json_commit(const struct commit_facts *f)
{
	const struct trailers *t = f->trailers;
	struct json_object *o = json_object_new_object(), *links = json_object_new_array();
	struct json_object *kinds = json_object_new_array(), *lore = json_object_new_array();
	struct json_object *trailers = json_object_new_array();
	char hex[GIT_OID_HEXSZ + 1];

	for (size_t i = 0; i < t->nlinks; i++) {
		json_object_array_add(links, jsonw_string(t->links[i].value));
		json_object_array_add(kinds, jsonw_string(link_kind_name(t->links[i].kind)));
	}
	for (size_t i = 0; i < t->message_ids.n; i++) {
		char *url = link_lore_url(t->message_ids.v[i]);

		json_object_array_add(lore, jsonw_string(url));
		free(url);
	}
	for (size_t i = 0; i < t->nitems; i++) {
		struct json_object *item = json_object_new_object();

		json_object_object_add(item, "key", jsonw_string(t->items[i].key));
		json_object_object_add(item, "value", jsonw_string(t->items[i].value));
		json_object_array_add(trailers, item);
	}
	json_object_object_add(o, "commit", jsonw_string(git_oid_tostr(hex, sizeof(hex), &f->id)));
	json_object_object_add(o, "summary", jsonw_string(f->summary));
	json_object_object_add(o, "author", json_person(f->author_name, f->author_email));
	json_object_object_add(o, "links", links);
	json_object_object_add(o, "link_kinds", kinds);
	json_object_object_add(o, "message_ids", json_strings(t->message_ids.v, t->message_ids.n));
	json_object_object_add(o, "lore_urls", lore);
	json_object_object_add(o, "patch_id", json_oid(&f->patch_id));
	json_object_object_add(o, "trailers", trailers);
	json_object_object_add(o, "fixes", json_refs(t->fixes, t->nfixes));
	json_object_object_add(o, "closes", json_strings(t->closes.v, t->closes.n));
	json_object_object_add(o, "reported_by", json_strings(t->reported_by.v, t->reported_by.n));
	json_object_object_add(o, "change_ids", json_strings(t->change_ids.v, t->change_ids.n));
	json_object_object_add(o, "signed_off_by",
			       json_strings(t->signed_off_by.v, t->signed_off_by.n));
	json_object_object_add(o, "history", json_refs(t->history, t->nhistory));
	return o;
}

int provenance_commit_json(git_repository *repo, const git_oid *commit, struct strbuf *out)
{
	struct commit_facts *f;
	struct json_object *o;
	int err = facts_read(&f, repo, commit, 0);

	if (err)
		return err;
	o = json_commit(f);
	/* One line: a value that results.json and bisect.json embed and history.db keeps. */
	strbuf_addstr(out, json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	facts_free(f);
	return 0;
}

/* A posting's message-id, its lore URL and its subject. */
static void json_add_mail(struct json_object *o, const struct mail *m)
{
	char *lore = m->message_id ? link_lore_url(m->message_id) : NULL;

	json_object_object_add(o, "message_id", jsonw_string(m->message_id));
	json_object_object_add(o, "lore_url", jsonw_string(lore));
	json_object_object_add(o, "subject", jsonw_string(m->subject));
	free(lore);
}

/* What the archives say of a commit, added to its object; postings and versions are [] without. */
static void json_match(struct json_object *o, const struct match_result *r,
		       const struct archive *a)
{
	struct json_object *postings = json_object_new_array(), *versions = json_object_new_array();
	char date[32];

	for (size_t i = 0; r && i < r->npostings; i++) {
		struct json_object *p = json_object_new_object();

		json_add_mail(p, a->mails[r->postings[i].mail]);
		json_object_object_add(p, "method",
				       jsonw_string(match_method_name(r->postings[i].method)));
		json_object_object_add(p, "confidence", jsonw_fixed(r->postings[i].confidence, 2));
		/* Which diff gave the patch-id, when it was not git's default. */
		if (r->postings[i].variant)
			json_object_object_add(p, "diff", jsonw_string(r->postings[i].variant));
		json_object_array_add(postings, p);
	}
	for (size_t i = 0; r && i < r->nversions; i++) {
		const struct match_version *v = &r->versions[i];
		const struct mail *m = a->mails[v->mail];
		struct json_object *e = json_object_new_object();

		date_format_iso8601(date, sizeof(date), m->time);
		json_object_object_add(e, "version", json_object_new_int64(v->version));
		json_object_object_add(e, "resend", json_object_new_boolean(v->resend));
		json_object_object_add(e, "rfc", json_object_new_boolean(v->rfc));
		json_object_object_add(e, "date", jsonw_string(m->time ? date : NULL));
		json_add_mail(e, m);
		json_object_object_add(e, "replies", json_object_new_int64((int64_t)v->replies));
		json_object_object_add(e, "review_tags",
				       json_strings(v->review_tags.v, v->review_tags.n));
		json_object_object_add(e, "changes", jsonw_string(v->changes));
		json_object_object_add(e, "reached_by_link", json_object_new_boolean(v->reached));
		json_object_array_add(versions, e);
	}
	json_object_object_add(o, "postings", postings);
	json_object_object_add(o, "versions", versions);
	if (!r)
		return;
	struct json_object *quality = json_object_new_object();
	json_object_object_add(quality, "link", jsonw_string(match_link_name(r->link)));
	json_object_object_add(quality, "unreached_reviewed_versions",
			       json_object_new_int64((int64_t)r->unreached_reviewed));
	json_object_object_add(o, "applied_changes", jsonw_string(r->applied_changes));
	json_object_object_add(o, "link_quality", quality);
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

/* The archives' messages, as data and as JSON. */
static void list_messages(struct provenance_report *out, const struct match_index *idx)
{
	char date[32];

	out->messages = xcalloc(out->nmails ? out->nmails : 1, sizeof(*out->messages));
	out->nmessages = out->nmails;
	out->json = json_object_new_array();
	for (size_t i = 0; i < out->nmails; i++) {
		const struct mail *m = out->mails[i];
		const struct subject *s = match_mail_subject(idx, i);
		struct json_object *o = json_object_new_object();

		out->messages[i] = (struct provenance_message){ m, s };
		date_format_iso8601(date, sizeof(date), m->time);
		json_object_object_add(o, "message_id", jsonw_string(m->message_id));
		json_object_object_add(o, "subject", jsonw_string(m->subject));
		json_object_object_add(o, "normalized_subject", jsonw_string(s->normalized));
		json_object_object_add(o, "version", json_object_new_int64(s->version));
		json_object_object_add(o, "index", json_object_new_int64(s->index));
		json_object_object_add(o, "total", json_object_new_int64(s->total));
		json_object_object_add(o, "rfc", json_object_new_boolean(s->rfc));
		json_object_object_add(o, "resend", json_object_new_boolean(s->resend));
		json_object_object_add(o, "from", json_person(m->from_name, m->from_email));
		json_object_object_add(o, "date",
				       jsonw_string(m->time ? date : (*m->date ? m->date : NULL)));
		json_object_object_add(o, "in_reply_to", jsonw_string(m->in_reply_to));
		json_object_object_add(o, "has_patch", json_object_new_boolean(m->patch != NULL));
		json_object_object_add(o, "patch_id", json_oid(match_mail_patch_id(idx, i)));
		json_object_array_add(out->json, o);
	}
}

/* The report and what its borrowed pointers point into. */
struct session {
	struct provenance_report report;	/* first: provenance_report_free() casts back */
	git_repository *repo;
	struct archive archive;
	struct match_index *idx;
	git_oid *ids;
	size_t nids;
	struct commit_facts **facts;
	struct match_result **results;	/* the commits' matches, NULL without archives */
};

static int run(struct session *s, const struct provenance_request *req)
{
	struct provenance_report *out = &s->report;
	int err;

	for (size_t i = 0; i < req->narchives; i++)
		if ((err = archive_add(&s->archive, req->archives[i])) < 0)
			return err;
	out->mails = s->archive.mails;
	out->nmails = s->archive.nmails;
	out->skipped = s->archive.skipped;
	if (req->narchives)
		s->idx = match_index_new(s->archive.mails, s->archive.nmails);
	if (req->list) {
		list_messages(out, s->idx);
		return 0;
	}
	if (git_repository_open_ext(&s->repo, req->repo ? req->repo : ".",
				    req->repo ? GIT_REPOSITORY_OPEN_NO_SEARCH : 0, NULL) < 0)
		return error_set(ERR_NOTFOUND, "cannot open repository '%s': %s",
				 req->repo ? req->repo : ".", gitutil_error());
	if ((err = resolve_revs(s->repo, req->revs, req->nrevs, &s->ids, &s->nids)) < 0 ||
	    (err = facts_read_many(&s->facts, s->repo, s->ids, s->nids,
				   s->idx ? FACTS_CHANGES | FACTS_PATCH_VARIANTS : 0)) < 0)
		return err;
	out->json = json_object_new_array();
	out->commits = xcalloc(s->nids ? s->nids : 1, sizeof(*out->commits));
	s->results = xcalloc(s->nids ? s->nids : 1, sizeof(*s->results));
	for (size_t i = 0; i < s->nids; i++) {
		struct match_result *r = s->idx ? match_commit(s->idx, s->facts[i]) : NULL;
		struct json_object *o = json_commit(s->facts[i]);

		json_match(o, r, &s->archive);
		json_object_array_add(out->json, o);
		s->results[i] = r;
		out->commits[out->ncommits++] = (struct provenance_commit){ s->facts[i], r };
	}
	return 0;
}

int provenance_report_build(struct provenance_report **out, const struct provenance_request *req)
{
	struct session *s = xcalloc(1, sizeof(*s));
	int err;

	s->archive = (struct archive)ARCHIVE_INIT;
	/* git does not re-hash the objects it reads either; this is a fifth of the time. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	err = run(s, req);
	if (err < 0) {
		provenance_report_free(&s->report);
		s = NULL;
	}
	*out = s ? &s->report : NULL;
	return err;
}

void provenance_report_free(struct provenance_report *r)
{
	struct session *s = (struct session *)r;

	if (!s)
		return;
	for (size_t i = 0; i < r->ncommits; i++)
		match_result_free(s->results[i]);
	free(s->results);
	free(r->commits);
	free(r->messages);
	json_object_put(r->json);
	facts_free_many(s->facts, s->nids);
	free(s->ids);
	match_index_free(s->idx);
	archive_release(&s->archive);
	git_repository_free(s->repo);
	free(s);
}
