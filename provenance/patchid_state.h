/*
 * patchid_state: git's patch-id hash fed one line of patch text at a time
 * (get_one_patchid() of git 2.39), for patchid_from_text() and for the
 * diffs of patchid.c, which print their lines into it as `git log -p`
 * would.  Internal to provenance/patchid*.c.
 *
 *	patchid_state_init(&st);
 *	patchid_state_feed_lines(&st, text, len);	// or _feed_line, a line at a time
 *	patchid_state_finish(&st, &id);		// all zero: no patch
 *	patchid_state_release(&st);
 */
#ifndef FPUBENCH_PATCHID_STATE_H
#define FPUBENCH_PATCHID_STATE_H

#include "lib/strbuf.h"

#include <git2/oid.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stddef.h>

/* git's limit: 64 hex digits fit a SHA-256 id. */
#define OID_TEXT_MAX 64

/* The state of git's get_one_patchid() between lines. */
struct patchid_state {
	EVP_MD_CTX *ctx;
	unsigned char sum[20];
	long patchlen;
	int before, after;
	bool binary;
	bool done;
	char pre_oid[OID_TEXT_MAX + 1], post_oid[OID_TEXT_MAX + 1];
	struct strbuf scratch;
};

void patchid_state_init(struct patchid_state *st);

/* One line, without its newline. */
void patchid_state_feed_line(struct patchid_state *st, const char *line, size_t len);

/* Text of many lines; the lines before the first "diff " line are skipped as a message. */
void patchid_state_feed_lines(struct patchid_state *st, const char *text, size_t len);

void patchid_state_finish(struct patchid_state *st, git_oid *out);
void patchid_state_release(struct patchid_state *st);

#endif
