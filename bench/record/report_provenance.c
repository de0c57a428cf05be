/*
 * report.html's config warnings and provenance panel (report_provenance.h).
 */
#include "report_provenance.h"

#include "report_html.h"
#include "lib/array.h"

#include <stdbool.h>
#include <string.h>

/* A lore link from a patch is a link only when it is a web URL. */
static void html_link(struct xmlw *x, const char *url)
{
	if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7)) {
		report_html_text(x, url);
		return;
	}
	xmlw_open(x, "a", NULL);
	report_html_attribute(x, "href", url);
	report_html_text(x, url);
	xmlw_close(x);
}

/* The options of the config fragment each kernel was built without, once per kernel. */
void report_provenance_write_warnings(struct xmlw *x, const struct matrix *m)
{
	const struct matrix_kernel *done[64];
	size_t ndone = 0;
	bool any = false;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct matrix_kernel *k = m->cells[i].kernel;
		bool seen = false;

		for (size_t j = 0; j < ndone; j++)
			seen |= done[j] == k;
		if (seen || !k->nwarnings || ndone == ARRAY_SIZE(done))
			continue;
		done[ndone++] = k;
		if (!any) {
			xmlw_element(x, "h2", "Config warnings", NULL);
			xmlw_text(x, "\n");
			xmlw_open(x, "ul", "class", "warnings", NULL);
			xmlw_text(x, "\n");
		}
		any = true;
		for (size_t w = 0; w < k->nwarnings; w++) {
			xmlw_open(x, "li", NULL);
			report_html_textf(x, "%s: %s", k->variant, k->warnings[w]);
			xmlw_close(x);
			xmlw_text(x, "\n");
		}
	}
	if (any) {
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
}

static void html_dd(struct xmlw *x, const char *term, const char *s)
{
	xmlw_element(x, "dt", term, NULL);
	report_html_element(x, "dd", NULL, s ? s : "unknown");
}

void report_provenance_write(struct xmlw *x, const struct report_input *in)
{
	xmlw_element(x, "h2", "Provenance", NULL);
	xmlw_text(x, "\n");
	if (!in->nprov) {
		xmlw_element(x, "p", "No provenance was recorded.", NULL);
		xmlw_text(x, "\n");
	}
	for (size_t i = 0; i < in->nprov; i++) {
		const struct report_provenance *p = &in->prov[i];

		xmlw_open(x, "section", "class", "prov", NULL);
		report_html_attribute(x, "data-variant", p->variant);
		report_html_element(x, "h3", NULL, p->variant);
		xmlw_open(x, "dl", NULL);
		html_dd(x, "commit", p->commit && *p->commit ? p->commit : "the tree as it is");
		html_dd(x, "summary", p->summary);
		xmlw_element(x, "dt", "lore", NULL);
		xmlw_open(x, "dd", NULL);
		if (p->lore_url)
			html_link(x, p->lore_url);
		else
			xmlw_text(x, "no link");
		xmlw_close(x);
		html_dd(x, "patch-id", p->patch_id);
		xmlw_element(x, "dt", "versions", NULL);
		xmlw_open(x, "dd", NULL);
		if (!p->nversions) {
			xmlw_text(x, "no earlier posting known");
		} else {
			xmlw_open(x, "ol", "class", "versions", NULL);
			for (size_t v = 0; v < p->nversions; v++) {
				xmlw_open(x, "li", NULL);
				html_link(x, p->versions[v]);
				xmlw_close(x);
			}
			xmlw_element(x, "li", "this commit", NULL);
			xmlw_close(x);
		}
		xmlw_close(x);
		xmlw_close(x);
		xmlw_close(x);
		xmlw_text(x, "\n");
	}
}
