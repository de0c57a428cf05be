/*
 * crash_table: the data behind the crash scanner (crash.c), kept apart so
 * that crash.c reads as the algorithm, and its title normalisation
 * (crash_title.c): the report formats and their title
 * templates, the lines that look like reports and are not, the frames no
 * title is named after, and their compiled regular expressions.  All of
 * it is constant after crash_rx_ready(); nothing here is for other
 * modules than crash.c.
 */
#ifndef FPUBENCH_CRASH_TABLE_H
#define FPUBENCH_CRASH_TABLE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#define FUNC_MAX 96		/* bytes of a function name that are kept */
#define CTX_MAX 16		/* bytes of a caller id ("T12345", "C3") */
#define PANIC_NEAR 100		/* a panic this close to a report is its consequence */
#define PANIC_CUTS 22		/* a report longer than this ends at a panic (its stack is the panic's) */

/*
 * Where a title's FUNC comes from, as in syzkaller: a report's parts are
 * looked for in order, each on the lines after the previous one's.
 */
enum part_kind {
	P_END,
	P_RIP,		/* the first "RIP: 0010:f+0x1/0x2" / "EIP: f+..." / "pc : f+...": f */
	P_TRACE,	/* a "Call Trace:" line */
	P_FRAMES,	/* the frames that follow, up to the next stack's start */
	P_LINE,		/* a line holding one of the '|'-separated needles */
	P_CAPTURE,	/* a line holding the needle, then "[<pc>] " and f+... : f */
	P_NAME,		/* the same, but f names the report even if it is a frame to skip */
};

struct part {
	enum part_kind kind;
	const char *needle;
};

#define RIP { P_RIP, NULL }
#define TRACE { P_TRACE, NULL }
#define FRAMES { P_FRAMES, NULL }
#define LINE(s) { P_LINE, s }
#define AT(s) { P_CAPTURE, s }
/* syzkaller's report-line captures (lockdep's "at: f"): no frame list is skipped over. */
#define NAME(s) { P_NAME, s }

/* Which of the frames found names the report. */
enum extractor {
	EX_FIRST,	/* the first one not skipped */
	EX_STALL,	/* the one before the first dispatcher (syscall, workqueue...): lockups, stalls */
	EX_HUNG,	/* the first that is not a sleep or lock helper: hung tasks */
};

enum {
	F_CORRUPTED = 1,	/* such a title is always the sign of a cut report */
	F_CONTINUES = 2,	/* inside a report of its context the line continues it */
	F_PANIC = 4,		/* a report only far from other reports (see crash.h) */
	F_HEADER_FUNC = 8,	/* no frame: the function on the first line, if any */
	F_ACCESS = 16,		/* %A is "Read" or "Write" from a later line (KASAN) */
	F_START = 32,		/* only at the start of the line, after its prefixes and a "subsystem: " */
	F_NUMS = 128,		/* a number in the title is NUM (executor and process ids, temp dir names) */
	F_NEEDS_LINE = 256,	/* without its first part's line, the title is the header's line, corrupted */
};

/*
 * A kind of report: the first format whose header occurs in a line (as a
 * word: "DEBUG:" is not "BUG:") and whose `re` (POSIX ERE, from the header
 * on) matches begins a report.  The title is `title` with %1 and %2 the
 * re's groups, %F the frame, %A the access, %K a die() line's kind and %L
 * the line from the header on.  `skip` adds frames to skip_frames.
 */
struct format {
	const char *header;
	const char *re;
	const char *title;
	struct part parts[4];
	struct part parts2[3];	/* tried when `parts` find no frame */
	const char *skip;
	enum extractor ex;
	unsigned flags;
};

struct crash_ignore {
	const char *needle, *re;
};

extern const struct format crash_formats[];
extern const struct format crash_die_format;
extern const struct crash_ignore crash_ignores[];
extern const char *const crash_header_starts[];
extern const char *const crash_hung_skip[];
extern const char *const crash_frame_prefixes[];
extern const char crash_stall_anchors[];
extern const char crash_corrupting_frames[];
extern const char crash_stack_notices[];
extern const size_t crash_nframe_prefixes, crash_nhung_skip, crash_nheader_starts;

/* The compiled expressions; the arrays have nformats and nignores entries. */
struct crash_rx {
	size_t nformats, nignores;
	regex_t *re;
	regex_t skip;			/* crash_skip_frames */
	regex_t *format_skip;		/* each format's own, where it has one */
	regex_t *ignore;
	regex_t anchors;
	regex_t corrupting;		/* crash_corrupting_frames */
	bool first[256];		/* the first bytes of crash_header_starts */
};

extern struct crash_rx crash_rx;

/* Compiles the expressions once, whichever thread comes first. */
void crash_rx_ready(void);

/* Reading one line of a report (crash_line.c). */
bool crash_is_ident(char c);
size_t crash_frame_at(const char *p, const char **func, bool *guess);
bool crash_arm_frames_at(const char *p, const char *func[2], size_t n[2]);
size_t crash_func_after(const char *p, const char **func);
size_t crash_name_after(const char *p, const char **func);
bool crash_rip_at(const char *text, const char **func, size_t *n);
bool crash_is_i386(const char *text);
bool crash_is_call_trace(const char *text);
bool crash_is_stack_start(const char *text);
bool crash_has_needle(const char *text, const char *needles);
bool crash_is_end_marker(const char *text);
bool crash_die_kind(const char *text, char *kind, size_t size);
const char *crash_strip_prefixes(const char *p, char ctx[CTX_MAX], bool *stamped);

/*
 * A title as syzkaller writes it (crash_title.c): "f+0x1/0x2" is "f", the
 * fuzzer's process names lose their numbers, addresses and (with nums, a
 * format's F_NUMS) the numbers that change from run to run are ADDR, NUM,
 * IP and CPU.
 */
struct strbuf;
void crash_title_normalize(struct strbuf *sb, bool nums);

#endif
