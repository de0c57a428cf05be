#include "report.h"

#include "kcidb.h"

#include "lib/array.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Appends len bytes made safe to show, as report.h describes. */
void report_add_safe(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = strbuf_utf8_length(p, (size_t)(end - p));
		bool shown;

		if (*p == '\r' && p + 1 < end && p[1] == '\n') {
			p++;
			continue;
		}
		if (n == 1)
			shown = *p == '\n' || *p == '\t' || (*p >= 0x20 && *p != 0x7f);
		else
			shown = n > 1 && !(p[0] == 0xc2 && p[1] < 0xa0) &&
				!(n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
		if (n == 0)
			n = 1;
		if (shown)
			strbuf_add(sb, p, n);
		else
			for (size_t i = 0; i < n; i++)
				strbuf_addf(sb, "\\x%02x", p[i]);
		p += n;
	}
}

const char *report_safe(struct strbuf *sb, const char *s)
{
	if (!s)
		return NULL;
	strbuf_reset(sb);
	report_add_safe(sb, s, strlen(s));
	return sb->buf;
}

const char *report_status_name(enum verdict v)
{
	return (unsigned)v < VERDICT_COUNT ? verdict_name(v) : "none";
}

/*
 * The last REPORT_EXCERPT_MAX bytes of the cell's console, from its first
 * whole line; false when there is none to read.  Bounded whatever the
 * file's size: a guest may flood its console.
 */
bool report_console_tail(const struct report_input *in, const struct matrix_cell *c,
			 struct strbuf *sb, bool *cut)
{
	char *path, buf[REPORT_EXCERPT_MAX];
	struct stat st;
	size_t got = 0;
	off_t from;
	int fd;

	if (!in->run_dir || !c->console)
		return false;
	path = xasprintf("%s/%s", in->run_dir, c->console);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	free(path);
	if (fd < 0)
		return false;
	/* Only a regular file: a FIFO there would block the report. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	from = st.st_size > REPORT_EXCERPT_MAX ? st.st_size - REPORT_EXCERPT_MAX : 0;
	while (got < sizeof(buf)) {
		ssize_t n = pread(fd, buf + got, sizeof(buf) - got, from + (off_t)got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*cut = from > 0;
	const char *start = buf, *nl = *cut ? memchr(buf, '\n', got) : NULL;
	if (nl)
		start = nl + 1;
	report_add_safe(sb, start, got - (size_t)(start - buf));
	return true;
}

int report_write(const struct report_input *in)
{
	static const struct {
		const char *name;
		int (*format)(struct strbuf *, const struct report_input *);
	} files[] = {
		{ "report.html", report_html_format },
		{ "junit.xml", junit_format },
		{ "kcidb.json", kcidb_format },
	};
	struct strbuf sb = STRBUF_INIT;
	char *path = NULL;
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		strbuf_reset(&sb);
		if ((err = files[i].format(&sb, in)) < 0)
			goto out;
		free(path);
		path = xasprintf("%s/%s", in->run_dir, files[i].name);
		if ((err = file_write_atomic(path, sb.buf, sb.len)) < 0)
			goto out;
	}
out:
	free(path);
	strbuf_release(&sb);
	return err;
}

const struct report_guard *report_guard_find(const struct report_input *in, const char *test)
{
	for (size_t i = 0; i < in->nguards; i++)
		if (strcmp(in->guards[i].test, test) == 0)
			return &in->guards[i];
	return NULL;
}
