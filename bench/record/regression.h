/*
 * regression: regression.eml, the mail that tells the people who must act
 * that a bisection found the commit that broke a test.
 *
 * regression_format() is pure: it writes one RFC 5322 message, UTF-8 with
 * MIME headers, that `git send-email`, `mutt -H` or any mail client sends
 * as it is: the text (text/plain, 8bit) alone, or with attachments (the
 * kernel's .config, the failing console) a multipart/mixed whose first
 * part is the text and the others base64, each a text/plain file.  It replies to the culprit's posting when
 * one is known (In-Reply-To, References, "Re: " and the posting's
 * subject), else it starts a thread "[REGRESSION] <culprit subject>".
 * To is the culprit's author; Cc the people of its trailers, the
 * posting's own To and Cc and regressions@lists.linux.dev, each address
 * once (compared without case), the author never twice.  Names with
 * characters outside printable ASCII are RFC 2047 encoded words, other
 * names with specials are quoted; headers are folded before 78 columns
 * where white space allows.  The body's prose is wrapped at 72 columns;
 * the console excerpt and the commands are not wrapped.  It names only
 * what its readers have: `#regzbot introduced:` is written only when the
 * culprit is on a branch of a public remote (culprit_url), and otherwise
 * a sentence says that the commit is not public.  Addresses are
 * "Name <email>" strings as trailers write them (text after '>' is a
 * comment and dropped); an entry with no '@' is no address and skipped.
 *
 * regression_console_excerpt() picks the crash report out of a console
 * log; regression_sender() finds the From address.  Nothing here sends
 * mail.  The caller owns every string of struct regression.
 */
#ifndef FPUBENCH_REGRESSION_H
#define FPUBENCH_REGRESSION_H

#include "lib/strbuf.h"

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The regression tracker's list, Cc'd on every report. */
#define REGRESSION_LIST "regressions@lists.linux.dev"
/* Lines of console the mail quotes at most. */
#define REGRESSION_EXCERPT_LINES 60

/* A file attached to the mail, text/plain UTF-8 that the caller made safe to show. */
struct regression_attachment {
	const char *name;		/* its file name, "config" */
	const char *data;
	size_t len;
};

struct regression {
	const char *from;		/* "Name <email>" */
	const char *message_id;		/* this mail's, without brackets */
	int64_t date;			/* seconds since the epoch; written in UTC */

	const char *culprit;		/* full hex id */
	const char *culprit_subject;
	const char *culprit_url;	/* a public remote whose branch holds it; NULL: not public */
	const char *culprit_branch;	/* that branch, as the remote names it */
	const char *author;		/* "Name <email>" */
	const char *const *people;	/* the culprit's trailers' people */
	size_t npeople;

	const char *reply_to;		/* the posting's message-id; NULL: a fresh thread */
	const char *reply_subject;	/* the posting's subject */
	const char *const *references;	/* the posting's References, oldest first */
	size_t nreferences;
	const char *const *recipients;	/* the posting's To and Cc */
	size_t nrecipients;
	const char *found_by;		/* how the posting was found, or NULL */

	const char *test;
	const char *setups;		/* the CPU setups that failed, ", " between */
	const char *crash;		/* crash title, or NULL when the test failed */
	const char *good, *bad;		/* full hex ids */
	size_t steps;
	int runs;			/* boots per step */
	double confidence;		/* of the weakest good verdict, 0..1 */
	bool revert_verified;		/* BAD with the culprit reverted passes */
	const char *console;		/* the excerpt, safe to show; may be NULL */
	const char *reproduce;		/* what a stranger runs, one command a line */
	const struct regression_attachment *attachments;
	size_t nattachments;
};

void regression_format(struct strbuf *out, const struct regression *r);

/*
 * The crash report of a console log: from the first line that starts a
 * kernel report (after its printk timestamp), else the log's last lines,
 * at most REGRESSION_EXCERPT_LINES lines, each made safe to show (CR
 * dropped, control bytes and bad UTF-8 as \xNN).  Pure.
 */
void regression_console_excerpt(struct strbuf *out, const char *log, size_t len);

/*
 * The sender: conf_from (the config's [report] from) when set, else
 * user.name and user.email from git's configuration as seen from repo
 * (NULL: the global one).  ERR_INPUT names both places when neither says.
 * *out is "Name <email>", the caller frees it.
 */
int regression_sender(char **out, const char *conf_from, git_repository *repo);

#endif
