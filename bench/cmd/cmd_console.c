#include "cmd.h"

#include "judge/crash.h"
#include "lib/error.h"
#include "lib/jsonw.h"
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

/* {"log": ..., "crash": the first title or null, "crashes": [every report]} */
static struct json_object *json_log(const char *path, const struct crash_scanner *s)
{
	struct json_object *log = json_object_new_object(), *crashes = json_object_new_array();
	size_t n = crash_scanner_count(s);

	json_object_object_add(log, "log", jsonw_string(path));
	json_object_object_add(log, "crash", n ? jsonw_string(crash_scanner_report(s, 0)->title) : NULL);
	for (size_t i = 0; i < n; i++) {
		const struct crash *c = crash_scanner_report(s, i);
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "title", jsonw_string(c->title));
		json_object_object_add(o, "first_line", json_object_new_int64(c->first_line));
		json_object_object_add(o, "last_line", json_object_new_int64(c->last_line));
		json_object_object_add(o, "corrupted", json_object_new_boolean(c->corrupted));
		json_object_array_add(crashes, o);
	}
	json_object_object_add(log, "crashes", crashes);
	return log;
}

/*
 * console: each LOG's crash title, "LOG: TITLE" or "LOG: no crash".  Exits
 * 0 when no log has a crash and 1 when one has; with --json - the JSON
 * takes the place of those lines on standard output.
 */
int cmd_console(struct options *o)
{
	struct json_object *json = json_object_new_array();
	bool crashed = false, text = !o->json || strcmp(o->json, "-") != 0;
	int err = 0;

	if (!o->operands.n)
		err = error_set(ERR_USAGE, "'console' needs a LOG");
	for (size_t i = 0; i < o->operands.n && err == 0; i++) {
		const char *path = o->operands.v[i];
		struct crash_scanner *s = crash_scanner_new();

		if ((err = scan_log(path, s)) == 0) {
			size_t n = crash_scanner_count(s);

			crashed |= n > 0;
			if (text)
				printf("%s: %s\n", path, n ? crash_scanner_report(s, 0)->title : "no crash");
			json_object_array_add(json, json_log(path, s));
		}
		crash_scanner_free(s);
	}
	fflush(stdout);
	if (err == 0 && o->json)
		err = jsonw_write(json, o->json);
	json_object_put(json);
	return err < 0 ? err : crashed ? EXIT_FAILED : EXIT_OK;
}
