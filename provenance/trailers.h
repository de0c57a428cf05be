/*
 * trailers: what a commit message says about the commit's past life.
 *
 * trailers_parse() is pure.  It finds the trailer block exactly as
 * `git log --format='%(trailers)'` does in git 2.39: the last paragraph
 * after the title, all trailers or at least 25 % with a git-generated one
 * (Signed-off-by:, "(cherry picked from"), continuation lines joined, no
 * "---" divider, tokens and values trimmed.  libgit2's
 * git_message_trailers() is a port of an older git and differs (it stops
 * at "---", joins only space-indented continuations, keeps trailing
 * blanks and CRs, and runs an empty value into the next line), so it
 * cannot give git's Link values; see tests/unit/provenance/test_trailers.c.
 *
 * It then sorts out the trailers it knows and reads history references
 * from the whole message: "commit <sha>" and the bare '<sha> ("subject")'
 * (12 digits or more), classified by the words of their sentence: the
 * stable backport lines ("commit <sha> upstream.", "[ Upstream commit
 * <sha> ]"), cherry-picks, reverts, and free text such as "This bug was
 * introduced by commit <sha>".  Everything belongs to the struct;
 * trailers_free() accepts NULL.
 */
#ifndef FPUBENCH_TRAILERS_H
#define FPUBENCH_TRAILERS_H

#include "link.h"
#include "lib/strlist.h"

#include <stddef.h>

struct trailer {
	char *key;		/* as written, trimmed */
	char *value;		/* trimmed; continuation lines keep their "\n" */
};

enum trailers_ref_kind {
	TRAILERS_REF_FIXES,		/* a Fixes: trailer */
	TRAILERS_REF_UPSTREAM,		/* a stable backport of this upstream commit */
	TRAILERS_REF_CHERRY_PICK,
	TRAILERS_REF_REVERT,
	TRAILERS_REF_INTRODUCED_BY,	/* the commit that brought the bug in */
	TRAILERS_REF_MENTION,		/* any other "commit <sha>" */
};

struct trailers_ref {
	enum trailers_ref_kind kind;
	char *sha;		/* 7 to 40 hex digits, as written */
	char *subject;		/* NULL when none is given */
};

struct trailers {
	struct trailer *items;	/* every trailer, in order */
	size_t nitems;
	struct link *links;	/* the Link: values, in order */
	size_t nlinks;
	struct strlist message_ids;	/* from Link: and Message-ID:, first seen first */
	struct strlist closes;
	struct strlist reported_by;
	struct strlist change_ids;
	struct strlist signed_off_by;	/* the chain, in order */
	struct trailers_ref *fixes;
	size_t nfixes;
	struct trailers_ref *history;	/* from the body, in order, no repeats */
	size_t nhistory;
};

/* Never fails; message is a commit message as git_commit_message() gives it. */
struct trailers *trailers_parse(const char *message);

void trailers_free(struct trailers *t);

/* "fixes", "upstream", "cherry-pick", "revert", "introduced-by", "mention". */
const char *trailers_ref_kind_name(enum trailers_ref_kind kind);

#endif
