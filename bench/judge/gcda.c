#include "gcda.h"

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BEGIN "# fpubench: gcda "
#define DATA "# gcda "
#define END "# fpubench: gcda-end "
#define DONE "# fpubench: gcda-done "
#define FAILED "# fpubench: gcda-error "

struct scan {
	const char *name;
	struct gcda_set *set;
	struct strbuf data;	/* the open block's bytes */
	char *path;		/* the open block's, or NULL */
	bool done;
};

static bool line_eat(const char **p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	if ((size_t)(end - *p) < n || memcmp(*p, prefix, n) != 0)
		return false;
	*p += n;
	return true;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A whole decimal number of at most 9 digits, all of [p, end). */
static bool parse_count(const char *p, const char *end, long *out)
{
	long v = 0;

	if (p == end || end - p > 9)
		return false;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return true;
}

/* A path the host may look up: absolute, printable, no "..", a .gcda file. */
static bool path_ok(const char *p, size_t n)
{
	if (n < 7 || n > GCDA_PATH_MAX || p[0] != '/' || memcmp(p + n - 5, ".gcda", 5) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f)
			return false;
		if (p[i] == '/' && i + 3 <= n && p[i + 1] == '.' && p[i + 2] == '.' &&
		    (i + 3 == n || p[i + 3] == '/'))
			return false;
	}
	return true;
}

static int begin_block(struct scan *s, const char *p, const char *end)
{
	if (s->path)
		return error_set(ERR_INPUT, "console '%s': gcda '%s' is cut short (no gcda-end)",
				 s->name, s->path);
	if (!path_ok(p, (size_t)(end - p)))
		return error_set(ERR_INPUT, "console '%s': gcda path '%.*s' is not an absolute .gcda path",
				 s->name, (int)(end - p > 200 ? 200 : end - p), p);
	s->path = xstrndup(p, (size_t)(end - p));
	for (size_t i = 0; i < s->set->nfiles; i++)
		if (strcmp(s->set->files[i].path, s->path) == 0)
			return error_set(ERR_INPUT, "console '%s': gcda '%s' is sent twice", s->name,
					 s->path);
	strbuf_reset(&s->data);
	return 0;
}

static int data_line(struct scan *s, const char *p, const char *end)
{
	size_t n = (size_t)(end - p);

	if (!s->path)
		return error_set(ERR_INPUT, "console '%s': gcda data outside a block", s->name);
	if (n == 0 || n % 2 || n > 2 * GCDA_LINE_BYTES)
		return error_set(ERR_INPUT, "console '%s': gcda '%s' has a data line of %zu hex digits",
				 s->name, s->path, n);
	for (size_t i = 0; i < n; i += 2) {
		int hi = hex_digit(p[i]), lo = hex_digit(p[i + 1]);

		if (hi < 0 || lo < 0)
			return error_set(ERR_INPUT, "console '%s': gcda '%s' has a data line that is not hex",
					 s->name, s->path);
		strbuf_addch(&s->data, (char)(hi << 4 | lo));
	}
	return 0;
}

/* "LENGTH CRC32": the block must have those. */
static int end_block(struct scan *s, const char *p, const char *end)
{
	const char *space = memchr(p, ' ', (size_t)(end - p));
	long want_len;
	uint32_t want_crc = 0, crc;

	if (!s->path)
		return error_set(ERR_INPUT, "console '%s': gcda-end outside a block", s->name);
	if (!space || !parse_count(p, space, &want_len) || end - space - 1 != 8)
		return error_set(ERR_INPUT, "console '%s': gcda '%s' has a malformed gcda-end line",
				 s->name, s->path);
	for (const char *q = space + 1; q < end; q++) {
		int d = hex_digit(*q);

		if (d < 0)
			return error_set(ERR_INPUT, "console '%s': gcda '%s' has a malformed gcda-end line",
					 s->name, s->path);
		want_crc = want_crc << 4 | (uint32_t)d;
	}
	if ((size_t)want_len != s->data.len)
		return error_set(ERR_INPUT, "console '%s': gcda '%s' arrived with %zu bytes of %ld",
				 s->name, s->path, s->data.len, want_len);
	crc = (uint32_t)crc32(0L, (const Bytef *)s->data.buf, (uInt)s->data.len);
	if (crc != want_crc)
		return error_set(ERR_INPUT, "console '%s': gcda '%s' arrived damaged (CRC-32 %08x, sent %08x)",
				 s->name, s->path, crc, want_crc);

	struct gcda_set *set = s->set;
	struct gcda_file *f;

	set->files = xrealloc(set->files, (set->nfiles + 1) * sizeof(*set->files));
	f = &set->files[set->nfiles++];
	f->path = s->path;
	f->len = s->data.len;
	f->data = (unsigned char *)strbuf_detach(&s->data);
	s->path = NULL;
	return 0;
}

static int scan_line(struct scan *s, const char *p, const char *end)
{
	long count;

	if (line_eat(&p, end, BEGIN)) {
		s->set->sent = true;
		return begin_block(s, p, end);
	}
	if (line_eat(&p, end, DATA))
		return data_line(s, p, end);
	if (line_eat(&p, end, END))
		return end_block(s, p, end);
	if (line_eat(&p, end, FAILED))
		return error_set(ERR_INPUT, "console '%s': the guest could not send its gcov data: %.*s",
				 s->name, (int)(end - p > 200 ? 200 : end - p), p);
	if (line_eat(&p, end, DONE)) {
		s->set->sent = true;
		if (s->path)
			return error_set(ERR_INPUT, "console '%s': gcda '%s' is cut short (no gcda-end)",
					 s->name, s->path);
		if (!parse_count(p, end, &count) || (size_t)count != s->set->nfiles)
			return error_set(ERR_INPUT, "console '%s': gcda-done '%.*s' does not count the %zu files sent",
					 s->name, (int)(end - p > 20 ? 20 : end - p), p, s->set->nfiles);
		s->done = true;
	}
	return 0;
}

int gcda_scan(const char *name, const char *buf, size_t len, struct gcda_set **out)
{
	struct scan s = { .name = name, .set = xcalloc(1, sizeof(*s.set)), .data = STRBUF_INIT };
	const char *p = buf, *end = buf + len;
	int err = 0;

	while (p < end && !err && !s.done) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;

		/* The tty turns "\n" into "\r\n". */
		while (line_end > p && line_end[-1] == '\r')
			line_end--;
		err = scan_line(&s, p, line_end);
		p = nl ? nl + 1 : end;
	}
	if (!err && s.path)
		err = error_set(ERR_INPUT, "console '%s': gcda '%s' is cut short (the console ends)",
				name, s.path);
	else if (!err && s.set->sent && !s.done)
		err = error_set(ERR_INPUT, "console '%s': the gcov data is cut short (no gcda-done after %zu files)",
				name, s.set->nfiles);
	free(s.path);
	strbuf_release(&s.data);
	if (err) {
		gcda_set_free(s.set);
		return err;
	}
	*out = s.set;
	return 0;
}

const char *gcda_path_in(const struct gcda_file *f, const char *dir)
{
	size_t n = strlen(dir);

	/* gcda_scan() let no ".." through, so a path that starts with the directory is in it. */
	if (!n || strncmp(f->path, dir, n) != 0 || f->path[n] != '/' || !f->path[n + 1])
		return NULL;
	return f->path + n + 1;
}

void gcda_set_free(struct gcda_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].data);
	}
	free(s->files);
	free(s);
}
