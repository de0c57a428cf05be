/*
 * proc: child processes that send a result back through a pipe, for
 * tests that compare what another process saw.
 */
#ifndef GT_PROC_H
#define GT_PROC_H

#include <stddef.h>

struct proc_child {
	long pid;	/* > 0 once started */
	int read_fd;	/* the parent's end of the child's pipe */
};

/*
 * Forks a child that runs fn(write_fd, arg) and exits with its return
 * value.  0 or -errno.
 */
long proc_start(struct proc_child *child, int (*fn)(int write_fd, void *arg), void *arg);

/* Reads up to `size` bytes, until EOF.  The count, or -errno. */
long proc_read(int fd, void *buf, size_t size);

/* Writes all of `size` bytes.  0 or -errno. */
long proc_write(int fd, const void *buf, size_t size);

/*
 * Reads the child's `size` bytes of result (the count into *got), closes
 * the pipe and reaps the child.  Its wait status, or -errno.
 */
long proc_finish(struct proc_child *child, void *result, size_t size, long *got);

/* wait4 on `pid`, again after EINTR.  Its wait status, or -errno. */
long proc_wait(long pid);

#endif
