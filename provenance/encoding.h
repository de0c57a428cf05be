/*
 * encoding: the ways mail encodes text, decoded: RFC 2047 encoded words in
 * header values, and the quoted-printable transfer encoding (RFC 2045;
 * base64 is lib/base64.h's).
 *
 * Encoded words are decoded to UTF-8 from UTF-8, US-ASCII, ISO-8859-1 and
 * Windows-1252 (read as Latin-1); a word in another charset, or one that is
 * not well formed, stays as written.  Neither function fails.
 */
#ifndef FPUBENCH_ENCODING_H
#define FPUBENCH_ENCODING_H

#include "lib/strbuf.h"

/* The value with its encoded words decoded; blanks between two words go.  Caller frees. */
char *encoding_decode_words(const char *s);

/* Appends what quoted-printable [p, end) encodes; a bad escape stays as written. */
void encoding_decode_qp(struct strbuf *out, const char *p, const char *end);

#endif
