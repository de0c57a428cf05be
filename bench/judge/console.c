#include "console.h"

#include "lib/ctype.h"
#include "lib/error.h"
#include "ktap.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NO_TEST SIZE_MAX

/* A crash report whose title still waits for its EIP line. */
struct crash {
	bool open;
	bool prefix;		/* a die() line that follows is part of it */
	int lines_left;
	size_t test;		/* the window it started in, or NO_TEST */
	struct strbuf kind;	/* "fpu exception": the title is "KIND in FUNC" */
	struct strbuf fallback;	/* the title when no function turns up: "KIND [at FILE:LINE]" */
};

/* What the scan needs per test beyond struct console_test. */
struct test_state {
	bool has_result;
	bool crashed;
	bool has_failure;	/* a subtest failed: `failure` holds it */
	bool collecting;	/* diagnostics go to `failure` */
	bool has_detail;	/* `failure` has more than the subtest's name */
	struct strbuf failure;	/* "name: detail; detail" */
};

struct scanner {
	struct console_report *r;
	struct test_state *ts;	/* parallel to r->tests */
	size_t alloc;
	size_t cur;		/* the test whose window this is, or NO_TEST */
	int window_reports;	/* reports begun in this window */
	struct crash crash;
};

static bool is_symbol(char c)
{
	return ctype_is_alpha(c) || ctype_is_digit(c) || c == '_' || c == '.';
}

static struct ktap_span span_at(const char *p, size_t len)
{
	return (struct ktap_span){ p, len };
}

static struct ktap_span span_str(const char *s)
{
	return span_at(s, strlen(s));
}

static bool span_starts(struct ktap_span s, const char *prefix)
{
	return ktap_span_eat(&s, prefix);
}

static bool span_is(struct ktap_span s, const char *str)
{
	return s.len == strlen(str) && memcmp(s.ptr, str, s.len) == 0;
}

static const char *span_find(struct ktap_span s, const char *needle)
{
	return memmem(s.ptr, s.len, needle, strlen(needle));
}

/* A decimal 0..INT_MAX, then the end or a space; what follows the space goes to *rest. */
static bool span_number(struct ktap_span s, int *out, struct ktap_span *rest)
{
	if (!ktap_span_eat_number(&s, out) || (s.len && !ktap_span_eat(&s, " ")))
		return false;
	if (rest)
		*rest = s;
	return true;
}

/*
 * Guest and kernel bytes, made safe: printable ASCII only, and never more
 * than CONSOLE_TEXT_MAX + 1 bytes kept (text_finish() marks the cut).
 */
static void text_add(struct strbuf *sb, const char *p, size_t n)
{
	for (size_t i = 0; i < n && sb->len <= CONSOLE_TEXT_MAX; i++)
		strbuf_addch(sb, ctype_is_print(p[i]) ? p[i] : '?');
}

static void text_addspan(struct strbuf *sb, struct ktap_span s)
{
	text_add(sb, s.ptr, s.len);
}

static void text_addstr(struct strbuf *sb, const char *s)
{
	text_add(sb, s, strlen(s));
}

static char *text_finish(struct strbuf *sb)
{
	if (sb->len > CONSOLE_TEXT_MAX) {
		sb->len = CONSOLE_TEXT_MAX - 3;
		strbuf_addstr(sb, "...");
	}
	return strbuf_detach(sb);
}

static char *text_dup(struct ktap_span s)
{
	struct strbuf sb = STRBUF_INIT;

	text_addspan(&sb, s);
	return text_finish(&sb);
}

/* Crash reports. */

/* "f+0x42/0x57" somewhere in s: f, or an empty span. */
static struct ktap_span span_find_function(struct ktap_span s)
{
	const char *end = s.ptr + s.len;

	for (const char *p = s.ptr; (p = memmem(p, (size_t)(end - p), "+0x", 3)); p++) {
		const char *q = p + 3, *start = p;

		while (q < end && ctype_is_xdigit(*q))
			q++;
		if (q == p + 3 || end - q < 4 || memcmp(q, "/0x", 3) != 0 || !ctype_is_xdigit(q[3]))
			continue;
		while (start > s.ptr && is_symbol(start[-1]))
			start--;
		if (start < p)
			return span_at(start, (size_t)(p - start));
	}
	return span_at(s.ptr, 0);
}

