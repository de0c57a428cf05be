/*
 * provenance: all that bench/ may use of provenance/ (scripts/check-layout.sh
 * holds it to this header): the report behind `fpubench provenance`, the
 * provenance of one commit as JSON, and the short story of a tested
 * commit that reports show.
 *
 *   fpubench provenance [--repo DIR] [--archive PATH]... [--json FILE] REV|RANGE...
 *   fpubench provenance --archive PATH... --list [--json FILE]
 *
 * REV is anything git_revparse() takes; RANGE is A..B or A...B.  With no
 * archive the report says what the commits themselves say (trailers,
 * Link message-ids and lore URLs, history references, patch-id); with
 * archives it adds the postings, the version chain and the Link's
 * quality.  --list lists the messages the archives hold instead.
 * provenance_report_build() gathers that as data and as a JSON array (one
 * object per commit, newest first as in `git log`, or per message); it
 * prints nothing, the command prints.  The report's commits are read
 * through the types of facts.h and match.h, which is why this header
 * includes them.
 */
#ifndef FPUBENCH_PROVENANCE_H
#define FPUBENCH_PROVENANCE_H

#include "facts.h"
#include "match.h"

#include "lib/strbuf.h"
#include "lib/strlist.h"

#include <git2.h>
#include <stdbool.h>

struct json_object;

/* What `fpubench provenance` was asked; every string is borrowed. */
struct provenance_request {
	const char *repo;	/* NULL: the repository around the current directory */
	const char *const *archives;	/* mbox files, maildirs or public-inbox repositories */
	size_t narchives;
	bool list;		/* list the archives' messages instead of commits; needs archives */
	const char *const *revs;	/* REV or A..B / A...B; at least one unless list */
	size_t nrevs;
};

/* One commit of the report. */
struct provenance_commit {
	const struct commit_facts *facts;
	const struct match_result *match;	/* NULL without archives */
};

/* One message of the archives, for --list. */
struct provenance_message {
	const struct mail *mail;
	const struct subject *subject;	/* its subject's tags (version, RFC, ...) */
};

/*
 * The report; everything in it belongs to it.  match_posting.mail and
 * match_version.mail index `mails`.
 */
struct provenance_report {
	struct provenance_commit *commits;	/* newest first; none with list */
	size_t ncommits;
	struct provenance_message *messages;	/* with list: every message, in archive order */
	size_t nmessages;
	struct mail *const *mails;	/* the archives' messages */
	size_t nmails;
	size_t skipped;		/* messages of the archives that are not mail */
	struct json_object *json;	/* the commits or messages as a JSON array */
};

/*
 * Reads the archives, resolves the revisions, reads each commit and
 * matches it; *out is the report, or NULL on failure.  0, ERR_NOTFOUND
 * for a missing repository or archive, ERR_INPUT for an archive that
 * holds no mail, ERR_USAGE for an unknown revision.  It turns off
 * libgit2's re-hashing of every object read
 * (GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION), which git does not do either
 * and which costs a fifth of the time; the caller has initialised libgit2.
 */
int provenance_report_build(struct provenance_report **out, const struct provenance_request *req);

/* Accepts NULL. */
void provenance_report_free(struct provenance_report *r);

/*
 * Appends one JSON object for a results.json cell: the commit, its
 * trailers, links, message_ids, lore_urls, patch_id (null for a merge)
 * and history references.  0, or ERR_NOTFOUND for an unknown commit.
 */
int provenance_commit_json(git_repository *repo, const git_oid *commit, struct strbuf *out);

/*
 * What a report says of a tested commit.  Every string is owned by the
 * struct; provenance_story_release() frees them and leaves it zeroed.
 */
struct provenance_story {
	char *summary;		/* the commit's subject line */
	char *lore_url;		/* of its first Link/Message-ID, or NULL */
	char *message_id;	/* that message-id, or NULL */
	char patch_id[GIT_OID_HEXSZ + 1];	/* "" for a merge or an empty commit */
};

/* Reads the story of `commit`; 0, or the error of reading it. */
int provenance_story_read(struct provenance_story *out, git_repository *repo,
			  const git_oid *commit);

void provenance_story_release(struct provenance_story *story);

/*
 * Whom a regression report on a commit goes to, and which posting it
 * replies to.  The posting is the one the commit's Link:/Message-ID:
 * trailers name, else the one the archives match (patch-id, then
 * normalised subject and author, as match.h says); among several
 * versions of the series, the newest whose patch-id equals the commit's,
 * failing that the newest.  A Link whose posting the archives lack is
 * still replied to, with the commit's summary as subject and no
 * recipients of its own.  Every string is owned by the struct;
 * provenance_reply_release() frees them and leaves it zeroed.
 */
struct provenance_reply {
	char *summary;			/* the commit's subject line */
	char *author;			/* "Name <email>" */
	struct strlist people;		/* its Signed-off-by, Co-developed-by, Reviewed-by,
					   Acked-by, Tested-by and Reported-by values, in order */
	char *message_id;		/* the posting to reply to; NULL: none found */
	char *subject;			/* the posting's subject */
	struct strlist references;	/* the posting's References, oldest first */
	struct strlist recipients;	/* the posting's To and Cc */
	char *found_by;			/* how it was found, a phrase for the mail; NULL with none */
};

/* 0, or the error of reading the commit or an archive (ERR_NOTFOUND, ERR_INPUT). */
int provenance_reply_find(struct provenance_reply *out, git_repository *repo,
			  const git_oid *commit, const char *const *archives, size_t narchives);

void provenance_reply_release(struct provenance_reply *r);

#endif
