#include "changes.h"

#include "lib/ctype.h"
#include "lib/hash.h"
#include "lib/str.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


struct parser {
	struct changes *c;
	struct changed_file *file;	/* the file hunks go to, or NULL */
	bool in_git_header;		/* after "diff --git", before its first hunk */
	size_t alloc_files;
	size_t alloc_lines;
	long old_left, new_left;	/* lines left in the current hunk */
};

static uint64_t line_hash(char sign, const char *p, size_t len)
{
	uint64_t h = hash_byte(HASH_INIT, (unsigned char)sign);

	for (size_t i = 0; i < len; i++)
		if (!ctype_is_space(p[i]))
			h = hash_byte(h, (unsigned char)p[i]);
	return h;
}

/* A path from "+++ b/x", "--- a/x" or "diff --git a/x b/x", without its prefix. */
static char *header_path(const char *p, size_t len)
{
	while (len && ctype_is_space(p[len - 1]))
		len--;
	const char *tab = memchr(p, '\t', len);	/* `diff -u` puts a date after a tab */
	if (tab)
		len = (size_t)(tab - p);
	if (len == 9 && memcmp(p, "/dev/null", 9) == 0)
		return NULL;
	if (len > 2 && (p[0] == 'a' || p[0] == 'b') && p[1] == '/') {
		p += 2;
		len -= 2;
	}
	return len ? xstrndup(p, len) : NULL;
}

static void start_file(struct parser *ps, char *path)
{
	struct changes *c = ps->c;

	if (c->nfiles == ps->alloc_files) {
		ps->alloc_files = ps->alloc_files ? 2 * ps->alloc_files : 4;
		c->files = xrealloc(c->files, ps->alloc_files * sizeof(*c->files));
	}
	ps->file = &c->files[c->nfiles++];
	*ps->file = (struct changed_file){ .path = path };
	ps->alloc_lines = 0;
}

static void add_line(struct parser *ps, char sign, const char *p, size_t len)
{
	struct changed_file *f = ps->file;

	if (f->nlines == ps->alloc_lines) {
		ps->alloc_lines = ps->alloc_lines ? 2 * ps->alloc_lines : 16;
		f->lines = xrealloc(f->lines, ps->alloc_lines * sizeof(*f->lines));
	}
	f->lines[f->nlines++] = line_hash(sign, p, len);
	if (sign == '+')
		f->added++;
	else
		f->removed++;
}

static long hunk_count(const char **pp, const char *end)
{
	const char *p = *pp;
	long n = 0;

	while (p < end && *p >= '0' && *p <= '9' && n < 1000000000)
		n = n * 10 + (*p++ - '0');
	if (p < end && *p == ',') {
		n = 0;
		p++;
		while (p < end && *p >= '0' && *p <= '9' && n < 1000000000)
			n = n * 10 + (*p++ - '0');
	} else {
		n = 1;
	}
	*pp = p;
	return n;
}

/* "@@ -a,b +c,d @@": sets how many old and new lines follow. */
static bool read_hunk_header(struct parser *ps, const char *p, size_t len)
{
	const char *end = p + len;

	p += 4;
	ps->old_left = hunk_count(&p, end);
	if (end - p < 2 || p[0] != ' ' || p[1] != '+')
		return false;
	p += 2;
	ps->new_left = hunk_count(&p, end);
	return true;
}

/* One line; "--- " only names a file outside a hunk. */
static void parse_line(struct parser *ps, const char *p, size_t len, const char *next_p,
		       size_t next_len)
{
	if (ps->file && (ps->old_left > 0 || ps->new_left > 0)) {
		char sign = len ? p[0] : ' ';
		if (sign == '-' && ps->old_left > 0) {
			add_line(ps, '-', p + 1, len - 1);
			ps->old_left--;
		} else if (sign == '+' && ps->new_left > 0) {
			add_line(ps, '+', p + 1, len - 1);
			ps->new_left--;
		} else if (sign == ' ' || len == 0) {
			ps->old_left--;
			ps->new_left--;
		} else if (sign != '\\') {
			ps->old_left = ps->new_left = 0;	/* a truncated hunk */
		}
		return;
	}
	if (str_has_prefix(p, len, "diff --git ")) {
		const char *b = NULL;
		for (const char *q = p + 11; q + 3 <= p + len; q++)
			if (memcmp(q, " b/", 3) == 0)
				b = q + 1;
		start_file(ps, b ? header_path(b, (size_t)(p + len - b)) : NULL);
		ps->in_git_header = true;
	} else if (str_has_prefix(p, len, "--- ") && next_p && str_has_prefix(next_p, next_len, "+++ ")) {
		char *path = header_path(next_p + 4, next_len - 4);
		if (!path)
			path = header_path(p + 4, len - 4);
		if (ps->in_git_header) {
			free(ps->file->path);
			ps->file->path = path;
		} else {
			start_file(ps, path);
		}
	} else if (ps->file && str_has_prefix(p, len, "@@ -")) {
		ps->in_git_header = false;
		if (!read_hunk_header(ps, p, len))
			ps->old_left = ps->new_left = 0;
	}
}

