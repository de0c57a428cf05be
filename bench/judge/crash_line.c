#include "crash_table.h"

#include "lib/array.h"
#include "lib/ctype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reading one line of a console: prefixes, frames, markers (crash_table.h). */

/* A character of a C identifier. */
bool crash_is_ident(char c)
{
	return ctype_is_alnum(c) || c == '_';
}

static bool eat(const char **p, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(*p, prefix, n) != 0)
		return false;
	*p += n;
	return true;
}

/* "[ 12.345678]", then the caller id "[  T1]"/"[C0]" into ctx; p moves past them. */
static bool eat_timestamp(const char **p, char ctx[CTX_MAX])
{
	const char *q = *p;

	if (*q++ != '[')
		return false;
	while (*q == ' ')
		q++;
	if (!ctype_is_digit(*q))
		return false;
	while (ctype_is_digit(*q))
		q++;
	if (*q++ != '.' || !ctype_is_digit(*q))
		return false;
	while (ctype_is_digit(*q))
		q++;
	if (*q++ != ']')
		return false;
	if (*q == '[') {
		const char *c = q + 1;
		size_t n = 0;

		while (*c == ' ')
			c++;
		if ((*c == 'T' || *c == 'C') && ctype_is_digit(c[1])) {
			ctx[n++] = *c++;
			while (ctype_is_digit(*c) && n < CTX_MAX - 1)
				ctx[n++] = *c++;
			ctx[n] = '\0';
			if (*c == ']')
				q = c + 1;
			else
				ctx[0] = '\0';
		}
	}
	if (*q == ' ')
		q++;
	*p = q;
	return true;
}

/* dmesg -x: "kern  :warn  : " (facility and level, each padded). */
static const char *eat_dmesg_level(const char *p)
{
	const char *q = p;

	for (int field = 0; field < 2; field++) {
		const char *word = q;

		while (*q >= 'a' && *q <= 'z')
			q++;
		if (q == word)
			return p;
		while (*q == ' ')
			q++;
		if (*q++ != ':')
			return p;
		if (field == 0 && *q == ' ')	/* the level follows the colon at once */
			return p;
	}
	return *q == ' ' ? q + 1 : p;
}

/*
 * The text of a log line without its prefixes: "** N printk messages
 * dropped **", a login prompt, syslog's "<N>", a journal's "Mon DD HH:MM:SS host kernel: ",
 * printk's timestamp (*stamped: there was one) and caller id (into ctx, ""
 * without one).
 */
const char *crash_strip_prefixes(const char *p, char ctx[CTX_MAX], bool *stamped)
{
	const char *k;

	ctx[0] = '\0';
	if (strncmp(p, "** ", 3) == 0) {
		const char *q = strstr(p, " printk messages dropped ** ");

		if (q)
			p = q + strlen(" printk messages dropped ** ");
	}
	/* The getty's prompt, "HOST login: ", that the kernel's line went on printing after. */
	k = strstr(p, " login: ");
	if (k && k - p < 64 && !memchr(p, '[', (size_t)(k - p)))
		p = k + strlen(" login: ");
	k = strstr(p, " kernel: ");
	if (k && k - p < 64 && !memchr(p, '[', (size_t)(k - p)) && strchr(p, ':') < k)
		p = k + strlen(" kernel: ");
	p = eat_dmesg_level(p);
	if (*p == '<' && ctype_is_digit(p[1])) {
		const char *q = p + 1;

		while (ctype_is_digit(*q))
			q++;
		if (*q == '>')
			p = q + 1;
	}
	if (ctype_is_digit(p[0]) && ctype_is_digit(p[1]) && ctype_is_digit(p[2]) && ctype_is_digit(p[3]) && p[4] == '-') {
		/* A CI log's ISO time, "2026-12-05T20:00:00.123Z ". */
		const char *sp = strchr(p, ' ');

		if (sp && sp - p < 40 && memchr(p, 'T', (size_t)(sp - p)))
			p = sp + 1;
	}
	*stamped = eat_timestamp(&p, ctx);
	if (!*stamped && p[0] == '[' && p[1] != '<' && !ctype_is_xdigit(p[1])) {
		/* dmesg -T: "[Sat Dec  5 20:00:00 2026] ". */
		const char *e = strstr(p, "] ");

		if (e && e - p < 40)
			p = e + 2;
	}
	return p;
}

