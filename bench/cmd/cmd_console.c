#include "cmd.h"

#include "judge/crash.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64 * 1024)	/* bytes read at once: a log of any size streams through */

/*
 * Feeds the log at path to s line by line.  A line longer than
 * CRASH_LINE_MAX is read up to that length (the scanner reads no more).
 */
static int scan_log(const char *path, struct crash_scanner *s)
{
	char *chunk, line[CRASH_LINE_MAX];
	size_t len = 0;
	bool pending = false;	/* a line has begun */
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return error_set(ERR_NOTFOUND, "log '%s' is missing", path);
	if (fd < 0)
		return error_set_errno(ERR_INPUT, "cannot open log '%s'", path);
	chunk = xmalloc(CHUNK);
	while ((got = read(fd, chunk, CHUNK)) > 0) {
		for (const char *p = chunk, *end = chunk + got; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *stop = nl ? nl : end;
			size_t n = (size_t)(stop - p);

			if (n > sizeof(line) - len)
				n = sizeof(line) - len;
			memcpy(line + len, p, n);
			len += n;
			pending = true;
			if (nl) {
				crash_scanner_line(s, line, len);
				len = 0;
				pending = false;
			}
			p = stop + (nl != NULL);
		}
	}
	if (got < 0) {
		int err = error_set_errno(ERR_INPUT, "cannot read log '%s'", path);

		free(chunk);
		close(fd);
		return err;
	}
	if (pending)
		crash_scanner_line(s, line, len);
	crash_scanner_finish(s);
	free(chunk);
	close(fd);
	return 0;
}

static void json_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	strbuf_add_json(sb, s);
	strbuf_addch(sb, '"');
}

/* {"log": ..., "crash": first title or null, "crashes": [every report]} */
static void json_log(struct strbuf *sb, const char *path, const struct crash_scanner *s)
{
	size_t n = crash_scanner_count(s);

	strbuf_addstr(sb, "  {\"log\": ");
	json_quoted(sb, path);
	strbuf_addstr(sb, ", \"crash\": ");
	if (n)
		json_quoted(sb, crash_scanner_report(s, 0)->title);
	else
		strbuf_addstr(sb, "null");
	strbuf_addstr(sb, ", \"crashes\": [");
	for (size_t i = 0; i < n; i++) {
		const struct crash *c = crash_scanner_report(s, i);

		strbuf_addstr(sb, i ? ",\n    {\"title\": " : "\n    {\"title\": ");
		json_quoted(sb, c->title);
		strbuf_addf(sb, ", \"first_line\": %ld, \"last_line\": %ld, \"corrupted\": %s}",
			    c->first_line, c->last_line, c->corrupted ? "true" : "false");
	}
	strbuf_addstr(sb, n ? "\n  ]}" : "]}");
}

/*
 * console: each LOG's crash title, "LOG: TITLE" or "LOG: no crash".  Exits
 * 0 when no log has a crash and 1 when one has; with --json - the JSON
 * takes the place of those lines on standard output.
 */
int cmd_console(struct options *o)
{
	struct strbuf json = STRBUF_INIT;
	bool crashed = false, text = !o->json || strcmp(o->json, "-") != 0;
	int err = 0;

	if (!o->operands.n)
		return error_set(ERR_USAGE, "'console' needs a LOG");
	strbuf_addstr(&json, "[\n");
	for (size_t i = 0; i < o->operands.n && err == 0; i++) {
		const char *path = o->operands.v[i];
		struct crash_scanner *s = crash_scanner_new();

		if ((err = scan_log(path, s)) == 0) {
			size_t n = crash_scanner_count(s);

			crashed |= n > 0;
			if (text)
				printf("%s: %s\n", path, n ? crash_scanner_report(s, 0)->title : "no crash");
			if (i)
				strbuf_addstr(&json, ",\n");
			json_log(&json, path, s);
		}
		crash_scanner_free(s);
	}
	strbuf_addstr(&json, "\n]\n");
	if (err == 0 && o->json)
		err = file_write_output(o->json, json.buf, json.len);
	strbuf_release(&json);
	fflush(stdout);
	return err < 0 ? err : crashed ? EXIT_FAILED : EXIT_OK;
}
