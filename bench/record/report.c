#include "report.h"

#include "kcidb.h"

#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>



/* Appends len bytes made safe to show, as report.h describes. */
void report_add_safe(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = strbuf_utf8_length(p, (size_t)(end - p));
		bool shown;

		if (*p == '\r' && p + 1 < end && p[1] == '\n') {
			p++;
			continue;
		}
		if (n == 1)
			shown = *p == '\n' || *p == '\t' || (*p >= 0x20 && *p != 0x7f);
		else
			shown = n > 1 && !(p[0] == 0xc2 && p[1] < 0xa0) &&
				!(n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
		if (n == 0)
			n = 1;
		if (shown)
			strbuf_add(sb, p, n);
		else
			for (size_t i = 0; i < n; i++)
				strbuf_addf(sb, "\\x%02x", p[i]);
		p += n;
	}
}

/* Safe text, then the format's escaping; NULL adds nothing. */
static void add_escaped(struct strbuf *sb, const char *s, size_t len,
			void (*escape)(struct strbuf *, const char *))
{
	struct strbuf safe = STRBUF_INIT;

	if (!s)
		return;
	report_add_safe(&safe, s, len);
	escape(sb, safe.buf);
	strbuf_release(&safe);
}

/* HTML and XML share their escaping. */
static void xml_text(struct strbuf *sb, const char *s)
{
	add_escaped(sb, s, s ? strlen(s) : 0, strbuf_add_xml);
}

void report_json_text(struct strbuf *sb, const char *s)
{
	add_escaped(sb, s, s ? strlen(s) : 0, strbuf_add_json);
}

/* ` name="value"`, nothing for a NULL value. */
static void xml_attr(struct strbuf *sb, const char *name, const char *value)
{
	if (!value)
		return;
	strbuf_addf(sb, " %s=\"", name);
	xml_text(sb, value);
	strbuf_addch(sb, '"');
}

/* Text that may wrap after each '_': crash titles and test names are long single words. */
static void html_breakable(struct strbuf *sb, const char *s)
{
	struct strbuf text = STRBUF_INIT;

	xml_text(&text, s);
	for (const char *p = text.buf; *p; p++) {
		strbuf_addch(sb, *p);
		if (*p == '_')
			strbuf_addstr(sb, "<wbr>");
	}
	strbuf_release(&text);
}

const char *report_status_name(enum verdict v)
{
	return (unsigned)v < VERDICT_COUNT ? verdict_name(v) : "none";
}

static bool str_equal(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/*
 * The last REPORT_EXCERPT_MAX bytes of the cell's console, from its first
 * whole line; false when there is none to read.  Bounded whatever the
 * file's size: a guest may flood its console.
 */
bool report_console_tail(const struct report_input *in, const struct matrix_cell *c,
			 struct strbuf *sb, bool *cut)
{
	char *path, buf[REPORT_EXCERPT_MAX];
	struct stat st;
	size_t got = 0;
	off_t from;
	int fd;

	if (!in->run_dir || !c->console)
		return false;
	path = xasprintf("%s/%s", in->run_dir, c->console);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	free(path);
	if (fd < 0)
		return false;
	/* Only a regular file: a FIFO there would block the report. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	from = st.st_size > REPORT_EXCERPT_MAX ? st.st_size - REPORT_EXCERPT_MAX : 0;
	while (got < sizeof(buf)) {
		ssize_t n = pread(fd, buf + got, sizeof(buf) - got, from + (off_t)got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*cut = from > 0;
	const char *start = buf, *nl = *cut ? memchr(buf, '\n', got) : NULL;
	if (nl)
		start = nl + 1;
	report_add_safe(sb, start, got - (size_t)(start - buf));
	return true;
}

/* The matrix as a table: one row per (variant, CPU setup), one column per test. */
struct layout {
	const struct matrix_cell **rows;	/* each row's first cell */
	size_t nrows;
	const char **tests;			/* in order of first appearance */
	size_t ntests;
	const struct matrix_cell **grid;	/* nrows x ntests, NULL where none ran */
};

static bool same_row(const struct matrix_cell *a, const struct matrix_cell *b)
{
	return strcmp(a->kernel->variant, b->kernel->variant) == 0 &&
	       strcmp(a->cpu->spec, b->cpu->spec) == 0;
}

static void layout_build(struct layout *l, const struct matrix *m)
{
	size_t *row = xcalloc(m->ncells, sizeof(*row)), *col = xcalloc(m->ncells, sizeof(*col));

	memset(l, 0, sizeof(*l));
	l->rows = xcalloc(m->ncells, sizeof(*l->rows));
	l->tests = xcalloc(m->ncells, sizeof(*l->tests));
	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_cell *c = &m->cells[i];

		for (row[i] = 0; row[i] < l->nrows && !same_row(l->rows[row[i]], c); row[i]++)
			;
		if (row[i] == l->nrows)
			l->rows[l->nrows++] = c;
		for (col[i] = 0; col[i] < l->ntests && strcmp(l->tests[col[i]], c->test); col[i]++)
			;
		if (col[i] == l->ntests)
			l->tests[l->ntests++] = c->test;
	}
	l->grid = xcalloc(l->nrows * l->ntests, sizeof(*l->grid));
	for (size_t i = 0; i < m->ncells; i++)
		l->grid[row[i] * l->ntests + col[i]] = &m->cells[i];
	free(row);
	free(col);
}

static void layout_release(struct layout *l)
{
	free(l->rows);
	free(l->tests);
	free(l->grid);
}

static const struct history_strip *strip_find(const struct history_strips *s,
					      const struct matrix_cell *c)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (str_equal(s->strips[i].variant, c->kernel->variant) &&
		    str_equal(s->strips[i].cpu, c->cpu->spec) && str_equal(s->strips[i].test, c->test))
			return &s->strips[i];
	return NULL;
}

