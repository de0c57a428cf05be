/*
 * report_html: what the parts of report.html share, and the page itself.
 * report_html_format() (report.h) writes the page's skeleton, its CSS and
 * its parts in order: the summary (report_matrix_write_summary()), the
 * panels above the matrix (report_changes_write_attention()), the matrix
 * (report_matrix_write()), the kernels' config warnings, the other changes
 * since the previous run, the bisections (report_bisections_write()) and
 * the provenance (report_provenance_write()).  Each part writes through
 * the writer it is given, in document order, and owns nothing after it
 * returns.
 *
 * The helpers below are how every part writes a text that may have come
 * from a guest or a patch: made safe to show by report_safe() (report.h),
 * then escaped by libxml2.  Not for other modules: they use report.h.
 */
#ifndef FPUBENCH_REPORT_HTML_H
#define FPUBENCH_REPORT_HTML_H

#include "report.h"
#include "lib/xmlw.h"

/* s made safe, as text; NULL writes nothing. */
void report_html_text(struct xmlw *x, const char *s);
void report_html_textf(struct xmlw *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An attribute of the element just opened, made safe as text is; none for a NULL value. */
void report_html_attribute(struct xmlw *x, const char *name, const char *value);

/* <name class="class">s</name>; a NULL class is none. */
void report_html_element(struct xmlw *x, const char *name, const char *class, const char *s);

#endif
