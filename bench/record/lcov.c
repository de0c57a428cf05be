#include "lcov.h"

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A whole number at the start of s, up to the character `stop`. */
static bool number(const char *s, char stop, long long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return !errno && *end == stop;
}

/* "LINE,COUNT" or "LINE,COUNT,CHECKSUM", after "DA:". */
static bool parse_da(const char *s, long long *line, long long *hits)
{
	const char *comma = strchr(s, ',');

	return comma && number(s, ',', line) &&
	       number(comma + 1, strchr(comma + 1, ',') ? ',' : '\0', hits);
}

int lcov_parse(const char *name, const char *text, struct lcov_trace **out)
{
	struct lcov_trace *t = xcalloc(1, sizeof(*t));
	struct lcov_file *f = NULL;
	int lineno = 0, err = 0;

	for (const char *p = text; *p && !err;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		long long a, b;

		lineno++;
		p += n + (p[n] == '\n');
		if (strncmp(line, "SF:", 3) == 0 && !f) {
			t->files = xrealloc(t->files, (t->nfiles + 1) * sizeof(*t->files));
			f = &t->files[t->nfiles++];
			*f = (struct lcov_file){ .path = xstrdup(line + 3) };
		} else if (strcmp(line, "end_of_record") == 0 && f) {
			f = NULL;
		} else if (strncmp(line, "DA:", 3) == 0 && f && parse_da(line + 3, &a, &b)) {
			f->lines = xrealloc(f->lines, (f->nlines + 1) * sizeof(*f->lines));
			f->lines[f->nlines++] = (struct lcov_line){ .line = (long)a, .hits = b };
		} else if (strncmp(line, "FN:", 3) == 0 && f && number(line + 3, ',', &a)) {
			f->fns = xrealloc(f->fns, (f->functions + 1) * sizeof(*f->fns));
			f->fns[f->functions++] = (struct lcov_function){
				.line = (long)a, .name = xstrdup(strrchr(line, ',') + 1) };
		} else if (strncmp(line, "FNDA:", 5) == 0 && f && number(line + 5, ',', &a)) {
			f->functions_hit += a > 0;
		} else if (!*line || strncmp(line, "TN:", 3) == 0 ||
			   /* Sums lcov writes only after a merge: the summary counts for itself. */
			   (f && (strncmp(line, "FNF:", 4) == 0 || strncmp(line, "FNH:", 4) == 0 ||
				  strncmp(line, "LF:", 3) == 0 || strncmp(line, "LH:", 3) == 0 ||
				  strncmp(line, "BRDA:", 5) == 0 || strncmp(line, "BRF:", 4) == 0 ||
				  strncmp(line, "BRH:", 4) == 0))) {
			/* What the summary takes from elsewhere, or does not need. */
		} else {
			err = error_set(ERR_INPUT, "tracefile '%s' line %d is not lcov's: '%.60s'", name,
					lineno, line);
		}
		free(line);
	}
	if (!err && f)
		err = error_set(ERR_INPUT, "tracefile '%s' ends inside the record of '%s'", name,
				f->path);
	if (err) {
		lcov_trace_free(t);
		return err;
	}
	*out = t;
	return 0;
}

void lcov_trace_free(struct lcov_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i].path);
		free(t->files[i].lines);
		for (long k = 0; k < t->files[i].functions; k++)
			free(t->files[i].fns[k].name);
		free(t->files[i].fns);
	}
	free(t->files);
	free(t);
}

const struct lcov_function *lcov_function_at(const struct lcov_file *f, long line)
{
	const struct lcov_function *best = NULL;

	for (long i = 0; i < f->functions; i++)
		if (f->fns[i].line <= line && (!best || f->fns[i].line > best->line))
			best = &f->fns[i];
	return best;
}

const struct lcov_file *lcov_trace_find(const struct lcov_trace *t, const char *path)
{
	for (size_t i = 0; i < t->nfiles; i++)
		if (strcmp(t->files[i].path, path) == 0)
			return &t->files[i];
	return NULL;
}

long long lcov_file_hits(const struct lcov_file *f, long line)
{
	long long hits = 0;

	/* A line may be listed more than once (code inlined from several places). */
	for (size_t i = 0; f && i < f->nlines; i++)
		if (f->lines[i].line == line)
			hits += f->lines[i].hits;
	return hits;
}

