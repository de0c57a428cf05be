/*
 * libFuzzer target for the console scanner, the crash report scanner and
 * the KTAP line reader, which read what a guest prints: the invariants of
 * bench/judge/console.h and crash.h must hold for any bytes.
 */
#include "judge/console.h"
#include "judge/crash.h"
#include "judge/ktap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *s)
{
	if (s && strlen(s) > CONSOLE_TEXT_MAX)
		abort();
	for (; s && *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			abort();
}

/* The crash scanner alone, as `fpubench console` feeds it: line by line. */
static void check_crashes(const char *data, size_t size)
{
	struct crash_scanner *s = crash_scanner_new();

	for (const char *p = data, *end = data + size; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		crash_scanner_line(s, p, (size_t)(next - p));
		p = next;
	}
	crash_scanner_finish(s);
	for (size_t i = 0; i < crash_scanner_count(s); i++) {
		const struct crash *c = crash_scanner_report(s, i);

		if (!c->title || strlen(c->title) > CRASH_TITLE_MAX || c->first_line < 1 ||
		    c->last_line < c->first_line)
			abort();
		check_text(c->title);
	}
	crash_scanner_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_report *r;
	struct ktap_line line;

	if (console_scan((const char *)data, size, &r) < 0 || r->ntests > CONSOLE_MAX_TESTS)
		abort();
	for (size_t i = 0; i < r->ntests; i++) {
		if (!r->tests[i].name)
			abort();
		check_text(r->tests[i].name);
		check_text(r->tests[i].reason);
		check_text(r->tests[i].crash);
	}
	check_text(r->crash);
	check_text(r->cpu_line);
	console_report_free(r);
	ktap_parse_line(&line, (const char *)data, size);
	check_crashes((const char *)data, size);
	return 0;
}