static int compare_hashes(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int compare_files(const void *a, const void *b)
{
	const struct changed_file *x = a, *y = b;

	return strcmp(x->path, y->path);
}

struct changes *changes_parse(const char *text, size_t len)
{
	struct parser ps = { .c = xcalloc(1, sizeof(struct changes)) };
	const char *end = text + len, *p = text;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		size_t n = (size_t)((nl ? nl : end) - p);
		const char *nl2 = next < end ? memchr(next, '\n', (size_t)(end - next)) : NULL;
		if (n && p[n - 1] == '\r')
			n--;
		parse_line(&ps, p, n, next < end ? next : NULL,
			   next < end ? (size_t)((nl2 ? nl2 : end) - next) : 0);
		p = next;
	}
	/* A file git named by no path at all cannot be compared: drop it. */
	size_t kept = 0;
	for (size_t i = 0; i < ps.c->nfiles; i++) {
		struct changed_file *f = &ps.c->files[i];
		if (!f->path) {
			free(f->lines);
			continue;
		}
		if (f->nlines)
			qsort(f->lines, f->nlines, sizeof(*f->lines), compare_hashes);
		ps.c->files[kept++] = *f;
	}
	ps.c->nfiles = kept;
	if (kept)
		qsort(ps.c->files, kept, sizeof(*ps.c->files), compare_files);
	return ps.c;
}

void changes_free(struct changes *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfiles; i++) {
		free(c->files[i].path);
		free(c->files[i].lines);
	}
	free(c->files);
	free(c);
}

static size_t common_lines(const struct changed_file *a, const struct changed_file *b)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->nlines && j < b->nlines) {
		if (a->lines[i] < b->lines[j]) {
			i++;
		} else if (a->lines[i] > b->lines[j]) {
			j++;
		} else {
			n++;
			i++;
			j++;
		}
	}
	return n;
}

/* Calls fn for every path of a or b in order, with NULL for a side that lacks it. */
static void merge_files(const struct changes *a, const struct changes *b,
			void (*fn)(const struct changed_file *, const struct changed_file *, void *),
			void *payload)
{
	size_t i = 0, j = 0;

	while (i < a->nfiles || j < b->nfiles) {
		int cmp = i == a->nfiles ? 1 : j == b->nfiles ? -1 :
			  strcmp(a->files[i].path, b->files[j].path);
		if (cmp < 0)
			fn(&a->files[i++], NULL, payload);
		else if (cmp > 0)
			fn(NULL, &b->files[j++], payload);
		else
			fn(&a->files[i++], &b->files[j++], payload);
	}
}

struct tally {
	size_t total, common;
};

static void tally_pair(const struct changed_file *a, const struct changed_file *b, void *payload)
{
	struct tally *t = payload;

	t->total += (a ? a->nlines : 0) + (b ? b->nlines : 0);
	if (a && b)
		t->common += common_lines(a, b);
}

double changes_similarity(const struct changes *a, const struct changes *b)
{
	struct tally t = { 0, 0 };

	merge_files(a, b, tally_pair, &t);
	return t.total ? 2.0 * (double)t.common / (double)t.total : 0.0;
}

struct summary {
	struct strbuf differ, added, dropped;
	size_t lines;
};

static void list_path(struct strbuf *sb, const char *path)
{
	strbuf_addstr(sb, sb->len ? ", " : "");
	strbuf_addstr(sb, path);
}

static void describe_pair(const struct changed_file *a, const struct changed_file *b,
			  void *payload)
{
	struct summary *s = payload;

	if (!a) {
		list_path(&s->added, b->path);
	} else if (!b) {
		list_path(&s->dropped, a->path);
	} else {
		size_t differ = a->nlines + b->nlines - 2 * common_lines(a, b);
		if (differ) {
			s->lines += differ;
			list_path(&s->differ, a->path);
		}
	}
}

void changes_describe(const struct changes *from, const struct changes *to, struct strbuf *out)
{
	struct summary s = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, 0 };
	size_t start = out->len;

	merge_files(from, to, describe_pair, &s);
	if (s.lines)
		strbuf_addf(out, "%zu line%s differ%s in %s", s.lines, s.lines == 1 ? "" : "s",
			    s.lines == 1 ? "s" : "", s.differ.buf);
	if (s.added.len)
		strbuf_addf(out, "%snow also touches %s", out->len > start ? "; " : "", s.added.buf);
	if (s.dropped.len)
		strbuf_addf(out, "%sno longer touches %s", out->len > start ? "; " : "",
			    s.dropped.buf);
	if (out->len == start)
		strbuf_addstr(out, "same changes");
	strbuf_release(&s.differ);
	strbuf_release(&s.added);
	strbuf_release(&s.dropped);
}