/*
 * A relative path as a link: bytes outside a small safe set, ':' among
 * them, are percent-encoded, so that no path reads as a URL scheme.
 */
static void html_path_url(struct strbuf *sb, const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("._~/,+=@-", *p))
			strbuf_addch(sb, (char)*p);
		else
			strbuf_addf(sb, "%%%02X", *p);
	}
}

/* A lore link from a patch is a link only when it is a web URL. */
static void html_link(struct strbuf *sb, const char *url)
{
	if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7)) {
		xml_text(sb, url);
		return;
	}
	strbuf_addstr(sb, "<a");
	xml_attr(sb, "href", url);
	strbuf_addch(sb, '>');
	xml_text(sb, url);
	strbuf_addstr(sb, "</a>");
}

static const char html_style[] =
	"body{font:14px/1.3 system-ui,sans-serif;margin:1.2em;color:#222}\n"
	"h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.4em}h3{font-size:1em}\n"
	"code{font-size:.95em}\n"
	"table.matrix{border-collapse:collapse}\n"
	".matrix th,.matrix td{border:1px solid #999;padding:2px 4px;vertical-align:top}\n"
	".matrix thead th{background:#eee;font-weight:600;font-size:.8em;max-width:7em}\n"
	".matrix th.row{text-align:left;background:#f5f5f5;white-space:nowrap;font-size:.85em}\n"
	".variant{font-weight:700}.cpu{font-weight:400}.mode{color:#555;font-weight:400}\n"
	"td.cell{width:7.5em;font-size:.75em;overflow-wrap:anywhere}\n"
	"td.cell a.st,td.cell span.st{font-weight:700;font-size:1.2em;color:#000}\n"
	"td.unmet{outline:3px solid #b00020;outline-offset:-3px}\n"
	".exp{color:#333}.unmet .exp{color:#b00020;font-weight:700}\n"
	".crash{font-weight:600}.reason,.host{color:#444}\n"
	".status-pass{background:#b9e4b9}.status-skip{background:#dddddd}\n"
	".status-fail{background:#ffc56b}.status-timeout{background:#d6b3e6}\n"
	".status-crash{background:#f29191}.status-error{background:#fff176}\n"
	".status-none{background:#fff}\n"
	/* A failure the plan expects is the bench working: it reads as met, its status at the edge. */
	"td.met.status-fail,td.met.status-crash,td.met.status-timeout,td.met.status-error"
	"{background:#b9e4b9;border-left:8px solid #d32f2f}\n"
	".met .exp{color:#1b5e20;font-weight:700}\n"
	"section.bisect{border:2px solid #b00020;padding:.4em 1em;margin:.6em 0;max-width:60em}\n"
	"td.none{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#eee 4px,#eee 8px)}\n"
	/* Thirty results share the cell's width, a sparkline more than boxes. */
	".strip{display:flex;margin-top:3px;height:9px;border:1px solid rgba(0,0,0,.4)}\n"
	".strip span{flex:1 1 0;min-width:1px;border-right:1px solid rgba(255,255,255,.7)}\n"
	".strip span.now{border-right:0;flex-grow:2}\n"
	".strip .status-pass{background:#3d9a3d}.strip .status-crash{background:#d32f2f}\n"
	".strip .status-fail{background:#f08c00}.strip .status-skip{background:#9e9e9e}\n"
	".strip .status-timeout{background:#8e44ad}.strip .status-error{background:#e6c200}\n"
	".legend span.box{display:inline-block;padding:1px 6px;margin-right:4px;border:1px solid #999}\n"
	"section.prov{border:1px solid #bbb;padding:.4em 1em;margin:.6em 0;max-width:60em}\n"
	"dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}dt{font-weight:600}"
	"dd{margin:0}\n";

