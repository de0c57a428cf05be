#include "match.h"
#include "match_index.h"

#include "link.h"
#include "patchid.h"
#include "lib/array.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_CHAIN 64		/* versions followed from one posting */
/* The confidences match.h documents. */
#define CONFIDENCE_MESSAGE_ID 1.0
#define CONFIDENCE_COVER_LETTER 0.9
#define CONFIDENCE_PATCH_ID 0.95
#define CONFIDENCE_PATCH_ID_VARIANT 0.9
#define CONFIDENCE_SUBJECT 0.6		/* plus CONFIDENCE_SUBJECT_DIFF x similarity */
#define CONFIDENCE_SUBJECT_DIFF 0.3
#define CONFIDENCE_FUZZY 0.8		/* times the similarity */

static const char *const method_names[] = {
	[MATCH_MESSAGE_ID] = "message-id",
	[MATCH_COVER_LETTER] = "cover-letter",
	[MATCH_PATCH_ID] = "patch-id",
	[MATCH_PATCH_ID_VARIANT] = "patch-id-other-diff",
	[MATCH_SUBJECT] = "subject",
	[MATCH_FUZZY] = "fuzzy",
};

static const char *const link_names[] = {
	[MATCH_LINK_NONE] = "none",
	[MATCH_LINK_UNKNOWN] = "not-in-archive",
	[MATCH_LINK_FINAL] = "final",
	[MATCH_LINK_EARLIER] = "earlier-version",
	[MATCH_LINK_ELSEWHERE] = "elsewhere",
};

const char *match_method_name(enum match_method m)
{
	return method_names[m];
}

const char *match_link_name(enum match_link l)
{
	return link_names[l];
}

/* Whether the mail was added: a posting found twice keeps its first method. */
static bool add_posting(struct match_result *r, size_t mail, enum match_method method,
			double confidence)
{
	for (size_t i = 0; i < r->npostings; i++)
		if (r->postings[i].mail == mail)
			return false;
	r->postings = xrealloc(r->postings, (r->npostings + 1) * sizeof(*r->postings));
	r->postings[r->npostings++] = (struct match_posting){ mail, method, confidence, NULL };
	return true;
}

static double similarity(const struct match_index *idx, size_t mail, const struct changes *c)
{
	const struct changes *mc = idx->mails[mail].changes;

	return mc && c ? changes_similarity(mc, c) : 0.0;
}

/* The patch of a cover letter's series most like `c` (a commit's or a posting's diff). */
static size_t series_patch(const struct match_index *idx, size_t cover, const struct changes *c,
			   const char *author_key)
{
	const struct indexed_mail *cv = &idx->mails[cover];
	size_t best = MATCH_NONE;
	double best_score = -1.0;

	for (size_t i = 0; i < cv->nchildren; i++) {
		size_t k = cv->children[i];
		if (!match_mail_is_patch(&idx->mails[k]))
			continue;
		/* The same subject decides; else the most alike diff. */
		double score = strcmp(idx->mails[k].author_key, author_key) == 0 ? 2.0 :
			       similarity(idx, k, c);
		if (score > best_score) {
			best = k;
			best_score = score;
		}
	}
	return best_score > 0.0 ? best : MATCH_NONE;
}

static void find_by_message_id(struct match_result *r, const struct match_index *idx,
			       const struct commit_facts *commit, const char *key)
{
	const struct strlist *ids = &commit->trailers->message_ids;

	for (size_t i = 0; i < ids->n; i++) {
		size_t m = match_index_find_id(idx, ids->v[i]);
		if (m == MATCH_NONE)
			continue;
		add_posting(r, m, MATCH_MESSAGE_ID, CONFIDENCE_MESSAGE_ID);
		if (!match_mail_is_patch(&idx->mails[m]) && match_mail_is_cover(&idx->mails[m])) {
			size_t p = series_patch(idx, m, commit->changes, key);
			if (p != MATCH_NONE)
				add_posting(r, p, MATCH_COVER_LETTER, CONFIDENCE_COVER_LETTER);
		}
	}
}

