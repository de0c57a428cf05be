#include "crash.h"
#include "crash_report.h"
#include "crash_table.h"

#include "lib/ctype.h"
#include "lib/strbuf.h"

#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scanner. */

struct crash_scanner {
	long line_no;
	long fence;		/* line of the last crash_scanner_fence() */
	long last_activity;	/* last line that began or continued a report, 0 if none */
	char buf[CRASH_LINE_MAX + 1];
	struct open_report open[CRASH_OPEN];
	struct crash *reports;
	size_t nreports, alloc;
	bool finished;
	bool i386;		/* the log is a 32-bit x86 kernel's: its frames are all guesses */
	bool booted;		/* a kernel's timestamped line was seen */
	/* The last line began a report of a bare line's title ("%L"): its prefix and text, for join(). */
	bool joinable;
	size_t prev_prefix;
	char prev[CRASH_LINE_MAX + 1];
	char joined[2 * CRASH_LINE_MAX + 2];
};

struct crash_scanner *crash_scanner_new(void)
{
	crash_rx_ready();
	return xcalloc(1, sizeof(struct crash_scanner));
}

void crash_scanner_free(struct crash_scanner *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nreports; i++)
		free(s->reports[i].title);
	free(s->reports);
	free(s);
}

static void report_close(struct crash_scanner *s, struct open_report *o, bool eof)
{
	struct crash *c = &s->reports[o->index];
	bool corrupted = (o->f->flags & F_CORRUPTED) || (eof && !o->complete);

	c->title = crash_report_title(o, s->i386, &corrupted);
	c->corrupted = corrupted;
	o->used = false;
}

static struct open_report *report_of(struct crash_scanner *s, const char *ctx)
{
	struct open_report *last = NULL;

	for (int i = 0; i < CRASH_OPEN; i++) {
		struct open_report *o = &s->open[i];

		if (!o->used || o->trailing)
			continue;
		if (ctx[0] && o->ctx[0])
			if (strcmp(o->ctx, ctx) == 0)
				return o;
		if ((!ctx[0] || !o->ctx[0]) && (!last || o->index > last->index))
			last = o;
	}
	return last;
}

/* The line goes to the report o. */
static void report_feed(struct crash_scanner *s, struct open_report *o, const char *text)
{
	o->lines++;
	s->reports[o->index].last_line = s->line_no;
	s->last_activity = s->line_no;
	if ((o->f->flags & F_ACCESS) && !o->access[0]) {
		if (strstr(text, "Read of size") || strstr(text, "Read at addr"))
			strcpy(o->access, "Read");
		else if (strstr(text, "Write of size") || strstr(text, "Write at addr"))
			strcpy(o->access, "Write");
	}
	crash_report_feed_parts(o, text);
	if (crash_is_end_marker(text) || o->lines >= CRASH_REPORT_LINES) {
		o->complete = true;
		report_close(s, o, false);
	}
}

/*
 * With caller ids, syzkaller reads a report to the end of its context's
 * lines, later reports of that context included: one that another report
 * began inside before it had its frame goes on reading them (trailing)
 * until it has one or ends.
 */
static void trail_feed(struct crash_scanner *s, const char *ctx, bool stamped, const char *text)
{
	for (int i = 0; i < CRASH_OPEN && ctx[0]; i++) {
		struct open_report *o = &s->open[i];

		if (!o->used || !o->trailing || o->stamped != stamped || strcmp(o->ctx, ctx) != 0)
			continue;
		report_feed(s, o, text);
		if (o->used && crash_report_frame(o, s->i386))
			report_close(s, o, false);
	}
}

/* Whether text holds the start of a header at all: one pass, for speed on long logs. */
static bool may_match(const char *text)
{

	for (const char *p = text; *p; p++) {
		if (!crash_rx.first[(unsigned char)*p])
			continue;
		for (size_t i = 0; i < crash_nheader_starts; i++)
			if (*p == crash_header_starts[i][0] && strncmp(p, crash_header_starts[i], strlen(crash_header_starts[i])) == 0)
				return true;
	}
	return false;
}

/* Whether h, in text, starts the line's message: after nothing, a pr_fmt() or a device's tag ("IPv6: "). */
static bool starts_message(const char *text, const char *h)
{
	const char *p = text;

	if (h == text)
		return true;
	/* A tag is one word, or a device's driver and name (dev_printk's "usb 5-1: "). */
	for (int words = 0; words < 2; words++) {
		const char *w = p;

		while (p < h && *p != ' ' && *p != ':')
			p++;
		if (p == w)
			return false;
		if (p[0] == ':')
			return p[1] == ' ' && p + 2 == h;
		p++;
	}
	return false;
}

