/*
 * notice: what library code tells the user while it works ("extracting
 * ...", "waiting for the cache lock ...", a config warning), as opposed to
 * a failure, which goes through error_set().
 *
 * Library code never prints itself: it calls notice(), and the command
 * decides where notices go (notice_set_sink()): above a live progress line,
 * into a log, or by default to stderr as "fpubench: MESSAGE".  A message is
 * one line, or several for a quoted log tail, without its final newline.
 * notice() may be called from any thread; the sink is called with a lock
 * held, one message at a time.
 */
#ifndef FPUBENCH_NOTICE_H
#define FPUBENCH_NOTICE_H

typedef void notice_sink_fn(const char *message, void *ctx);

void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sends every later notice to fn (NULL: back to stderr). */
void notice_set_sink(notice_sink_fn *fn, void *ctx);

#endif
