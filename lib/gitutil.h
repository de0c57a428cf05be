/*
 * gitutil: small libgit2 helpers shared by the bench and provenance.
 */
#ifndef FPUBENCH_GITUTIL_H
#define FPUBENCH_GITUTIL_H

#include <stddef.h>

/* libgit2's last message; git_error_last() may return NULL. */
const char *gitutil_error(void);

/* A short stable name for a path (its blob hash, cut to size - 1 hex digits), for cache entries named after it. */
void gitutil_path_key(const char *path, char *hex, size_t size);

#endif
