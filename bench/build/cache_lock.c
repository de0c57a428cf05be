#include "cache_lock.h"

#include "tree.h"

#include "lib/error.h"
#include "lib/notice.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

/* " (held by pid N)" from the lock file, or "" while the holder has not written it yet. */
static char *lock_holder(int fd)
{
	char buf[24];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid;

	if (n <= 0)
		return xstrdup("");
	buf[n] = '\0';
	pid = strtol(buf, NULL, 10);
	return pid > 0 ? xasprintf(" (held by pid %ld)", pid) : xstrdup("");
}

int cache_lock(const char *cache, int *fd)
{
	char *path = xasprintf("%s/lock", cache);
	int err = 0;

	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, KERNEL_CACHE_FILE_MODE);
	if (*fd < 0) {
		err = error_set_errno(ERR_CACHE, "cache directory '%s' is not writable", cache);
		goto out;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		char *holder = lock_holder(*fd);

		notice("waiting for the cache lock on '%s'%s", path, holder);
		free(holder);
		if (flock(*fd, LOCK_EX) < 0) {
			err = errno == EINTR
				? error_set(ERR_INTERRUPTED, "interrupted while waiting for the cache lock on '%s'", path)
				: error_set_errno(ERR_CACHE, "cannot lock '%s'", path);
			goto out;
		}
	}
	/* The pid only names the holder to a waiter: the lock holds without it, so no error. */
	if (ftruncate(*fd, 0) == 0)
		dprintf(*fd, "%ld\n", (long)getpid());
out:
	free(path);
	return err;
}

void cache_unlock(int *fd)
{
	if (*fd >= 0) {
		close(*fd);	/* which drops the flock */
		*fd = -1;
	}
}