/* "scheduling while atomic: swapper/0" -> "scheduling while atomic": the variable part goes. */
static struct ktap_span span_cut_detail(struct ktap_span s)
{
	static const char *const seps[] = { " in ", " at ", " on ", " for ", " - ", ",", ":", "!" };

	for (size_t i = 0; i < sizeof(seps) / sizeof(seps[0]); i++) {
		const char *p = span_find(s, seps[i]);

		if (p)
			s.len = (size_t)(p - s.ptr);
	}
	while (s.len && s.ptr[s.len - 1] == ' ')
		s.len--;
	return s;
}

/*
 * The kind of a die() line, "STR: 0000 [#1] ...": STR (words only) without the
 * "Oops: " newer kernels put before it and without its detail after ','
 * ("general protection fault, probably for non-canonical address ...").
 */
static bool die_kind(struct ktap_span body, struct ktap_span *kind)
{
	const char *end = body.ptr + body.len;

	for (const char *p = body.ptr; (p = memmem(p, (size_t)(end - p), " [#", 3)); p++) {
		const char *q = p;

		if (end - p < 4 || !ctype_is_digit(p[3]))
			continue;
		while (q > body.ptr && ctype_is_xdigit(q[-1]))
			q--;
		if (p - q < 4 || q - body.ptr < 3 || memcmp(q - 2, ": ", 2) != 0)
			continue;
		*kind = span_at(body.ptr, (size_t)(q - 2 - body.ptr));
		if (kind->len > 6)
			ktap_span_eat(kind, "Oops: ");
		const char *comma = memchr(kind->ptr, ',', kind->len);
		if (comma)
			kind->len = (size_t)(comma - kind->ptr);
		/* die()'s strings are words ("divide error"); this keeps KTAP and noise out. */
		for (size_t i = 0; i < kind->len; i++)
			if (!ctype_is_alpha(kind->ptr[i]) && kind->ptr[i] != ' ')
				return false;
		return kind->len && ctype_is_alpha(kind->ptr[0]);
	}
	return false;
}

/* Hands a finished title to the test whose window the report began in, and to the report. */
static void crash_attach(struct scanner *sc, size_t test, struct strbuf *title)
{
	char *s = text_finish(title);

	if (test != NO_TEST && !sc->r->tests[test].crash)
		sc->r->tests[test].crash = xstrdup(s);
	if (!sc->r->crash) {
		sc->r->crash = s;
		s = NULL;
	}
	free(s);
}

/* Ends the open report with `title`. */
static void crash_end(struct scanner *sc, struct strbuf *title)
{
	struct crash *c = &sc->crash;

	c->open = false;
	crash_attach(sc, c->test, title);
	strbuf_release(&c->kind);
	strbuf_release(&c->fallback);
}

/* Ends the open report, if any, without a function: its fallback title. */
static void crash_close(struct scanner *sc)
{
	if (sc->crash.open)
		crash_end(sc, &sc->crash.fallback);
}

static void crash_begin(struct scanner *sc)
{
	crash_close(sc);
	sc->window_reports++;
	if (sc->cur != NO_TEST)
		sc->ts[sc->cur].crashed = true;
}

/* A report whose title is complete on its first line. */
static void crash_report(struct scanner *sc, const char *prefix, struct ktap_span text)
{
	struct strbuf title = STRBUF_INIT;

	crash_begin(sc);
	text_addstr(&title, prefix);
	text_addspan(&title, text);
	crash_attach(sc, sc->cur, &title);
}

/* A report that waits for its EIP line; `loc` (FILE:LINE) may be empty. */
static void crash_open(struct scanner *sc, struct ktap_span kind, struct ktap_span loc, bool prefix)
{
	struct crash *c = &sc->crash;

	crash_begin(sc);
	c->open = true;
	c->prefix = prefix;
	c->lines_left = CONSOLE_EIP_WINDOW;
	c->test = sc->cur;
	text_addspan(&c->kind, kind);
	text_addspan(&c->fallback, kind);
	if (loc.len) {
		text_addstr(&c->fallback, " at ");
		text_addspan(&c->fallback, loc);
	}
}

/* Where a kernel BUG or WARNING was: "FILE:LINE" after " at ", or an empty span. */
static struct ktap_span span_location(struct ktap_span s, const char *stop)
{
	const char *at = span_find(s, " at ");