static void html_strip(struct strbuf *sb, const struct history_strip *s)
{
	strbuf_addstr(sb, "<div class=\"strip\">");
	for (size_t i = 0; i < s->n; i++) {
		const char *st = report_status_name(s->statuses[i]);

		strbuf_addf(sb, "<span class=\"status-%s%s\" title=\"run ", st, i + 1 == s->n ? " now" : "");
		xml_text(sb, s->runs[i]);
		strbuf_addf(sb, ": %s\"></span>", st);
	}
	strbuf_addstr(sb, "</div>");
}

/* The distinct hosts of the run, numbered for the cells: a libvirt URI is too long for one. */
struct hosts {
	const char **uris;
	size_t n;
};

static void hosts_collect(struct hosts *h, const struct matrix *m)
{
	h->uris = xcalloc(m->ncells, sizeof(*h->uris));
	h->n = 0;
	for (size_t i = 0; i < m->ncells; i++) {
		size_t k;

		for (k = 0; k < h->n && !str_equal(h->uris[k], m->cells[i].host); k++)
			;
		if (k == h->n && m->cells[i].host)
			h->uris[h->n++] = m->cells[i].host;
	}
}

/* 1-based, 0 for no host. */
static size_t hosts_number(const struct hosts *h, const char *uri)
{
	for (size_t k = 0; uri && k < h->n; k++)
		if (strcmp(h->uris[k], uri) == 0)
			return k + 1;
	return 0;
}

static void html_cell(struct strbuf *sb, const struct report_input *in,
		      const struct matrix_cell *c, const struct hosts *hosts)
{
	const char *st = report_status_name(c->status);
	const struct history_strip *strip = strip_find(in->strips, c);

	strbuf_addf(sb, "<td class=\"cell status-%s %s\" id=\"cell-%zu\"", st,
		    c->met ? "met" : "unmet", (size_t)(c - in->m->cells));
	xml_attr(sb, "data-variant", c->kernel->variant);
	xml_attr(sb, "data-cpu", c->cpu->spec);
	xml_attr(sb, "data-test", c->test);
	xml_attr(sb, "data-status", st);
	xml_attr(sb, "data-expected", report_status_name(c->expected));
	xml_attr(sb, "data-met", c->met ? "true" : "false");
	xml_attr(sb, "data-host", c->host);
	/* The tooltip has all; the cell shows what tells cells apart at a glance. */
	strbuf_addstr(sb, " title=\"");
	xml_text(sb, c->kernel->variant);
	strbuf_addch(sb, ' ');
	xml_text(sb, c->cpu->spec);
	strbuf_addch(sb, ' ');
	xml_text(sb, c->test);
	if (c->reason) {
		strbuf_addstr(sb, ": ");
		xml_text(sb, c->reason);
	}
	if (c->duration_s >= 0)
		strbuf_addf(sb, " (%.2f s)", c->duration_s);
	strbuf_addstr(sb, " on ");
	xml_text(sb, c->host ? c->host : "an unknown host");
	strbuf_addstr(sb, "\">");
	if (c->console) {
		strbuf_addstr(sb, "<a class=\"st\" href=\"");
		html_path_url(sb, c->console);
		strbuf_addf(sb, "\" title=\"console log\">%s</a>", st);
	} else {
		strbuf_addf(sb, "<span class=\"st\">%s</span>", st);
	}
	strbuf_addf(sb, "<div class=\"exp\">expected %s: %s</div>", report_status_name(c->expected),
		    c->met ? "met" : "NOT met");
	if (c->crash) {
		strbuf_addstr(sb, "<div class=\"crash\">");
		html_breakable(sb, c->crash);
		strbuf_addstr(sb, "</div>");
	} else if (c->reason) {
		/* With a crash, the reason ("the guest ended while it ran") adds little. */
		strbuf_addstr(sb, "<div class=\"reason\">");
		html_breakable(sb, c->reason);
		strbuf_addstr(sb, "</div>");
	}
	if (hosts->n > 1 && c->host)
		strbuf_addf(sb, "<div class=\"host\">host %zu</div>", hosts_number(hosts, c->host));
	if (strip)
		html_strip(sb, strip);
	strbuf_addstr(sb, "</td>");
}

