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

/* Replaces `link` with a symlink to `target`, atomically. */
int file_symlink_atomic(const char *target, const char *link);

bool file_exists(const char *path);

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

#endif
