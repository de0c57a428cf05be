/*
 * lava_log: a LAVA job's log -> the console text the bench's judge reads
 * (console_scan()), and LAVA's own result for the job.
 *
 * The log is one YAML flow mapping per line ({"dt": ..., "lvl": ...,
 * "msg": ...}): on lava-run's stderr as they are, from a server's
 * /api/v0.2/jobs/ID/logs/ as items of a block sequence ("- {...}").  It
 * is not JSON (LAVA may write single-quoted or plain scalars), so each line
 * goes through libyaml.  The console is the `target` lines, in order, plus
 * the `feedback` lines after the end marker: init's "# fpubench: done" as
 * a target line, or LAVA's "ok: end string found" (its monitor matched
 * that line before logging it, and then logs it, and what the kernel still
 * says, "reboot: Restarting system", as feedback).  Each line
 * loses its \r and its terminal escapes (ESC [ ... final byte, and the
 * two-byte ESC x: SeaBIOS clears the screen), and ends in '\n'; lava-run
 * drops the ESC bytes itself and leaves the rest ("[2J"), which the judge
 * reads as it reads a libvirt console's whole escapes.  The
 * job's result is the last `results` line whose case is "job" (definition
 * "lava"): result, error_type ("Infrastructure", "Job", "Canceled", ...)
 * and error_msg.
 *
 * The log is untrusted (a lab's server, or a dispatcher's stderr): any
 * bytes, any length; it is fuzzed.  The console is capped at CONSOLE_MAX
 * (judge/console.h), a line at LAVA_LOG_LINE_MAX bytes; strings from the log
 * are at most CONSOLE_TEXT_MAX bytes.  Errors name the job: a line that is
 * not a YAML mapping, a log with no job result (truncated: LAVA writes it
 * last), a log with no console line.  On error *out still holds what was
 * read (the caller tells a lab's failure from a kernel's by it); release it
 * with lava_log_release() either way.
 */
#ifndef FPUBENCH_LAVA_LOG_H
#define FPUBENCH_LAVA_LOG_H

#include "lib/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

#define LAVA_LOG_LINE_MAX (1u << 20)	/* a log line longer than this is refused */

struct lava_log {
	struct strbuf console;
	size_t console_lines;
	bool has_result;	/* the job's result line was read */
	char *result;		/* "pass", "fail", ...; NULL until then */
	char *error_type;	/* NULL: none */
	char *error_msg;
};

#define LAVA_LOG_INIT { .console = STRBUF_INIT }

/*
 * Reads len bytes of text, the log of the job named `job` in messages.
 * ERR_INPUT: "LAVA job '7' log line 3 is not a YAML mapping", "... log has
 * no job result (truncated)", "... log has no console output".
 */
int lava_log_parse(struct lava_log *out, const char *job, const char *text, size_t len);

void lava_log_release(struct lava_log *l);

#endif