/*
 * Whether a header counts only as a word of its own ("DEBUG:" is not
 * "BUG:"); a lowercase phrase ("general protection fault") counts glued to
 * the text of a line that printk never ended, as syzkaller finds it anywhere.
 */
static bool needs_word(const char *header)
{
	return crash_is_ident(header[0]) && !(header[0] >= 'a' && header[0] <= 'z' && strchr(header, ' '));
}

/* The format of a report that text begins, or NULL. */
static const struct format *match(const char *text, regmatch_t m[3], const char **at)
{
	if (!may_match(text))
		return NULL;
	for (size_t i = 0; i < crash_rx.nformats; i++) {
		const struct format *f = &crash_formats[i];
		const char *h = strstr(text, f->header);

		while (h && h > text && needs_word(f->header) && crash_is_ident(h[-1]))
			h = strstr(h + 1, f->header);
		if (!h || ((f->flags & F_START) && !starts_message(text, h)))
			continue;
		if (f->re && regexec(&crash_rx.re[i], h, 3, m, 0) != 0)
			continue;
		for (size_t k = 0; k < crash_rx.nignores; k++)
			if (strstr(text, crash_ignores[k].needle) && regexec(&crash_rx.ignore[k], text, 0, NULL, 0) == 0)
				return NULL;
		if (!f->re)
			m[1].rm_so = m[2].rm_so = -1;
		*at = h;
		return f;
	}
	return NULL;
}

static void report_begin(struct crash_scanner *s, const struct format *f, const regex_t *skip,
			 const char *text, const char *at, const regmatch_t m[3], const char *ctx,
			 const char *kind, bool stamped)
{
	struct open_report *o = NULL;

	for (int i = 0; i < CRASH_OPEN && !o; i++)
		if (!s->open[i].used)
			o = &s->open[i];
	if (!o) {
		o = &s->open[0];
		for (int i = 1; i < CRASH_OPEN; i++)
			if (s->open[i].index < o->index)
				o = &s->open[i];
		report_close(s, o, false);
	}
	memset(o, 0, sizeof(*o));
	if (s->nreports == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 8;
		s->reports = xrealloc(s->reports, s->alloc * sizeof(*s->reports));
	}
	o->used = true;
	o->index = s->nreports++;
	s->reports[o->index] = (struct crash){ NULL, s->line_no, s->line_no, false };
	o->f = f;
	o->skip = skip;
	o->stamped = stamped;
	snprintf(o->ctx, sizeof(o->ctx), "%s", ctx);
	for (int g = 0; g < 2; g++)
		if (m[g + 1].rm_so >= 0)
			crash_copy_text(o->args[g], sizeof(o->args[g]), at + m[g + 1].rm_so,
				  (size_t)(m[g + 1].rm_eo - m[g + 1].rm_so));
	crash_copy_text(o->line, sizeof(o->line), at, strlen(at));
	snprintf(o->kind, sizeof(o->kind), "%s", kind);
	if (f->flags & F_HEADER_FUNC) {
		const char *p = strstr(at, " at ");

		for (; p; p = strstr(p + 1, " at ")) {
			const char *func, *src_end = strchr(p + 4, ' ');
			size_t n = crash_func_after(p + 4, &func);

			/* "at FILE:LINE f+0x1/0x2" */
			if (!n && src_end)
				n = crash_func_after(src_end + 1, &func);
			if (n) {
				crash_copy_text(o->header_func, sizeof(o->header_func), func, n);
				break;
			}
		}
	}
	s->last_activity = s->line_no;
	report_feed(s, o, text);
}

/*
 * printk cut the previous line and prints it again whole: a report that
 * began on the cut line is forgotten, and the whole line begins it anew.
 */
static void replay(struct crash_scanner *s)
{
	for (int i = 0; i < CRASH_OPEN; i++) {
		struct open_report *o = &s->open[i];

		if (o->used && o->index == s->nreports - 1 && s->reports[o->index].first_line == s->line_no - 1) {
			o->used = false;
			s->nreports--;
		}
	}
}

/*
 * printk prints a message with a newline in it (a task's name) as lines of
 * one timestamp: a line of the last one's timestamp and caller id, after a
 * line that began a report only by its bare header, goes on it when the two
 * together are a report of a known kind.  Returns the text to read.
 */
static const char *join(struct crash_scanner *s, const char *text, bool stamped)
{
	size_t prefix = (size_t)(text - s->buf);
	const char *at;
	const struct format *f;
	regmatch_t m[3];

	if (!s->joinable || !stamped || prefix != s->prev_prefix || memcmp(s->buf, s->prev, prefix) != 0)
		return text;
	snprintf(s->joined, sizeof(s->joined), "%s %s", s->prev + prefix, text);
	f = match(s->joined, m, &at);
	if (!f || strcmp(f->title, "%L") == 0)
		return text;
	replay(s);
	return s->joined;
}