	if (at)
		s = span_at(at + 4, s.len - (size_t)(at + 4 - s.ptr));
	else if (!ktap_span_eat(&s, "at "))
		return span_at(s.ptr, 0);
	size_t n = 0;
	while (n < s.len && s.ptr[n] != ' ' && !memchr(stop, s.ptr[n], strlen(stop)))
		n++;
	s.len = n;
	return span_find_function(s).len ? span_at(s.ptr, 0) : s;
}

static void scan_warning(struct scanner *sc, struct ktap_span rest)
{
	if (span_starts(rest, "CPU: ") || span_starts(rest, "at ")) {
		/* __warn(): "CPU: 0 PID: 1 at FILE:LINE FUNC+0x1/0x2". */
		struct ktap_span func = span_find_function(rest), loc = span_location(rest, "");

		if (func.len) {
			crash_report(sc, "WARNING in ", func);
			return;
		}
		crash_open(sc, span_str("WARNING"), loc, false);
		return;
	}
	crash_report(sc, "WARNING: ", span_cut_detail(rest));
}

/* what: the text after "BUG: " in body. */
static void scan_bug(struct scanner *sc, struct ktap_span body, struct ktap_span what)
{
	what = span_cut_detail(what);
	if (!what.len) {
		crash_report(sc, "BUG", what);
		return;
	}
	struct ktap_span kind = span_at(body.ptr, (size_t)(what.ptr + what.len - body.ptr));
	/* Only faults dump registers; other BUG:s have no EIP line of their own. */
	if (span_starts(what, "unable to handle") || span_is(what, "kernel NULL pointer dereference"))
		crash_open(sc, kind, span_at(kind.ptr, 0), true);
	else
		crash_report(sc, "", kind);
}

/* The function of an "EIP: ..." line, if the line is one. */
static bool eip_function(struct ktap_span body, struct ktap_span *func)
{
	if (!ktap_span_eat(&body, "EIP: ") && !ktap_span_eat(&body, "RIP: ") &&
	    !ktap_span_eat(&body, "EIP is at "))
		return false;
	*func = span_find_function(body);
	return func->len > 0;
}

static void scan_crash(struct scanner *sc, struct ktap_span body)
{
	struct crash *c = &sc->crash;
	struct ktap_span rest = body, kind, func;

	if (c->open && eip_function(body, &func)) {
		struct strbuf title = STRBUF_INIT;

		text_addspan(&title, span_at(c->kind.buf, c->kind.len));
		text_addstr(&title, " in ");
		text_addspan(&title, func);
		crash_end(sc, &title);
		return;
	}
	if (ktap_span_eat(&rest, "BUG: ")) {
		scan_bug(sc, body, rest);
	} else if (ktap_span_eat(&rest, "WARNING: ")) {
		scan_warning(sc, rest);
	} else if (ktap_span_eat(&rest, "kernel BUG at ")) {
		crash_open(sc, span_str("kernel BUG"), span_location(body, "!"), true);
	} else if (ktap_span_eat(&rest, "Kernel panic - not syncing: ")) {
		crash_close(sc);
		if (!sc->window_reports)
			crash_report(sc, "kernel panic: ", rest);
	} else if (die_kind(body, &kind)) {
		if (!c->open || !c->prefix)
			crash_open(sc, kind, span_at(kind.ptr, 0), false);
	} else if (ktap_span_eat(&rest, "---[ end")) {
		crash_close(sc);
	} else if (c->open && --c->lines_left <= 0) {
		crash_close(sc);
	}
}

/* The FPU context switch method the kernel chose; the first line that tells wins. */
static void scan_fpu_mode(struct scanner *sc, struct ktap_span body)
{
	if (sc->r->fpu_mode || !ktap_span_eat(&body, "x86/fpu: "))
		return;
	if (span_is(body, "x87 FPU will use FSAVE"))
		sc->r->fpu_mode = "FSAVE";
	else if (span_is(body, "x87 FPU will use FXSAVE"))
		sc->r->fpu_mode = "FXSAVE";
	else if (span_find(body, "xstate") || span_find(body, "XSAVE"))
		sc->r->fpu_mode = "XSAVE";
}

