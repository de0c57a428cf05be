/*
 * base64: RFC 4648's standard alphabet, for MIME bodies and encoded words
 * (RFC 2045, RFC 2047), both ways.
 *
 * base64_decode() follows RFC 2045: characters outside the alphabet (line
 * breaks, junk) are skipped and the first '=' ends the data, so it never
 * fails; a trailing partial group yields the whole bytes it holds.
 */
#ifndef FPUBENCH_BASE64_H
#define FPUBENCH_BASE64_H

#include "strbuf.h"

#include <stddef.h>

/* Appends the encoding of n bytes, padded with '=', with no line breaks. */
void base64_encode(struct strbuf *out, const void *data, size_t n);

/* The same in MIME's lines (RFC 2045): 76 characters, each line ended by a newline. */
void base64_encode_lines(struct strbuf *out, const void *data, size_t n);

/* Appends the bytes that [p, end) encodes. */
void base64_decode(struct strbuf *out, const char *p, const char *end);

#endif
