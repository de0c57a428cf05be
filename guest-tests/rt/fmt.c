#include "fmt.h"

#include <stdbool.h>

void fmt_init(struct fmt_buf *b, char *data, size_t size)
{
	b->data = data;
	b->size = size;
	b->len = 0;
	data[0] = '\0';
}

void fmt_add_char(struct fmt_buf *b, char c)
{
	if (b->len + 1 >= b->size)
		return;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

static void fmt_add_str(struct fmt_buf *b, const char *s)
{
	if (!s)
		s = "(null)";
	while (*s)
		fmt_add_char(b, *s++);
}

static void fmt_add_number(struct fmt_buf *b, unsigned long magnitude, bool negative,
			   unsigned int base, unsigned int width, char pad)
{
	char digits[10];	/* 4294967295 */
	unsigned int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[magnitude % base];
		magnitude /= base;
	} while (magnitude);
	/* As in printf: "-0042" with zeros, "  -42" with spaces. */
	if (negative && pad == '0')
		fmt_add_char(b, '-');
	for (unsigned int len = n + negative; len < width; len++)
		fmt_add_char(b, pad);
	if (negative && pad != '0')
		fmt_add_char(b, '-');
	while (n)
		fmt_add_char(b, digits[--n]);
}

void fmt_vaddf(struct fmt_buf *b, const char *fmt, va_list ap)
{
	for (const char *p = fmt; *p; p++) {
		unsigned int width = 0;
		char pad = ' ';

		if (*p != '%') {
			fmt_add_char(b, *p);
			continue;
		}
		if (*++p == '0')
			pad = *p++;
		while (*p >= '0' && *p <= '9')
			width = width * 10 + (unsigned int)(*p++ - '0');
		if (*p == 'l')
			p++;
		switch (*p) {
		case 'd':
		case 'i': {
			long v = va_arg(ap, long);

			/* Negate as unsigned: -LONG_MIN overflows a long. */
			fmt_add_number(b, v < 0 ? 0ul - (unsigned long)v : (unsigned long)v, v < 0,
				       10, width, pad);
			break;
		}
		case 'u':
			fmt_add_number(b, va_arg(ap, unsigned long), false, 10, width, pad);
			break;
		case 'x':
			fmt_add_number(b, va_arg(ap, unsigned long), false, 16, width, pad);
			break;
		case 'c':
			fmt_add_char(b, (char)va_arg(ap, int));
			break;
		case 's':
			fmt_add_str(b, va_arg(ap, const char *));
			break;
		case '%':
			fmt_add_char(b, '%');
			break;
		case '\0':
			return;
		default:	/* unknown: show it rather than guess its argument */
			fmt_add_char(b, '%');
			fmt_add_char(b, *p);
			break;
		}
	}
}

void fmt_addf(struct fmt_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vaddf(b, fmt, ap);
	va_end(ap);
}
