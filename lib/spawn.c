#include "spawn.h"

#include "error.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t running_pgid;

static void child_exec(const char *const argv[], const char *cwd, int log_fd,
		       const char *const env[], int stdin_fd)
{
	int in_fd = stdin_fd >= 0 ? stdin_fd : open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (in_fd >= 0)
		dup2(in_fd, STDIN_FILENO);
	if (log_fd >= 0) {
		dup2(log_fd, STDOUT_FILENO);
		dup2(log_fd, STDERR_FILENO);
	}
	for (size_t i = 0; env && env[i]; i++)
		putenv((char *)env[i]);
	if (cwd && chdir(cwd) < 0) {
		dprintf(STDERR_FILENO, "cannot enter '%s': %s\n", cwd, strerror(errno));
		_exit(127);
	}
	execvp(argv[0], (char *const *)argv);
	dprintf(STDERR_FILENO, "cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

int spawn_run(const char *const argv[], const char *cwd, const char *log_path,
	      const char *const env[])
{
	return spawn_run_watched(argv, cwd, log_path, env, NULL);
}

/* Waits for the child, calling the watch's tick now and then; 0 or -1 with errno. */
static int child_wait(pid_t pid, int *status, const struct spawn_watch *watch)
{
	const struct timespec tick = { 0, SPAWN_TICK_MS * 1000000L };
	bool stopped = false;
	pid_t got;

	if (!watch || (!watch->tick && !watch->stop)) {
		while ((got = waitpid(pid, status, 0)) < 0 && errno == EINTR)
			;
		return got < 0 ? -1 : 0;
	}
	while ((got = waitpid(pid, status, WNOHANG)) == 0 || (got < 0 && errno == EINTR)) {
		if (watch->tick)
			watch->tick(watch->arg);
		if (watch->stop && *watch->stop && !stopped) {
			kill(-pid, SIGTERM);
			stopped = true;
		}
		nanosleep(&tick, NULL);
	}
	return got < 0 ? -1 : 0;
}

int spawn_run_watched(const char *const argv[], const char *cwd, const char *log_path,
		      const char *const env[], const struct spawn_watch *watch)
{
	int log_fd = -1, status;
	pid_t pid;

	if (log_path) {
		log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0)
			return error_set_errno(ERR_GENERIC, "cannot open log '%s'", log_path);
	}

	pid = fork();
	if (pid < 0) {
		if (log_fd >= 0)
			close(log_fd);
		return error_set_errno(ERR_GENERIC, "cannot start '%s'", argv[0]);
	}
	if (pid == 0)
		child_exec(argv, cwd, log_fd, env, watch ? watch->stdin_fd : -1);

	/* Set it on both sides so spawn_interrupt() never races the child. */
	setpgid(pid, pid);
	running_pgid = pid;
	if (log_fd >= 0)
		close(log_fd);

	if (child_wait(pid, &status, watch) < 0) {
		running_pgid = 0;
		return error_set_errno(ERR_GENERIC, "cannot wait for '%s'", argv[0]);
	}
	running_pgid = 0;

	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return error_set(ERR_GENERIC, "'%s' was killed by signal %d", argv[0],
			 WTERMSIG(status));
}

void spawn_interrupt(void)
{
	pid_t pgid = running_pgid;

	if (pgid > 0)
		kill(-pgid, SIGTERM);
}
