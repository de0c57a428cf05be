/* provenance_reply_find(): see provenance.h. */
#include "provenance.h"

#include "archive.h"
#include "facts.h"
#include "match.h"
#include "lib/array.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The trailers whose people a report on the commit goes to. */
static const char *const people_keys[] = {
	"Signed-off-by", "Co-developed-by", "Reviewed-by", "Acked-by", "Tested-by", "Reported-by",
};

static void collect_people(struct provenance_reply *out, const struct trailers *t)
{
	for (size_t i = 0; i < t->nitems; i++)
		for (size_t k = 0; k < ARRAY_SIZE(people_keys); k++)
			if (strcasecmp(t->items[i].key, people_keys[k]) == 0)
				strlist_push(&out->people, xstrdup(t->items[i].value));
}

/* The newest version whose patch-id is the commit's, else the newest. */
static size_t choose_version(const struct match_index *idx, const struct match_result *r,
			     const struct commit_facts *f, bool *same_patch)
{
	for (size_t i = r->nversions; i-- > 0;) {
		if (!git_oid_is_zero(&f->patch_id) &&
		    git_oid_equal(match_mail_patch_id(idx, r->versions[i].mail), &f->patch_id)) {
			*same_patch = true;
			return i;
		}
	}
	*same_patch = false;
	return r->nversions - 1;
}

static void take_posting(struct provenance_reply *out, const struct mail *m)
{
	out->message_id = xstrdup(m->message_id);
	out->subject = xstrdup(m->subject);
	for (size_t i = 0; i < m->references.n; i++)
		strlist_push(&out->references, xstrdup(m->references.v[i]));
	for (size_t i = 0; i < m->recipients.n; i++)
		strlist_push(&out->recipients, xstrdup(m->recipients.v[i]));
}

static void match_archives(struct provenance_reply *out, const struct archive *a,
			   const struct commit_facts *f)
{
	struct match_index *idx = match_index_new(a->mails, a->nmails);
	struct match_result *r = match_commit(idx, f);

	if (r->nversions) {
		bool same_patch;
		size_t v = choose_version(idx, r, f, &same_patch);
		const struct mail *m = a->mails[r->versions[v].mail];
		if (m->message_id) {
			take_posting(out, m);
			out->found_by = xasprintf(
				"v%u, the %s of %zu version%s in the archives (found by %s%s%s, "
				"confidence %.2f)%s", r->versions[v].version,
				v + 1 == r->nversions ? "last" : "one", r->nversions,
				r->nversions == 1 ? "" : "s", match_method_name(r->postings[0].method),
				r->postings[0].variant ? " with git diff --" : "",
				r->postings[0].variant ? r->postings[0].variant : "",
				r->postings[0].confidence,
				same_patch ? ", whose patch-id is the commit's" : "");
		}
	} else if (r->npostings && a->mails[r->postings[0].mail]->message_id) {
		take_posting(out, a->mails[r->postings[0].mail]);
		out->found_by = xasprintf("found in the archives by %s (confidence %.2f)",
					  match_method_name(r->postings[0].method),
					  r->postings[0].confidence);
	}
	match_result_free(r);
	match_index_free(idx);
}

int provenance_reply_find(struct provenance_reply *out, git_repository *repo,
			  const git_oid *commit, const char *const *archives, size_t narchives)
{
	struct archive a = ARCHIVE_INIT;
	struct commit_facts *f = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = facts_read(&f, repo, commit, narchives ? FACTS_CHANGES | FACTS_PATCH_VARIANTS : 0)) < 0)
		return err;
	out->summary = xstrdup(f->summary ? f->summary : "");
	out->author = xasprintf("%s <%s>", f->author_name, f->author_email);
	collect_people(out, f->trailers);
	for (size_t i = 0; i < narchives; i++)
		if ((err = archive_add(&a, archives[i])) < 0)
			goto out;
	if (narchives)
		match_archives(out, &a, f);
	if (!out->message_id && f->trailers->message_ids.n) {
		out->message_id = xstrdup(f->trailers->message_ids.v[0]);
		out->subject = xstrdup(out->summary);
		out->found_by = xstrdup("named by the commit's Link: tag");
	}
out:
	if (err)
		provenance_reply_release(out);
	archive_release(&a);
	facts_free(f);
	return err;
}

void provenance_reply_release(struct provenance_reply *r)
{
	free(r->summary);
	free(r->author);
	strlist_release(&r->people);
	free(r->message_id);
	free(r->subject);
	strlist_release(&r->references);
	strlist_release(&r->recipients);
	free(r->found_by);
	memset(r, 0, sizeof(*r));
}
