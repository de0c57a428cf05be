#include "gcov.h"

#include "sys.h"

#include <asm/errno.h>
#include <asm/fcntl.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#define GCOV_MOUNT "/debugfs"
#define GCOV_ROOT GCOV_MOUNT "/gcov"
#define GCOV_PATH_MAX 200	/* fits one KTAP line with its keyword */
#define GCOV_LINE_BYTES 64	/* bytes of data a line: 128 hex digits */
#define GCOV_DEPTH_MAX 24	/* directories deep: the build directory's path and the kernel's */
/* syslog(2)'s SYSLOG_ACTION_CONSOLE_LEVEL, and the level that still prints KERN_EMERG and KERN_ALERT. */
#define GCOV_SYSLOG_CONSOLE_LEVEL 8
#define GCOV_CONSOLE_LEVEL 2

/* What getdents64 returns, and DT_DIR and DT_REG: only libc's dirent.h names them. */
struct gcov_dirent64 {
	__u64 d_ino;
	__s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define GCOV_DT_DIR 4
#define GCOV_DT_REG 8

struct gcov_sender {
	const struct ktap *top;
	int count;		/* files sent whole */
	char path[GCOV_PATH_MAX + 1];
};

/* zlib's CRC-32 (reflected, polynomial 0xedb88320), one byte at a time: the files are small. */
static uint32_t gcov_crc32(uint32_t crc, const unsigned char *p, long n)
{
	crc = ~crc;
	while (n-- > 0) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void gcov_send_line(const struct gcov_sender *s, const unsigned char *p, long n)
{
	char hex[2 * GCOV_LINE_BYTES + 1];

	for (long i = 0; i < n; i++) {
		hex[2 * i] = "0123456789abcdef"[p[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[p[i] & 15];
	}
	hex[2 * n] = '\0';
	ktap_diag(s->top, "gcda %s", hex);
}

/* The file at s->path, whose text under GCOV_ROOT names it. */
static void gcov_send_file(struct gcov_sender *s)
{
	const char *name = s->path + sizeof(GCOV_ROOT) - 1;
	unsigned char buf[4096], line[GCOV_LINE_BYTES];
	long fd = sys_open(s->path, O_RDONLY), got, filled = 0, total = 0;
	uint32_t crc = 0;

	ktap_diag(s->top, "fpubench: gcda %s", name);
	if (fd < 0) {
		ktap_diag(s->top, "fpubench: gcda-error cannot open %s (error %ld)", name, fd);
		return;
	}
	while ((got = sys_read((int)fd, buf, sizeof(buf))) != 0) {
		if (got == -EINTR)
			continue;
		if (got < 0) {
			ktap_diag(s->top, "fpubench: gcda-error cannot read %s (error %ld)", name, got);
			sys_close((int)fd);
			return;
		}
		crc = gcov_crc32(crc, buf, got);
		total += got;
		for (long i = 0; i < got; i++) {
			line[filled++] = buf[i];
			if (filled == GCOV_LINE_BYTES) {
				gcov_send_line(s, line, filled);
				filled = 0;
			}
		}
	}
	sys_close((int)fd);
	if (filled)
		gcov_send_line(s, line, filled);
	ktap_diag(s->top, "fpubench: gcda-end %ld %08x", total, crc);
	s->count++;
}

/* Copies n bytes: there is no libc, and -fno-builtin leaves memcpy to it. */
static void gcov_copy(char *to, const char *from, long n)
{
	while (n-- > 0)
		*to++ = *from++;
}

static bool gcov_is_gcda(const char *name, long n)
{
	const char *suffix = ".gcda";

	if (n < 5)
		return false;
	for (int i = 0; i < 5; i++)
		if (name[n - 5 + i] != suffix[i])
			return false;
	return true;
}

/* Sends the .gcda files under s->path, of `len` bytes; `depth` directories down. */
static void gcov_walk(struct gcov_sender *s, long len, int depth)
{
	char buf[2048];
	long fd = sys_open(s->path, O_RDONLY | O_DIRECTORY), got;

	if (fd < 0) {
		ktap_diag(s->top, "fpubench: gcda-error cannot open %s (error %ld)", s->path, fd);
		return;
	}
	while ((got = sys_getdents64((int)fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			const struct gcov_dirent64 *d = (const void *)(buf + off);
			long n = 0;

			off += d->d_reclen;
			while (d->d_name[n])
				n++;
			if ((n == 1 && d->d_name[0] == '.') ||
			    (n == 2 && d->d_name[0] == '.' && d->d_name[1] == '.'))
				continue;
			if (d->d_type != GCOV_DT_DIR &&
			    !(d->d_type == GCOV_DT_REG && gcov_is_gcda(d->d_name, n)))
				continue;	/* the .gcno links, and `reset` */
			if (len + 1 + n > GCOV_PATH_MAX || depth >= GCOV_DEPTH_MAX) {
				ktap_diag(s->top, "fpubench: gcda-error too deep or too long a path under %s", s->path);
				continue;
			}
			s->path[len] = '/';
			gcov_copy(s->path + len + 1, d->d_name, n + 1);
			if (d->d_type == GCOV_DT_DIR)
				gcov_walk(s, len + 1 + n, depth + 1);
			else
				gcov_send_file(s);
			s->path[len] = '\0';
		}
	}
	if (got < 0)
		ktap_diag(s->top, "fpubench: gcda-error cannot list %s (error %ld)", s->path, got);
	sys_close((int)fd);
}

void gcov_send(const struct ktap *top)
{
	struct gcov_sender s = { .top = top };
	long err;

	/*
	 * A printk in the middle of a data line would damage the file: only
	 * crash headers and "reboot: Restarting system" may reach the console
	 * now.  Without it the host may refuse a file; nothing worse.
	 */
	sys_call3(__NR_syslog, GCOV_SYSLOG_CONSOLE_LEVEL, 0, GCOV_CONSOLE_LEVEL);
	err = sys_mkdir(GCOV_MOUNT, 0700);

	if (err < 0 && err != -EEXIST)
		ktap_diag(top, "fpubench: gcda-error cannot create " GCOV_MOUNT " (error %ld)", err);
	else if ((err = sys_mount("debugfs", GCOV_MOUNT, "debugfs")) < 0 && err != -EBUSY)
		ktap_diag(top, "fpubench: gcda-error cannot mount debugfs (error %ld)", err);
	else {
		gcov_copy(s.path, GCOV_ROOT, sizeof(GCOV_ROOT));
		gcov_walk(&s, sizeof(GCOV_ROOT) - 1, 0);
	}
	ktap_diag(top, "fpubench: gcda-done %d", s.count);
}
