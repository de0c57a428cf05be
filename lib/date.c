#include "date.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *month_names[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

int date_parse_rfc2822(const char *s, int64_t *time_out, int *tz_out)
{
	struct tm tm = { 0 };
	char mon[4] = "";
	int day, year, h, m, sec = 0;
	char sign;
	unsigned tz;
	const char *comma = strchr(s, ',');

	if (comma)
		s = comma + 1;
	if (sscanf(s, " %d %3s %d %d:%d:%d %c%4u", &day, mon, &year, &h, &m, &sec,
		   &sign, &tz) < 8 || (sign != '+' && sign != '-'))
		return -1;
	tm.tm_mon = -1;
	for (int i = 0; i < 12; i++)
		if (strcasecmp(mon, month_names[i]) == 0)
			tm.tm_mon = i;
	if (tm.tm_mon < 0 || day < 1 || day > 31 || h > 23 || m > 59 || sec > 60)
		return -1;
	tm.tm_mday = day;
	tm.tm_year = year - 1900;
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = sec;
	int offset = (int)(tz / 100 * 60 + tz % 100);
	if (sign == '-')
		offset = -offset;
	*time_out = (int64_t)timegm(&tm) - (int64_t)offset * 60;
	*tz_out = offset;
	return 0;
}

void date_format_iso8601(char *buf, size_t size, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "%" PRId64, t);
}
