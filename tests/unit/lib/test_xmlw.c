/* xmlw: what libxml2 writes for the bench, XML and polyglot HTML5. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/xmlw.h"

#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

static void test_xml_closes_empty_elements(void **state)
{
	struct xmlw x;
	char *doc = NULL;

	(void)state;
	xmlw_begin(&x);
	xmlw_open(&x, "devices", NULL);
	xmlw_element(&x, "acpi", NULL, NULL);
	xmlw_open(&x, "serial", "type", "file", NULL);
	xmlw_close(&x);
	xmlw_element(&x, "cmdline", "a<b & \"c\"", NULL);
	xmlw_close(&x);
	assert_int_equal(xmlw_finish(&x, "the test", &doc), 0);
	assert_string_equal(doc, "<devices>\n  <acpi/>\n  <serial type=\"file\"/>\n"
				 "  <cmdline>a&lt;b &amp; &quot;c&quot;</cmdline>\n</devices>\n");
	free(doc);
}

/* HTML reads <td/> as an open <td>: only a void element may close itself. */
static void test_html_is_polyglot(void **state)
{
	struct xmlw x;
	char *doc = NULL;
	xmlDocPtr parsed;

	(void)state;
	xmlw_begin_html(&x);
	xmlw_open(&x, "html", "xmlns", "http://www.w3.org/1999/xhtml", NULL);
	xmlw_open(&x, "body", NULL);
	xmlw_text(&x, "\n");
	xmlw_open(&x, "td", "class", "none", NULL);
	xmlw_close(&x);
	xmlw_element(&x, "span", "", "title", "run 1: <pass>", NULL);
	xmlw_element(&x, "br", NULL, NULL);
	xmlw_text(&x, "fpu_");
	xmlw_element(&x, "wbr", NULL, NULL);
	xmlw_text(&x, "seed & \xe2\x86\x92");
	xmlw_close(&x);
	xmlw_close(&x);
	assert_int_equal(xmlw_finish(&x, "the page", &doc), 0);
	assert_string_equal(doc, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>\n"
				 "<td class=\"none\"></td><span title=\"run 1: &lt;pass&gt;\"></span>"
				 "<br/>fpu_<wbr/>seed &amp; \xe2\x86\x92</body></html>\n");
	/* And XML reads it too. */
	parsed = xmlReadMemory(doc, (int)strlen(doc), "page.html", NULL, XML_PARSE_NONET);
	assert_non_null(parsed);
	assert_string_equal((const char *)xmlDocGetRootElement(parsed)->name, "html");
	xmlFreeDoc(parsed);
	free(doc);
}

/* A path stays a relative link: no scheme, no query, no fragment. */
static void test_path_attribute(void **state)
{
	struct xmlw x;
	char *doc = NULL;

	(void)state;
	xmlw_begin_html(&x);
	xmlw_open(&x, "a", NULL);
	xmlw_path_attribute(&x, "href", "javascript:alert(1)/a b?c#d&e\"f/console,1+2=3@h_~.log");
	xmlw_close(&x);
	assert_int_equal(xmlw_finish(&x, "the link", &doc), 0);
	assert_string_equal(doc, "<!DOCTYPE html>\n<a href=\"javascript%3Aalert(1)/a%20b%3Fc%23d%26e%22f"
				 "/console,1+2=3@h_~.log\"></a>\n");
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_closes_empty_elements),
		cmocka_unit_test(test_html_is_polyglot),
		cmocka_unit_test(test_path_attribute),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
