/*
 * spawn: run a child program from an argv array, never through a shell.
 *
 * The child's stdin is /dev/null and its stdout and stderr go to a log file
 * (appended) or, with a NULL log, to the bench's own stderr.  The child gets
 * its own process group, so that the bench can end it and everything it
 * started (make's compilers, say) when it is interrupted.
 */
#ifndef FPUBENCH_SPAWN_H
#define FPUBENCH_SPAWN_H

/*
 * Runs argv[0] (looked up in PATH) in directory cwd (NULL: the current
 * one), with the extra "NAME=value" strings of env (NULL-terminated, may be
 * NULL) added to the environment.  Returns the child's exit status (0-255),
 * or a negative error code when it could not be started or died of a signal.
 */
int spawn_run(const char *const argv[], const char *cwd, const char *log_path,
	      const char *const env[]);

/*
 * What spawn_run_watched() adds: the child's stdin, a call while it runs,
 * and a flag that ends it: spawn_interrupt() reaches only the last child
 * started, and threads may each run one.
 */
struct spawn_watch {
	int stdin_fd;			/* -1: /dev/null */
	void (*tick)(void *arg);	/* every SPAWN_TICK_MS while the child runs, or NULL */
	void *arg;
	const volatile int *stop;	/* once it is nonzero, the child's group gets SIGTERM; or NULL */
};

#define SPAWN_TICK_MS 250

int spawn_run_watched(const char *const argv[], const char *cwd, const char *log_path,
		      const char *const env[], const struct spawn_watch *watch);

/* Sends SIGTERM to the process group of the running child, if any. */
void spawn_interrupt(void);

#endif
