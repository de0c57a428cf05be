/*
 * crash: finds the kernel's crash reports in a console log and titles them
 * as the kernel community does (syzkaller's Linux conventions: "WARNING in
 * FUNC", "BUG: unable to handle kernel NULL pointer dereference in FUNC",
 * "INFO: task hung in FUNC", "kernel panic: MSG", ...).  The title table
 * and the frames a title skips are data: crash_formats[].
 *
 * The scanner is fed one line at a time and keeps bounded state, so a log
 * of any size streams through it: at most CRASH_OPEN reports are open at
 * once, a line is read up to CRASH_LINE_MAX bytes, a report's frames up to
 * CRASH_FRAMES, and at most CRASH_MAX_REPORTS reports are kept.  Lines may
 * hold any bytes; they need no NUL and may end in "\n" or "\r\n".
 *
 * What a line is: a printk prefix ("<4>", "[   12.345678]", a caller id
 * "[    T1]" or "[  C0]") and a syslog/journal "... kernel: " prefix are
 * dropped.  With caller ids, a report takes only the lines of its own
 * context, so lines of other CPUs and tasks interleaved in it do not count;
 * a report whose first line had a printk timestamp takes only lines that
 * have one (the fuzzer's or a shell's output interleaved is not its own).
 * A header printk split at a newline in it (a task's name) is read whole
 * from the lines of its timestamp and caller id.
 *
 * Reports: the first line of a known kind begins one; it ends at its end
 * marker ("---[ end trace", a sanitizer's "====="), at the next report of
 * its context (with a caller id, once it has its frame: before, it reads on
 * through the next report's lines, as syzkaller does), at a fence, at a panic after more than 22 of its lines (what
 * follows is the panic's own stack), after CRASH_REPORT_LINES lines, or at
 * the end of the log.  Lines that only continue a report ("invalid opcode:
 * 0000" after a kernel BUG, the panic after a WARNING, "Oops: 0000 [#2]")
 * begin none, nor does "unregister_netdevice: waiting for" inside a report.
 * Without caller ids a notice that prints a stack and is no report
 * ("FAULT_INJECTION: forcing a failure") ends the report it comes in.  A panic is a consequence, not a report, when a report was
 * active in the 100 lines before it, after the last crash_scanner_fence().
 *
 * A report is corrupted when its title could not be complete (no frame
 * where one belongs: FUNC is then "corrupted"; only a panic's consequence
 * seen) or when the log ended inside it.
 *
 * Ownership: the scanner owns its reports and their titles; they live
 * until crash_scanner_free().  Titles are printable ASCII, at most
 * CRASH_TITLE_MAX bytes.
 */
#ifndef FPUBENCH_CRASH_H
#define FPUBENCH_CRASH_H

#include <stdbool.h>
#include <stddef.h>

#define CRASH_TITLE_MAX 200	/* bytes of a title, "..." included when cut */
#define CRASH_LINE_MAX 1024	/* bytes of a line that are read */
#define CRASH_FRAMES 48		/* frames of a report that are kept */
#define CRASH_OPEN 8		/* reports open at once (interleaved contexts) */
#define CRASH_REPORT_LINES 400	/* lines of one report */
#define CRASH_MAX_REPORTS 4096	/* reports kept; later ones are only counted */

struct crash {
	char *title;
	long first_line;	/* 1-based lines of the log: the report's first */
	long last_line;		/* and the last line that was part of it */
	bool corrupted;
};

struct crash_scanner;

struct crash_scanner *crash_scanner_new(void);

/*
 * Reads the log's next line.  Returns the index of the report the line
 * begins, or -1 (also for a report past CRASH_MAX_REPORTS).
 */
long crash_scanner_line(struct crash_scanner *s, const char *line, size_t len);

/* A boundary the caller knows of (a new test began): ends the open reports; see the panic rule. */
void crash_scanner_fence(struct crash_scanner *s);

/* The log ended: ends the open reports.  Call once, after the last line. */
void crash_scanner_finish(struct crash_scanner *s);

/* Reports in the order they began; valid after crash_scanner_finish(). */
size_t crash_scanner_count(const struct crash_scanner *s);
const struct crash *crash_scanner_report(const struct crash_scanner *s, size_t i);

void crash_scanner_free(struct crash_scanner *s);

/*
 * One rule of the title table, in the order the rules are tried, for
 * people to read (`fpubench console --rules`).  `begins` is the text that
 * begins a report, or the POSIX ERE a line matches from that text on;
 * `title` the template: %1 and %2 the ERE's groups, %F the frame the
 * report is named after (FUNC), %A Read or Write, %K the die() line's
 * kind, %L the line from its header on.  `skips` says which frames the
 * rule passes over besides those no title is named after (an ERE, a
 * phrase, both, or ""); `start`: `begins` counts only at the start of a
 * line.  `title` is static.
 */
struct crash_rule {
	char begins[320];
	const char *title;
	char skips[320];
	bool start;
};

/* Fills *rule with the i-th rule; false past the last. */
bool crash_rule_get(size_t i, struct crash_rule *rule);

#endif
