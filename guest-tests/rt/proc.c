#include "proc.h"

#include "sys.h"

#include <asm/errno.h>

long proc_start(struct proc_child *child, int (*fn)(int write_fd, void *arg), void *arg)
{
	int fds[2];
	long err = sys_pipe(fds);

	if (err < 0)
		return err;
	child->pid = sys_fork();
	if (child->pid == 0) {
		sys_close(fds[0]);
		sys_exit_group(fn(fds[1], arg));
	}
	sys_close(fds[1]);
	child->read_fd = fds[0];
	if (child->pid < 0) {
		sys_close(fds[0]);
		return child->pid;
	}
	return 0;
}

long proc_read(int fd, void *buf, size_t size)
{
	char *p = buf;
	size_t done = 0;

	while (done < size) {
		long n = sys_read(fd, p + done, size - done);

		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (long)done;
}

long proc_write(int fd, const void *buf, size_t size)
{
	const char *p = buf;

	while (size) {
		long n = sys_write(fd, p, size);

		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

long proc_wait(long pid)
{
	int status;
	long r;

	while ((r = sys_wait4((int)pid, &status, 0, NULL)) == -EINTR)
		;
	return r < 0 ? r : status;
}

long proc_finish(struct proc_child *child, void *result, size_t size, long *got)
{
	*got = proc_read(child->read_fd, result, size);
	sys_close(child->read_fd);
	return proc_wait(child->pid);
}
