#include "ktap.h"

#include "sys.h"

#include <asm/errno.h>
#include <asm/ioctls.h>

struct ktap_line {
	struct fmt_buf text;
	char storage[KTAP_LINE_MAX];
};

static void ktap_line_begin(struct ktap_line *line, const struct ktap *k)
{
	/* One byte stays free for the newline ktap_line_end() adds. */
	fmt_init(&line->text, line->storage, sizeof(line->storage) - 1);
	for (int i = 0; i < k->depth; i++)
		fmt_addf(&line->text, "    ");
}

static void ktap_line_end(struct ktap_line *line)
{
	const char *p = line->storage;
	size_t left = line->text.len;

	line->storage[left++] = '\n';
	while (left) {
		long n = sys_write(1, p, left);

		if (n == -EINTR)
			continue;
		if (n <= 0)
			return;	/* the console is the only place to report it */
		p += n;
		left -= (size_t)n;
	}
	sys_ioctl(1, TCSBRK, 1);	/* tcdrain(): wait until the UART sent it */
}

void ktap_init(struct ktap *k, int depth)
{
	k->depth = depth;
	k->planned = -1;
	k->next = 1;
	k->failed = 0;
	k->skip = NULL;
}

__attribute__((format(printf, 2, 3)))
static void ktap_print(const struct ktap *k, const char *fmt, ...)
{
	struct ktap_line line;
	va_list ap;

	ktap_line_begin(&line, k);
	va_start(ap, fmt);
	fmt_vaddf(&line.text, fmt, ap);
	va_end(ap);
	ktap_line_end(&line);
}

void ktap_header(const struct ktap *k)
{
	ktap_print(k, "KTAP version 1");
}

void ktap_plan(struct ktap *k, int count)
{
	k->planned = count;
	ktap_print(k, "1..%d", count);
}

void ktap_skip_all(struct ktap *k, const char *reason)
{
	ktap_plan(k, 0);
	k->skip = reason;
}

void ktap_number_next(struct ktap *k, int number)
{
	k->next = number;
}

/* `fmt` NULL: no directive (then `ap` is not read). */
static void ktap_result_line(struct ktap *k, bool ok, const char *name, const char *fmt,
			     va_list *ap)
{
	struct ktap_line line;

	ktap_line_begin(&line, k);
	fmt_addf(&line.text, "%s %d %s", ok ? "ok" : "not ok", k->next++, name);
	if (fmt) {
		fmt_addf(&line.text, " # ");
		fmt_vaddf(&line.text, fmt, *ap);
	}
	ktap_line_end(&line);
	if (!ok)
		k->failed++;
}

void ktap_result(struct ktap *k, bool ok, const char *name)
{
	ktap_result_line(k, ok, name, NULL, NULL);
}

void ktap_result_directive(struct ktap *k, bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_result_line(k, ok, name, fmt, &ap);
	va_end(ap);
}

void ktap_diag(const struct ktap *k, const char *fmt, ...)
{
	struct ktap_line line;
	va_list ap;

	ktap_line_begin(&line, k);
	fmt_addf(&line.text, "# ");
	va_start(ap, fmt);
	fmt_vaddf(&line.text, fmt, ap);
	va_end(ap);
	ktap_line_end(&line);
}

void ktap_check_begin(struct ktap_check *c)
{
	c->ok = true;
	fmt_init(&c->notes, c->storage, sizeof(c->storage));
}

__attribute__((format(printf, 2, 0)))
static void ktap_check_vnote(struct ktap_check *c, const char *fmt, va_list ap)
{
	fmt_vaddf(&c->notes, fmt, ap);
	fmt_add_char(&c->notes, '\n');
}

void ktap_check_expect(struct ktap_check *c, bool holds, const char *fmt, ...)
{
	va_list ap;

	if (holds)
		return;
	c->ok = false;
	va_start(ap, fmt);
	ktap_check_vnote(c, fmt, ap);
	va_end(ap);
}

void ktap_check_note(struct ktap_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_check_vnote(c, fmt, ap);
	va_end(ap);
}

void ktap_check_end(struct ktap *k, struct ktap_check *c, const char *name)
{
	ktap_result(k, c->ok, name);
	if (c->ok)
		return;
	for (char *p = c->notes.data; *p;) {
		char *end = p;

		while (*end && *end != '\n')
			end++;
		if (*end)
			*end++ = '\0';
		ktap_diag(k, "%s", p);
		p = end;
	}
}