static void find_by_patch_id(struct match_result *r, const struct match_index *idx,
			     const struct commit_facts *commit)
{
	char hex[GIT_OID_HEXSZ + 1];
	const struct strmap_entry *e;

	if (git_oid_is_zero(&commit->patch_id))
		return;
	e = strmap_get(&idx->by_patch_id, git_oid_tostr(hex, sizeof(hex), &commit->patch_id));
	for (size_t i = 0; e && i < e->n; i++)
		add_posting(r, e->v[i], MATCH_PATCH_ID, CONFIDENCE_PATCH_ID);
	/* variant_ids[0] is the patch-id itself. */
	for (size_t v = 1; !r->npostings && v < PATCHID_NVARIANTS; v++) {
		if (git_oid_is_zero(&commit->variant_ids[v]) ||
		    git_oid_equal(&commit->variant_ids[v], &commit->patch_id))
			continue;
		e = strmap_get(&idx->by_patch_id, git_oid_tostr(hex, sizeof(hex), &commit->variant_ids[v]));
		for (size_t i = 0; e && i < e->n; i++)
			if (add_posting(r, e->v[i], MATCH_PATCH_ID_VARIANT,
					CONFIDENCE_PATCH_ID_VARIANT))
				r->postings[r->npostings - 1].variant = patchid_variant_name(v);
	}
}

static void find_by_subject(struct match_result *r, const struct match_index *idx,
			    const struct commit_facts *commit, const char *key)
{
	const struct strmap_entry *e = strmap_get(&idx->by_author_subject, key);
	size_t best = MATCH_NONE;
	double best_score = -1.0;

	for (size_t i = 0; e && i < e->n; i++) {
		double s = similarity(idx, e->v[i], commit->changes);
		/* Ties go to the later posting: the one more likely applied. */
		if (s >= best_score) {
			best = e->v[i];
			best_score = s;
		}
	}
	if (best != MATCH_NONE)
		add_posting(r, best, MATCH_SUBJECT,
			    CONFIDENCE_SUBJECT + CONFIDENCE_SUBJECT_DIFF * best_score);
}

static void find_by_changed_lines(struct match_result *r, const struct match_index *idx,
				  const struct commit_facts *commit)
{
	const struct strmap_entry *e;
	size_t best = MATCH_NONE;
	double best_score = 0.0;

	for (size_t f = 0; commit->changes && f < commit->changes->nfiles; f++) {
		if (!(e = strmap_get(&idx->by_file, commit->changes->files[f].path)))
			continue;
		for (size_t i = 0; i < e->n; i++) {
			double s = similarity(idx, e->v[i], commit->changes);
			if (s >= MATCH_FUZZY_THRESHOLD && s >= best_score) {
				best = e->v[i];
				best_score = s;
			}
		}
	}
	if (best != MATCH_NONE)
		add_posting(r, best, MATCH_FUZZY, CONFIDENCE_FUZZY * best_score);
}

/* The order: each method only when the ones before it found nothing. */
static void find_postings(struct match_result *r, const struct match_index *idx,
			  const struct commit_facts *commit, const char *key)
{
	find_by_message_id(r, idx, commit, key);
	if (!r->npostings)
		find_by_patch_id(r, idx, commit);
	if (!r->npostings)
		find_by_subject(r, idx, commit, key);
	if (!r->npostings)
		find_by_changed_lines(r, idx, commit);
}

struct walk {
	const struct match_index *idx;
	unsigned char *seen;
	size_t *queue;
	size_t n, max;
};

static void walk_init(struct walk *w, const struct match_index *idx, size_t max)
{
	w->idx = idx;
	w->seen = xcalloc(idx->n ? idx->n : 1, 1);
	w->max = max;
	w->queue = xmalloc((max ? max : 1) * sizeof(*w->queue));
	w->n = 0;
}

static void walk_release(struct walk *w)
{
	free(w->seen);
	free(w->queue);
}

static void walk_push(struct walk *w, size_t m)
{
	if (m != MATCH_NONE && !w->seen[m] && w->n < w->max) {
		w->seen[m] = 1;
		w->queue[w->n++] = m;
	}
}

/* The patch or cover letter a message stands for: itself or its nearest such ancestor. */
static size_t posting_of(const struct match_index *idx, size_t m)
{
	for (int depth = 0; m != MATCH_NONE && depth < MATCH_MAX_THREAD_DEPTH; depth++) {
		if (match_mail_is_patch(&idx->mails[m]) || match_mail_is_cover(&idx->mails[m]))
			return m;
		m = idx->mails[m].parent;
	}
	return MATCH_NONE;
}

