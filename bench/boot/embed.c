#include "embed.h"

#include "guest.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/notice.h"
#include "lib/xalloc.h"
#include "reaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EMBED_PREFIX "qemu:///embed"

/*
 * The embedded driver's settings that work without a daemon: without
 * stdio_handler "file" a start fails connecting to virtlogd's socket;
 * without the rest qemu runs as libvirt-qemu, files are chowned and cgroups
 * are left behind (libvirt 9.0, Debian 12).
 */
static const char embed_qemu_conf[] =
	"# written by fpubench\n"
	"stdio_handler = \"file\"\n"
	"user = \"root\"\n"
	"group = \"root\"\n"
	"dynamic_ownership = 0\n"
	"remember_owner = 0\n"
	"security_driver = \"none\"\n"
	"cgroup_controllers = [ ]\n"
	"namespaces = [ ]\n";

char *embed_uri(const char *root)
{
	return xasprintf(EMBED_PREFIX "?root=%s", root);
}

char *embed_root(const char *uri)
{
	const char *root = strstr(uri, "root=");

	if (strncmp(uri, EMBED_PREFIX, strlen(EMBED_PREFIX)) != 0 || !root)
		return NULL;
	root += 5;
	return xstrndup(root, strcspn(root, "&"));
}

char *embed_state_dir(const char *root)
{
	return xasprintf("%s/run/qemu", root);
}

/* Kills the qemu that state file "NAME.pid" in dir names, if it still runs. */
static void kill_stale_qemu(const char *dir, const char *file)
{
	char *name = xstrndup(file, strlen(file) - strlen(".pid"));
	pid_t pid = reaper_qemu_pid(dir, name);

	if (pid && reaper_is_qemu_of(pid, name)) {
		notice("killing qemu %d of domain '%s' left by an earlier run",
			(int)pid, name);
		kill(pid, SIGKILL);
	}
	free(name);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int embed_scrub(const char *root)
{
	char *dir = embed_state_dir(root);
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = 0;

	if (!d) {
		if (errno != ENOENT)
			err = error_set_errno(ERR_CACHE, "cannot read libvirt state '%s'", dir);
		goto out;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, GUEST_NAME_PREFIX, strlen(GUEST_NAME_PREFIX)) != 0)
			continue;
		if (has_suffix(e->d_name, ".pid"))
			kill_stale_qemu(dir, e->d_name);
		if (has_suffix(e->d_name, ".pid") || has_suffix(e->d_name, ".xml") ||
		    has_suffix(e->d_name, ".xml.new")) {
			if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT) {
				err = error_set_errno(ERR_CACHE, "cannot remove libvirt state '%s/%s'",
						      dir, e->d_name);
				break;
			}
		}
	}
	closedir(d);
out:
	free(dir);
	return err;
}

long embed_driver_holder(const char *root)
{
	char *path = xasprintf("%s/run/qemu/driver.pid", root);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long pid = 0;

	free(path);
	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
		pid = fl.l_pid;
	close(fd);
	return pid;
}

int embed_prepare(const char *root)
{
	char *etc = xasprintf("%s/etc", root);
	char *conf = xasprintf("%s/qemu.conf", etc);
	int err;

	if ((err = dir_create(etc, ERR_CACHE)) < 0 || (err = embed_scrub(root)) < 0)
		goto out;
	/* Also for a root made before the bench made it private. */
	if (chmod(root, 0700) < 0) {
		err = error_set_errno(ERR_CACHE, "cannot make libvirt root '%s' private", root);
		goto out;
	}
	if (!file_holds(conf, embed_qemu_conf))
		err = file_write_atomic(conf, embed_qemu_conf, strlen(embed_qemu_conf));
out:
	free(etc);
	free(conf);
	return err;
}
