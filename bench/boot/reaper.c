#include "reaper.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/xalloc.h"
#include "lib/strbuf.h"
#include "virt_loop.h"

#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libvirt/libvirt.h>

#define QEMU_END_WAIT_MS 2000	/* SIGKILL to reaped: the kernel frees qemu's memory */

static volatile sig_atomic_t reaping;	/* set once the bench is a subreaper */
static pthread_once_t timer_once = PTHREAD_ONCE_INIT;
static int timer_error;

/*
 * Reaps zombie children whose name is qemu-system*: the orphaned qemu
 * processes.  Other children belong to libvirt, which waits for them itself.
 */
static void reap_qemu_zombies(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	pid_t self = getpid();

	if (!proc)
		return;
	while ((de = readdir(proc))) {
		char path[300], buf[512], comm[64], state;
		int ppid;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		/* comm is in parentheses and may hold spaces: parse from the last ')'. */
		char *open = strchr(buf, '('), *close = strrchr(buf, ')');
		if (!open || !close || close - open - 1 >= (long)sizeof(comm))
			continue;
		memcpy(comm, open + 1, (size_t)(close - open - 1));
		comm[close - open - 1] = '\0';
		if (sscanf(close + 1, " %c %d", &state, &ppid) != 2)
			continue;
		if (state == 'Z' && ppid == self && strncmp(comm, "qemu-system", 11) == 0)
			waitpid(atoi(de->d_name), NULL, WNOHANG);
	}
	closedir(proc);
}

static void reap_timer(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
	if (reaping)
		reap_qemu_zombies();
}

static void reap_timer_add(void)
{
	if (virEventAddTimeout(REAPER_INTERVAL_MS, reap_timer, NULL, NULL) < 0)
		timer_error = 1;
}

int reaper_start(void)
{
	pthread_once(&timer_once, reap_timer_add);
	if (timer_error)
		return error_set(ERR_LIBVIRT, "cannot start reaping qemu: %s", virt_loop_last_error());
	/*
	 * qemu is reparented to us instead of PID 1, which on some hosts
	 * reaps orphans only every ~1.3 s; libvirt waits for the pid to
	 * vanish, so that wait was 1.2-1.8 s of every guest.
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		return 0;
	reaping = 1;
	return 1;
}

bool reaper_is_qemu_of(pid_t pid, const char *name)
{
	char *path = xasprintf("/proc/%d/cmdline", (int)pid);
	char *want = xasprintf("guest=%s", name);
	struct strbuf cmdline = STRBUF_INIT;
	bool found = false;

	if (file_read(path, &cmdline) == 0)
		for (size_t at = 0; at < cmdline.len && !found; at += strlen(cmdline.buf + at) + 1) {
			const char *arg = cmdline.buf + at;
			size_t n = strlen(want);
			found = strncmp(arg, want, n) == 0 && (arg[n] == ',' || arg[n] == '\0');
		}
	error_clear();
	strbuf_release(&cmdline);
	free(want);
	free(path);
	return found;
}

pid_t reaper_qemu_pid(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s.pid", dir, name);
	struct strbuf text = STRBUF_INIT;
	pid_t pid = 0;
	char *end;
	long n;

	if (file_read(path, &text) == 0) {
		n = strtol(text.buf, &end, 10);
		if (end != text.buf && n > 1 && n <= INT_MAX)
			pid = (pid_t)n;
	}
	error_clear();
	strbuf_release(&text);
	free(path);
	return pid;
}

int reaper_qemu_open(const char *state_dir, const char *name)
{
	pid_t pid = reaper_qemu_pid(state_dir, name);
	int fd = pid ? pidfd_open(pid, 0) : -1;

	/* Checked after opening: from here on the pidfd cannot name a reused pid. */
	if (fd >= 0 && !reaper_is_qemu_of(pid, name)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Ends and reaps a qemu whose guest has shut down.  libvirt's own stop
 * sleeps 200 ms in virProcessKillPainfully when qemu closes its monitor
 * before it is reaped, and its one driver worker does that for each guest
 * in turn.  This is a race with that worker: when the reap here comes
 * first, libvirt finds the pid gone and skips the sleep (a cell 1.20 ->
 * 1.03 times plain qemu, bench/OPTIMISATIONS.md); when it comes later,
 * libvirt sleeps as before.  The guest has powered off and its console
 * file is written, so killing it loses nothing.
 */
void reaper_qemu_end(int pidfd)
{
	struct pollfd exited = { .fd = pidfd, .events = POLLIN };
	siginfo_t info;

	if (pidfd_send_signal(pidfd, SIGKILL, NULL, 0) < 0)
		return;
	if (poll(&exited, 1, QEMU_END_WAIT_MS) == 1)
		waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG);
}