struct tally {
	long lines, lines_hit, functions, functions_hit;
};

static void tally_file(struct tally *t, const struct lcov_file *f)
{
	for (size_t i = 0; i < f->nlines; i++) {
		t->lines++;
		t->lines_hit += f->lines[i].hits > 0;
	}
	t->functions += f->functions;
	t->functions_hit += f->functions_hit;
}

static void tally_row(struct strbuf *out, const char *what, const struct tally *t)
{
	strbuf_addf(out, "  %-46s %5ld/%-5ld %5.1f%%   %4ld/%-4ld %5.1f%%\n", what, t->lines_hit,
		    t->lines, t->lines ? 100.0 * t->lines_hit / t->lines : 0.0, t->functions_hit,
		    t->functions, t->functions ? 100.0 * t->functions_hit / t->functions : 0.0);
}

static void table(struct strbuf *out, const struct lcov_named *n,
		  bool (*is_fpu_code)(const char *path))
{
	struct tally total = { 0 }, other = { 0 };

	strbuf_addf(out, "\n%s\n  %-46s %-19s %s\n", n->title, "file", "lines executed",
		    "functions executed");
	for (size_t i = 0; i < n->trace->nfiles; i++) {
		const struct lcov_file *f = &n->trace->files[i];
		struct tally t = { 0 };

		tally_file(&t, f);
		tally_file(&total, f);
		if (is_fpu_code(f->path))
			tally_row(out, f->path, &t);
		else
			tally_file(&other, f);
	}
	if (other.lines || other.functions)
		tally_row(out, "(other inlined code)", &other);
	tally_row(out, "total", &total);
}

int lcov_cmp_line(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

void lcov_add_ranges(struct strbuf *out, long *v, size_t n)
{
	qsort(v, n, sizeof(*v), lcov_cmp_line);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && v[j + 1] <= v[j] + 1)
			j++;
		strbuf_addf(out, "%s%ld", i ? ", " : "", v[i]);
		if (v[j] != v[i])
			strbuf_addf(out, "-%ld", v[j]);
		i = j + 1;
	}
}

/* Per file of `all`, the lines `pick` chooses, given their hits in all and in FSAVE. */
static void line_list(struct strbuf *out, const char *title, const struct lcov_named *fsave,
		      const struct lcov_named *all, bool (*is_fpu_code)(const char *path),
		      bool fxsave_only)
{
	size_t total = 0;

	strbuf_addf(out, "\n%s\n", title);
	for (size_t i = 0; i < all->trace->nfiles; i++) {
		const struct lcov_file *f = &all->trace->files[i];
		const struct lcov_file *fs = lcov_trace_find(fsave->trace, f->path);
		long *v = xcalloc(f->nlines + 1, sizeof(*v));
		size_t n = 0;

		if (!is_fpu_code(f->path)) {
			free(v);
			continue;
		}
		for (size_t k = 0; k < f->nlines; k++) {
			long line = f->lines[k].line;
			long long in_all = lcov_file_hits(f, line);
			bool picked = fxsave_only ? in_all > 0 && lcov_file_hits(fs, line) == 0 : in_all == 0;
			bool seen = false;

			for (size_t m = 0; m < n && !seen; m++)
				seen = v[m] == line;
			if (picked && !seen)
				v[n++] = line;
		}
		if (n) {
			strbuf_addf(out, "  %s (%zu): ", f->path, n);
			lcov_add_ranges(out, v, n);
			strbuf_addch(out, '\n');
		}
		total += n;
		free(v);
	}
	if (!total)
		strbuf_addstr(out, "  none\n");
}

void lcov_summary(struct strbuf *out, const struct lcov_named *traces, size_t ntraces,
		  const struct lcov_named *fsave, const struct lcov_named *all,
		  bool (*is_fpu_code)(const char *path))
{
	for (size_t i = 0; i < ntraces; i++)
		table(out, &traces[i], is_fpu_code);
	table(out, fsave, is_fpu_code);
	table(out, all, is_fpu_code);
	line_list(out, "Lines only the FXSAVE setups execute (line numbers):", fsave, all,
		  is_fpu_code, true);
	line_list(out, "Lines no setup executes (line numbers):", fsave, all, is_fpu_code, false);
}
