/*
 * subject: a mail subject reduced to what names the patch.
 *
 * subject_parse() is pure.  It strips reply and forward prefixes (Re:,
 * Fwd:, Fw:, Aw:, Sv:, Antw:, Wg:, in any case and repeated, "Re[2]:"
 * too) and the bracketed tags in front ("[PATCH v3 2/5]", "[RFC PATCH]",
 * "[PATCH RESEND]", "[tip: x86/urgent]", "[net-next]"), and collapses
 * white space.  From the tags it takes the version (1 when none is
 * given), index and total (0 when not given) and the RFC and RESEND
 * flags.  The struct owns normalized; subject_release() frees it.
 */
#ifndef FPUBENCH_SUBJECT_H
#define FPUBENCH_SUBJECT_H

#include <stdbool.h>

struct subject {
	char *normalized;	/* never NULL after subject_parse() */
	unsigned version;
	unsigned index;
	unsigned total;
	bool rfc;
	bool resend;
	bool patch;		/* a PATCH tag was there */
	bool reply;		/* a reply or forward prefix was there */
};

void subject_parse(struct subject *out, const char *raw);

void subject_release(struct subject *s);

/* The matching key: normalized with ASCII letters lowercased; caller frees. */
char *subject_key(const char *normalized);

#endif