static void html_summary(struct strbuf *sb, const struct report_input *in,
			 const struct hosts *hosts)
{
	const struct matrix *m = in->m;
	size_t count[VERDICT_COUNT] = { 0 }, met = 0;

	for (size_t i = 0; i < m->ncells; i++) {
		if ((unsigned)m->cells[i].status < VERDICT_COUNT)
			count[m->cells[i].status]++;
		met += m->cells[i].met;
	}
	strbuf_addstr(sb, "<p class=\"summary\">");
	xml_text(sb, in->run->command ? in->run->command : "run");
	strbuf_addstr(sb, ", started ");
	xml_text(sb, in->run->started ? in->run->started : "?");
	strbuf_addstr(sb, ", finished ");
	xml_text(sb, in->run->finished ? in->run->finished : "?");
	strbuf_addf(sb, "%s.<br><span id=\"cells\">%zu</span> cells:", m->interrupted
		    ? " (interrupted: the matrix is incomplete)" : "", m->ncells);
	for (int v = 0; v < VERDICT_COUNT; v++)
		if (count[v])
			strbuf_addf(sb, " %zu %s", count[v], verdict_name((enum verdict)v));
	strbuf_addf(sb, "; <span id=\"met\">%zu</span> of %zu met their expectation.</p>\n",
		    met, m->ncells);
	if (hosts->n == 1) {
		strbuf_addstr(sb, "<p>Every cell ran on <code>");
		xml_text(sb, hosts->uris[0]);
		strbuf_addstr(sb, "</code>.</p>\n");
	} else if (hosts->n > 1) {
		strbuf_addstr(sb, "<p>Hosts:</p><ol class=\"hosts\">");
		for (size_t k = 0; k < hosts->n; k++) {
			strbuf_addstr(sb, "<li><code>");
			xml_text(sb, hosts->uris[k]);
			strbuf_addstr(sb, "</code></li>");
		}
		strbuf_addstr(sb, "</ol>\n");
	}
	strbuf_addstr(sb, "<p class=\"legend\">");
	for (int v = 0; v < VERDICT_COUNT; v++)
		strbuf_addf(sb, "<span class=\"box status-%s\">%s</span>", verdict_name((enum verdict)v),
			    verdict_name((enum verdict)v));
	strbuf_addstr(sb, " A red frame marks a cell that missed its expectation.");
	if (in->strips)
		strbuf_addstr(sb, " The strip under a cell shows its last results, this run last.");
	strbuf_addstr(sb, "</p>\n");
}

