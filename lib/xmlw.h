/*
 * xmlw: writes XML documents (libvirt's domain and pool XML, JUnit) and
 * polyglot HTML5 (report.html: HTML that is well-formed XML too) with
 * libxml2's xmlTextWriter, so escaping is libxml2's, never ours.
 *
 * Calls are made in document order; the first failure is kept and every
 * later call does nothing, so a writer is used without checking each step
 * and xmlw_finish() reports the outcome once.  Attributes are given as
 * name, value pairs ended by NULL.  A struct xmlw owns its buffer until
 * xmlw_finish(), which frees everything whether it succeeds or not.
 */
#ifndef FPUBENCH_XMLW_H
#define FPUBENCH_XMLW_H

#include <stdbool.h>

struct xmlw {
	void *buf;		/* xmlBufferPtr */
	void *writer;		/* xmlTextWriterPtr */
	bool failed;
	bool html;		/* from xmlw_begin_html() */
};

/* Starts a document without an XML declaration, indented by two spaces. */
void xmlw_begin(struct xmlw *x);

/* The same, with an XML declaration naming UTF-8 first. */
void xmlw_begin_document(struct xmlw *x);

/*
 * Starts polyglot HTML5: "<!DOCTYPE html>" and a line break, then no
 * indentation, since whitespace between HTML elements can show (the
 * caller writes its line breaks as text).  xmlw_close() then writes an end
 * tag even for an empty element (HTML reads <td/> as an open <td>), and
 * xmlw_element() with NULL text is a void element (<br/>).
 */
void xmlw_begin_html(struct xmlw *x);

/* Opens <name attrs...>. */
void xmlw_open(struct xmlw *x, const char *name, ...) __attribute__((sentinel));

/* One more attribute on the element just opened; nothing for a NULL value. */
void xmlw_attribute(struct xmlw *x, const char *name, const char *value);

/*
 * One more attribute: a relative path as a URL, every byte but letters,
 * digits and "-._~!*'()/,+=@" percent-encoded, ':' among them, so that
 * no path reads as a URL scheme.
 */
void xmlw_path_attribute(struct xmlw *x, const char *name, const char *path);

/* Closes the innermost open element. */
void xmlw_close(struct xmlw *x);

/* <name attrs...>text</name>, or <name attrs.../> when text is NULL. */
void xmlw_element(struct xmlw *x, const char *name, const char *text, ...)
	__attribute__((sentinel));

/* Text inside the open element. */
void xmlw_text(struct xmlw *x, const char *text);

/* *out is the document (caller frees); 0, or ERR_GENERIC naming `what`. */
int xmlw_finish(struct xmlw *x, const char *what, char **out);

#endif
