/*
 * gitutil: small libgit2 helpers shared by the bench and provenance.
 */
#ifndef FPUBENCH_GITUTIL_H
#define FPUBENCH_GITUTIL_H

/* libgit2's last message; git_error_last() may return NULL. */
const char *gitutil_error(void);

#endif
