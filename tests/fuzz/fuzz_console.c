/*
 * libFuzzer target for the console scanner and the KTAP line reader, which
 * read what a guest prints: the report's invariants (bench/console.h) must
 * hold for any bytes.
 */
#include "judge/console.h"
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
	return 0;
}
