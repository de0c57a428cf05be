#include "crash.h"
#include "crash_table.h"

#include "lib/ctype.h"
#include "lib/strbuf.h"

#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scanner. */

struct frames {
	int n;
	char name[CRASH_FRAMES][FUNC_MAX];
};

struct open_report {
	bool used;
	size_t index;		/* into s->reports */
	const struct format *f;
	const regex_t *skip;	/* the format's own frames to skip, or NULL */
	char ctx[CTX_MAX];
	char args[2][CRASH_TITLE_MAX + 1];	/* %1, %2 */
	char line[CRASH_TITLE_MAX + 1];		/* %L */
	char kind[64];				/* %K */
	char access[8];				/* %A */
	char header_func[FUNC_MAX];
	int part[2];		/* progress in f->parts and f->parts2 */
	struct frames frames[2];	/* parts[i]'s reliable frames */
	struct frames guessed[2];	/* and with the questionable ones, for a trace that has no other */
	bool after_frame[2];	/* the last line of parts[i]'s frames was a frame */
	long lines;
	bool complete;		/* its end was seen */
	bool bad_ip;		/* its RIP line had no function: a bare or null address */
	bool injected[2];	/* a fault injection's frame came among parts[i]'s frames */
	bool stamped;		/* its first line had a printk timestamp: it takes only such lines */
	bool trailing;		/* another report of its caller id began inside it (trail_feed()) */
};

struct crash_scanner {
	long line_no;
	long fence;		/* line of the last crash_scanner_fence() */
	long last_activity;	/* last line that began or continued a report, 0 if none */
	char buf[CRASH_LINE_MAX + 1];
	struct open_report open[CRASH_OPEN];
	struct crash *reports;
	size_t nreports, alloc;
	bool finished;
	bool i386;		/* the log is a 32-bit x86 kernel's: its frames are all guesses */
	bool booted;		/* a kernel's timestamped line was seen */
	/* The last line began a report of a bare line's title ("%L"): its prefix and text, for join(). */
	bool joinable;
	size_t prev_prefix;
	char prev[CRASH_LINE_MAX + 1];
	char joined[2 * CRASH_LINE_MAX + 2];
};

struct crash_scanner *crash_scanner_new(void)
{
	crash_rx_ready();
	return xcalloc(1, sizeof(struct crash_scanner));
}

void crash_scanner_free(struct crash_scanner *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nreports; i++)
		free(s->reports[i].title);
	free(s->reports);
	free(s);
}

static void copy_text(char *dst, size_t size, const char *src, size_t n)
{
	if (n > size - 1)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = ctype_is_print(src[i]) ? src[i] : '?';
	dst[n] = '\0';
}

/* The shortest name the frame has without a syscall wrapper's prefix. */
static const char *strip_frame(const char *frame)
{
	const char *best = frame;

	for (size_t i = 0; i < crash_nframe_prefixes; i++) {
		size_t n = strlen(crash_frame_prefixes[i]);

		if (strncmp(frame, crash_frame_prefixes[i], n) == 0 && frame[n] && strlen(frame + n) < strlen(best))
			best = frame + n;
	}
	return best;
}

/*
 * A stall is named by the frame before its dispatcher, which a deep
 * recursion can push past CRASH_FRAMES: a full list keeps taking frames in
 * its last place, the one before moving up, until that dispatcher came.
 */
static bool stall_slides(const struct open_report *o, const struct frames *fr)
{
	return o->f->ex == EX_STALL &&
	       regexec(&crash_rx.anchors, strip_frame(fr->name[CRASH_FRAMES - 1]), 0, NULL, 0) != 0;
}

/*
 * A frame of parts[which]: every frame goes to its guessed list, a reliable
 * one also to frames.  A raw one is never skipped.
 */
