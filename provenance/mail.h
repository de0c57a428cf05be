/*
 * mail: one message parsed from its bytes: RFC 5322 headers, RFC 2047
 * encoded words, MIME (RFC 2045/2046) multipart and transfer encodings.
 *
 * mail_parse() is pure and strict about bounds: it reads only
 * buf[0..len), which need not end in a NUL and may hold any bytes.  It
 * accepts one leading mbox "From " line, LF or CRLF line ends, and a
 * message with no body; it refuses (ERR_INPUT) a header section that is
 * not headers.  Header values are unfolded.  Subject and the From name
 * are decoded to UTF-8 from UTF-8, US-ASCII, ISO-8859-1 and
 * Windows-1252 words; words in other charsets stay as written.  Text
 * comes out with LF line ends.
 *
 * body is the first text/plain part that is not an attachment; patch is
 * the first text part, body included, that holds a diff (inline, or an
 * attachment such as text/x-patch), and NULL when none does.  A struct
 * mail owns its strings; mail_free() accepts NULL.
 */
#ifndef FPUBENCH_MAIL_H
#define FPUBENCH_MAIL_H

#include "lib/strlist.h"

#include <stddef.h>
#include <stdint.h>

struct mail {
	char *message_id;	/* without angle brackets; NULL when none */
	char *in_reply_to;	/* the first id of In-Reply-To; NULL when none */
	struct strlist references;	/* in order, without brackets */
	struct strlist recipients;	/* To, then Cc: "Name <a@b>" or "a@b", each address once */
	char *from_name;	/* "" when none */
	char *from_email;	/* "" when none */
	char *date;		/* as written; "" when none */
	int64_t time;		/* seconds since the epoch; 0 when Date is missing or bad */
	char *subject;		/* "" when none */
	char *body;		/* "" when none */
	char *patch;		/* NULL when no part holds a diff */
};

int mail_parse(struct mail **out, const char *buf, size_t len);

void mail_free(struct mail *m);

#endif
