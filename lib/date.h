/*
 * date: the two date formats the bench reads and writes.  RFC 2822
 * (mail Date: headers, `git format-patch`'s "Date:") is read; ISO 8601
 * in UTC ("2026-12-05T20:04:00Z", what results, history and JSON hold)
 * is written.  Times are seconds since the epoch, as int64_t.
 */
#ifndef FPUBENCH_DATE_H
#define FPUBENCH_DATE_H

#include <stddef.h>
#include <stdint.h>

/* ISO 8601 in UTC needs this many bytes, NUL included. */
#define DATE_ISO8601_SIZE 21

/*
 * Parses "[Day, ]D Mon YYYY HH:MM[:SS] +ZZZZ" into the epoch time and the
 * zone's offset in minutes.  Returns 0, or -1 when s is not such a date.
 */
int date_parse_rfc2822(const char *s, int64_t *time_out, int *tz_out);

/*
 * Writes t as ISO 8601 in UTC into buf (at least DATE_ISO8601_SIZE bytes);
 * a time gmtime() cannot take is written as its plain number of seconds.
 */
void date_format_iso8601(char *buf, size_t size, int64_t t);

#endif
