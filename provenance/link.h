/*
 * link: what a Link: trailer, or any URL in a mail, says about a posting.
 *
 * Pure: no I/O, so the fuzzer calls link_parse() directly.  A struct link
 * owns its strings (release with link_release()).  value is the text as
 * written.  message_id is set only when the URL names a message (lore,
 * lkml.kernel.org/r/, patch.msgid.link, msgid.link, mid.gmane.org,
 * patchwork's /patch/<id>/): URL-decoded, without angle brackets.
 * lore_url is then https://lore.kernel.org/r/<id>, the id percent-encoded
 * only where a URL path needs it.  Links that name no message (marc.info,
 * lkml.org, spinics, bugzilla, ...) keep their kind and have neither.
 */
#ifndef FPUBENCH_LINK_H
#define FPUBENCH_LINK_H

#include <stddef.h>

enum link_kind {
	LINK_LORE,		/* lore.kernel.org */
	LINK_LKML_KERNEL_ORG,	/* the lkml.kernel.org/r/ redirector */
	LINK_MSGID,		/* patch.msgid.link, msgid.link */
	LINK_GMANE,
	LINK_PATCHWORK,
	LINK_MARC,
	LINK_LKML_ORG,
	LINK_SPINICS,
	LINK_BUGZILLA,
	LINK_URL,		/* any other URL */
	LINK_TEXT,		/* not a URL at all */
};

struct link {
	enum link_kind kind;
	char *value;
	char *message_id;
	char *lore_url;
};

#define LINK_INIT { LINK_TEXT, NULL, NULL, NULL }

void link_parse(struct link *out, const char *value);

void link_release(struct link *l);

/* "lore", "lkml.kernel.org", "msgid.link", ..., "url", "text". */
const char *link_kind_name(enum link_kind kind);

/* https://lore.kernel.org/r/<id>; caller frees. */
char *link_lore_url(const char *message_id);

/*
 * The message-id in a header or trailer value ("<id@host>", " id@host ",
 * "<id> (comment)"): the text inside the first angle brackets, else the
 * trimmed value.  NULL when that is empty or holds spaces or controls;
 * caller frees.
 */
char *link_msgid_normalize(const char *s, size_t len);

#endif
