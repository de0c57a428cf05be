#include "encoding.h"

#include "lib/base64.h"
#include "lib/ctype.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#define MAX_CHARSET 40
#define MAX_WORD 1024		/* RFC 2047 says 75; some mailers write longer words */

void encoding_decode_qp(struct strbuf *out, const char *p, const char *end)
{
	while (p < end) {
		int hi, lo;
		if (*p != '=') {
			strbuf_addch(out, *p++);
		} else if (end - p >= 3 && (hi = ctype_hex_value(p[1])) >= 0 && (lo = ctype_hex_value(p[2])) >= 0) {
			strbuf_addch(out, (char)(hi << 4 | lo));
			p += 3;
		} else if (end - p >= 2 && p[1] == '\n') {
			p += 2;		/* a soft line break */
		} else if (end - p >= 3 && p[1] == '\r' && p[2] == '\n') {
			p += 3;
		} else {
			strbuf_addch(out, *p++);
		}
	}
}

static void add_latin1(struct strbuf *out, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x80) {
			strbuf_addch(out, (char)c);
		} else {
			strbuf_addch(out, (char)(0xc0 | c >> 6));
			strbuf_addch(out, (char)(0x80 | (c & 0x3f)));
		}
	}
}

/*
 * One RFC 2047 word at p ("=?utf-8?q?caf=C3=A9?="): decodes it onto out
 * and returns its end, or NULL when it is not a word this decoder reads.
 */
static const char *decode_word(const char *p, struct strbuf *out)
{
	const char *cs = p + 2, *q = cs;
	char charset[MAX_CHARSET + 1];
	size_t cslen;

	while (*q && *q != '?' && !ctype_is_space(*q) && q - cs <= MAX_CHARSET)
		q++;
	if (*q != '?' || q == cs || q - cs > MAX_CHARSET)
		return NULL;
	cslen = (size_t)(q - cs);
	memcpy(charset, cs, cslen);
	charset[cslen] = '\0';
	char *lang = strchr(charset, '*');	/* RFC 2231 "utf-8*en" */
	if (lang)
		*lang = '\0';
	char enc = q[1];
	if ((enc != 'q' && enc != 'Q' && enc != 'b' && enc != 'B') || q[2] != '?')
		return NULL;
	const char *text = q + 3, *stop = text;
	while (*stop && !ctype_is_space(*stop) && !(stop[0] == '?' && stop[1] == '=') &&
	       stop - text < MAX_WORD)
		stop++;
	if (stop[0] != '?' || stop[1] != '=')
		return NULL;

	bool utf8 = strcasecmp(charset, "utf-8") == 0 || strcasecmp(charset, "us-ascii") == 0;
	bool latin1 = strcasecmp(charset, "iso-8859-1") == 0 ||
		      strcasecmp(charset, "latin1") == 0 ||
		      strcasecmp(charset, "windows-1252") == 0;
	if (!utf8 && !latin1)
		return NULL;
	struct strbuf raw = STRBUF_INIT;
	if (enc == 'b' || enc == 'B') {
		base64_decode(&raw, text, stop);
	} else {
		for (const char *s = text; s < stop; s++) {
			int hi, lo;
			if (*s == '_')
				strbuf_addch(&raw, ' ');
			else if (*s == '=' && stop - s >= 3 && (hi = ctype_hex_value(s[1])) >= 0 &&
				 (lo = ctype_hex_value(s[2])) >= 0) {
				strbuf_addch(&raw, (char)(hi << 4 | lo));
				s += 2;
			} else
				strbuf_addch(&raw, *s);
		}
	}
	if (utf8)
		strbuf_add(out, raw.buf, raw.len);
	else
		add_latin1(out, raw.buf, raw.len);
	strbuf_release(&raw);
	return stop + 2;
}

char *encoding_decode_words(const char *s)
{
	struct strbuf out = STRBUF_INIT;
	bool after_word = false;
	const char *end;

	while (*s) {
		const char *blank = s;
		while (ctype_is_space(*s))
			s++;
		if (s > blank) {
			if (after_word && s[0] == '=' && s[1] == '?' && (end = decode_word(s, &out))) {
				s = end;
				continue;
			}
			strbuf_add(&out, blank, (size_t)(s - blank));
			after_word = false;
		} else if (s[0] == '=' && s[1] == '?' && (end = decode_word(s, &out))) {
			s = end;
			after_word = true;
		} else {
			strbuf_addch(&out, *s++);
			after_word = false;
		}
	}
	return strbuf_detach(&out);
}
