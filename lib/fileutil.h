/*
 * fileutil: whole-file reads, atomic writes and directory helpers.
 *
 * Writes that others may read (results, stamps, links) go through
 * file_write_atomic(): a temporary file in the same directory, fsync,
 * rename.  A reader sees the old content or the new one, never half.
 */
#ifndef FPUBENCH_FILEUTIL_H
#define FPUBENCH_FILEUTIL_H

#include "strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Appends the file's bytes to sb; ERR_NOTFOUND names a missing file. */
int file_read(const char *path, struct strbuf *sb);

/*
 * Appends at most `max` bytes from the start of the file and says whether
 * it was longer: a guest may flood its console.
 */
int file_read_capped(const char *path, size_t max, struct strbuf *sb, bool *truncated);

/*
 * A file that is new gets `mode`.  A failed write (a full disk: ENOSPC,
 * EFBIG) leaves the old file as it was and no temporary file behind.
 */
int file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode);

/* file_write_atomic_mode() with 0644, for files others may read. */
int file_write_atomic(const char *path, const void *data, size_t len);

/*
 * An output a user named on the command line: "-" is standard output,
 * anything else is written with file_write_atomic().
 */
int file_write_output(const char *path, const void *data, size_t len);

/*
 * Whether file_write_output() can write path, checked before the work that
 * makes the output: "-", or a path whose directory exists and is writable and
 * that is no directory itself.  0, or ERR_INPUT naming path as `what` says.
 */
int file_output_check(const char *path, const char *what);

/*
 * An atomic write in pieces, for files too big to hold in memory first:
 * file_atomic_begin(), then any number of file_atomic_add() and
 * file_atomic_add_file(), then file_atomic_commit(), which puts the file in
 * place as file_write_atomic_mode() does.  The first failure is kept and
 * returned by commit, which also frees everything; the steps in between
 * do nothing after a failure.
 */
struct file_atomic {
	char *path;
	char *tmp;
	int fd;
	int err;
	size_t len;	/* bytes written so far */
};

void file_atomic_begin(struct file_atomic *f, const char *path, mode_t mode);
void file_atomic_add(struct file_atomic *f, const void *data, size_t len);

/*
 * Appends the first `len` bytes of the file at `source`; a shorter file is
 * a failure.  The kernel copies them (sendfile), so they never pass through
 * our memory: a 2 MB initramfs built in a buffer cost 20 ms of page faults
 * in a nested VM.
 */
void file_atomic_add_file(struct file_atomic *f, const char *source, size_t len);
int file_atomic_commit(struct file_atomic *f);

/* Replaces `link` with a symlink to `target`, atomically. */
int file_symlink_atomic(const char *target, const char *link);

bool file_exists(const char *path);

/* The SHA-256 of the file's content as 64 hex digits; ERR_NOTFOUND names an unreadable file. */
int file_sha256(const char *path, char hex[65]);

/* Whether the file holds exactly text, as a stamp does; a missing file holds nothing. */
bool file_holds(const char *path, const char *text);

/*
 * mkdir -p; the directories it creates get `mode`.  ERR_CACHE-style errors
 * are the caller's to choose, so `code`.
 */
int dir_create_mode(const char *path, mode_t mode, int code);

/* dir_create_mode() with 0755. */
int dir_create(const char *path, int code);

/*
 * Whether the file system holding path has (almost) no space or inodes
 * left: a child that failed there may not have been able to log why.
 */
bool dir_is_full(const char *path);

/* An absolute version of path (which need not exist); caller frees. */
char *path_absolute(const char *path);

/* <$TMPDIR or /tmp>/name, for a scratch file of this process (caller frees). */
char *path_temp(const char *name);

#endif
