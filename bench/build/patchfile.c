#include "patchfile.h"

#include "lib/ctype.h"
#include "lib/date.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

/* A view of one line of the input, without its "\n" (or "\r\n"). */
struct line {
	const char *p;
	size_t len;
	const char *next;	/* start of the following line */
};

static int line_at(const char *pos, const char *end, struct line *l)
{
	if (pos >= end)
		return 0;
	const char *nl = memchr(pos, '\n', (size_t)(end - pos));
	l->p = pos;
	l->next = nl ? nl + 1 : end;
	l->len = (size_t)((nl ? nl : end) - pos);
	if (l->len && l->p[l->len - 1] == '\r')
		l->len--;
	return 1;
}

static int line_starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->len >= n && memcmp(l->p, prefix, n) == 0;
}

static int line_is(const struct line *l, const char *s)
{
	return l->len == strlen(s) && memcmp(l->p, s, l->len) == 0;
}

/* Collects a header's value, unfolding continuation lines. */
static const char *header_value(const char *pos, const char *end, struct strbuf *value)
{
	struct line l;

	line_at(pos, end, &l);
	const char *colon = memchr(l.p, ':', l.len);
	size_t skip = (size_t)(colon - l.p) + 1;

	while (skip < l.len && (l.p[skip] == ' ' || l.p[skip] == '\t'))
		skip++;
	strbuf_add(value, l.p + skip, l.len - skip);
	pos = l.next;
	while (line_at(pos, end, &l) && l.len && (l.p[0] == ' ' || l.p[0] == '\t')) {
		size_t i = 0;
		while (i < l.len && (l.p[i] == ' ' || l.p[i] == '\t'))
			i++;
		strbuf_addch(value, ' ');
		strbuf_add(value, l.p + i, l.len - i);
		pos = l.next;
	}
	return pos;
}