static void frame_add(struct open_report *o, int which, const char *func, size_t n, bool guess, bool raw)
{
	struct frames *lists[2] = { guess ? NULL : &o->frames[which], &o->guessed[which] };
	char name[FUNC_MAX];
	bool named = false, skipped = false;

	if (!guess && !raw) {
		copy_text(name, sizeof(name), func, n);
		o->injected[which] |= regexec(&crash_rx.corrupting, name, 0, NULL, 0) == 0;
	}
	for (int l = 0; l < 2; l++) {
		struct frames *fr = lists[l];

		/* The first frame is all that EX_FIRST needs: the rest need not be matched. */
		if (!fr || (fr->n && o->f->ex == EX_FIRST) || (fr->n == CRASH_FRAMES && !stall_slides(o, fr)))
			continue;
		if (!named) {
			copy_text(name, sizeof(name), func, n);
			skipped = !raw && (regexec(&crash_rx.skip, name, 0, NULL, 0) == 0 ||
					   (o->skip && regexec(o->skip, name, 0, NULL, 0) == 0));
			named = true;
		}
		if (skipped)
			continue;
		if (fr->n == CRASH_FRAMES) {
			memcpy(fr->name[CRASH_FRAMES - 2], fr->name[CRASH_FRAMES - 1], sizeof(name));
			fr->n--;
		}
		memcpy(fr->name[fr->n++], name, sizeof(name));
	}
}

/* Moves parts[which] of the report on by one line. */
static void parts_feed(struct open_report *o, int which, const char *text)
{
	const struct part *pl = which ? o->f->parts2 : o->f->parts;
	const struct part *p = &pl[o->part[which]];
	const char *func, *q, *two[2];
	bool guess = false;
	size_t n, twon[2];

	switch (p->kind) {
	case P_END:
		return;
	case P_FRAMES:
		if (crash_is_stack_start(text)) {
			o->part[which]++;
		} else if ((n = crash_frame_at(text, &func, &guess))) {
			frame_add(o, which, func, n, guess, false);
			o->after_frame[which] = true;
			return;
		} else if (crash_arm_frames_at(text, two, twon)) {
			frame_add(o, which, two[0], twon[0], false, false);
			frame_add(o, which, two[1], twon[1], false, false);
			o->after_frame[which] = true;
			return;
		} else if (o->after_frame[which] && o->guessed[which].n) {
			o->complete = true;	/* the trace has ended: the report is whole */
		}
		o->after_frame[which] = false;
		return;
	case P_RIP:
		if (crash_rip_at(text, &func, &n)) {
			if (n)
				frame_add(o, which, func, n, false, false);
			o->bad_ip |= !n;
			o->part[which]++;
		}
		return;
	case P_TRACE:
		if (crash_is_call_trace(text))
			o->part[which]++;
		return;
	case P_LINE:
		if (crash_has_needle(text, p->needle))
			o->part[which]++;
		return;
	case P_CAPTURE:
	case P_NAME:
		if ((q = strstr(text, p->needle))) {
			q += strlen(p->needle);
			if ((n = p->kind == P_NAME ? crash_name_after(q, &func) : crash_func_after(q, &func)))
				frame_add(o, which, func, n, false, p->kind == P_NAME);
			o->part[which]++;
		}
		return;
	}
}

static bool matches_any(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(name, list[i]))
			return true;
	return false;
}

/* The frame that names the report, or NULL. */
static const char *extract(const struct open_report *o, const struct frames *fr)
{
	const char *prev;

	if (!fr->n)
		return NULL;
	switch (o->f->ex) {
	case EX_FIRST:
		return strip_frame(fr->name[0]);
	case EX_STALL:
		prev = strip_frame(fr->name[0]);
		for (int i = 0; i < fr->n; i++) {
			const char *f = strip_frame(fr->name[i]);

			if (regexec(&crash_rx.anchors, f, 0, NULL, 0) == 0)
				return strstr(f, "smp_call_function") ? "smp_call_function" : prev;
			prev = f;
		}
		return NULL;
	case EX_HUNG:
		for (int i = 0; i < fr->n; i++) {
			const char *f = strip_frame(fr->name[i]);

			if (strstr(f, "rtnl_lock"))
				return f;
			if (strstr(f, "synchronize_rcu") || strstr(f, "synchronize_srcu") ||
			    strstr(f, "synchronize_net") || strstr(f, "synchronize_sched"))
				return "synchronize_rcu";
		}
		for (int i = 0; i < fr->n; i++) {
			const char *f = strip_frame(fr->name[i]);

			if (!matches_any(f, crash_hung_skip, crash_nhung_skip))
				return f;
		}
		return NULL;
	}
	return NULL;
}

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

