#include "progress.h"

#include "clock.h"

#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PLAIN_INTERVAL_S 1.0

void progress_init(struct progress *p, FILE *f, const char *what)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->what = what;
	p->tty = isatty(fileno(f));
	p->started = clock_seconds();
	p->last_print = -PLAIN_INTERVAL_S;
}

/*
 * The columns the line may take on the terminal: one less than its width,
 * since a line that fills the last column wraps on some terminals and \r
 * then redraws only its second row.  0: no limit.
 */
static size_t line_columns(FILE *f)
{
	struct winsize ws;

	if (ioctl(fileno(f), TIOCGWINSZ, &ws) < 0 || ws.ws_col < 2)
		return 0;
	return ws.ws_col - 1u;
}

static void progress_print(struct progress *p)
{
	char line[sizeof(p->line) + 64];
	size_t cols, len;

	snprintf(line, sizeof(line), "%s: %s", p->what, p->line);
	len = strlen(line);
	if (p->tty && (cols = line_columns(p->f)) && len > cols) {
		/* Cut at a character's first byte, not inside a UTF-8 sequence. */
		for (len = cols; len && (line[len] & 0xc0) == 0x80; len--)
			;
		line[len] = '\0';
	}
	/* \033[K clears what a longer line left. */
	if (p->tty)
		fprintf(p->f, "\r%s\033[K", line);
	else
		fprintf(p->f, "%s\n", line);
	fflush(p->f);
	p->shown = true;
}

void progress_update(struct progress *p, double fraction, const char *fmt, ...)
{
	double now = clock_seconds(), elapsed = now - p->started;
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->line, sizeof(p->line), fmt, ap);
	va_end(ap);
	len = strlen(p->line);
	p->shown = false;
	if (fraction > 0 && fraction < 1 && len < sizeof(p->line))
		snprintf(p->line + len, sizeof(p->line) - len, ", ETA %.0f s",
			 elapsed * (1 - fraction) / fraction);
	if (!p->tty && now - p->last_print < PLAIN_INTERVAL_S)
		return;
	p->last_print = now;
	progress_print(p);
}

void progress_end(struct progress *p)
{
	if (!*p->line)
		return;
	if (!p->shown)
		progress_print(p);
	if (p->tty)
		fputc('\n', p->f);
	*p->line = '\0';
}
