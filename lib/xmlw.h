/*
 * xmlw: writes XML documents (libvirt's domain and pool XML, JUnit) with
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
};

/* Starts a document without an XML declaration, indented by two spaces. */
void xmlw_begin(struct xmlw *x);

/* The same, with an XML declaration naming UTF-8 first. */
void xmlw_begin_document(struct xmlw *x);

/* Opens <name attrs...>. */
void xmlw_open(struct xmlw *x, const char *name, ...) __attribute__((sentinel));

/* One more attribute on the element just opened; nothing for a NULL value. */
void xmlw_attribute(struct xmlw *x, const char *name, const char *value);

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