/* The frame that names the report, or NULL. */
static const char *frame_of(const struct open_report *o, bool guesses)
{
	const char *frame = o->injected[0] ? NULL : extract(o, &o->frames[0]);

	if (!frame && !o->injected[1])
		frame = extract(o, &o->frames[1]);
	/*
	 * Only guesses ("? f"): syzkaller never names a report after one, but
	 * an i386 kernel without frame pointers prints nothing else, so there
	 * they do, unless the instruction pointer was garbage and the guesses
	 * start from garbage too.
	 */
	if (!frame && guesses && !o->bad_ip && !o->injected[0])
		frame = extract(o, &o->guessed[0]);
	if (!frame && guesses && !o->bad_ip && !o->injected[1])
		frame = extract(o, &o->guessed[1]);
	if (!frame && (o->f->flags & F_HEADER_FUNC) && o->header_func[0])
		frame = o->header_func;
	return frame;
}

static char *title_of(const struct open_report *o, bool guesses, bool *corrupted)
{
	struct strbuf sb = STRBUF_INIT;
	const char *frame = frame_of(o, guesses);

	if ((o->f->flags & F_NEEDS_LINE) && !o->part[0]) {
		/* syzkaller's report never matched: its title is the header's line. */
		strbuf_addstr(&sb, o->line);
		*corrupted = true;
		goto out;
	}
	if ((o->f->flags & F_ACCESS) && !o->access[0]) {
		/* The access line never came: syzkaller's "KASAN: %1" of a cut report. */
		strbuf_addf(&sb, "KASAN: %s", o->line + strlen("BUG: KASAN: "));
		*corrupted = true;
		goto out;
	}
	for (const char *t = o->f->title; *t; t++) {
		if (*t != '%' || !t[1]) {
			strbuf_addch(&sb, *t);
			continue;
		}
		switch (*++t) {
		case '1': strbuf_addstr(&sb, o->args[0]); break;
		case '2': strbuf_addstr(&sb, o->args[1]); break;
		case 'A': strbuf_addstr(&sb, o->access); break;
		case 'K': strbuf_addstr(&sb, o->kind); break;
		case 'L': strbuf_addstr(&sb, o->line); break;
		case 'F':
			if (!frame)
				*corrupted = true;
			strbuf_addstr(&sb, frame ? frame : "corrupted");
			break;
		default: strbuf_addch(&sb, *t); break;
		}
	}
out:
	strip_offsets(&sb);
	executor_names(&sb);
	normalize(&sb, o->f->flags & F_NUMS);
	numbers(&sb);
	if (sb.len > CRASH_TITLE_MAX) {
		sb.len = CRASH_TITLE_MAX - 3;
		strbuf_addstr(&sb, "...");
	}
	return strbuf_detach(&sb);
}

static void report_close(struct crash_scanner *s, struct open_report *o, bool eof)
{
	struct crash *c = &s->reports[o->index];
	bool corrupted = (o->f->flags & F_CORRUPTED) || (eof && !o->complete);

	c->title = title_of(o, s->i386, &corrupted);
	c->corrupted = corrupted;
	o->used = false;
}

static struct open_report *report_of(struct crash_scanner *s, const char *ctx)
{
	struct open_report *last = NULL;

	for (int i = 0; i < CRASH_OPEN; i++) {
		struct open_report *o = &s->open[i];

		if (!o->used || o->trailing)
			continue;
		if (ctx[0] && o->ctx[0])
			if (strcmp(o->ctx, ctx) == 0)
				return o;
		if ((!ctx[0] || !o->ctx[0]) && (!last || o->index > last->index))
			last = o;
	}
	return last;
}

