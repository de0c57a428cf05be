#include "unreached.h"

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xmlw.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unreached_reason {
	char *name, *text;
};

struct unreached_entry {
	char *file, *function, *source;	/* source squeezed, or "*" */
	long nth;			/* the source's occurrence in the function, 0: any */
	size_t reason;
};

struct unreached_list {
	struct unreached_reason *reasons;
	size_t nreasons;
	struct unreached_entry *entries;
	size_t nentries;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The `n` bytes at s without the spaces at their ends, each inner run of spaces as one. */
static char *squeeze(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (!is_space(s[i]))
			*o++ = s[i];
		else if (o > out && i + 1 < n && !is_space(s[i + 1]))
			*o++ = ' ';
	}
	*o = '\0';
	return out;
}

/* The next word of *p, NULL at the end; *p moves past it. */
static char *word(const char **p)
{
	const char *s = *p;
	size_t n;

	while (is_space(*s))
		s++;
	n = strcspn(s, " \t\r");
	*p = s + n;
	return n ? xstrndup(s, n) : NULL;
}

/* Strips a trailing " @N" (N > 0) off `source` and returns N; 0 without one. */
static long occurrence_suffix(char *source)
{
	char *at = strrchr(source, '@'), *end;
	long n;

	if (!at || at == source || at[-1] != ' ' || at[1] < '1' || at[1] > '9')
		return 0;
	n = strtol(at + 1, &end, 10);
	if (*end)
		return 0;
	at[-1] = '\0';
	return n;
}

static bool find_reason(const struct unreached_list *l, const char *name, size_t *out)
{
	for (size_t i = 0; i < l->nreasons; i++)
		if (strcmp(l->reasons[i].name, name) == 0) {
			*out = i;
			return true;
		}
	return false;
}

/* One line of the list, not blank and no comment. */
static int parse_line(struct unreached_list *l, const char *name, int lineno, const char *line)
{
	const char *p = line;
	char *w[3] = { word(&p), word(&p), word(&p) }, *rest;
	struct unreached_entry e = { 0 };
	int err = 0;

	if (w[0] && strcmp(w[0], "reason") == 0 && w[1] && w[2]) {
		l->reasons = xrealloc(l->reasons, (l->nreasons + 1) * sizeof(*l->reasons));
		/* `line` is squeezed: p is empty or a space and the rest of the text. */
		l->reasons[l->nreasons++] =
			(struct unreached_reason){ .name = w[1], .text = xasprintf("%s%s", w[2], p) };
		free(w[0]);
		free(w[2]);
		return 0;
	}
	rest = squeeze(p, strlen(p));
	if (!w[2] || !*rest)
		err = error_set(ERR_INPUT, "unreached list '%s' line %d is not an entry: '%.60s'",
				name, lineno, line);
	else if (!find_reason(l, w[2], &e.reason))
		err = error_set(ERR_INPUT, "unreached list '%s' line %d: unknown reason '%s'", name,
				lineno, w[2]);
	if (err) {
		for (int i = 0; i < 3; i++)
			free(w[i]);
		free(rest);
		return err;
	}
	e.file = w[0];
	e.function = w[1];
	e.source = rest;
	e.nth = occurrence_suffix(rest);
	free(w[2]);
	l->entries = xrealloc(l->entries, (l->nentries + 1) * sizeof(*l->entries));
	l->entries[l->nentries++] = e;
	return 0;
}

int unreached_parse(const char *name, const char *text, struct unreached_list **out)
{
	struct unreached_list *l = xcalloc(1, sizeof(*l));
	int lineno = 0, err = 0;

	for (const char *p = text; *p && !err;) {
		size_t n = strcspn(p, "\n");
		char *line = squeeze(p, n);

		lineno++;
		p += n + (p[n] == '\n');
		if (*line && *line != '#')
			err = parse_line(l, name, lineno, line);
		free(line);
	}
	if (err) {
		unreached_list_free(l);
		return err;
	}
	*out = l;
	return 0;
}

void unreached_list_free(struct unreached_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nreasons; i++) {
		free(l->reasons[i].name);
		free(l->reasons[i].text);
	}
	for (size_t i = 0; i < l->nentries; i++) {
		free(l->entries[i].file);
		free(l->entries[i].function);
		free(l->entries[i].source);
	}
	free(l->reasons);
	free(l->entries);
	free(l);
}

