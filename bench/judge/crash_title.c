#include "crash_table.h"

#include "lib/ctype.h"
#include "lib/strbuf.h"

#include <string.h>

/* "f+0x1/0x2" -> "f": offsets differ between builds, the name does not. */
static void strip_offsets(struct strbuf *sb)
{
	size_t w = 0;

	for (size_t r = 0; r < sb->len;) {
		if (sb->buf[r] == '+' && r && crash_is_ident(sb->buf[r - 1]) && strncmp(sb->buf + r, "+0x", 3) == 0) {
			size_t e = r + 3;

			while (e < sb->len && ctype_is_xdigit(sb->buf[e]))
				e++;
			if (e > r + 3 && strncmp(sb->buf + e, "/0x", 3) == 0 && ctype_is_xdigit(sb->buf[e + 3])) {
				e += 3;
				while (e < sb->len && ctype_is_xdigit(sb->buf[e]))
					e++;
				r = e;
				continue;
			}
		}
		sb->buf[w++] = sb->buf[r++];
	}
	sb->len = w;
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->len--;
	sb->buf[sb->len] = '\0';
}

/* The length of an IPv6 address at p ("2001:db8::1": 8 groups, or fewer around a "::"), else 0. */
static size_t ipv6_at(const char *p)
{
	size_t n = 0, colons = 0, digits = 0, hex = 0;
	bool gap = false;

	for (;; n++) {
		if (p[n] == ':') {
			bool empty = n && p[n - 1] == ':';

			if (++colons > 7 || (empty && gap))
				return 0;	/* a second "::" */
			gap |= empty;
			digits = 0;
		} else if (ctype_is_lower_xdigit(p[n]) && digits < 4) {
			digits++;
			hex++;
		} else {
			break;
		}
	}
	if (!hex || crash_is_ident(p[n]) || (p[n - 1] == ':' && !gap))
		return 0;
	return colons == 7 || (gap && colons >= 2) ? n : 0;
}

/*
 * What differs between two runs of one bug goes, as syzkaller's titles
 * have it: an IPv6 address is "IPV6ADDR", a run of 6 or more hex digits
 * (after a non-alphanumeric character) "ADDR", a ":N:N" source position
 * ":LINE".
 */
static void normalize(struct strbuf *sb, bool nums)
{
	struct strbuf out = STRBUF_INIT;

	for (size_t r = 0; r < sb->len;) {
		const char *p = sb->buf + r;
		size_t h = 0, n;

		if (nums && ctype_is_digit(*p)) {
			for (n = 1; ctype_is_digit(p[n]); n++)
				;
			strbuf_addstr(&out, "NUM");
			r += n;
			continue;
		}
		if (r && !ctype_is_alnum(p[-1]) && p[-1] != ':' && (n = ipv6_at(p))) {
			strbuf_addstr(&out, "IPV6ADDR");
			r += n;
			continue;
		}
		if (r && !ctype_is_alnum(p[-1])) {
			h = strncmp(p, "0x", 2) == 0 ? 2 : 0;
			for (n = h; ctype_is_lower_xdigit(p[n]); n++)
				;
			if (n - h >= 6) {
				strbuf_addstr(&out, "ADDR");
				r += n;
				continue;
			}
		}
		if (*p == ':' && ctype_is_digit(p[1])) {
			size_t end = 0;

			/* The longest ":N:N..." that a non-word character (or the end) follows. */
			for (n = 0; p[n] == ':' && ctype_is_digit(p[n + 1]);) {
				for (n++; ctype_is_digit(p[n]); n++)
					;
				if (!crash_is_ident(p[n]))
					end = n;
			}
			if (end) {
				strbuf_addstr(&out, ":LINE");
				r += end;
				continue;
			}
		}
		strbuf_addch(&out, *p);
		r++;
	}
	strbuf_release(sb);
	*sb = out;
}

/* The length of a dotted IPv4 address at p ("10.0.0.1"), else 0. */
static size_t ipv4_at(const char *p)
{
	size_t n = 0;

	for (int part = 0; part < 4; part++) {
		size_t d = 0;

		if (part && p[n++] != '.')
			return 0;
		while (ctype_is_digit(p[n + d]) && d < 4)
			d++;
		if (!d || d > 3)
			return 0;
		n += d;
	}
	return ctype_is_digit(p[n]) ? 0 : n;
}

/* At p, "NAME", an optional '.' (if dot) and digits, then "/N" or ":N": its length, else 0. */
static size_t numbered_name_at(const char *p, const char *name, bool dot)
{
	size_t n = strlen(name), d;

	if (strncmp(p, name, n) != 0)
		return 0;
	if (dot && p[n] == '.')
		n++;
	for (d = 0; ctype_is_digit(p[n + d]); d++)
		;
	if (!d)
		return 0;
	n += d;
	if ((p[n] == '/' || p[n] == ':') && ctype_is_digit(p[n + 1]))
		for (n++; ctype_is_digit(p[n]); n++)
			;
	return n;
}

/* The fuzzer's process names: "syz-executor.3/1234" is "syz-executor", "syzkaller123456" "syzkaller". */
static void executor_names(struct strbuf *sb)
{
	struct strbuf out = STRBUF_INIT;

	for (size_t r = 0; r < sb->len;) {
		size_t n;

		if ((n = numbered_name_at(sb->buf + r, "syz-executor", true))) {
			strbuf_addstr(&out, "syz-executor");
			r += n;
		} else if ((n = numbered_name_at(sb->buf + r, "syzkaller", false))) {
			strbuf_addstr(&out, "syzkaller");
			r += n;
		} else {
			strbuf_addch(&out, sb->buf[r++]);
		}
	}
	strbuf_release(sb);
	*sb = out;
}

/*
 * Numbers of one run, as syzkaller's titles have them after ADDR and LINE:
 * an IPv4 address is "IP", "CPU#1" "CPU", a number between non-word
 * characters (or at the end) "NUM", and so is any run of 7 digits or more.
 */
static void numbers(struct strbuf *sb)
{
	struct strbuf out = STRBUF_INIT;

	for (size_t r = 0; r < sb->len;) {
		const char *p = sb->buf + r;
		bool after_word = r && crash_is_ident(p[-1]);
		size_t n;

		if (!after_word && (n = ipv4_at(p))) {
			strbuf_addstr(&out, "IP");
			r += n;
			continue;
		}
		if (strncmp(p, "CPU#", 4) == 0 && ctype_is_digit(p[4])) {
			for (n = 4; ctype_is_digit(p[n]); n++)
				;
			strbuf_addstr(&out, "CPU");
			r += n;
			continue;
		}
		if (ctype_is_digit(*p) && !(r && ctype_is_digit(p[-1]))) {
			for (n = 0; ctype_is_digit(p[n]); n++)
				;
			if ((r && !crash_is_ident(p[-1]) && !crash_is_ident(p[n])) || n >= 7) {
				strbuf_addstr(&out, "NUM");
				r += n;
				continue;
			}
			strbuf_add(&out, p, n);
			r += n;
			continue;
		}
		strbuf_addch(&out, *p);
		r++;
	}
	strbuf_release(sb);
	*sb = out;
}

void crash_title_normalize(struct strbuf *sb, bool nums)
{
	strip_offsets(sb);
	executor_names(sb);
	normalize(sb, nums);
	numbers(sb);
}
