#include "match.h"
#include "match_index.h"

#include "link.h"
#include "patchid.h"

#include <stdlib.h>
#include <string.h>

static char *lowercase(const char *s)
{
	char *copy = xstrdup(s);

	for (char *p = copy; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return copy;
}

char *match_author_key(const char *normalized_subject, const char *email)
{
	char *key = subject_key(normalized_subject), *mail = lowercase(email);
	char *out = xasprintf("%s\n%s", key, mail);

	free(key);
	free(mail);
	return out;
}

bool match_mail_is_patch(const struct indexed_mail *m)
{
	return m->changes && !m->subject.reply;
}

bool match_mail_is_cover(const struct indexed_mail *m)
{
	return m->subject.index == 0 && m->subject.total > 0 && !m->subject.reply;
}

/* The message-ids of the lore, msgid.link, ... URLs in a text. */
static void collect_linked_ids(struct strlist *ids, const char *text)
{
	for (const char *p = text; (p = strstr(p, "http")); p += 4) {
		if (strncmp(p, "http://", 7) != 0 && strncmp(p, "https://", 8) != 0)
			continue;
		size_t n = strcspn(p, " \t\n\r<>\"");
		char *url = xstrndup(p, n);
		struct link l;
		link_parse(&l, url);
		if (l.message_id)
			strlist_push_unique(ids, l.message_id);
		link_release(&l);
		free(url);
	}
}

static void add_child(struct indexed_mail *parent, size_t child)
{
	parent->children = xrealloc(parent->children,
				    (parent->nchildren + 1) * sizeof(*parent->children));
	parent->children[parent->nchildren++] = child;
}

size_t match_index_find_id(const struct match_index *idx, const char *id)
{
	const struct strmap_entry *e = strmap_get(&idx->by_id, id);

	return e ? e->v[0] : MATCH_NONE;
}

static void link_threads(struct match_index *idx)
{
	for (size_t i = 0; i < idx->n; i++) {
		const struct mail *m = idx->mails[i].mail;
		const char *parent_id = m->in_reply_to;
		if (idx->mails[i].duplicate)
			continue;
		if (!parent_id && m->references.n)
			parent_id = m->references.v[m->references.n - 1];
		size_t parent = parent_id ? match_index_find_id(idx, parent_id) : MATCH_NONE;
		if (parent != MATCH_NONE && parent != i) {
			idx->mails[i].parent = parent;
			add_child(&idx->mails[parent], i);
		}
	}
	/* A cover letter is the nearest ancestor numbered 0/N. */
	for (size_t i = 0; i < idx->n; i++) {
		size_t p = idx->mails[i].parent;
		for (int depth = 0; p != MATCH_NONE && depth < MATCH_MAX_THREAD_DEPTH; depth++) {
			if (match_mail_is_cover(&idx->mails[p])) {
				idx->mails[i].cover = p;
				break;
			}
			p = idx->mails[p].parent;
		}
	}
}

struct match_index *match_index_new(struct mail *const *mails, size_t n)
{
	struct match_index *idx = xcalloc(1, sizeof(*idx));
	char hex[GIT_OID_HEXSZ + 1];

	idx->mails = xcalloc(n ? n : 1, sizeof(*idx->mails));
	idx->n = n;
	for (size_t i = 0; i < n; i++) {
		struct indexed_mail *im = &idx->mails[i];
		const struct mail *m = mails[i];

		im->mail = m;
		im->parent = im->cover = MATCH_NONE;
		subject_parse(&im->subject, m->subject);
		im->author_key = match_author_key(im->subject.normalized, m->from_email);
		if (m->patch) {
			patchid_from_text(&im->patch_id, m->patch, strlen(m->patch));
			im->changes = changes_parse(m->patch, strlen(m->patch));
		}
		collect_linked_ids(&im->linked_ids, m->body);
		/* The same message in two archives is indexed once. */
		im->duplicate = m->message_id && strmap_get(&idx->by_id, m->message_id);
		if (im->duplicate)
			continue;
		if (m->message_id)
			strmap_add(&idx->by_id, m->message_id, i);
		if (!match_mail_is_patch(im))
			continue;
		strmap_add(&idx->by_author_subject, im->author_key, i);
		if (!git_oid_is_zero(&im->patch_id)) {
			git_oid_tostr(hex, sizeof(hex), &im->patch_id);
			strmap_add(&idx->by_patch_id, hex, i);
		}
		for (size_t f = 0; f < im->changes->nfiles; f++)
			strmap_add(&idx->by_file, im->changes->files[f].path, i);
	}
	link_threads(idx);
	return idx;
}

void match_index_free(struct match_index *idx)
{
	if (!idx)
		return;
	for (size_t i = 0; i < idx->n; i++) {
		subject_release(&idx->mails[i].subject);
		free(idx->mails[i].author_key);
		changes_free(idx->mails[i].changes);
		strlist_release(&idx->mails[i].linked_ids);
		free(idx->mails[i].children);
	}
	free(idx->mails);
	strmap_release(&idx->by_id);
	strmap_release(&idx->by_patch_id);
	strmap_release(&idx->by_author_subject);
	strmap_release(&idx->by_file);
	free(idx);
}

const struct subject *match_mail_subject(const struct match_index *idx, size_t mail)
{
	return &idx->mails[mail].subject;
}

const git_oid *match_mail_patch_id(const struct match_index *idx, size_t mail)
{
	return &idx->mails[mail].patch_id;
}
