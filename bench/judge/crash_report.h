/*
 * crash_report: one report the scanner (crash.c) has open: the parts of
 * it found so far (syzkaller's RIP line, call trace, frames, ...), the
 * frames each part gave, and the title those make.  Internal to crash.c
 * and crash_report.c.
 *
 * Invariants: part[i] indexes f->parts (i = 0) or f->parts2 (i = 1) and
 * only grows; frames[i] holds the reliable frames of parts[i] and
 * guessed[i] those with the questionable ones ("? f+0x.."), at most
 * CRASH_FRAMES each, in the order printed.
 */
#ifndef FPUBENCH_CRASH_REPORT_H
#define FPUBENCH_CRASH_REPORT_H

#include "crash.h"
#include "crash_table.h"

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct frames {
	int n;
	char name[CRASH_FRAMES][FUNC_MAX];
};

struct open_report {
	bool used;
	size_t index;		/* into s->reports */
	const struct format *f;
	const regex_t *skip;	/* the format's own frames to skip, or NULL */
	char ctx[CTX_MAX];
	char args[2][CRASH_TITLE_MAX + 1];	/* %1, %2 */
	char line[CRASH_TITLE_MAX + 1];		/* %L */
	char kind[64];				/* %K */
	char access[8];				/* %A */
	char header_func[FUNC_MAX];
	int part[2];		/* progress in f->parts and f->parts2 */
	struct frames frames[2];	/* parts[i]'s reliable frames */
	struct frames guessed[2];	/* and with the questionable ones, for a trace that has no other */
	bool after_frame[2];	/* the last line of parts[i]'s frames was a frame */
	long lines;
	bool complete;		/* its end was seen */
	bool bad_ip;		/* its RIP line had no function: a bare or null address */
	bool injected[2];	/* a fault injection's frame came among parts[i]'s frames */
	bool stamped;		/* its first line had a printk timestamp: it takes only such lines */
	bool trailing;		/* another report of its caller id began inside it (trail_feed()) */
};

/* Copies at most size - 1 bytes of src[0..n) into dst, NUL-terminated, each unprintable one as '?'. */
void crash_copy_text(char *dst, size_t size, const char *src, size_t n);

/* Moves both parts of the report on by one line. */
void crash_report_feed_parts(struct open_report *o, const char *text);

/* The frame that names the report (guesses: questionable frames count), or NULL. */
const char *crash_report_frame(const struct open_report *o, bool guesses);

/* The report's title; *corrupted is set when it could not be read whole.  Caller frees. */
char *crash_report_title(const struct open_report *o, bool guesses, bool *corrupted);

#endif