/* Follows a link from posting x's side of the thread to an earlier version of x. */
static void push_linked(struct walk *w, size_t x, size_t target)
{
	const struct match_index *idx = w->idx;
	const struct indexed_mail *xm = &idx->mails[x];

	target = posting_of(idx, target);
	if (target == MATCH_NONE)
		return;
	if (match_mail_is_patch(&idx->mails[target]) &&
	    strcasecmp(idx->mails[target].mail->from_email, xm->mail->from_email) == 0)
		walk_push(w, target);
	else if (match_mail_is_cover(&idx->mails[target]))
		walk_push(w, series_patch(idx, target, xm->changes, xm->author_key));
}

static void collect_chain(struct walk *w, size_t start)
{
	const struct match_index *idx = w->idx;

	walk_push(w, start);
	for (size_t q = 0; q < w->n; q++) {
		size_t x = w->queue[q];
		const struct strmap_entry *e = strmap_get(&idx->by_author_subject, idx->mails[x].author_key);
		for (size_t i = 0; e && i < e->n; i++)
			walk_push(w, e->v[i]);
		size_t sources[2] = { x, idx->mails[x].cover };
		for (size_t s = 0; s < 2; s++) {
			if (sources[s] == MATCH_NONE)
				continue;
			const struct indexed_mail *src = &idx->mails[sources[s]];
			if (src->parent != MATCH_NONE)
				push_linked(w, x, src->parent);
			for (size_t i = 0; i < src->linked_ids.n; i++) {
				size_t t = match_index_find_id(idx, src->linked_ids.v[i]);
				if (t != MATCH_NONE)
					push_linked(w, x, t);
			}
		}
	}
}

static void collect_review_tags(struct strlist *tags, const char *body)
{
	static const char *const keys[] = { "Reviewed-by:", "Acked-by:", "Tested-by:" };

	for (const char *p = body; *p;) {
		const char *nl = strchrnul(p, '\n');
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			size_t n = strlen(keys[k]);
			if ((size_t)(nl - p) > n && strncasecmp(p, keys[k], n) == 0) {
				char *tag = xstrndup(p, (size_t)(nl - p));
				strlist_push_unique(tags, tag);
				free(tag);
			}
		}
		p = *nl ? nl + 1 : nl;
	}
}

/*
 * Counts the replies below m once each; below a cover letter, the
 * series' patches and their own threads are left out.
 */
static size_t count_replies(const struct match_index *idx, size_t m, bool skip_patches,
			    unsigned char *seen, struct strlist *tags)
{
	size_t *stack = NULL, n = 0, alloc = 0, count = 0;

	for (size_t i = 0; i < idx->mails[m].nchildren; i++) {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			stack = xrealloc(stack, alloc * sizeof(*stack));
		}
		stack[n++] = idx->mails[m].children[i];
	}
	while (n) {
		size_t c = stack[--n];
		if (seen[c] || (skip_patches && (match_mail_is_patch(&idx->mails[c]) || match_mail_is_cover(&idx->mails[c]))))
			continue;
		seen[c] = 1;
		count++;
		collect_review_tags(tags, idx->mails[c].mail->body);
		for (size_t i = 0; i < idx->mails[c].nchildren; i++) {
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				stack = xrealloc(stack, alloc * sizeof(*stack));
			}
			stack[n++] = idx->mails[c].children[i];
		}
	}
	free(stack);
	return count;
}

