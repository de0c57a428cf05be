#include "crash_report.h"

#include "lib/ctype.h"
#include "lib/strbuf.h"

#include <string.h>

void crash_copy_text(char *dst, size_t size, const char *src, size_t n)
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
		crash_copy_text(name, sizeof(name), func, n);
		o->injected[which] |= regexec(&crash_rx.corrupting, name, 0, NULL, 0) == 0;
	}
	for (int l = 0; l < 2; l++) {
		struct frames *fr = lists[l];

		/* The first frame is all that EX_FIRST needs: the rest need not be matched. */
		if (!fr || (fr->n && o->f->ex == EX_FIRST) || (fr->n == CRASH_FRAMES && !stall_slides(o, fr)))
			continue;
		if (!named) {
			crash_copy_text(name, sizeof(name), func, n);
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

/* The frame that names the report, or NULL. */
const char *crash_report_frame(const struct open_report *o, bool guesses)
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

char *crash_report_title(const struct open_report *o, bool guesses, bool *corrupted)
{
	struct strbuf sb = STRBUF_INIT;
	const char *frame = crash_report_frame(o, guesses);

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
	crash_title_normalize(&sb, o->f->flags & F_NUMS);
	if (sb.len > CRASH_TITLE_MAX) {
		sb.len = CRASH_TITLE_MAX - 3;
		strbuf_addstr(&sb, "...");
	}
	return strbuf_detach(&sb);
}

void crash_report_feed_parts(struct open_report *o, const char *text)
{
	parts_feed(o, 0, text);
	parts_feed(o, 1, text);
}