/* The line goes to the report o. */
static void report_feed(struct crash_scanner *s, struct open_report *o, const char *text)
{
	o->lines++;
	s->reports[o->index].last_line = s->line_no;
	s->last_activity = s->line_no;
	if ((o->f->flags & F_ACCESS) && !o->access[0]) {
		if (strstr(text, "Read of size") || strstr(text, "Read at addr"))
			strcpy(o->access, "Read");
		else if (strstr(text, "Write of size") || strstr(text, "Write at addr"))
			strcpy(o->access, "Write");
	}
	parts_feed(o, 0, text);
	parts_feed(o, 1, text);
	if (crash_is_end_marker(text) || o->lines >= CRASH_REPORT_LINES) {
		o->complete = true;
		report_close(s, o, false);
	}
}

/*
 * With caller ids, syzkaller reads a report to the end of its context's
 * lines, later reports of that context included: one that another report
 * began inside before it had its frame goes on reading them (trailing)
 * until it has one or ends.
 */
static void trail_feed(struct crash_scanner *s, const char *ctx, bool stamped, const char *text)
{
	for (int i = 0; i < CRASH_OPEN && ctx[0]; i++) {
		struct open_report *o = &s->open[i];

		if (!o->used || !o->trailing || o->stamped != stamped || strcmp(o->ctx, ctx) != 0)
			continue;
		report_feed(s, o, text);
		if (o->used && frame_of(o, s->i386))
			report_close(s, o, false);
	}
}

/* Whether text holds the start of a header at all: one pass, for speed on long logs. */
static bool may_match(const char *text)
{

	for (const char *p = text; *p; p++) {
		if (!crash_rx.first[(unsigned char)*p])
			continue;
		for (size_t i = 0; i < crash_nheader_starts; i++)
			if (*p == crash_header_starts[i][0] && strncmp(p, crash_header_starts[i], strlen(crash_header_starts[i])) == 0)
				return true;
	}
	return false;
}

/* Whether h, in text, starts the line's message: after nothing, a pr_fmt() or a device's tag ("IPv6: "). */
static bool starts_message(const char *text, const char *h)
{
	const char *p = text;

	if (h == text)
		return true;
	/* A tag is one word, or a device's driver and name (dev_printk's "usb 5-1: "). */
	for (int words = 0; words < 2; words++) {
		const char *w = p;

		while (p < h && *p != ' ' && *p != ':')
			p++;
		if (p == w)
			return false;
		if (p[0] == ':')
			return p[1] == ' ' && p + 2 == h;
		p++;
	}
	return false;
}

/*
 * Whether a header counts only as a word of its own ("DEBUG:" is not
 * "BUG:"); a lowercase phrase ("general protection fault") counts glued to
 * the text of a line that printk never ended, as syzkaller finds it anywhere.
 */
static bool needs_word(const char *header)
{
	return crash_is_ident(header[0]) && !(header[0] >= 'a' && header[0] <= 'z' && strchr(header, ' '));
}

/* The format of a report that text begins, or NULL. */
static const struct format *match(const char *text, regmatch_t m[3], const char **at)
{
	if (!may_match(text))
		return NULL;
	for (size_t i = 0; i < crash_rx.nformats; i++) {
		const struct format *f = &crash_formats[i];
		const char *h = strstr(text, f->header);

		while (h && h > text && needs_word(f->header) && crash_is_ident(h[-1]))
			h = strstr(h + 1, f->header);
		if (!h || ((f->flags & F_START) && !starts_message(text, h)))
			continue;
		if (f->re && regexec(&crash_rx.re[i], h, 3, m, 0) != 0)
			continue;
		for (size_t k = 0; k < crash_rx.nignores; k++)
			if (strstr(text, crash_ignores[k].needle) && regexec(&crash_rx.ignore[k], text, 0, NULL, 0) == 0)
				return NULL;
		if (!f->re)
			m[1].rm_so = m[2].rm_so = -1;
		*at = h;
		return f;
	}
	return NULL;
}

