/*
 * patchfile: one patch as the bench applies it, read from a `git
 * format-patch` mail, `git diff` output or plain `diff -u` output.
 *
 * patchfile_parse() is pure: it takes the file's bytes and fills a struct
 * patchfile whose strings it owns (release with patchfile_release()).  The
 * diff is always returned in git's form ("diff --git a/P b/P" headers,
 * a/ and b/ prefixes), converting plain `diff -u` output taken at -p1, so
 * that libgit2 can parse it.  A patch without a mail header gets a neutral
 * author and a message naming the file.
 */
#ifndef FPUBENCH_PATCHFILE_H
#define FPUBENCH_PATCHFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct patchfile {
	char *author_name;
	char *author_email;
	int64_t author_time;	/* seconds since the epoch */
	int author_tz;		/* offset from UTC in minutes */
	char *message;		/* subject without "[PATCH ...]", blank line, body */
	char *diff;		/* git-style diff text */
	bool is_mail;
};

#define PATCHFILE_INIT { 0 }

/* 0, or ERR_INPUT when the bytes hold no diff; `name` is for the message. */
int patchfile_parse(struct patchfile *out, const char *name, const char *buf, size_t len);

void patchfile_release(struct patchfile *p);

#endif
