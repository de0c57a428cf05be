/*
 * ptrace: what a tracer test needs around ptrace(2) without libc: the
 * regset requests with their iovec, reaping a tracee past its stops, and
 * the byte comparisons of what came back.
 */
#ifndef GT_PTRACE_H
#define GT_PTRACE_H

#include <stdbool.h>
#include <stddef.h>

/* The wait status of a tracee stopped by `sig` (a signal-delivery-stop). */
#define PTRACE_STOPPED_BY(sig) (((sig) << 8) | 0x7f)
#define PTRACE_SENTINEL 0xa5	/* what a buffer holds where the kernel must not write */

/*
 * PTRACE_GETREGSET or PTRACE_SETREGSET of regset `type` with an iovec of
 * `buf` and *len bytes; *len becomes the iovec's iov_len after the call
 * (the kernel writes it back only on success).  0 or -errno.
 */
long ptrace_regset(long request, long pid, unsigned int type, void *buf, size_t *len);

/* Lets a tracee run to its end, past any stop.  Its wait status, or -errno. */
long ptrace_reap(long pid);

/* Fills `size` bytes of `buf` with PTRACE_SENTINEL. */
void ptrace_fill(void *buf, unsigned int size);

/* Whether bytes [from, to) of `buf` are still PTRACE_SENTINEL. */
bool ptrace_untouched(const void *buf, unsigned int from, unsigned int to);

bool ptrace_same_bytes(const void *a, const void *b, unsigned int size);

#endif
