/*
 * match_index: what match_index_new() (match.h) builds, for match.c and
 * match_index.c only: each mail with what matching needs of it (its
 * subject, patch-id, changed lines, thread and cover letter), and the
 * mails by message-id, patch-id, author and subject, and changed file.
 *
 * Invariants: parent and cover are indices into mails or MATCH_NONE, and
 * never the mail itself; children lists the mails whose parent it is.
 */
#ifndef FPUBENCH_MATCH_INDEX_H
#define FPUBENCH_MATCH_INDEX_H

#include "changes.h"
#include "mail.h"
#include "subject.h"

#include "lib/strlist.h"
#include "lib/strmap.h"

#include <git2/oid.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MATCH_NONE SIZE_MAX
#define MATCH_MAX_THREAD_DEPTH 256	/* guards walks up broken In-Reply-To loops */

struct indexed_mail {
	const struct mail *mail;
	struct subject subject;
	char *author_key;	/* subject key, newline, lowercased email */
	git_oid patch_id;	/* zero when the mail has no diff */
	struct changes *changes;
	size_t parent;		/* the mail it replies to, or NONE */
	size_t cover;		/* its cover letter, or NONE */
	struct strlist linked_ids;	/* message-ids its body links to */
	bool duplicate;		/* another archive holds the same message-id */
	size_t *children;
	size_t nchildren;
};

struct match_index {
	struct indexed_mail *mails;
	size_t n;
	struct strmap by_id, by_patch_id, by_author_subject, by_file;
};

/* The key of the by-author-and-subject index: the subject's key, a newline, the lowercased email. */
char *match_author_key(const char *normalized_subject, const char *email);

bool match_mail_is_patch(const struct indexed_mail *m);
bool match_mail_is_cover(const struct indexed_mail *m);

/* The first mail with that message-id, or MATCH_NONE. */
size_t match_index_find_id(const struct match_index *idx, const char *id);

#endif
