#include "xmlw.h"

#include "error.h"
#include "xalloc.h"

#include <stdarg.h>
#include <string.h>

#include <libxml/uri.h>
#include <libxml/xmlwriter.h>

#define WRITER(x) ((xmlTextWriterPtr)(x)->writer)

static void begin(struct xmlw *x, bool html)
{
	x->buf = xmlBufferCreate();
	x->writer = x->buf ? xmlNewTextWriterMemory(x->buf, 0) : NULL;
	x->html = html;
	x->failed = !x->writer || (!html && (xmlTextWriterSetIndent(WRITER(x), 1) < 0 ||
		    xmlTextWriterSetIndentString(WRITER(x), BAD_CAST "  ") < 0));
}

void xmlw_begin(struct xmlw *x)
{
	begin(x, false);
}

void xmlw_begin_document(struct xmlw *x)
{
	xmlw_begin(x);
	if (!x->failed)
		x->failed = xmlTextWriterStartDocument(WRITER(x), "1.0", "UTF-8", NULL) < 0;
}

void xmlw_begin_html(struct xmlw *x)
{
	begin(x, true);
	if (!x->failed)
		x->failed = xmlTextWriterWriteDTD(WRITER(x), BAD_CAST "html", NULL, NULL, NULL) < 0;
	xmlw_text(x, "\n");
}

void xmlw_attribute(struct xmlw *x, const char *name, const char *value)
{
	if (!x->failed && value)
		x->failed = xmlTextWriterWriteAttribute(WRITER(x), BAD_CAST name,
							BAD_CAST value) < 0;
}

void xmlw_path_attribute(struct xmlw *x, const char *name, const char *path)
{
	xmlChar *url;

	if (x->failed)
		return;
	/* libxml2 keeps letters, digits and "-_.!~*'()" as they are, and the list's. */
	url = xmlURIEscapeStr(BAD_CAST path, BAD_CAST "/,+=@");
	x->failed = !url;
	xmlw_attribute(x, name, (const char *)url);
	xmlFree(url);
}

static void attributes(struct xmlw *x, va_list ap)
{
	const char *name;

	while (!x->failed && (name = va_arg(ap, const char *))) {
		const char *value = va_arg(ap, const char *);

		x->failed = xmlTextWriterWriteAttribute(WRITER(x), BAD_CAST name,
							BAD_CAST value) < 0;
	}
}

/* <name, then the attributes ap holds. */
static void open_element(struct xmlw *x, const char *name, va_list ap)
{
	if (!x->failed)
		x->failed = xmlTextWriterStartElement(WRITER(x), BAD_CAST name) < 0;
	attributes(x, ap);
}

void xmlw_open(struct xmlw *x, const char *name, ...)
{
	va_list ap;

	va_start(ap, name);
	open_element(x, name, ap);
	va_end(ap);
}

void xmlw_close(struct xmlw *x)
{
	if (!x->failed)
		x->failed = (x->html ? xmlTextWriterFullEndElement(WRITER(x))
				     : xmlTextWriterEndElement(WRITER(x))) < 0;
}

void xmlw_element(struct xmlw *x, const char *name, const char *text, ...)
{
	va_list ap;

	va_start(ap, text);
	open_element(x, name, ap);
	va_end(ap);
	if (text) {
		xmlw_text(x, text);
		xmlw_close(x);
	} else if (!x->failed) {
		x->failed = xmlTextWriterEndElement(WRITER(x)) < 0;
	}
}

void xmlw_text(struct xmlw *x, const char *text)
{
	if (!x->failed)
		x->failed = xmlTextWriterWriteString(WRITER(x), BAD_CAST text) < 0;
}

int xmlw_finish(struct xmlw *x, const char *what, char **out)
{
	int err = 0;

	if (!x->failed)
		x->failed = xmlTextWriterEndDocument(WRITER(x)) < 0;
	if (x->writer)
		xmlFreeTextWriter(WRITER(x));	/* flushes into the buffer */
	if (x->failed)
		err = error_set(ERR_GENERIC, "cannot write the XML of %s", what);
	else
		*out = xstrdup((const char *)xmlBufferContent(x->buf));
	if (x->buf)
		xmlBufferFree(x->buf);
	x->buf = x->writer = NULL;
	return err;
}