static void report_begin(struct crash_scanner *s, const struct format *f, const regex_t *skip,
			 const char *text, const char *at, const regmatch_t m[3], const char *ctx,
			 const char *kind, bool stamped)
{
	struct open_report *o = NULL;

	for (int i = 0; i < CRASH_OPEN && !o; i++)
		if (!s->open[i].used)
			o = &s->open[i];
	if (!o) {
		o = &s->open[0];
		for (int i = 1; i < CRASH_OPEN; i++)
			if (s->open[i].index < o->index)
				o = &s->open[i];
		report_close(s, o, false);
	}
	memset(o, 0, sizeof(*o));
	if (s->nreports == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 8;
		s->reports = xrealloc(s->reports, s->alloc * sizeof(*s->reports));
	}
	o->used = true;
	o->index = s->nreports++;
	s->reports[o->index] = (struct crash){ NULL, s->line_no, s->line_no, false };
	o->f = f;
	o->skip = skip;
	o->stamped = stamped;
	snprintf(o->ctx, sizeof(o->ctx), "%s", ctx);
	for (int g = 0; g < 2; g++)
		if (m[g + 1].rm_so >= 0)
			copy_text(o->args[g], sizeof(o->args[g]), at + m[g + 1].rm_so,
				  (size_t)(m[g + 1].rm_eo - m[g + 1].rm_so));
	copy_text(o->line, sizeof(o->line), at, strlen(at));
	snprintf(o->kind, sizeof(o->kind), "%s", kind);
	if (f->flags & F_HEADER_FUNC) {
		const char *p = strstr(at, " at ");

		for (; p; p = strstr(p + 1, " at ")) {
			const char *func, *src_end = strchr(p + 4, ' ');
			size_t n = crash_func_after(p + 4, &func);

			/* "at FILE:LINE f+0x1/0x2" */
			if (!n && src_end)
				n = crash_func_after(src_end + 1, &func);
			if (n) {
				copy_text(o->header_func, sizeof(o->header_func), func, n);
				break;
			}
		}
	}
	s->last_activity = s->line_no;
	report_feed(s, o, text);
}

/*
 * printk cut the previous line and prints it again whole: a report that
 * began on the cut line is forgotten, and the whole line begins it anew.
 */
static void replay(struct crash_scanner *s)
{
	for (int i = 0; i < CRASH_OPEN; i++) {
		struct open_report *o = &s->open[i];

		if (o->used && o->index == s->nreports - 1 && s->reports[o->index].first_line == s->line_no - 1) {
			o->used = false;
			s->nreports--;
		}
	}
}

/*
 * printk prints a message with a newline in it (a task's name) as lines of
 * one timestamp: a line of the last one's timestamp and caller id, after a
 * line that began a report only by its bare header, goes on it when the two
 * together are a report of a known kind.  Returns the text to read.
 */
static const char *join(struct crash_scanner *s, const char *text, bool stamped)
{
	size_t prefix = (size_t)(text - s->buf);
	const char *at;
	const struct format *f;
	regmatch_t m[3];

	if (!s->joinable || !stamped || prefix != s->prev_prefix || memcmp(s->buf, s->prev, prefix) != 0)
		return text;
	snprintf(s->joined, sizeof(s->joined), "%s %s", s->prev + prefix, text);
	f = match(s->joined, m, &at);
	if (!f || strcmp(f->title, "%L") == 0)
		return text;
	replay(s);
	return s->joined;
}