/* Copies the line into s->buf, cut at CRASH_LINE_MAX, a NUL byte as '?'. */
static void line_take(struct crash_scanner *s, const char *line, size_t n)
{
	if (n > CRASH_LINE_MAX)
		n = CRASH_LINE_MAX;
	for (size_t i = 0; i < n; i++)
		s->buf[i] = line[i] ? line[i] : '?';
	s->buf[n] = '\0';
}

/* The line began a report of a bare line's title ("%L"): keep it, for join() to read on. */
static void join_remember(struct crash_scanner *s, const char *text)
{
	s->joinable = true;
	s->prev_prefix = (size_t)(text - s->buf);
	memcpy(s->prev, s->buf, sizeof(s->prev));
}

long crash_scanner_line(struct crash_scanner *s, const char *line, size_t len)
{
	const char *text, *at;
	const struct format *f;
	struct open_report *o;
	regmatch_t m[3];
	char ctx[CTX_MAX], kind[64];
	size_t n = len;
	bool stamped;

	if (s->finished)
		return -1;
	s->line_no++;
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	line_take(s, line, n);
	text = crash_strip_prefixes(s->buf, ctx, &stamped);
	s->i386 |= crash_is_i386(text);
	if (!s->booted) {
		s->booted = stamped;
		if (!stamped && strncmp(text, "Booting the kernel", 18) == 0)
			return -1;	/* the log's own boot, not a reboot */
	}
	if (strcmp(s->buf, "** replaying previous printk message **") == 0) {
		replay(s);
		return -1;
	}
	text = join(s, text, stamped);
	s->joinable = false;
	trail_feed(s, ctx, stamped, text);
	o = report_of(s, ctx);
	f = match(text, m, &at);
	if (!f && may_match(text) && crash_die_kind(text, kind, sizeof(kind))) {
		f = &crash_die_format;
		at = text;
		m[1].rm_so = m[2].rm_so = -1;
	}
	if (f && o && (f->flags & F_CONTINUES) && (!o->ctx[0] || !ctx[0] || strcmp(o->ctx, ctx) == 0)) {
		/* After a long report a panic is its end: what follows is the panic's stack. */
		if ((f->flags & F_PANIC) && o->lines > PANIC_CUTS) {
			o->complete = true;
			report_close(s, o, false);
			s->last_activity = s->line_no;
			return -1;
		}
		f = NULL;
	}
	if (f && (f->flags & F_PANIC) && s->last_activity && s->last_activity > s->fence &&
	    s->line_no - s->last_activity <= PANIC_NEAR) {
		s->last_activity = s->line_no;
		return -1;
	}
	if (!f && o && !ctx[0] && crash_has_needle(text, crash_stack_notices)) {
		o->complete = true;
		report_close(s, o, false);
		return -1;
	}
	if (!f) {
		/*
		 * A line without the timestamp of a report that has them is no
		 * printk of it (the fuzzer's own output, a shell's), nor the reverse.
		 */
		if (o && o->stamped == stamped)
			report_feed(s, o, text);
		return -1;
	}
	if (o && (!o->ctx[0] || !ctx[0] || strcmp(o->ctx, ctx) == 0)) {
		o->complete = true;	/* the next report ends it, or, of its caller id, only follows it */
		if (o->ctx[0] && ctx[0] && !crash_report_frame(o, s->i386))
			o->trailing = true;
		else
			report_close(s, o, false);
	}
	if (s->nreports == CRASH_MAX_REPORTS)
		return -1;
	if (f != &crash_die_format && strcmp(f->title, "%L") == 0 && text != s->joined)
		join_remember(s, text);
	/* crash_die_format, outside crash_formats[], has no skip of its own. */
	report_begin(s, f, f->skip ? &crash_rx.format_skip[f - crash_formats] : NULL, text, at, m, ctx,
		     f == &crash_die_format ? kind : "", stamped);
	return (long)(s->nreports - 1);
}

void crash_scanner_fence(struct crash_scanner *s)
{
	/* What follows the boundary is no longer the open reports'. */
	for (int i = 0; i < CRASH_OPEN; i++) {
		if (s->open[i].used) {
			s->open[i].complete = true;
			report_close(s, &s->open[i], false);
		}
	}
	s->fence = s->line_no;
}

void crash_scanner_finish(struct crash_scanner *s)
{
	if (s->finished)
		return;
	for (int i = 0; i < CRASH_OPEN; i++)
		if (s->open[i].used)
			report_close(s, &s->open[i], true);
	s->finished = true;
}

size_t crash_scanner_count(const struct crash_scanner *s)
{
	return s->nreports;
}

const struct crash *crash_scanner_report(const struct crash_scanner *s, size_t i)
{
	return i < s->nreports ? &s->reports[i] : NULL;
}
