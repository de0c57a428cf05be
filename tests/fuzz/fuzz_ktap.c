/*
 * libFuzzer target for the KTAP line reader on its own: for any bytes,
 * every span stays inside the line, numbers and depth are in range, and
 * each kind fills only its own fields (bench/judge/ktap.h).  The input is copied
 * to a buffer of exactly its length, so ASan catches a read past it.
 */
#include "judge/ktap.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_span(struct ktap_span s, const char *line, size_t len)
{
	if (s.len && (s.ptr < line || s.len > len || (size_t)(s.ptr - line) > len - s.len))
		abort();
}

static void check_line(const char *line, size_t len)
{
	struct ktap_line l;

	ktap_parse_line(&l, line, len);
	check_span(l.body, line, len);
	check_span(l.name, line, len);
	check_span(l.text, line, len);
	if (l.depth < 0 || l.number < 0)
		abort();
	if (l.kind != KTAP_RESULT && (l.ok || l.name.len || l.directive != KTAP_DIRECTIVE_NONE))
		abort();
	if ((l.kind == KTAP_OTHER || l.kind == KTAP_DIAG) && l.number)
		abort();
	if (l.kind != KTAP_RESULT && l.kind != KTAP_DIAG && l.text.len)
		abort();
	/* Diagnostic text starts after the blanks that follow '#'. */
	if (l.kind == KTAP_DIAG && l.text.len && (l.text.ptr[0] == ' ' || l.text.ptr[0] == '\t'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	size_t start = 0;

	memcpy(copy, data, size);
	check_line(copy, size);
	/* And line by line, as the console scanner feeds it. */
	for (size_t i = 0; i <= size; i++) {
		if (i == size || copy[i] == '\n') {
			check_line(copy + start, i - start);
			start = i + 1;
		}
	}
	free(copy);
	return 0;
}