long crash_scanner_line(struct crash_scanner *s, const char *line, size_t len)
{
	const char *text, *at;
	const struct format *f;
	struct open_report *o;
	regmatch_t m[3];
	char ctx[CTX_MAX], kind[64];
	size_t n = len;
	bool stamped;

	if (s->finished)
		return -1;
	s->line_no++;
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (n > CRASH_LINE_MAX)
		n = CRASH_LINE_MAX;
	for (size_t i = 0; i < n; i++)
		s->buf[i] = line[i] ? line[i] : '?';
	s->buf[n] = '\0';
	text = crash_strip_prefixes(s->buf, ctx, &stamped);
	s->i386 |= crash_is_i386(text);
	if (!s->booted) {
		s->booted = stamped;
		if (!stamped && strncmp(text, "Booting the kernel", 18) == 0)
			return -1;	/* the log's own boot, not a reboot */
	}
	if (strcmp(s->buf, "** replaying previous printk message **") == 0) {
		replay(s);
		return -1;
	}
	text = join(s, text, stamped);
	s->joinable = false;
	trail_feed(s, ctx, stamped, text);
	o = report_of(s, ctx);
	f = match(text, m, &at);
	if (!f && may_match(text) && crash_die_kind(text, kind, sizeof(kind))) {
		f = &crash_die_format;
		at = text;
		m[1].rm_so = m[2].rm_so = -1;
	}
	if (f && o && (f->flags & F_CONTINUES) && (!o->ctx[0] || !ctx[0] || strcmp(o->ctx, ctx) == 0)) {
		/* After a long report a panic is its end: what follows is the panic's stack. */
		if ((f->flags & F_PANIC) && o->lines > PANIC_CUTS) {
			o->complete = true;
			report_close(s, o, false);
			s->last_activity = s->line_no;
			return -1;
		}
		f = NULL;
	}
	if (f && (f->flags & F_PANIC) && s->last_activity && s->last_activity > s->fence &&
	    s->line_no - s->last_activity <= PANIC_NEAR) {
		s->last_activity = s->line_no;
		return -1;
	}
	if (!f && o && !ctx[0] && crash_has_needle(text, crash_stack_notices)) {
		o->complete = true;
		report_close(s, o, false);
		return -1;
	}
	if (!f) {
		/*
		 * A line without the timestamp of a report that has them is no
		 * printk of it (the fuzzer's own output, a shell's), nor the reverse.
		 */
		if (o && o->stamped == stamped)
			report_feed(s, o, text);
		return -1;
	}
	if (o && (!o->ctx[0] || !ctx[0] || strcmp(o->ctx, ctx) == 0)) {
		o->complete = true;	/* the next report ends it, or, of its caller id, only follows it */
		if (o->ctx[0] && ctx[0] && !frame_of(o, s->i386))
			o->trailing = true;
		else
			report_close(s, o, false);
	}
	if (s->nreports == CRASH_MAX_REPORTS)
		return -1;
	if (f != &crash_die_format && strcmp(f->title, "%L") == 0 && text != s->joined) {
		s->joinable = true;
		s->prev_prefix = (size_t)(text - s->buf);
		memcpy(s->prev, s->buf, sizeof(s->prev));
	}
	if (f == &crash_die_format)
		report_begin(s, f, NULL, text, at, m, ctx, kind, stamped);
	else
		report_begin(s, f, f->skip ? &crash_rx.format_skip[f - crash_formats] : NULL, text, at, m, ctx, "",
			     stamped);
	return (long)(s->nreports - 1);
}

void crash_scanner_fence(struct crash_scanner *s)
{
	/* What follows the boundary is no longer the open reports'. */
	for (int i = 0; i < CRASH_OPEN; i++) {
		if (s->open[i].used) {
			s->open[i].complete = true;
			report_close(s, &s->open[i], false);
		}
	}
	s->fence = s->line_no;
}

void crash_scanner_finish(struct crash_scanner *s)
{
	if (s->finished)
		return;
	for (int i = 0; i < CRASH_OPEN; i++)
		if (s->open[i].used)
			report_close(s, &s->open[i], true);
	s->finished = true;
}

size_t crash_scanner_count(const struct crash_scanner *s)
{
	return s->nreports;
}

const struct crash *crash_scanner_report(const struct crash_scanner *s, size_t i)
{
	return i < s->nreports ? &s->reports[i] : NULL;
}
