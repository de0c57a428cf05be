/*
 * patchfile: the patches of a patch file as the bench applies them, as
 * `git am` takes them: a `git format-patch` mail, an mbox of several (`git
 * format-patch --stdout`, `b4 am`'s .mbx), a maildir (the files of cur/ and
 * new/ in name order), or one `git diff` or plain `diff -u` output.
 *
 * An mbox is split at git mailsplit's "From " lines (a time and a year
 * after "From "): every message must be a patch mail, or a cover letter
 * ("[PATCH 0/N]"), which is skipped even when it holds a diff (`git
 * format-patch --interdiff` puts one there).  A message that is not a
 * mail, a mail that is neither, or text before the first message is
 * refused with ERR_INPUT naming the file and the message's number.
 *
 * The parsers are pure: they take the bytes and fill structs whose strings
 * they own (release with patchfile_release() or patchfile_list_release()).
 * The diff is always returned in git's form ("diff --git a/P b/P"
 * headers, a/ and b/ prefixes), converting plain `diff -u` output taken at
 * -p1, so that git can apply it.  A patch without a mail header gets a
 * neutral author and a message naming the file.
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
	char *mail;		/* a mail's own bytes, for `git mailinfo`; NULL otherwise */
	size_t mail_len;
	bool is_cover;		/* a "[PATCH 0/N]" mail: its subject tags say so */
	size_t number;		/* the message's place in its file, from 1 */
	size_t count;		/* how many patches the file holds */
};

#define PATCHFILE_INIT { 0 }

/* One patch: 0, or ERR_INPUT when the bytes hold no diff; `name` is for the message. */
int patchfile_parse(struct patchfile *out, const char *name, const char *buf, size_t len);

void patchfile_release(struct patchfile *p);

struct patchfile_list {
	struct patchfile *v;
	size_t n;
};

#define PATCHFILE_LIST_INIT { NULL, 0 }

/* Every patch of a file's bytes, in order; ERR_INPUT when it holds none or holds junk. */
int patchfile_parse_all(struct patchfile_list *out, const char *name, const char *buf,
			size_t len);

/* Whether path is a maildir: a directory with cur/ or new/. */
bool patchfile_is_maildir(const char *path);

/*
 * Reads the patch file or maildir at path, named `name` in messages (the
 * user's word for it, "-" for standard input; NULL: path): ERR_NOTFOUND
 * when it cannot be read.
 */
int patchfile_read(struct patchfile_list *out, const char *path, const char *name);

void patchfile_list_release(struct patchfile_list *l);

#endif
