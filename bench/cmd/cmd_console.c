#include "cmd.h"

#include "judge/crash.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/jsonw.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64 * 1024)	/* bytes read at once: a log of any size streams through */

/*
 * Feeds the log at path ("-": standard input) to s line by line.  A line
 * longer than CRASH_LINE_MAX is read up to that length (the scanner reads
 * no more).
 */
static int scan_log(const char *path, struct crash_scanner *s)
{
	char *chunk, line[CRASH_LINE_MAX];
	size_t len = 0;
	bool pending = false;	/* a line has begun */
	bool in = strcmp(path, "-") == 0;
	ssize_t got;
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);

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
		if (!in)
			close(fd);
		return err;
	}
	if (pending)
		crash_scanner_line(s, line, len);
	crash_scanner_finish(s);
	free(chunk);
	if (!in)
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

#define BEGINS_WIDTH 44	/* columns of --rules' first column; longer text wraps */
#define SKIPS_WIDTH 40

/*
 * Appends up to `width` columns of *text to line, breaking after a '|' or
 * else at a space when it must, padded to `pad` columns; advances *text.
 */
static void add_cell(struct strbuf *line, const char **text, int width, int pad)
{
	size_t n = strlen(*text), cut = n;

	for (int pass = 0; pass < 2 && cut > (size_t)width; pass++)
		for (size_t i = (size_t)width; i > (size_t)width / 2; i--)
			if (pass ? (*text)[i] == ' ' : (*text)[i - 1] == '|') {
				cut = i;
				break;
			}
	if (cut > (size_t)width)
		cut = (size_t)width;
	strbuf_addf(line, "%-*.*s", pad, (int)cut, *text);
	*text += cut;
	*text += strspn(*text, " ");
}

/* One rule as an aligned row, its first and last columns wrapped. */
static void print_rule(const char *begins, const char *title, const char *skips, int title_width)
{
	struct strbuf line = STRBUF_INIT;

	do {
		strbuf_reset(&line);
		add_cell(&line, &begins, BEGINS_WIDTH, BEGINS_WIDTH + 2);
		strbuf_addf(&line, "%-*s  ", title_width, title);
		title = "";
		add_cell(&line, &skips, SKIPS_WIDTH, 0);
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = '\0';
		puts(line.buf);
	} while (*begins || *skips);
	strbuf_release(&line);
}

/* console --rules: the title table (crash_rule_get()), a row a rule. */
static int print_rules(void)
{
	struct crash_rule r;
	int width = 0;

	for (size_t i = 0; crash_rule_get(i, &r); i++)
		if ((int)strlen(r.title) > width)
			width = (int)strlen(r.title);
	print_rule("A REPORT BEGINS WITH", "ITS TITLE", "THE RULE ALSO SKIPS", width);
	for (size_t i = 0; crash_rule_get(i, &r); i++) {
		char begins[sizeof(r.begins) + 4];

		snprintf(begins, sizeof(begins), "%s%s", r.start ? "[^] " : "", r.begins);
		print_rule(begins, r.title, r.skips, width);
	}
	printf("\nThe first rule that matches wins.  [^]: only at the start of a line, once its\n"
	       "prefixes (printk's time and caller, syslog's) are dropped.  In a title, %%F is FUNC:\n"
	       "the report's first frame that the rule does not skip and that is not a reporting,\n"
	       "trap, locking, allocation, string or sanitizer helper; %%1 and %%2 are the\n"
	       "expression's groups, %%A is Read or Write, %%K the die() line's kind, %%L the line.\n");
	return fflush(stdout) == 0 ? EXIT_OK : error_set_errno(ERR_GENERIC, "cannot write the rules to standard output");
}

/*
 * console: each LOG's crash title, "LOG: TITLE" or "LOG: no crash" (LOG "-"
 * is standard input).  Exits 0 when no log has a crash and 1 when one has;
 * with --json - the JSON takes the place of those lines on standard output.
 */
int cmd_console(struct options *o)
{
	struct json_object *json;
	bool crashed = false, text = !o->json || strcmp(o->json, "-") != 0;
	int err = 0;

	if (o->rules && (o->operands.n || o->json))
		return error_set(ERR_USAGE, "'console --rules' takes no LOG and no --json");
	if (o->rules)
		return print_rules();
	json = json_object_new_array();
	if (!o->operands.n)
		err = error_set(ERR_USAGE, "'console' needs a LOG");
	else if (o->json)
		err = file_output_check(o->json, "--json");
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

static const struct opt console_options[] = {
	OPT_ROW_JSON,
	{ "rules", 0, NULL, OPT_FLAG, OPT_FIELD(rules), 0, 0,
	  "print the rules that begin and title a crash report, from the scanner's table, "
	  "and no LOG" },
	OPT_END,
};

const struct command_def cmd_console_def = {
	CMD_CONSOLE, "console", "fpubench console [--json FILE] LOG...\n   or: fpubench console --rules",
	"find and title the crash reports in kernel console logs",
	"Scans each LOG (serial console, dmesg, CI log) and prints 'LOG: TITLE' with the\n"
	"first report's syzkaller-style title, or 'LOG: no crash'. Exits 0 when no log\n"
	"has a crash, 1 when one has.",
	console_options, cmd_console, true,
};
