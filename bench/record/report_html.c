/*
 * report.html (report.h): one self-contained page, written with libxml2
 * (lib/xmlw.h) as polyglot HTML5, which a browser reads as HTML and a
 * script can read as XML, after report_safe() made every text from a
 * guest or a patch showable.  Here: the page's skeleton, its CSS and the
 * helpers its parts share (report_html.h).
 */
#include "report_html.h"

#include "report_bisections.h"
#include "report_changes.h"
#include "report_matrix.h"
#include "report_provenance.h"

#include "lib/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>

/* Every text is made safe to show (report.h) before libxml2 escapes it; NULL writes nothing. */
void report_html_text(struct xmlw *x, const char *s)
{
	struct strbuf safe = STRBUF_INIT;

	if (s)
		xmlw_text(x, report_safe(&safe, s));
	strbuf_release(&safe);
}

void report_html_textf(struct xmlw *x, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	report_html_text(x, sb.buf);
	strbuf_release(&sb);
}

/* An attribute of the element just opened, made safe as text is; none for a NULL value. */
void report_html_attribute(struct xmlw *x, const char *name, const char *value)
{
	struct strbuf safe = STRBUF_INIT;

	xmlw_attribute(x, name, report_safe(&safe, value));
	strbuf_release(&safe);
}

/* <name class="class">s</name>; a NULL class is none. */
void report_html_element(struct xmlw *x, const char *name, const char *class, const char *s)
{
	xmlw_open(x, name, NULL);
	xmlw_attribute(x, "class", class);
	report_html_text(x, s);
	xmlw_close(x);
}

/*
 * Written as text, so no '<', '>', '&' or '"': libxml2 would escape them,
 * and HTML does not unescape a <style>.
 */
static const char html_style[] =
	"body{font:14px/1.3 system-ui,sans-serif;margin:1.2em;color:#222}\n"
	"h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.4em}h3{font-size:1em}\n"
	"code{font-size:.95em}\n"
	"table.matrix{border-collapse:collapse}\n"
	".matrix th,.matrix td{border:1px solid #999;padding:2px 4px;vertical-align:top}\n"
	".matrix thead th{background:#eee;font-weight:600;font-size:.8em;max-width:7em}\n"
	".matrix thead th span.guards{font-weight:400;font-family:monospace;color:#555}\n"
	".matrix th.row{text-align:left;background:#f5f5f5;white-space:nowrap;font-size:.85em}\n"
	".variant{font-weight:700}.cpu{font-weight:400}.mode{color:#555;font-weight:400}\n"
	"td.cell{width:7.5em;font-size:.75em;overflow-wrap:anywhere}\n"
	"td.cell a.st,td.cell span.st{font-weight:700;font-size:1.2em;color:#000}\n"
	/* Red is for a missed expectation, and for nothing else. */
	"td.unmet{outline:3px solid #b00020;outline-offset:-3px}\n"
	".exp{color:#333}.unmet .exp{color:#b00020;font-weight:700}\n"
	".crash{font-weight:600}.reason,.host{color:#444}\n"
	".status-pass{background:#b9e4b9}.status-skip{background:#dddddd}\n"
	".status-fail{background:#ffc56b}.status-timeout{background:#d6b3e6}\n"
	".status-crash{background:#d7b899}.status-error{background:#fff176}\n"
	".status-none{background:#fff}\n"
	/* A failure the plan expects is the bench working: it reads as met, its status at the edge. */
	"td.met.status-fail,td.met.status-crash,td.met.status-timeout,td.met.status-error"
	"{background:#b9e4b9;border-left:8px solid}\n"
	"td.met.status-fail{border-left-color:#f08c00}td.met.status-crash{border-left-color:#8d6e63}\n"
	"td.met.status-timeout{border-left-color:#8e44ad}td.met.status-error{border-left-color:#e6c200}\n"
	".met .exp{color:#1b5e20;font-weight:700}\n"
	"section.bisect{border:2px solid #37474f;padding:.4em 1em;margin:.6em 0;max-width:60em}\n"
	"td.none{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#eee 4px,#eee 8px)}\n"
	/* Thirty results share the cell's width, a sparkline more than boxes. */
	".strip{display:flex;margin-top:3px;height:9px;border:1px solid rgba(0,0,0,.4)}\n"
	".strip span{flex:1 1 0;min-width:1px;border-right:1px solid rgba(255,255,255,.7)}\n"
	".strip span.now{border-right:0;flex-grow:2}\n"
	".strip .status-pass{background:#3d9a3d}.strip .status-crash{background:#8d6e63}\n"
	".strip .status-fail{background:#f08c00}.strip .status-skip{background:#9e9e9e}\n"
	".strip .status-timeout{background:#8e44ad}.strip .status-error{background:#e6c200}\n"
	".legend span.box{display:inline-block;padding:1px 6px;margin-right:4px;border:1px solid #999}\n"
	"section.prov{border:1px solid #bbb;padding:.4em 1em;margin:.6em 0;max-width:60em}\n"
	"dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}dt{font-weight:600}"
	"dd{margin:0}\n";

int report_html_format(struct strbuf *sb, const struct report_input *in)
{
	struct xmlw x;
	char *doc = NULL;
	int err;

	xmlw_begin_html(&x);
	xmlw_open(&x, "html", "xmlns", "http://www.w3.org/1999/xhtml", "lang", "en", "xml:lang", "en",
		  NULL);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "head", NULL);
	xmlw_text(&x, "\n");
	xmlw_element(&x, "meta", NULL, "charset", "utf-8", NULL);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "title", NULL);
	xmlw_text(&x, "fpubench run ");
	report_html_text(&x, in->run->id);
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "style", NULL);
	xmlw_text(&x, "\n");
	xmlw_text(&x, html_style);
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "body", NULL);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "h1", NULL);
	xmlw_text(&x, "fpubench run ");
	report_html_element(&x, "code", NULL, in->run->id);
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	report_matrix_write_summary(&x, in);
	report_changes_write_attention(&x, in);
	xmlw_element(&x, "h2", "Matrix", NULL);
	xmlw_text(&x, "\n");
	report_matrix_write(&x, in);
	report_provenance_write_warnings(&x, in->m);
	report_changes_write(&x, in);
	report_bisections_write(&x, in);
	report_provenance_write(&x, in);
	xmlw_close(&x);
	xmlw_text(&x, "\n");
	xmlw_close(&x);
	if ((err = xmlw_finish(&x, "report.html", &doc)) == 0)
		strbuf_addstr(sb, doc);
	free(doc);
	return err;
}
