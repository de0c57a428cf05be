/*
 * libFuzzer target for a LAVA job's log (bench/lab/lava_log.h): for any
 * bytes, the parser returns 0 or ERR_INPUT, never a result without the
 * console its success promises, a console within CONSOLE_MAX plus one line
 * end, with no \r nor ESC, and strings within CONSOLE_TEXT_MAX.  The input
 * is copied to a buffer of exactly its length, so ASan catches a read
 * past it; the console then goes through the judge's scanner.
 */
#include "judge/console.h"
#include "lab/lava_log.h"
#include "lib/error.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *s)
{
	if (s && strlen(s) > CONSOLE_TEXT_MAX)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct lava_log l = LAVA_LOG_INIT;
	struct console_report *r = NULL;
	int err;

	memcpy(copy, data, size);
	err = lava_log_parse(&l, "fuzz", copy, size);
	if (err != 0 && err != ERR_INPUT)
		abort();
	if (err == 0 && (!l.has_result || !l.console_lines || !l.console.len))
		abort();
	if (l.console.len > CONSOLE_MAX + 1 || memchr(l.console.buf, '\r', l.console.len) ||
	    memchr(l.console.buf, 0x1b, l.console.len))
		abort();
	check_text(l.result);
	check_text(l.error_type);
	check_text(l.error_msg);
	if (console_scan(l.console.buf, l.console.len, &r) == 0)
		console_report_free(r);
	lava_log_release(&l);
	error_clear();
	free(copy);
	return 0;
}
