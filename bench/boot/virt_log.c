#include "virt_log.h"

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <libvirt/libvirt.h>

#define EARLY_MAX (64u << 10)	/* kept before the first run directory */
/* Warnings and errors: what libvirt prints by default, and its "info" version line. */
#define LOG_PRIORITY 3

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool started;
static int pipe_read = -1;	/* non-blocking */
static int out_fd = -1;
static char *out_path;
static struct strbuf early = STRBUF_INIT;

static void out_write(const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(out_fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* a full disk loses log lines, not the run */
		buf += w;
		n -= (size_t)w;
	}
}

/* Moves what the pipe holds to the file or the early buffer; under lock. */
static void drain(void)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(pipe_read, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		if (out_fd >= 0)
			out_write(buf, (size_t)n);
		else if (early.len < EARLY_MAX)
			strbuf_add(&early, buf, (size_t)n);
	}
}

static void *drain_loop(void *arg)
{
	struct pollfd p = { .fd = pipe_read, .events = POLLIN };

	(void)arg;
	for (;;) {
		/* Our write end stays open: the pipe never hangs up. */
		if (poll(&p, 1, -1) < 0)
			continue;
		pthread_mutex_lock(&lock);
		drain();
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void start(void)
{
	char spec[64];
	pthread_t thread;
	int fds[2];

	if (getenv("LIBVIRT_LOG_OUTPUTS")) {
		virInitialize();
		return;
	}
	if (pipe2(fds, O_CLOEXEC) < 0)
		return;
	pipe_read = fds[0];
	if (fcntl(pipe_read, F_SETFL, O_NONBLOCK) < 0 ||
	    pthread_create(&thread, NULL, drain_loop, NULL) != 0) {
		/* libvirt then prints to stderr, as it would without us. */
		close(fds[0]);
		close(fds[1]);
		pipe_read = -1;
		virInitialize();
		return;
	}
	pthread_detach(thread);
	/* libvirt opens the path itself: ours is the pipe's write end. */
	snprintf(spec, sizeof(spec), "%d:file:/proc/self/fd/%d", LOG_PRIORITY, fds[1]);
	setenv("LIBVIRT_LOG_OUTPUTS", spec, 1);
	virInitialize();
	unsetenv("LIBVIRT_LOG_OUTPUTS");
	started = true;
}

void virt_log_start(void)
{
	pthread_once(&start_once, start);
}

int virt_log_redirect(const char *path)
{
	int fd = -1;

	virt_log_start();
	if (!started)
		return 0;
	if (path && (fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		return error_set_errno(ERR_GENERIC, "cannot open libvirt's log '%s'", path);
	pthread_mutex_lock(&lock);
	drain();
	if (out_fd >= 0)
		close(out_fd);
	out_fd = fd;
	free(out_path);
	out_path = path ? xstrdup(path) : NULL;
	if (out_fd >= 0 && early.len) {
		out_write(early.buf, early.len);
		strbuf_reset(&early);
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

char *virt_log_note(void)
{
	char *note;

	pthread_mutex_lock(&lock);
	note = out_path ? xasprintf(" (libvirt's log: %s)", out_path) : xstrdup("");
	pthread_mutex_unlock(&lock);
	return note;
}