/* How the boot went, from the kernel's own lines: for the reasons of a boot without results. */
static void scan_lifecycle(struct scanner *sc, const struct ktap_line *l)
{
	if (!l->printk)
		return;
	if (span_starts(l->body, "Run ") && span_find(l->body, " as init process"))
		sc->r->ran_init = true;
	else if (span_is(l->body, "reboot: Restarting system"))
		sc->r->rebooted = true;
}

/* Tests. */

static size_t test_add(struct scanner *sc, int index, struct ktap_span name)
{
	struct console_report *r = sc->r;

	if (r->ntests == CONSOLE_MAX_TESTS)
		return NO_TEST;
	if (r->ntests == sc->alloc) {
		sc->alloc = sc->alloc ? sc->alloc * 2 : 16;
		r->tests = xrealloc(r->tests, sc->alloc * sizeof(*r->tests));
		sc->ts = xrealloc(sc->ts, sc->alloc * sizeof(*sc->ts));
	}
	struct console_test *t = &r->tests[r->ntests];
	memset(t, 0, sizeof(*t));
	t->index = index;
	t->status = VERDICT_ERROR;
	t->duration_ms = -1;
	t->name = name.len ? text_dup(name) : xasprintf("test-%d", index);
	memset(&sc->ts[r->ntests], 0, sizeof(sc->ts[0]));
	strbuf_init(&sc->ts[r->ntests].failure);
	return r->ntests++;
}

static void window_start(struct scanner *sc, size_t test)
{
	sc->cur = test;
	sc->window_reports = 0;
}

static void test_begin(struct scanner *sc, struct ktap_span rest)
{
	int index;

	if (!span_number(rest, &index, &rest) || index < 1)
		return;
	window_start(sc, test_add(sc, index, rest));
}

/* "WORD text", or WORD alone. */
static void text_add_directive(struct strbuf *sb, const char *word, struct ktap_span text)
{
	text_addstr(sb, word);
	if (text.len) {
		text_addstr(sb, " ");
		text_addspan(sb, text);
	}
}

/* The status and reason a top-level result line gives. */
static void test_result(struct scanner *sc, const struct ktap_line *l)
{
	size_t i = sc->cur;

	if (i == NO_TEST || sc->r->tests[i].index != l->number || sc->ts[i].has_result)
		window_start(sc, i = test_add(sc, l->number, l->name));
	if (i == NO_TEST)
		return;

	struct console_test *t = &sc->r->tests[i];
	struct test_state *s = &sc->ts[i];
	struct strbuf reason = STRBUF_INIT;

	s->has_result = true;
	if (l->name.len) {
		free(t->name);
		t->name = text_dup(l->name);
	}
	switch (l->directive) {
	case KTAP_DIRECTIVE_SKIP:
		t->status = VERDICT_SKIP;
		text_addspan(&reason, l->text);
		break;
	case KTAP_DIRECTIVE_TODO:
		t->status = VERDICT_SKIP;
		text_add_directive(&reason, "TODO", l->text);
		break;
	case KTAP_DIRECTIVE_TIMEOUT:
		t->status = VERDICT_TIMEOUT;
		text_add_directive(&reason, "TIMEOUT", l->text);
		break;
	default:
		t->status = !l->ok || s->has_failure ? VERDICT_FAIL : VERDICT_PASS;
		if (!l->ok)
			text_addspan(&reason, l->text);
		break;
	}
	if (t->status != VERDICT_SKIP && t->status != VERDICT_PASS && s->has_failure) {
		if (reason.len)
			text_addstr(&reason, "; ");
		text_addspan(&reason, span_at(s->failure.buf, s->failure.len));
	}
	t->reason = reason.len ? text_finish(&reason) : NULL;
	strbuf_release(&reason);
}

static void failure_add_detail(struct test_state *s, struct ktap_span text)
{
	text_addstr(&s->failure, s->has_detail ? "; " : ": ");
	text_addspan(&s->failure, text);
	s->has_detail = true;
}

/* A subtest's line: the first failure and the diagnostics after it make the reason. */
static void test_subline(struct scanner *sc, const struct ktap_line *l)
{
	if (sc->cur == NO_TEST || sc->ts[sc->cur].has_result)
		return;

	struct test_state *s = &sc->ts[sc->cur];

	if (l->kind == KTAP_DIAG) {
		if (s->collecting && l->text.len)
			failure_add_detail(s, l->text);
		return;
	}
	s->collecting = false;
	if (l->kind != KTAP_RESULT || l->ok || s->has_failure ||
	    l->directive == KTAP_DIRECTIVE_SKIP || l->directive == KTAP_DIRECTIVE_TODO)
		return;
	s->has_failure = s->collecting = true;
	if (l->name.len)
		text_addspan(&s->failure, l->name);
	else
		strbuf_addf(&s->failure, "subtest %d", l->number);
	if (l->text.len)
		failure_add_detail(s, l->text);
}