static void html_matrix(struct strbuf *sb, const struct report_input *in,
			const struct hosts *hosts)
{
	struct layout l;

	layout_build(&l, in->m);
	strbuf_addstr(sb, "<table class=\"matrix\" id=\"matrix\">\n<thead><tr>"
			  "<th>kernel<br>CPU setup</th>");
	for (size_t t = 0; t < l.ntests; t++) {
		strbuf_addstr(sb, "<th class=\"test\">");
		html_breakable(sb, l.tests[t]);
		strbuf_addstr(sb, "</th>");
	}
	strbuf_addstr(sb, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < l.nrows; r++) {
		const struct matrix_cell *first = l.rows[r];
		const char *mode = NULL;

		for (size_t t = 0; t < l.ntests && !mode; t++)
			if (l.grid[r * l.ntests + t])
				mode = l.grid[r * l.ntests + t]->fpu_mode;
		strbuf_addstr(sb, "<tr><th class=\"row\"><div class=\"variant\">");
		xml_text(sb, first->kernel->variant);
		if (first->kernel->version) {
			strbuf_addstr(sb, "</div><div class=\"mode\">Linux ");
			xml_text(sb, first->kernel->version);
		}
		strbuf_addstr(sb, "</div><div class=\"cpu\">");
		xml_text(sb, first->cpu->spec);
		strbuf_addstr(sb, "</div>");
		if (mode) {
			strbuf_addstr(sb, "<div class=\"mode\">");
			xml_text(sb, mode);
			strbuf_addstr(sb, "</div>");
		}
		strbuf_addstr(sb, "</th>");
		for (size_t t = 0; t < l.ntests; t++) {
			const struct matrix_cell *c = l.grid[r * l.ntests + t];

			if (c)
				html_cell(sb, in, c, hosts);
			else
				strbuf_addstr(sb, "<td class=\"none\" title=\"not run\"></td>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</tbody></table>\n");
	layout_release(&l);
}

static void html_changes(struct strbuf *sb, const struct history_diff *d)
{
	static const struct {
		const char *id, *title;
	} kinds[] = {
		[HISTORY_CHANGE_NEW_FAILURE] = { "new-failures", "New failures" },
		[HISTORY_CHANGE_FIXED] = { "fixed", "Fixed" },
		[HISTORY_CHANGE_FLAKY] = { "flaky", "Flaky (flipped at least twice in the last 10 runs)" },
		[HISTORY_CHANGE_CRASH] = { "crash-changed", "Crash title changed (another bug)" },
	};

	strbuf_addstr(sb, "<h2>Compared with the previous run</h2>\n");
	if (!d || d->previous_run == 0) {
		strbuf_addstr(sb, "<p id=\"no-previous\">No previous run to compare with.</p>\n");
		return;
	}
	strbuf_addstr(sb, "<p>Previous run: ");
	xml_text(sb, history_run_name(d->previous_dir));
	strbuf_addstr(sb, ".</p>\n");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = 0;

		for (size_t i = 0; i < d->nentries; i++)
			n += (size_t)d->entries[i].change == k;
		strbuf_addf(sb, "<section class=\"changes\" id=\"%s\"><h3>%s (%zu)</h3>\n", kinds[k].id,
			    kinds[k].title, n);
		strbuf_addstr(sb, n ? "<ul>\n" : "<p>none</p>\n");
		for (size_t i = 0; i < d->nentries; i++) {
			const struct history_change_entry *e = &d->entries[i];

			if ((size_t)e->change != k)
				continue;
			strbuf_addstr(sb, "<li><code>");
			xml_text(sb, e->variant);
			strbuf_addch(sb, ' ');
			xml_text(sb, e->cpu);
			strbuf_addch(sb, ' ');
			xml_text(sb, e->test);
			if (e->change == HISTORY_CHANGE_CRASH) {
				strbuf_addstr(sb, "</code>: ");
				xml_text(sb, e->crash_before);
				strbuf_addstr(sb, " &#8594; ");
				xml_text(sb, e->crash_now);
				strbuf_addstr(sb, "</li>\n");
				continue;
			}
			strbuf_addf(sb, "</code>: <span class=\"status-%s\">%s</span> &#8594; "
				    "<span class=\"status-%s\">%s</span></li>\n", report_status_name(e->before),
				    report_status_name(e->before), report_status_name(e->now), report_status_name(e->now));
		}
		strbuf_addstr(sb, n ? "</ul></section>\n" : "</section>\n");
	}
}

/* The options of the config fragment each kernel was built without, once per kernel. */
static void html_config_warnings(struct strbuf *sb, const struct matrix *m)
{
	const struct matrix_kernel *done[64];
	size_t ndone = 0;
	bool any = false;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_kernel *k = m->cells[i].kernel;
		bool seen = false;

		for (size_t j = 0; j < ndone; j++)
			seen |= done[j] == k;
		if (seen || !k->nwarnings || ndone == sizeof(done) / sizeof(done[0]))
			continue;
		done[ndone++] = k;
		if (!any)
			strbuf_addstr(sb, "<h2>Config warnings</h2>\n<ul class=\"warnings\">\n");
		any = true;
		for (size_t w = 0; w < k->nwarnings; w++) {
			strbuf_addstr(sb, "<li>");
			xml_text(sb, k->variant);
			strbuf_addstr(sb, ": ");
			xml_text(sb, k->warnings[w]);
			strbuf_addstr(sb, "</li>\n");
		}
	}
	if (any)
		strbuf_addstr(sb, "</ul>\n");
}

static void html_dd(struct strbuf *sb, const char *term, const char *text)
{
	strbuf_addf(sb, "<dt>%s</dt><dd>", term);
	xml_text(sb, text ? text : "unknown");
	strbuf_addstr(sb, "</dd>");
}

