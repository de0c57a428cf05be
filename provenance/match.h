/*
 * match: a commit's postings in mail archives, the versions that led to
 * them, and whether the commit's Link tells that story.
 *
 * match_index_new() indexes the mails of an archive once: by message-id,
 * patch-id, normalised subject plus author, changed file, and reply
 * (In-Reply-To, else the last References entry), so that a lookup costs
 * no scan of the archive.  It borrows the mails: the archive must
 * outlive the index.  match_index_free() accepts NULL.
 *
 * match_commit() tries the methods in this order; a method runs only
 * when the ones before it found nothing:
 *   1. message-id: the ids of the commit's Link: and Message-ID:
 *      trailers (confidence 1.0); a cover letter found this way leads
 *      to the patch of its series that is most like the commit (0.9);
 *   2. patch-id: a posting whose diff has the commit's patch-id (0.95),
 *      else the commit's patch-id under another diff algorithm or without
 *      the indent heuristic (facts' variant_ids) (0.9, the variant named);
 *   3. subject: the normalised subject and the author's email; among
 *      several versions, the one whose diff is most like the commit's
 *      (0.6 + 0.3 x similarity);
 *   4. fuzzy: a posting touching the commit's files whose changed lines
 *      are at least MATCH_FUZZY_THRESHOLD alike (Dice's coefficient over
 *      the added and removed lines, white space ignored) (0.8 x similarity).
 * The commit's facts must have been read with FACTS_CHANGES for 3 and 4.
 *
 * From the first posting it collects the version chain: postings with
 * the same normalised subject and author, and the ones reached through
 * links: the posting's and its cover letter's In-Reply-To and the
 * lore/msgid URLs in their bodies (a cover letter linked this way stands
 * for the patch of its series most like this one).  The chain is sorted
 * by version, then date.  Each entry counts the replies to the patch and
 * to its cover letter (review activity) and says what changed from the
 * entry before.  A struct match_result owns its data;
 * match_result_free() accepts NULL.
 */
#ifndef FPUBENCH_MATCH_H
#define FPUBENCH_MATCH_H

#include "facts.h"
#include "mail.h"
#include "lib/strlist.h"
#include "subject.h"

#include <stdbool.h>
#include <stddef.h>

#define MATCH_FUZZY_THRESHOLD 0.5

struct match_index;

enum match_method {
	MATCH_MESSAGE_ID,
	MATCH_COVER_LETTER,
	MATCH_PATCH_ID,
	MATCH_PATCH_ID_VARIANT,	/* under another diff algorithm: see match_posting.variant */
	MATCH_SUBJECT,
	MATCH_FUZZY,
};

struct match_posting {
	size_t mail;		/* index into the mails given to match_index_new() */
	enum match_method method;
	double confidence;
	const char *variant;	/* MATCH_PATCH_ID_VARIANT: patchid_variant_name(); else NULL */
};

struct match_version {
	size_t mail;
	unsigned version;
	bool resend;
	bool rfc;
	size_t replies;		/* to the patch and to its cover letter */
	struct strlist review_tags;	/* "Reviewed-by: ...", "Acked-by: ..." from replies */
	char *changes;		/* from the entry before; "" for the first */
	bool reached;		/* the Link's thread leads here */
};

enum match_link {
	MATCH_LINK_NONE,	/* the commit has no message-id to follow */
	MATCH_LINK_UNKNOWN,	/* none of its message-ids is in the archives */
	MATCH_LINK_FINAL,	/* it names the last version (or its cover letter) */
	MATCH_LINK_EARLIER,	/* it names an earlier version */
	MATCH_LINK_ELSEWHERE,	/* it names a message outside the chain */
};

struct match_result {
	struct match_posting *postings;
	size_t npostings;
	struct match_version *versions;	/* oldest first; empty when nothing matched */
	size_t nversions;
	char *applied_changes;	/* last version to commit; NULL without versions */
	enum match_link link;
	size_t unreached_reviewed;	/* earlier versions with replies the Link misses */
};

/* Never fails. */
struct match_index *match_index_new(struct mail *const *mails, size_t n);

void match_index_free(struct match_index *idx);

/* The index's view of one mail, for listing: its subject tags and patch-id. */
const struct subject *match_mail_subject(const struct match_index *idx, size_t mail);
const git_oid *match_mail_patch_id(const struct match_index *idx, size_t mail);

/* Never fails; a commit with no posting gets an empty result. */
struct match_result *match_commit(const struct match_index *idx, const struct commit_facts *commit);

void match_result_free(struct match_result *r);

const char *match_method_name(enum match_method m);
const char *match_link_name(enum match_link l);

#endif
