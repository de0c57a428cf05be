#include "console.h"

#include "crash.h"

#include "lib/ctype.h"
#include "lib/error.h"
#include "ktap.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NO_TEST SIZE_MAX

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
	struct crash_scanner *crashes;
	size_t *report_test;	/* per crash report: the window it began in, or NO_TEST */
	size_t report_alloc;
};

static struct ktap_span span_at(const char *p, size_t len)
{
	return (struct ktap_span){ p, len };
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

/* Whether s holds word as a whole space-separated word. */
static bool span_has_word(struct ktap_span s, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= s.len; i++)
		if ((i == 0 || s.ptr[i - 1] == ' ') && memcmp(s.ptr + i, word, n) == 0 &&
		    (i + n == s.len || s.ptr[i + n] == ' '))
			return true;
	return false;
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

char *console_text_dup(const char *p, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	text_add(&sb, p, n);
	return text_finish(&sb);
}

static char *text_dup(struct ktap_span s)
{
	return console_text_dup(s.ptr, s.len);
}

/* Crash reports (crash.h): each belongs to the window it began in. */

static void scan_crash(struct scanner *sc, const char *p, size_t n)
{
	long i = crash_scanner_line(sc->crashes, p, n);

	if (i < 0)
		return;
	if ((size_t)i >= sc->report_alloc) {
		sc->report_alloc = sc->report_alloc ? sc->report_alloc * 2 : 8;
		sc->report_test = xrealloc(sc->report_test, sc->report_alloc * sizeof(*sc->report_test));
	}
	sc->report_test[i] = sc->cur;
	if (sc->cur != NO_TEST)
		sc->ts[sc->cur].crashed = true;
}

/* Hands each report's title to the test whose window it began in, and the first to the boot. */
static void crash_titles(struct scanner *sc)
{
	crash_scanner_finish(sc->crashes);
	for (size_t i = 0; i < crash_scanner_count(sc->crashes); i++) {
		const char *title = crash_scanner_report(sc->crashes, i)->title;
		size_t test = sc->report_test[i];

		if (test != NO_TEST && !sc->r->tests[test].crash)
			sc->r->tests[test].crash = xstrdup(title);
		if (test == NO_TEST && !sc->r->crash_outside)
			sc->r->crash_outside = xstrdup(title);
		if (!sc->r->crash)
			sc->r->crash = xstrdup(title);
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

/*
 * How the boot went, from the kernel's own lines: for the reasons of a boot
 * without results, and what the kernel found the CPU to be.
 */
static void scan_lifecycle(struct scanner *sc, const struct ktap_line *l)
{
	if (!l->printk)
		return;
	if (span_starts(l->body, "Run ") && span_find(l->body, " as init process"))
		sc->r->ran_init = true;
	else if (span_is(l->body, "reboot: Restarting system"))
		sc->r->rebooted = true;
	else if (span_is(l->body, "Hmm, FPU with FDIV bug"))
		sc->r->fdiv_bug = true;
	else if (span_starts(l->body, "Kernel command line: "))
		sc->r->nofxsr = span_has_word(l->body, "nofxsr");
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
	crash_scanner_fence(sc->crashes);
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
	scan_crash(sc, p, n);
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

	crash_titles(sc);
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
	sc.crashes = crash_scanner_new();
	for (const char *p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		scan_line(&sc, p, (size_t)(next - p));
		p = next;
	}
	scan_finish(&sc);
	crash_scanner_free(sc.crashes);
	free(sc.report_test);
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
	free(r->crash_outside);
	free(r);
}