static void html_provenance(struct strbuf *sb, const struct report_input *in)
{
	strbuf_addstr(sb, "<h2>Provenance</h2>\n");
	if (!in->nprov)
		strbuf_addstr(sb, "<p>No provenance was recorded.</p>\n");
	for (size_t i = 0; i < in->nprov; i++) {
		const struct report_provenance *p = &in->prov[i];

		strbuf_addstr(sb, "<section class=\"prov\"");
		xml_attr(sb, "data-variant", p->variant);
		strbuf_addstr(sb, "><h3>");
		xml_text(sb, p->variant);
		strbuf_addstr(sb, "</h3><dl>");
		html_dd(sb, "commit", p->commit && *p->commit ? p->commit : "the tree as it is");
		html_dd(sb, "summary", p->summary);
		strbuf_addstr(sb, "<dt>lore</dt><dd>");
		if (p->lore_url)
			html_link(sb, p->lore_url);
		else
			strbuf_addstr(sb, "no link");
		strbuf_addstr(sb, "</dd>");
		html_dd(sb, "patch-id", p->patch_id);
		strbuf_addstr(sb, "<dt>versions</dt><dd>");
		if (!p->nversions)
			strbuf_addstr(sb, "no earlier posting known");
		else
			strbuf_addstr(sb, "<ol class=\"versions\">");
		for (size_t v = 0; v < p->nversions; v++) {
			strbuf_addstr(sb, "<li>");
			html_link(sb, p->versions[v]);
			strbuf_addstr(sb, "</li>");
		}
		if (p->nversions)
			strbuf_addstr(sb, "<li>this commit</li></ol>");
		strbuf_addstr(sb, "</dd></dl></section>\n");
	}
}

/* What the nightly's own bisections of its new failures found. */
static void html_bisections(struct strbuf *sb, const struct report_input *in)
{
	if (!in->nbisections)
		return;
	strbuf_addstr(sb, "<h2>Bisections of the new failures</h2>\n");
	for (size_t i = 0; i < in->nbisections; i++) {
		const struct history_bisection *b = &in->bisections[i];
		strbuf_addstr(sb, "<section class=\"bisect\"><p><b>");
		xml_text(sb, b->variant);
		strbuf_addch(sb, ' ');
		xml_text(sb, b->cpu);
		strbuf_addch(sb, ' ');
		xml_text(sb, b->test);
		strbuf_addstr(sb, "</b> between <code>");
		strbuf_addf(sb, "%.12s</code> (good) and <code>%.12s</code> (bad): ", b->good, b->bad);
		if (b->culprit) {
			strbuf_addf(sb, "culprit <code class=\"culprit\">%.12s</code>", b->culprit);
			strbuf_addf(sb, ", confidence %.0f %%", b->confidence * 100);
			if (strcmp(b->outcome, "culprit") != 0) {
				strbuf_addstr(sb, " (");
				xml_text(sb, b->outcome);
				strbuf_addch(sb, ')');
			}
		} else {
			xml_text(sb, b->outcome);
		}
		if (b->mail) {
			strbuf_addstr(sb, "; <a class=\"mail\" href=\"");
			html_path_url(sb, b->mail);
			strbuf_addstr(sb, "\">the regression report to send</a>");
		}
		strbuf_addstr(sb, "</p></section>\n");
	}
}

void report_format_html(struct strbuf *sb, const struct report_input *in)
{
	struct hosts hosts;

	hosts_collect(&hosts, in->m);
	strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			  "<title>fpubench run ");
	xml_text(sb, in->run->id);
	strbuf_addf(sb, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>fpubench run <code>",
		    html_style);
	xml_text(sb, in->run->id);
	strbuf_addstr(sb, "</code></h1>\n");
	html_summary(sb, in, &hosts);
	strbuf_addstr(sb, "<h2>Matrix</h2>\n");
	html_matrix(sb, in, &hosts);
	html_config_warnings(sb, in->m);
	html_changes(sb, in->diff);
	html_bisections(sb, in);
	html_provenance(sb, in);
	strbuf_addstr(sb, "</body>\n</html>\n");
	free(hosts.uris);
}

int report_write(const struct report_input *in)
{
	static const struct {
		const char *name;
		void (*format)(struct strbuf *, const struct report_input *);
	} files[] = {
		{ "report.html", report_format_html },
		{ "junit.xml", report_format_junit },
		{ "kcidb.json", kcidb_format },
	};
	struct strbuf sb = STRBUF_INIT;
	char *path = NULL;
	int err = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		strbuf_reset(&sb);
		files[i].format(&sb, in);
		free(path);
		path = xasprintf("%s/%s", in->run_dir, files[i].name);
		if ((err = file_write_atomic(path, sb.buf, sb.len)) < 0)
			goto out;
	}
out:
	free(path);
	strbuf_release(&sb);
	return err;
}