/* "f+0x1/0x2" or "f.isra.0+..." at p: f's length (a name followed by '.' or '+'), else 0. */
static size_t func_at(const char *p)
{
	size_t n = 0;

	while (crash_is_ident(p[n]))
		n++;
	return n && (p[n] == '.' || p[n] == '+') ? n : 0;
}

/* "[<c1003527>] " or "[<ffffffff81234567>]" followed by spaces: p moves past it. */
static bool eat_pc(const char **p)
{
	const char *q = *p;

	if (*q++ != '[')
		return false;
	if (*q == '<')
		q++;
	eat(&q, "0x");
	if (!ctype_is_xdigit(*q))
		return false;
	while (ctype_is_xdigit(*q))
		q++;
	if (*q == '>')
		q++;
	if (*q++ != ']')
		return false;
	*p = q;
	return true;
}

/*
 * A stack frame line, " [<pc>] f+0x1/0x2 ...": f's length, or 0.  A
 * questionable frame (" ? f+...", the unwinder's guess, or powerpc's
 * "f+... (unreliable)") sets *guess.
 */
size_t crash_frame_at(const char *p, const char **func, bool *guess)
{
	while (*p == ' ' || *p == '\t')
		p++;
	for (int i = 0; i < 2 && *p == '['; i++) {
		if (!eat_pc(&p) || *p != ' ')
			return 0;
		p++;
	}
	*guess = p[0] == '?' && p[1] == ' ';
	if (*guess)
		p += 2;
	else
		*guess = strstr(p, " (unreliable)") != NULL;	/* powerpc's guess */
	*func = p;
	return func_at(p);
}

/*
 * An ARM frame line, "[<pc>] (f) from [<pc>] (g+0x1/0x2)": the unwinder
 * names each frame with its caller, so the line holds two, f (whole, as
 * "f.part.0") and g.  Returns whether it is one.
 */
bool crash_arm_frames_at(const char *p, const char *func[2], size_t n[2])
{
	while (*p == ' ')
		p++;
	if (!eat_pc(&p) || !eat(&p, " ("))
		return false;
	func[0] = p;
	for (n[0] = 0; crash_is_ident(p[n[0]]) || p[n[0]] == '.'; n[0]++)
		;
	p += n[0];
	if (!n[0] || !eat(&p, ") from ") || !eat_pc(&p) || !eat(&p, " ("))
		return false;
	func[1] = p;
	n[1] = func_at(p);
	return n[1] != 0;
}

/* The function after "[<pc>] "s at p, if any. */
size_t crash_func_after(const char *p, const char **func)
{
	while (*p == ' ')
		p++;
	for (int i = 0; i < 2 && *p == '['; i++) {
		if (!eat_pc(&p))
			return 0;
		while (*p == ' ')
			p++;
	}
	*func = p;
	return func_at(p);
}

/* The function named at p: a frame's, or a bare name ("last function: f") the line ends in. */
size_t crash_name_after(const char *p, const char **func)
{
	size_t n = crash_func_after(p, func);

	if (n)
		return n;
	while (*p == ' ')
		p++;
	*func = p;
	while (crash_is_ident(p[n]))
		n++;
	return n && (p[n] == '\0' || p[n] == ' ') ? n : 0;
}

/*
 * An instruction pointer line (syzkaller's linuxRipFrame): "RIP: 0010:f+...",
 * "EIP: f+...", "EIP is at f+...", "IP: [<pc>] f+...", "pc : f+...", powerpc's
 * "NIP [pc] f+..." and "--- interrupt: N at f+...".
 * Returns whether the line is one; *n is f's length, 0 for a bare address.
 */
bool crash_rip_at(const char *text, const char **func, size_t *n)
{
	static const char *const marks[] = { "IP: ", "IP is at ", "pc : ", "PC is at ", "NIP " };
	const char *trap;

	*n = 0;
	/* powerpc's trap frame, "--- interrupt: 700 at f+0x1/0x2". */
	if ((trap = strstr(text, "--- interrupt: ")) && ctype_is_digit(trap[15])) {
		for (trap += 15; ctype_is_digit(*trap); trap++)
			;
		if (strncmp(trap, " at ", 4) == 0 && (*n = crash_func_after(trap + 4, func)))
			return true;
	}
	for (size_t m = 0; m < ARRAY_SIZE(marks); m++) {
		for (const char *p = text; (p = strstr(p, marks[m])); p++) {
			const char *q = p + strlen(marks[m]);

			if (ctype_is_digit(*q)) {
				const char *d = q;

				while (ctype_is_digit(*d))
					d++;
				if (*d == ':')
					q = d + 1;
			}
			/* A NULL pointer is printed "(null)", padded to an address's width. */
			while (*q == ' ')
				q++;
			if (q[0] == '0' && q[1] == 'x' && ctype_is_xdigit(q[2]))
				return true;
			if (strstr(q, "(null)") == q || (*q == '[' && strstr(q, "(null)")))
				return true;
			if ((*n = crash_func_after(q, func)))
				return true;
		}
	}
	return false;
}

