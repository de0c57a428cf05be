#include "provenance.h"

#include "archive.h"
#include "lib/date.h"
#include "lib/error.h"
#include "facts.h"
#include "lib/gitutil.h"
#include "lib/jsonw.h"
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
	[TRAILERS_REF_FIXES] = "fixes",
	[TRAILERS_REF_UPSTREAM] = "backport of",
	[TRAILERS_REF_CHERRY_PICK] = "cherry-picked from",
	[TRAILERS_REF_REVERT] = "reverts",
	[TRAILERS_REF_INTRODUCED_BY] = "introduced by",
	[TRAILERS_REF_MENTION] = "mentions",
};

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

static void print_refs(const struct trailers_ref *refs, size_t n, const char *label)
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

/* Prints a line a message and returns them as JSON. */
static struct json_object *list_messages(const struct archive *a, const struct match_index *idx)
{
	struct json_object *list = json_object_new_array();
	char date[32];

	for (size_t i = 0; i < a->nmails; i++) {
		const struct mail *m = a->mails[i];
		const struct subject *s = match_mail_subject(idx, i);
		struct json_object *o = json_object_new_object();

		date_format_iso8601(date, sizeof(date), m->time);
		printf("%s v%u %s <%s>\n", m->time ? date : "?", s->version, m->subject,
		       m->message_id ? m->message_id : "?");
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
		json_object_array_add(list, o);
	}
	return list;
}

struct session {
	const struct provenance_request *o;
	git_repository *repo;
	struct archive archive;
	struct match_index *idx;
	git_oid *ids;
	size_t nids;
	struct commit_facts **facts;
	struct json_object *json;	/* the report, for --json */
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
		s->json = list_messages(&s->archive, s->idx);
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
	s->json = json_object_new_array();
	for (size_t i = 0; i < s->nids; i++) {
		struct match_result *r = s->idx ? match_commit(s->idx, s->facts[i]) : NULL;
		struct json_object *o = json_commit(s->facts[i]);

		print_commit(s->facts[i], r, &s->archive);
		json_match(o, r, &s->archive);
		json_object_array_add(s->json, o);
		match_result_free(r);
	}
	return 0;
}

int provenance_report(const struct provenance_request *req)
{
	struct session s = { .o = req, .archive = ARCHIVE_INIT };
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
		err = jsonw_write(s.json, req->json);
	facts_free_many(s.facts, s.nids);
	free(s.ids);
	match_index_free(s.idx);
	archive_release(&s.archive);
	json_object_put(s.json);
	git_repository_free(s.repo);
	return err;
}
