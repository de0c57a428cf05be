/*
 * ktap: classifies one line of KTAP (Documentation/dev-tools/ktap.rst).
 *
 * ktap_parse_line() is pure and allocates nothing: every span in a struct
 * ktap_line points into the caller's line and is valid while it is.  It
 * reads exactly `len` bytes, so lines may hold NULs and any other bytes;
 * spans are not NUL-terminated.
 *
 * Before classifying, it drops trailing '\r' and '\n' and one leading
 * printk timestamp ("[    1.234567] "), since a console interleaves kernel
 * lines with init's and an in-kernel test may print KTAP through printk.
 * Then each indentation level is 4 spaces or one tab (a tab is accepted
 * because some printers indent with it; 1-3 stray spaces make the line
 * KTAP_OTHER, as do leading spaces after full levels).
 */
#ifndef FPUBENCH_KTAP_H
#define FPUBENCH_KTAP_H

#include <stdbool.h>
#include <stddef.h>

/* A view into the caller's bytes; not NUL-terminated. */
struct ktap_span {
	const char *ptr;
	size_t len;
};

enum ktap_kind {
	KTAP_OTHER,		/* not KTAP: kernel messages, noise */
	KTAP_VERSION,		/* "KTAP version N" (or TAP's "TAP version N") */
	KTAP_PLAN,		/* "1..N" */
	KTAP_RESULT,		/* "ok N name # directive", "not ok N ..." */
	KTAP_DIAG,		/* "# text" */
};

enum ktap_directive {
	KTAP_DIRECTIVE_NONE,
	KTAP_DIRECTIVE_SKIP,
	KTAP_DIRECTIVE_TODO,
	KTAP_DIRECTIVE_TIMEOUT,
	KTAP_DIRECTIVE_OTHER,	/* any other "# text", e.g. "killed by signal 9" */
};

struct ktap_line {
	enum ktap_kind kind;
	bool printk;		/* it carried a printk timestamp */
	int depth;		/* full indentation levels */
	struct ktap_span body;	/* the line after the timestamp, indentation kept */
	int number;		/* version, plan count or result number, 0..INT_MAX */
	bool ok;		/* KTAP_RESULT: "ok" rather than "not ok" */
	struct ktap_span name;	/* KTAP_RESULT: description, without TAP's "- " */
	enum ktap_directive directive;	/* KTAP_RESULT */
	/*
	 * KTAP_RESULT: the directive's text after its keyword ("needs SSE3"
	 * for "# SKIP needs SSE3"), or all of it for KTAP_DIRECTIVE_OTHER.
	 * KTAP_DIAG: the text after "# ".
	 */
	struct ktap_span text;
};

/* Fills *out from the `len` bytes at `line`; line may be NULL when len is 0. */
void ktap_parse_line(struct ktap_line *out, const char *line, size_t len);

/* Whether s starts with prefix; if so, s moves past it. */
bool ktap_span_eat(struct ktap_span *s, const char *prefix);

/* Whether s starts with a decimal 0..INT_MAX; if so, *out is set and s moves past it. */
bool ktap_span_eat_number(struct ktap_span *s, int *out);

#endif