static void scan_fpubench(struct scanner *sc, struct ktap_span rest)
{
	struct console_report *r = sc->r;
	int n;

	if (ktap_span_eat(&rest, "begin ")) {
		test_begin(sc, rest);
	} else if (ktap_span_eat(&rest, "duration_ms ")) {
		if (sc->cur != NO_TEST && span_number(rest, &n, NULL) &&
		    r->tests[sc->cur].duration_ms < 0)
			r->tests[sc->cur].duration_ms = n;
	} else if (ktap_span_eat(&rest, "resume ")) {
		if (span_number(rest, &n, NULL) && n >= 1)
			r->resumed_at = n;
	} else if (ktap_span_eat(&rest, "cpu ")) {
		if (!r->cpu_line)
			r->cpu_line = text_dup(rest);
	} else if (span_is(rest, "done")) {
		r->finished = true;
		window_start(sc, NO_TEST);
	}
}

static void scan_top(struct scanner *sc, const struct ktap_line *l)
{
	struct ktap_span text = l->text;

	switch (l->kind) {
	case KTAP_VERSION:
		sc->r->reached_init = true;
		break;
	case KTAP_PLAN:
		if (sc->r->planned < 0)
			sc->r->planned = l->number;
		break;
	case KTAP_RESULT:
		test_result(sc, l);
		break;
	case KTAP_DIAG:
		if (ktap_span_eat(&text, "fpubench: "))
			scan_fpubench(sc, text);
		break;
	case KTAP_OTHER:
		break;
	}
}

static void scan_line(struct scanner *sc, const char *p, size_t n)
{
	struct ktap_line l;

	ktap_parse_line(&l, p, n);
	scan_crash(sc, l.body);
	scan_fpu_mode(sc, l.body);
	scan_lifecycle(sc, &l);
	if (l.kind == KTAP_OTHER)
		return;
	if (!l.printk && l.depth == 0)
		scan_top(sc, &l);
	else
		test_subline(sc, &l);
}

/* What is left open at the end of the log. */
static void scan_finish(struct scanner *sc)
{
	struct console_report *r = sc->r;

	crash_close(sc);
	for (size_t i = 0; i < r->ntests; i++) {
		struct console_test *t = &r->tests[i];
		struct test_state *s = &sc->ts[i];

		if (!s->has_result && i == sc->cur) {
			r->running = t->index;
			if (s->has_failure)
				t->reason = text_finish(&s->failure);
		} else if (!s->has_result) {
			t->reason = xstrdup("no result line");
		}
		if (s->crashed)
			t->status = VERDICT_CRASH;
		strbuf_release(&s->failure);
	}
}

int console_scan(const char *buf, size_t len, struct console_report **out)
{
	struct scanner sc = { .cur = NO_TEST };
	const char *end = buf + len;

	if (!out || (!buf && len))
		return error_set(ERR_GENERIC, "console_scan: no buffer");
	sc.r = xcalloc(1, sizeof(*sc.r));
	sc.r->planned = -1;
	sc.r->resumed_at = 1;
	strbuf_init(&sc.crash.kind);
	strbuf_init(&sc.crash.fallback);
	for (const char *p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		scan_line(&sc, p, (size_t)(next - p));
		p = next;
	}
	scan_finish(&sc);
	strbuf_release(&sc.crash.kind);
	strbuf_release(&sc.crash.fallback);
	free(sc.ts);
	*out = sc.r;
	return 0;
}

void console_report_free(struct console_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ntests; i++) {
		free(r->tests[i].name);
		free(r->tests[i].reason);
		free(r->tests[i].crash);
	}
	free(r->tests);
	free(r->cpu_line);
	free(r->crash);
	free(r);
}

int console_crash_title(const char *buf, size_t len, char **title)
{
	struct console_report *r;
	int err = console_scan(buf, len, &r);

	if (err < 0)
		return err;
	*title = r->crash;
	r->crash = NULL;
	console_report_free(r);
	return 0;
}