static void parse_from(struct patchfile *p, const char *from)
{
	const char *lt = strchr(from, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	/* A repeated From: replaces the earlier one. */
	free(p->author_name);
	free(p->author_email);
	if (!lt || !gt) {
		p->author_name = xstrdup(from);
		p->author_email = xstrdup("");
		return;
	}
	size_t n = (size_t)(lt - from);
	while (n && from[n - 1] == ' ')
		n--;
	if (n >= 2 && from[0] == '"' && from[n - 1] == '"')
		p->author_name = xstrndup(from + 1, n - 2);
	else
		p->author_name = xstrndup(from, n);
	p->author_email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
}

/* "[PATCH v2 1/3] x86: foo" -> "x86: foo"; only leading bracket tags go. */
static const char *subject_strip_tags(const char *s)
{
	for (;;) {
		while (*s == ' ')
			s++;
		if (*s != '[')
			return s;
		const char *close = strchr(s, ']');
		if (!close)
			return s;
		s = close + 1;
	}
}

/* Whether the subject's leading tags number it 0 of a series: "[PATCH v2 00/12]". */
static bool subject_is_cover(const char *s)
{
	for (;;) {
		while (*s == ' ')
			s++;
		if (*s != '[')
			return false;
		const char *close = strchr(s, ']');
		if (!close)
			return false;
		for (const char *w = s + 1; w < close; w++) {
			const char *q = w;

			if (w > s + 1 && w[-1] != ' ')
				continue;
			while (q < close && *q == '0')
				q++;
			if (q == w || q >= close || *q != '/' || !ctype_is_digit(q[1]))
				continue;
			for (q++; q < close && ctype_is_digit(*q); q++)
				;
			if (q == close || *q == ' ')
				return true;
		}
		s = close + 1;
	}
}

/*
 * Reads the mail header up to the blank line.  Returns the position of the
 * body, or NULL when this is not a mail (no From:/Subject: header).
 */
static const char *parse_mail_header(struct patchfile *p, const char *name,
				     const char *pos, const char *end, int *err)
{
	struct strbuf subject = STRBUF_INIT;
	struct line l;
	int have_from = 0, have_subject = 0;

	*err = 0;
	if (line_at(pos, end, &l) && line_starts(&l, "From "))
		pos = l.next;	/* the mbox separator */
	while (line_at(pos, end, &l) && l.len) {
		struct strbuf value = STRBUF_INIT;

		if (!memchr(l.p, ':', l.len) || l.p[0] == ' ' || l.p[0] == '\t') {
			strbuf_release(&subject);
			return NULL;
		}
		const char *next = header_value(pos, end, &value);
		if (l.len > 5 && strncasecmp(l.p, "From:", 5) == 0) {
			parse_from(p, value.buf);
			have_from = 1;
		} else if (l.len > 5 && strncasecmp(l.p, "Date:", 5) == 0) {
			if (date_parse_rfc2822(value.buf, &p->author_time, &p->author_tz) < 0)
				*err = error_set(ERR_INPUT, "patch '%s' has a bad Date: header '%s'",
						 name, value.buf);
		} else if (l.len > 8 && strncasecmp(l.p, "Subject:", 8) == 0) {
			strbuf_addstr(&subject, subject_strip_tags(value.buf));
			p->is_cover = subject_is_cover(value.buf);
			have_subject = 1;
		}
		strbuf_release(&value);
		pos = next;
		if (*err)
			break;
	}
	if (!have_from || !have_subject || *err) {
		strbuf_release(&subject);
		return *err ? pos : NULL;
	}
	p->message = strbuf_detach(&subject);
	return line_at(pos, end, &l) ? l.next : end;
}

static int is_diff_start(const struct line *l, const char *end)
{
	struct line next;

	if (line_starts(l, "diff --git "))
		return 1;
	return line_starts(l, "--- ") && line_at(l->next, end, &next) &&
	       line_starts(&next, "+++ ");
}

/* The path of a plain "--- PATH\tDATE" line, at -p1. */
static char *plain_diff_path(const struct line *l)
{
	const char *p = l->p + 4, *e = l->p + l->len;
	const char *tab = memchr(p, '\t', (size_t)(e - p));

	if (tab)
		e = tab;
	while (e > p && e[-1] == ' ')
		e--;
	if ((size_t)(e - p) == 9 && memcmp(p, "/dev/null", 9) == 0)
		return NULL;
	const char *slash = memchr(p, '/', (size_t)(e - p));
	if (slash)
		p = slash + 1;
	return xstrndup(p, (size_t)(e - p));
}

/* Copies the diff, giving each plain "---"/"+++" pair a git header. */
static char *diff_to_git(const char *pos, const char *end)
{
	struct strbuf out = STRBUF_INIT;
	struct line l, next;
	int in_git_header = 0;

	while (line_at(pos, end, &l)) {
		if (line_starts(&l, "diff --git ")) {
			in_git_header = 1;
		} else if (!in_git_header && line_starts(&l, "--- ") &&
			   line_at(l.next, end, &next) && line_starts(&next, "+++ ")) {
			char *old = plain_diff_path(&l), *new = plain_diff_path(&next);
			const char *path = new ? new : old;

			if (path) {
				strbuf_addf(&out, "diff --git a/%s b/%s\n", path, path);
				if (!old)
					strbuf_addstr(&out, "new file mode 100644\n");
				if (!new)
					strbuf_addstr(&out, "deleted file mode 100644\n");
				strbuf_addf(&out, old ? "--- a/%s\n" : "--- /dev/null\n", old);
				strbuf_addf(&out, new ? "+++ b/%s\n" : "+++ /dev/null\n", new);
			}
			free(old);
			free(new);
			pos = next.next;
			continue;
		} else if (line_starts(&l, "@@")) {
			in_git_header = 0;
		}
		strbuf_add(&out, l.p, l.len);
		strbuf_addch(&out, '\n');
		pos = l.next;
	}
	return strbuf_detach(&out);
}

/* One message; p->diff is NULL when it holds no diff. */
static int parse_message(struct patchfile *p, const char *name, const char *buf, size_t len)
{
	const char *end = buf + len, *pos = buf, *body;
	struct strbuf message = STRBUF_INIT;
	struct line l;
	int err;

	memset(p, 0, sizeof(*p));
	body = parse_mail_header(p, name, buf, end, &err);
	if (err) {
		patchfile_release(p);
		return err;
	}
	if (body) {
		p->is_mail = true;
		p->mail = xmalloc(len + 1);
		memcpy(p->mail, buf, len);
		p->mail[len] = '\0';
		p->mail_len = len;
		strbuf_addstr(&message, p->message);
		free(p->message);
		p->message = NULL;
		/* The body runs to the "---" separator or the diff itself. */
		struct strbuf text = STRBUF_INIT;
		for (pos = body; line_at(pos, end, &l); pos = l.next) {
			if (line_is(&l, "---") || is_diff_start(&l, end))
				break;
			strbuf_add(&text, l.p, l.len);
			strbuf_addch(&text, '\n');
		}
		while (text.len && text.buf[text.len - 1] == '\n')
			text.buf[--text.len] = '\0';
		if (text.len) {
			strbuf_addstr(&message, "\n\n");
			strbuf_addstr(&message, text.buf);
		}
		strbuf_addch(&message, '\n');
		strbuf_release(&text);
	} else {
		/* Not a mail after all: drop what a stray From: or Subject: line left. */
		p->is_cover = false;
		free(p->author_name);
		free(p->author_email);
		p->author_name = xstrdup("fpubench");
		p->author_email = xstrdup("fpubench@localhost");
		strbuf_addf(&message, "fpubench: apply %s\n", name);
	}
	p->message = strbuf_detach(&message);

	for (; line_at(pos, end, &l); pos = l.next)
		if (is_diff_start(&l, end))
			break;
	if (pos >= end)
		return 0;
	/* A mail ends with git's "-- \n2.39.5" signature, which is not diff. */
	const char *diff_end = end;
	for (const char *q = pos; line_at(q, end, &l); q = l.next) {
		if (line_is(&l, "-- ")) {
			diff_end = l.p;
			break;
		}
	}
	p->diff = diff_to_git(pos, diff_end);
	return 0;
}

int patchfile_parse(struct patchfile *p, const char *name, const char *buf, size_t len)
{
	int err = parse_message(p, name, buf, len);

	if (!err && !p->diff)
		err = error_set(ERR_INPUT, "patch '%s' holds no diff", name);
	if (err) {
		patchfile_release(p);
		return err;
	}
	p->number = p->count = 1;
	return 0;
}

/*
 * An mbox separator as git mailsplit knows one: "From ", then anything
 * ending in a time "h:mm:ss" or "hh:mm" and a year after 1990, as in
 * format-patch's "From <sha> Mon Sep 17 00:00:00 2001" or b4's "From git@z
 * Thu Jan  1 00:00:00 1970".
 */
static bool is_from_line(const struct line *l)
{
	const char *colon = NULL, *end = l->p + l->len, *q;
	long year = 0;

	if (l->len < 20 || !line_starts(l, "From "))
		return false;
	for (q = end - 2; q > l->p + 5; q--) {
		if (*q == ':') {
			colon = q;
			break;
		}
	}
	if (!colon || colon - l->p < 9 || end - colon < 3 || !ctype_is_digit(colon[-4]) ||
	    !ctype_is_digit(colon[-2]) || !ctype_is_digit(colon[-1]) || !ctype_is_digit(colon[1]) ||
	    !ctype_is_digit(colon[2]))
		return false;
	/* The year, as strtol() reads it, but within the line. */
	for (q = colon + 3; q < end && (*q == ' ' || *q == '\t'); q++)
		;
	for (; q < end && ctype_is_digit(*q) && year <= 90; q++)
		year = year * 10 + (*q - '0');
	return year > 90;
}

/* Classifies message `number` of the file and keeps it when it is a patch. */
static int add_message(struct patchfile_list *out, const char *name, size_t number,
		       const char *buf, size_t len)
{
	struct patchfile p;
	int err = parse_message(&p, name, buf, len);

	if (err)
		goto fail;
	if (!p.is_mail) {
		err = error_set(ERR_INPUT, "patch '%s' message %zu is not a mail", name, number);
		goto fail;
	}
	/* A cover letter's diff is an interdiff against the last version: not to apply. */
	if (p.is_cover) {
		patchfile_release(&p);
		return 0;
	}
	if (!p.diff) {
		const char *nl = strchr(p.message, '\n');

		err = error_set(ERR_INPUT, "patch '%s' message %zu (\"%.*s\") is neither a patch nor a cover letter",
				name, number, (int)(nl ? nl - p.message : 60), p.message);
		goto fail;
	}
	p.number = number;
	out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	out->v[out->n++] = p;
	return 0;
fail:
	patchfile_release(&p);
	return err;
}

static int list_finish(struct patchfile_list *out, const char *name, int err)
{
	if (!err && !out->n)
		err = error_set(ERR_INPUT, "patch '%s' holds no diff", name);
	if (err) {
		patchfile_list_release(out);
		return err;
	}
	for (size_t i = 0; i < out->n; i++)
		out->v[i].count = out->n;
	return 0;
}

int patchfile_parse_all(struct patchfile_list *out, const char *name, const char *buf,
			size_t len)
{
	const char *end = buf + len, *pos = buf, *start = NULL;
	size_t number = 0;
	struct line l;
	int err = 0;

	memset(out, 0, sizeof(*out));
	/* Blank lines may come first; anything else before a separator is not a mail. */
	while (line_at(pos, end, &l) && !l.len)
		pos = l.next;
	if (!line_at(pos, end, &l) || !is_from_line(&l)) {
		for (const char *q = pos; line_at(q, end, &l); q = l.next) {
			if (is_from_line(&l)) {
				err = error_set(ERR_INPUT, "patch '%s' holds text that is not a mail before its first message",
						name);
				return list_finish(out, name, err);
			}
		}
		/* No separator: one mail or one diff, as a single patch is read. */
		struct patchfile p;
		if ((err = parse_message(&p, name, buf, len)) == 0 && p.diff && !p.is_cover) {
			p.number = 1;
			out->v = xmalloc(sizeof(*out->v));
			out->v[out->n++] = p;
		} else {
			patchfile_release(&p);
		}
		return list_finish(out, name, err);
	}
	for (; !err && line_at(pos, end, &l); pos = l.next) {
		if (!is_from_line(&l))
			continue;
		if (start)
			err = add_message(out, name, ++number, start, (size_t)(l.p - start));
		start = l.p;
	}
	if (!err && start)
		err = add_message(out, name, ++number, start, (size_t)(end - start));
	return list_finish(out, name, err);
}

bool patchfile_is_maildir(const char *path)
{
	char *cur = xasprintf("%s/cur", path), *new = xasprintf("%s/new", path);
	struct stat st;
	bool yes = (stat(cur, &st) == 0 && S_ISDIR(st.st_mode)) ||
		   (stat(new, &st) == 0 && S_ISDIR(st.st_mode));

	free(cur);
	free(new);
	return yes;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The maildir's messages: the files of cur/ and new/, in name order as git mailsplit reads them. */
static int read_maildir(struct patchfile_list *out, const char *path)
{
	static const char *const subdirs[] = { "cur", "new" };
	struct strbuf text = STRBUF_INIT;
	char **names = NULL;
	size_t n = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < 2; i++) {
		char *dir = xasprintf("%s/%s", path, subdirs[i]);
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xasprintf("%s/%s", subdirs[i], e->d_name);
		}
		if (d)
			closedir(d);
		free(dir);
	}
	qsort(names, n, sizeof(*names), compare_names);
	for (size_t i = 0; i < n && !err; i++) {
		char *file = xasprintf("%s/%s", path, names[i]);

		strbuf_reset(&text);
		if ((err = file_read(file, &text)) == 0)
			err = add_message(out, path, i + 1, text.buf, text.len);
		free(file);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	strbuf_release(&text);
	return list_finish(out, path, err);
}

int patchfile_read(struct patchfile_list *out, const char *path, const char *name)
{
	struct strbuf text = STRBUF_INIT;
	int err;

	if (!name)
		name = path;
	if (patchfile_is_maildir(path))
		return read_maildir(out, path);
	if ((err = file_read(path, &text)) == 0)
		err = patchfile_parse_all(out, name, text.buf, text.len);
	strbuf_release(&text);
	return err;
}

void patchfile_list_release(struct patchfile_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		patchfile_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void patchfile_release(struct patchfile *p)
{
	if (!p)
		return;
	free(p->author_name);
	free(p->author_email);
	free(p->message);
	free(p->diff);
	free(p->mail);
	memset(p, 0, sizeof(*p));
}
