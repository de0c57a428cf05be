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
#define PTRACE_FP_BYTES 108	/* struct user_i387_struct, the fsave layout */
#define PTRACE_FXSR_BYTES 512	/* struct user_fxsr_struct, the fxsave layout */

/*
 * The four ways a tracer reaches the i386 FPU regsets: PTRACE_GETFPREGS
 * and PTRACE_SETFPREGS, PTRACE_GETFPXREGS and PTRACE_SETFPXREGS, and
 * PTRACE_GETREGSET and PTRACE_SETREGSET of NT_PRFPREG and NT_PRXFPREG.
 */
enum { PTRACE_FP_FPREGS, PTRACE_FP_FPXREGS, PTRACE_FP_REGSET_FP, PTRACE_FP_REGSET_XFP,
       PTRACE_FP_WAYS };

/* "FPREGS", "FPXREGS", "REGSET NT_PRFPREG", "REGSET NT_PRXFPREG": after "GET" or "SET". */
extern const char *const ptrace_fp_names[PTRACE_FP_WAYS];

/*
 * The request of `way`, a read or (`set`) a write, with the tracer's
 * buffer at `addr`; the regset ways take *len as iov_len and give it back.
 * 0 or -errno.
 */
long ptrace_fp_request(unsigned int way, bool set, long pid, unsigned long addr, size_t *len);

/* The size of the regset `way` reaches: PTRACE_FP_BYTES or PTRACE_FXSR_BYTES. */
unsigned int ptrace_fp_bytes(unsigned int way);

/* A read into `buf` filled with the sentinel first, so that bytes the kernel leaves out show. */
long ptrace_fp_read(unsigned int way, long pid, void *buf, size_t *len);

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