/* Line `line` (1-based) of `text`, squeezed; "" when there is none. */
static char *source_line(const char *text, long line)
{
	const char *p = text;

	for (long i = 1; p && i < line; i++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return p ? squeeze(p, strcspn(p, "\n")) : xstrdup("");
}

/* How many lines from `from` to `line` of `text` read `source`: its occurrence at `line`. */
static long occurrence(const char *text, long from, long line, const char *source)
{
	const char *p = text;
	long n = 0;

	for (long i = 1; p && i <= line; i++) {
		if (i >= from) {
			char *s = squeeze(p, strcspn(p, "\n"));

			n += strcmp(s, source) == 0;
			free(s);
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return n;
}

/* The index of the first entry that explains the line, the nth of its text, or -1. */
static long explain(const struct unreached_list *l, const char *file, const char *function,
		    const char *source, long nth)
{
	for (size_t i = 0; l && i < l->nentries; i++) {
		const struct unreached_entry *e = &l->entries[i];

		if (strcmp(e->file, file) == 0 && strcmp(e->function, function) == 0 &&
		    (strcmp(e->source, "*") == 0 ||
		     (strcmp(e->source, source) == 0 && (!e->nth || e->nth == nth))))
			return (long)i;
	}
	return -1;
}

/* Line numbers under a name: a reason's or a function's. */
struct group {
	const char *name;
	long *v;
	size_t n;
};

static void group_add(struct group **g, size_t *n, const char *name, long line)
{
	size_t i = 0;

	while (i < *n && strcmp((*g)[i].name, name) != 0)
		i++;
	if (i == *n) {
		*g = xrealloc(*g, (*n + 1) * sizeof(**g));
		(*g)[(*n)++] = (struct group){ .name = name };
	}
	(*g)[i].v = xrealloc((*g)[i].v, ((*g)[i].n + 1) * sizeof(long));
	(*g)[i].v[(*g)[i].n++] = line;
}

static void group_print(struct strbuf *out, const struct group *g, size_t n, bool count)
{
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(out, "    %s", g[i].name);
		if (count)
			strbuf_addf(out, " (%zu)", g[i].n);
		strbuf_addstr(out, ": ");
		lcov_add_ranges(out, g[i].v, g[i].n);
		strbuf_addch(out, '\n');
	}
}

/* A file's unreached lines, each once: explained (by reason) and not (by function). */
struct sorted {
	const char *path;
	struct group *why, *fns;
	size_t nwhy, nfns, explained, unexplained;
};

/* Every FPU file's, and the lines each entry explained (`used`), for the text and the HTML. */
struct sorting {
	const struct unreached_list *l;
	size_t *used;
	struct sorted *files;
	size_t nfiles;
};

static void sort_file(struct sorting *so, struct sorted *s, const struct lcov_file *f,
		      const char *text)
{
	long *done = xcalloc(f->nlines + 1, sizeof(*done));
	size_t ndone = 0;

	s->path = f->path;
	for (size_t k = 0; k < f->nlines; k++) {
		long line = f->lines[k].line;
		const struct lcov_function *fn = lcov_function_at(f, line);
		const char *name = fn ? fn->name : "-";
		bool seen = false;
		long e;
		char *src;

		for (size_t m = 0; m < ndone && !seen; m++)
			seen = done[m] == line;
		if (seen || lcov_file_hits(f, line) > 0)
			continue;
		done[ndone++] = line;
		src = text ? source_line(text, line) : xstrdup("");
		e = explain(so->l, f->path, name, src,
			    text ? occurrence(text, fn ? fn->line : 1, line, src) : 0);
		free(src);
		if (e >= 0) {
			so->used[e]++;
			group_add(&s->why, &s->nwhy, so->l->reasons[so->l->entries[e].reason].name,
				  line);
			s->explained++;
		} else {
			/* The name lives in `f`, which outlives the groups. */
			group_add(&s->fns, &s->nfns, name, line);
			s->unexplained++;
		}
	}
	for (size_t k = 0; k < s->nwhy; k++)
		qsort(s->why[k].v, s->why[k].n, sizeof(long), lcov_cmp_line);
	for (size_t k = 0; k < s->nfns; k++)
		qsort(s->fns[k].v, s->fns[k].n, sizeof(long), lcov_cmp_line);
	free(done);
}

static const char *source_of(const struct unreached_source *sources, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(sources[i].path, path) == 0)
			return sources[i].text;
	return NULL;
}

static void sorting_build(struct sorting *so, const struct lcov_trace *fsave,
			  const struct unreached_list *list, const struct unreached_source *sources,
			  size_t nsources, bool (*is_fpu_code)(const char *path))
{
	*so = (struct sorting){ .l = list };
	so->used = xcalloc(list ? list->nentries + 1 : 1, sizeof(*so->used));
	so->files = xcalloc(fsave->nfiles + 1, sizeof(*so->files));
	for (size_t i = 0; i < fsave->nfiles; i++)
		if (is_fpu_code(fsave->files[i].path))
			sort_file(so, &so->files[so->nfiles++], &fsave->files[i],
				  source_of(sources, nsources, fsave->files[i].path));
}

static void sorting_free(struct sorting *so)
{
	for (size_t i = 0; i < so->nfiles; i++) {
		for (size_t k = 0; k < so->files[i].nwhy; k++)
			free(so->files[i].why[k].v);
		for (size_t k = 0; k < so->files[i].nfns; k++)
			free(so->files[i].fns[k].v);
		free(so->files[i].why);
		free(so->files[i].fns);
	}
	free(so->files);
	free(so->used);
}

static void entry_text(struct strbuf *out, const struct unreached_entry *e)
{
	strbuf_addf(out, "%s %s %s", e->file, e->function, e->source);
	if (e->nth)
		strbuf_addf(out, " @%ld", e->nth);
}

static void summary_text(struct strbuf *out, const struct sorting *so, const char *name)
{
	const struct unreached_list *l = so->l;
	size_t stale = 0, unexplained = 0;

	strbuf_addf(out, "\nLines no FSAVE setup executes, explained by %s (reason: line numbers):\n",
		    name);
	if (!l)
		strbuf_addf(out, "  no list: '%s' could not be read\n", name);
	for (size_t i = 0; i < so->nfiles; i++) {
		const struct sorted *s = &so->files[i];

		if (s->explained)
			strbuf_addf(out, "  %s (%zu of %zu)\n", s->path, s->explained,
				    s->explained + s->unexplained);
		group_print(out, s->why, s->nwhy, true);
	}
	strbuf_addf(out, "\nLines no FSAVE setup executes that %s does not explain "
		    "(function: line numbers):\n", name);
	for (size_t i = 0; i < so->nfiles; i++) {
		const struct sorted *s = &so->files[i];

		if (s->unexplained)
			strbuf_addf(out, "  %s (%zu)\n", s->path, s->unexplained);
		group_print(out, s->fns, s->nfns, false);
		unexplained += s->unexplained;
	}
	if (!unexplained)
		strbuf_addstr(out, "  none\n");
	strbuf_addf(out, "\nEntries of %s that explain no line:\n", name);
	for (size_t i = 0; l && i < l->nentries; i++)
		if (!so->used[i] && ++stale) {
			strbuf_addstr(out, "  ");
			entry_text(out, &l->entries[i]);
			strbuf_addch(out, '\n');
		}
	if (!stale)
		strbuf_addstr(out, "  none\n");
	strbuf_addstr(out, "\nReasons:\n");
	for (size_t i = 0; l && i < l->nreasons; i++)
		strbuf_addf(out, "  %-10s %s\n", l->reasons[i].name, l->reasons[i].text);
}

void unreached_summary(struct strbuf *out, const struct lcov_trace *fsave,
		       const struct unreached_list *list, const char *name,
		       const struct unreached_source *sources, size_t nsources,
		       bool (*is_fpu_code)(const char *path))
{
	struct sorting so;

	sorting_build(&so, fsave, list, sources, nsources, is_fpu_code);
	summary_text(out, &so, name);
	sorting_free(&so);
}

/* Whether `path` may go into a link as it is: letters, digits, '/', '.', '_', '-'. */
static bool plain_path(const char *path)
{
	return *path && path[strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789/._-")] == '\0' && !strstr(path, "..");
}

/* "NAME (n): 12, 13" with each line a link to genhtml's page of `path`. */
static void group_html(struct xmlw *x, const char *path, const struct group *g, bool count)
{
	xmlw_open(x, "li", NULL);
	xmlw_element(x, "code", g->name, NULL);
	if (count) {
		char n[32];

		snprintf(n, sizeof(n), " (%zu)", g->n);
		xmlw_text(x, n);
	}
	xmlw_text(x, ": ");
	for (size_t i = 0; i < g->n; i++) {
		char line[32], *href = xasprintf("%s.gcov.html#%ld", path, g->v[i]);

		snprintf(line, sizeof(line), "%ld", g->v[i]);
		if (i)
			xmlw_text(x, ", ");
		if (plain_path(path))
			xmlw_element(x, "a", line, "href", href, NULL);
		else
			xmlw_text(x, line);
		free(href);
	}
	xmlw_close(x);
	xmlw_text(x, "\n");
}

static void file_html(struct xmlw *x, const struct sorted *s)
{
	char what[64];

	xmlw_element(x, "h2", s->path, NULL);
	snprintf(what, sizeof(what), "%zu explained, %zu not", s->explained, s->unexplained);
	xmlw_element(x, "p", what, NULL);
	xmlw_open(x, "ul", NULL);
	for (size_t k = 0; k < s->nwhy; k++)
		group_html(x, s->path, &s->why[k], true);
	for (size_t k = 0; k < s->nfns; k++) {
		xmlw_open(x, "li", NULL);
		xmlw_element(x, "strong", "not explained", NULL);
		xmlw_open(x, "ul", NULL);
		group_html(x, s->path, &s->fns[k], false);
		xmlw_close(x);
		xmlw_close(x);
	}
	xmlw_close(x);
	xmlw_text(x, "\n");
}

int unreached_html(const struct lcov_trace *fsave, const struct unreached_list *list,
		   const char *name, const struct unreached_source *sources, size_t nsources,
		   bool (*is_fpu_code)(const char *path), char **out)
{
	const char *title = "Lines no FSAVE setup executes";
	struct strbuf entry = STRBUF_INIT;
	struct sorting so;
	struct xmlw x;

	sorting_build(&so, fsave, list, sources, nsources, is_fpu_code);
	xmlw_begin_html(&x);
	xmlw_open(&x, "html", "xmlns", "http://www.w3.org/1999/xhtml", "lang", "en", NULL);
	xmlw_open(&x, "head", NULL);
	xmlw_element(&x, "meta", NULL, "charset", "utf-8", NULL);
	xmlw_element(&x, "title", title, NULL);
	xmlw_close(&x);
	xmlw_open(&x, "body", NULL);
	xmlw_element(&x, "h1", title, NULL);
	xmlw_open(&x, "p", NULL);
	xmlw_text(&x, "By the reasons of ");
	xmlw_element(&x, "code", name, NULL);
	xmlw_text(&x, list ? "; each line number opens the line in the file's page."
			   : ", which could not be read: nothing is explained.");
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	for (size_t i = 0; i < so.nfiles; i++)
		if (so.files[i].explained || so.files[i].unexplained)
			file_html(&x, &so.files[i]);
	xmlw_element(&x, "h2", "Entries that explain no line", NULL);
	xmlw_open(&x, "ul", NULL);
	for (size_t i = 0; list && i < list->nentries; i++)
		if (!so.used[i]) {
			strbuf_reset(&entry);
			entry_text(&entry, &list->entries[i]);
			xmlw_element(&x, "li", entry.buf, NULL);
		}
	xmlw_close(&x);
	xmlw_element(&x, "h2", "Reasons", NULL);
	xmlw_open(&x, "dl", NULL);
	for (size_t i = 0; list && i < list->nreasons; i++) {
		xmlw_element(&x, "dt", list->reasons[i].name, NULL);
		xmlw_element(&x, "dd", list->reasons[i].text, NULL);
	}
	xmlw_close(&x);
	xmlw_close(&x);
	xmlw_close(&x);
	strbuf_release(&entry);
	sorting_free(&so);
	return xmlw_finish(&x, "the unreached lines' page", out);
}
