/*
 * A full disk for unit tests, without mounting one: runs a function in a
 * child whose files may not grow past a limit (RLIMIT_FSIZE).  SIGXFSZ is
 * ignored, so a write past the limit fails with EFBIG as one on a full disk
 * fails with ENOSPC.  Include after cmocka.h.
 */
#ifndef FPUBENCH_TEST_FSIZE_H
#define FPUBENCH_TEST_FSIZE_H

#include "lib/error.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* fn's result (0 or an ERR_* code); its error message goes to msg.  The child's stderr is dropped. */
static int fsize_run(rlim_t limit, int (*fn)(void *), void *arg, char *msg, size_t size)
{
	size_t len = 0;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl;
		int null_fd = open("/dev/null", O_WRONLY), err = 100;

		close(fds[0]);
		dup2(null_fd, STDERR_FILENO);
		signal(SIGXFSZ, SIG_IGN);
		if (getrlimit(RLIMIT_FSIZE, &rl) == 0) {
			rl.rlim_cur = limit;
			if (setrlimit(RLIMIT_FSIZE, &rl) == 0)
				err = -fn(arg);
		}
		const char *m = error_last();
		if (write(fds[1], m, strlen(m)) < 0)
			err = 101;
		_exit(err);
	}
	close(fds[1]);
	while (len < size - 1 && (n = read(fds[0], msg + len, size - 1 - len)) > 0)
		len += (size_t)n;
	msg[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_true(WEXITSTATUS(status) < 100);
	return -WEXITSTATUS(status);
}

#endif
