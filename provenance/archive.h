/*
 * archive: the messages of mail archives, read and parsed.
 *
 * archive_add() appends the messages of one archive, whatever its form:
 * - an mbox file, mboxo or mboxrd, LF or CRLF (a "From " line after an
 *   empty line starts a message; ">From ", ">>From "... lose one '>'), or a
 *   file that does not start with "From ", taken as one message;
 * - a maildir: the files of cur/ and new/, in name order;
 * - a public-inbox v2 inbox (git/0.git, git/1.git, ... in order) or one
 *   of its epoch repositories: the blob "m" of every commit, oldest
 *   first, read with libgit2.
 * Messages that mail_parse() refuses are counted in `skipped`, not
 * fatal: real archives hold spam and mangled mail.  The archive owns
 * its mails; archive_release() frees them and leaves it empty.
 */
#ifndef FPUBENCH_ARCHIVE_H
#define FPUBENCH_ARCHIVE_H

#include "mail.h"

#include <stddef.h>

struct archive {
	struct mail **mails;
	size_t nmails;
	size_t alloc;
	size_t skipped;
};

#define ARCHIVE_INIT { NULL, 0, 0, 0 }

/* ERR_NOTFOUND for a missing path, ERR_INPUT for one that is no archive. */
int archive_add(struct archive *a, const char *path);

/* The mbox reader on bytes in memory; pure, for tests and the fuzzer. */
void archive_add_mbox(struct archive *a, const char *buf, size_t len);

void archive_release(struct archive *a);

#endif
