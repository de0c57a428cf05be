#include "park.h"

#include "sys.h"

#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <linux/random.h>
#include <linux/stat.h>

#define PARK_TTY "/dev/ttyS1"
#define PARK_TTY_DEV ((4u << 8) | 65u)		/* ttyS1: major 4, minor 65 */
#define PARK_RANDOM "/dev/urandom"
#define PARK_RANDOM_DEV ((1u << 8) | 9u)	/* major 1, minor 9 */
#define PARK_SEED_BYTES 32
#define PARK_EEXIST 17
#define PARK_O_RDWR 2
#define PARK_O_NOCTTY 0400
#define PARK_CLOCK_REALTIME 0

/* The initramfs has no device nodes but the kernel's /dev/console. */
static long park_open_node(const char *path, unsigned dev)
{
	long err = sys_mknod(path, S_IFCHR | 0600, dev);

	if (err < 0 && err != -PARK_EEXIST)
		return err;
	return sys_open(path, PARK_O_RDWR | PARK_O_NOCTTY);
}

/* The line is split in place at its spaces; each known KEY=value sets its field. */
static void park_parse(struct park_request *req)
{
	static const char *const keys[] = { "start=", "tests=", "time=", "seed=" };
	const char **fields[] = { &req->start, &req->tests, &req->time, &req->seed };

	for (char *p = req->line; *p;) {
		char *word = p;

		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = '\0';
		for (unsigned k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const char *key = keys[k], *w = word;

			while (*key && *w == *key) {
				key++;
				w++;
			}
			if (!*key)
				*fields[k] = w;
		}
	}
}

/* Reads up to the newline, in canonical mode without echo. */
static long park_read_line(int fd, struct park_request *req)
{
	struct termios t;
	size_t len = 0;
	long n;

	if (sys_ioctl(fd, TCGETS, (long)&t) == 0) {
		t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		t.c_lflag |= ICANON;
		t.c_cflag |= CLOCAL;
		sys_ioctl(fd, TCSETS, (long)&t);
	}
	for (;;) {
		n = sys_read(fd, req->line + len, sizeof(req->line) - 1 - len);
		if (n == -4)	/* EINTR */
			continue;
		if (n <= 0)
			return n < 0 ? n : -5;	/* EIO: the port closed */
		len += (size_t)n;
		req->line[len] = '\0';
		if (req->line[len - 1] == '\n' || len == sizeof(req->line) - 1)
			break;
	}
	while (len && (req->line[len - 1] == '\n' || req->line[len - 1] == '\r'))
		req->line[--len] = '\0';
	return 0;
}

long park_wait(struct park_request *req)
{
	static const char parked[] = "parked\n", resumed[] = "resumed\n";
	long fd, err;

	*req = (struct park_request){ .start = 0 };
	fd = park_open_node(PARK_TTY, PARK_TTY_DEV);
	if (fd < 0)
		return fd;
	/* tcdrain: the host keeps the console as it is at the save, for every restore. */
	sys_ioctl(1, TCSBRK, 1);
	err = sys_write((int)fd, parked, sizeof(parked) - 1);
	if (err >= 0)
		err = park_read_line((int)fd, req);
	/* The host waits for this before it follows the guest (bench/boot/restore.h). */
	if (err >= 0)
		err = sys_write((int)fd, resumed, sizeof(resumed) - 1);
	sys_close((int)fd);
	if (err < 0)
		return err;
	park_parse(req);
	return 0;
}

static int park_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static long park_set_clock(const char *value)
{
	struct __kernel_timespec ts = { 0, 0 };
	const char *p = value;
	long digits = 0;

	for (; *p >= '0' && *p <= '9'; p++)
		ts.tv_sec = ts.tv_sec * 10 + (*p - '0');
	if (p == value || *p++ != '.')
		return -22;
	for (; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
		ts.tv_nsec = ts.tv_nsec * 10 + (*p - '0');
	for (; digits < 9; digits++)
		ts.tv_nsec *= 10;
	return sys_clock_settime64(PARK_CLOCK_REALTIME, &ts);
}

/* Credits the host's bytes as entropy and makes the CRNG take them now. */
static long park_reseed(const char *hex)
{
	struct {
		int entropy_count;
		int buf_size;
		unsigned char buf[PARK_SEED_BYTES];
	} pool = { PARK_SEED_BYTES * 8, PARK_SEED_BYTES, { 0 } };
	long fd, err;

	for (int i = 0; i < PARK_SEED_BYTES; i++) {
		int hi = park_hex(hex[2 * i]), lo = hi < 0 ? -1 : park_hex(hex[2 * i + 1]);

		if (lo < 0)
			return -22;
		pool.buf[i] = (unsigned char)(hi << 4 | lo);
	}
	fd = park_open_node(PARK_RANDOM, PARK_RANDOM_DEV);
	if (fd < 0)
		return fd;
	err = sys_ioctl((int)fd, RNDADDENTROPY, (long)&pool);
	if (err == 0)
		err = sys_ioctl((int)fd, RNDRESEEDCRNG, 0);
	sys_close((int)fd);
	return err;
}

long park_refresh(const struct park_request *req, const char **what)
{
	long clock = req->time ? park_set_clock(req->time) : -22;
	long seed = req->seed ? park_reseed(req->seed) : -22;

	*what = clock < 0 ? "clock" : "seed";
	return clock < 0 ? clock : seed;
}