/* A line only a 32-bit x86 kernel prints: its register dump, its syscall entries. */
bool crash_is_i386(const char *text)
{
	return strncmp(text, "EIP: ", 5) == 0 || strncmp(text, "EAX: ", 5) == 0 ||
	       strstr(text, "entry_INT80_32") || strstr(text, "entry_SYSENTER_32");
}

bool crash_is_call_trace(const char *text)
{
	return strstr(text, "Call Trace:") || strstr(text, "Call trace:") || strstr(text, "Backtrace:");
}

/* The start of another stack in a report (syzkaller's stackStartRes). */
bool crash_is_stack_start(const char *text)
{
	const char *b;

	if (strstr(text, "Call Trace") || strstr(text, "Call trace") || strstr(text, "Allocated:") ||
	    strstr(text, "Freed:") || strstr(text, "Backtrace:") ||
	    strstr(text, "Uninit was stored to memory at"))
		return true;
	if ((b = strstr(text, "Allocated by task ")) || (b = strstr(text, "Freed by task ")))
		return strchr(b, ':') != NULL;
	/* " backtrace:", kmemleak's " backtrace (crc 1a2b):" too, but not "stack backtrace:". */
	for (b = text; (b = strstr(b, " backtrace")); b++) {
		const char *e = b + strlen(" backtrace");

		if (b > text && b[-1] == 'k')
			continue;
		if (strncmp(e, " (crc ", 6) == 0) {
			for (e += 6; ctype_is_xdigit(*e); e++)
				;
			if (*e++ != ')')
				continue;
		}
		if (*e == ':')
			return true;
	}
	return false;
}

bool crash_has_needle(const char *text, const char *needles)
{
	char one[64];

	for (const char *p = needles; *p;) {
		size_t n = strcspn(p, "|");

		if (n < sizeof(one)) {
			memcpy(one, p, n);
			one[n] = '\0';
			if (strstr(text, one))
				return true;
		}
		p += n + (p[n] == '|');
	}
	return false;
}

/* Ends of a report's text. */
bool crash_is_end_marker(const char *text)
{
	if (strncmp(text, "---[ end ", 9) == 0 || strncmp(text, "Rebooting in ", 13) == 0)
		return true;
	/* A sanitizer's closing rule; lockdep's headers use '-'. */
	return strncmp(text, "==========", 10) == 0;
}

/*
 * A die() line, "STR: 0000 [#1] ...": STR (words that begin with a letter,
 * "int3" too, without "Oops: ") into kind.
 */
bool crash_die_kind(const char *text, char *kind, size_t size)
{
	for (const char *p = text; (p = strstr(p, " [#")); p++) {
		const char *q = p, *start = text;
		size_t n;

		if (!ctype_is_digit(p[3]))
			continue;
		while (q > text && ctype_is_xdigit(q[-1]))
			q--;
		if (p - q < 4 || q - text < 3 || q[-2] != ':' || q[-1] != ' ')
			continue;
		n = (size_t)(q - 2 - text);
		if (n > 6 && strncmp(start, "Oops: ", 6) == 0)
			start += 6, n -= 6;
		for (size_t i = 0; i < n; i++) {
			if (start[i] == ',') {
				n = i;
				break;
			}
			/* A word begins with a letter: "ok 1 x" (KTAP) is no kind. */
			if (!(ctype_is_alpha(start[i]) || start[i] == ' ' ||
			      (ctype_is_digit(start[i]) && i && ctype_is_alnum(start[i - 1]))))
				return false;
		}
		if (!n || !ctype_is_alpha(start[0]) || n >= size)
			return false;
		memcpy(kind, start, n);
		kind[n] = '\0';
		return true;
	}
	return false;
}

