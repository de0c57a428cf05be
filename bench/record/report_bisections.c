/*
 * report.html's bisection frames (report_bisections.h).
 */
#include "report_bisections.h"

#include "report_html.h"

#include <string.h>

/* A commit as the page shows it: its first 12 hex digits. */
static void html_commit(struct xmlw *x, const char *class, const char *hex)
{
	xmlw_open(x, "code", NULL);
	xmlw_attribute(x, "class", class);
	report_html_textf(x, "%.12s", hex);
	xmlw_close(x);
}

/* What the nightly's own bisections of its new failures found. */
void report_bisections_write(struct xmlw *x, const struct report_input *in)
{
	if (!in->nbisections)
		return;
	xmlw_element(x, "h2", "Bisections of the new failures", NULL);
	xmlw_text(x, "\n");
	for (size_t i = 0; i < in->nbisections; i++) {
		const struct history_bisection *b = &in->bisections[i];

		xmlw_open(x, "section", "class", "bisect", NULL);
		xmlw_open(x, "p", NULL);
		xmlw_open(x, "b", NULL);
		report_html_textf(x, "%s %s %s", b->variant, b->cpu, b->test);
		xmlw_close(x);
		xmlw_text(x, " between ");
		html_commit(x, NULL, b->good);
		xmlw_text(x, " (good) and ");
		html_commit(x, NULL, b->bad);
		xmlw_text(x, " (bad): ");
		if (b->culprit) {
			xmlw_text(x, "culprit ");
			html_commit(x, "culprit", b->culprit);
			report_html_textf(x, ", confidence %.0f %%", b->confidence * 100);
			if (strcmp(b->outcome, "culprit") != 0)
				report_html_textf(x, " (%s)", b->outcome);
		} else {
			report_html_text(x, b->outcome);
		}
		if (b->mail) {
			xmlw_text(x, "; ");
			xmlw_open(x, "a", "class", "mail", NULL);
			xmlw_path_attribute(x, "href", b->mail);
			xmlw_text(x, "the regression report to send");
			xmlw_close(x);
		}
		xmlw_close(x);
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
}