static int compare_versions(const void *a, const void *b, void *payload)
{
	const struct match_index *idx = payload;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct indexed_mail *mx = &idx->mails[x], *my = &idx->mails[y];

	if (mx->subject.version != my->subject.version)
		return mx->subject.version < my->subject.version ? -1 : 1;
	if (mx->mail->time != my->mail->time)
		return mx->mail->time < my->mail->time ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void build_versions(struct match_result *r, const struct match_index *idx,
			   const struct walk *chain, const struct commit_facts *commit)
{
	size_t *order = xmalloc((chain->n ? chain->n : 1) * sizeof(*order));
	unsigned char *seen = xcalloc(idx->n ? idx->n : 1, 1);

	memcpy(order, chain->queue, chain->n * sizeof(*order));
	qsort_r(order, chain->n, sizeof(*order), compare_versions, (void *)idx);
	r->versions = xcalloc(chain->n ? chain->n : 1, sizeof(*r->versions));
	r->nversions = chain->n;
	for (size_t i = 0; i < chain->n; i++) {
		const struct indexed_mail *m = &idx->mails[order[i]];
		struct match_version *v = &r->versions[i];
		struct strbuf changes = STRBUF_INIT;

		v->mail = order[i];
		v->version = m->subject.version;
		v->resend = m->subject.resend;
		v->rfc = m->subject.rfc;
		v->replies = count_replies(idx, order[i], false, seen, &v->review_tags);
		if (m->cover != MATCH_NONE)
			v->replies += count_replies(idx, m->cover, true, seen, &v->review_tags);
		if (i)
			changes_describe(idx->mails[order[i - 1]].changes, m->changes, &changes);
		v->changes = strbuf_detach(&changes);
	}
	if (chain->n && commit->changes) {
		struct strbuf applied = STRBUF_INIT;
		changes_describe(idx->mails[order[chain->n - 1]].changes, commit->changes, &applied);
		r->applied_changes = strbuf_detach(&applied);
	}
	free(seen);
	free(order);
}

/* What the commit's message-ids lead to: the threads above and the links in them. */
static void judge_link(struct match_result *r, const struct match_index *idx,
		       const struct commit_facts *commit)
{
	const struct strlist *ids = &commit->trailers->message_ids;
	struct walk reach;
	size_t linked = 0;

	if (!ids->n) {
		r->link = MATCH_LINK_NONE;
	} else {
		walk_init(&reach, idx, idx->n);
		for (size_t i = 0; i < ids->n; i++) {
			size_t m = match_index_find_id(idx, ids->v[i]);
			if (m != MATCH_NONE) {
				walk_push(&reach, m);
				linked++;
			}
		}
		size_t direct = reach.n;
		for (size_t q = 0; q < reach.n; q++) {
			const struct indexed_mail *m = &idx->mails[reach.queue[q]];
			walk_push(&reach, m->parent);
			walk_push(&reach, m->cover);
			for (size_t i = 0; i < m->mail->references.n; i++)
				walk_push(&reach, match_index_find_id(idx, m->mail->references.v[i]));
			for (size_t i = 0; i < m->linked_ids.n; i++)
				walk_push(&reach, match_index_find_id(idx, m->linked_ids.v[i]));
		}
		bool final = false, earlier = false;
		for (size_t v = 0; v < r->nversions; v++) {
			size_t mail = r->versions[v].mail, cover = idx->mails[mail].cover;
			for (size_t d = 0; d < direct; d++) {
				if (reach.queue[d] == mail || reach.queue[d] == cover) {
					final |= v + 1 == r->nversions;
					earlier |= v + 1 < r->nversions;
				}
			}
			r->versions[v].reached = reach.seen[mail] || (cover != MATCH_NONE && reach.seen[cover]);
		}
		r->link = final ? MATCH_LINK_FINAL : earlier ? MATCH_LINK_EARLIER :
			  linked ? MATCH_LINK_ELSEWHERE : MATCH_LINK_UNKNOWN;
		walk_release(&reach);
	}
	for (size_t v = 0; v + 1 < r->nversions; v++)
		if (r->versions[v].replies && !r->versions[v].reached)
			r->unreached_reviewed++;
}

struct match_result *match_commit(const struct match_index *idx, const struct commit_facts *commit)
{
	struct match_result *r = xcalloc(1, sizeof(*r));
	struct subject summary;
	struct walk chain;

	subject_parse(&summary, commit->summary);
	char *key = match_author_key(summary.normalized, commit->author_email);
	subject_release(&summary);

	find_postings(r, idx, commit, key);
	walk_init(&chain, idx, MAX_CHAIN);
	for (size_t i = 0; i < r->npostings && !chain.n; i++)
		if (match_mail_is_patch(&idx->mails[r->postings[i].mail]))
			collect_chain(&chain, r->postings[i].mail);
	build_versions(r, idx, &chain, commit);
	judge_link(r, idx, commit);
	walk_release(&chain);
	free(key);
	return r;
}

void match_result_free(struct match_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nversions; i++) {
		strlist_release(&r->versions[i].review_tags);
		free(r->versions[i].changes);
	}
	free(r->versions);
	free(r->postings);
	free(r->applied_changes);
	free(r);
}
