#include "fileutil.h"

#include "error.h"

#include <errno.h>
#include <openssl/evp.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int file_read_capped(const char *path, size_t max, struct strbuf *sb, bool *truncated)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char chunk[65536];
	size_t total = 0;
	ssize_t n;

	if (fd < 0)
		return error_set_errno(errno == ENOENT ? ERR_NOTFOUND : ERR_GENERIC,
				       "cannot read '%s'", path);
	if (truncated)
		*truncated = false;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int err = error_set_errno(ERR_GENERIC, "cannot read '%s'", path);
			close(fd);
			return err;
		}
		if ((size_t)n > max - total) {
			strbuf_add(sb, chunk, max - total);
			if (truncated)
				*truncated = true;
			break;
		}
		strbuf_add(sb, chunk, (size_t)n);
		total += (size_t)n;
	}
	close(fd);
	return 0;
}

int file_read(const char *path, struct strbuf *sb)
{
	return file_read_capped(path, SIZE_MAX, sb, NULL);
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void file_atomic_begin(struct file_atomic *f, const char *path, mode_t mode)
{
	*f = (struct file_atomic){ .path = xstrdup(path),
				   .tmp = xasprintf("%s.tmp.%ld", path, (long)getpid()) };
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (f->fd < 0)
		f->err = error_set_errno(ERR_GENERIC, "cannot write '%s'", path);
}

void file_atomic_add(struct file_atomic *f, const void *data, size_t len)
{
	if (f->err)
		return;
	if (write_all(f->fd, data, len) < 0)
		f->err = error_set_errno(ERR_GENERIC, "cannot write '%s'", f->path);
	else
		f->len += len;
}

void file_atomic_add_file(struct file_atomic *f, const char *source, size_t len)
{
	size_t done = 0;
	int in;

	if (f->err)
		return;
	in = open(source, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		f->err = error_set_errno(errno == ENOENT ? ERR_NOTFOUND : ERR_GENERIC,
					 "cannot read '%s'", source);
		return;
	}
	while (done < len) {
		ssize_t n = sendfile(f->fd, in, NULL, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			f->err = error_set_errno(ERR_GENERIC, "cannot copy '%s' into '%s'", source,
						 f->path);
			break;
		}
		if (n == 0) {
			f->err = error_set(ERR_GENERIC, "'%s' is shorter than its %zu bytes",
					   source, len);
			break;
		}
		done += (size_t)n;
	}
	f->len += done;
	close(in);
}

int file_atomic_commit(struct file_atomic *f)
{
	int err = f->err;

	/* fsync and close report what write deferred, a full disk included. */
	if (!err && fsync(f->fd) < 0)
		err = error_set_errno(ERR_GENERIC, "cannot write '%s'", f->path);
	if (f->fd >= 0 && close(f->fd) < 0 && !err)
		err = error_set_errno(ERR_GENERIC, "cannot write '%s'", f->path);
	if (!err && rename(f->tmp, f->path) < 0)
		err = error_set_errno(ERR_GENERIC, "cannot write '%s'", f->path);
	if (err)
		unlink(f->tmp);
	free(f->path);
	free(f->tmp);
	*f = (struct file_atomic){ .fd = -1 };
	return err;
}

int file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode)
{
	struct file_atomic f;

	file_atomic_begin(&f, path, mode);
	file_atomic_add(&f, data, len);
	return file_atomic_commit(&f);
}

int file_write_atomic(const char *path, const void *data, size_t len)
{
	return file_write_atomic_mode(path, data, len, 0644);
}

int file_symlink_atomic(const char *target, const char *link)
{
	char *tmp = xasprintf("%s.tmp.%ld", link, (long)getpid());
	int err = 0;

	unlink(tmp);
	if (symlink(target, tmp) < 0 || rename(tmp, link) < 0) {
		err = error_set_errno(ERR_GENERIC, "cannot point '%s' at '%s'", link, target);
		unlink(tmp);
	}
	free(tmp);
	return err;
}

bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int file_sha256(const char *path, char hex[65])
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0) {
		EVP_MD_CTX_free(ctx);
		return error_set_errno(ERR_NOTFOUND, "cannot read '%s'", path);
	}
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		err = error_set(ERR_GENERIC, "cannot start SHA-256 for '%s'", path);
	while (!err && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno != EINTR)
			err = error_set_errno(ERR_NOTFOUND, "cannot read '%s'", path);
		else if (n > 0)
			EVP_DigestUpdate(ctx, buf, (size_t)n);
	}
	if (!err) {
		EVP_DigestFinal_ex(ctx, md, NULL);
		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", md[i]);
	}
	EVP_MD_CTX_free(ctx);
	close(fd);
	return err;
}

bool file_holds(const char *path, const char *text)
{
	struct strbuf have = STRBUF_INIT;
	bool same = file_read(path, &have) == 0 && have.len == strlen(text) &&
		    memcmp(have.buf, text, have.len) == 0;

	error_clear();
	strbuf_release(&have);
	return same;
}

int dir_create_mode(const char *path, mode_t mode, int code)
{
	char *copy = xstrdup(path);
	int err = 0;

	for (char *p = copy + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char saved = *p;
			*p = '\0';
			if (mkdir(copy, mode) < 0 && errno != EEXIST) {
				err = error_set_errno(code, "cannot create directory '%s'", copy);
				break;
			}
			*p = saved;
			if (!saved)
				break;
		}
	}
	free(copy);
	return err;
}

int dir_create(const char *path, int code)
{
	return dir_create_mode(path, 0755, code);
}

/* Below this the failure was most likely the disk's: a build's next object is bigger. */
#define DIR_FULL_BYTES (1024 * 1024)

bool dir_is_full(const char *path)
{
	struct statvfs st;

	if (statvfs(path, &st) < 0)
		return false;
	return (unsigned long long)st.f_bavail * st.f_frsize < DIR_FULL_BYTES ||
	       (st.f_files && !st.f_favail);
}

char *path_absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

int file_write_output(const char *path, const void *data, size_t len)
{
	if (strcmp(path, "-") != 0)
		return file_write_atomic(path, data, len);
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
		return error_set_errno(ERR_GENERIC, "cannot write to standard output");
	return 0;
}

int file_output_check(const char *path, const char *what)
{
	char *dir;
	struct stat st;
	int err = 0;

	if (strcmp(path, "-") == 0)
		return 0;
	if (!*path)
		return error_set(ERR_INPUT, "cannot write %s '': no file named", what);
	const char *slash = strrchr(path, '/');
	dir = !slash ? xstrdup(".") : slash == path ? xstrdup("/")
					: xstrndup(path, (size_t)(slash - path));
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		err = error_set(ERR_INPUT, "cannot write %s '%s': no directory '%s'", what, path, dir);
	else if (access(dir, W_OK) < 0)
		err = error_set_errno(ERR_INPUT, "cannot write %s '%s'", what, path);
	else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		err = error_set(ERR_INPUT, "cannot write %s '%s': it is a directory", what, path);
	free(dir);
	return err;
}

char *path_temp(const char *name)
{
	const char *tmp = getenv("TMPDIR");

	return xasprintf("%s/%s", tmp && *tmp ? tmp : "/tmp", name);
}
