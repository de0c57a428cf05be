#include "subject.h"

#include "lib/array.h"
#include "lib/ctype.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Anything larger is not a version or a series position but noise. */
#define MAX_NUMBER 9999

static const char *const reply_words[] = { "re", "fwd", "fw", "aw", "sv", "antw", "wg" };

static const char *skip_space(const char *p)
{
	while (ctype_is_space(*p))
		p++;
	return p;
}

/* Reads up to four digits. */
static bool read_number(const char **pp, const char *end, unsigned *out)
{
	const char *p = *pp;
	unsigned n = 0;

	while (p < end && ctype_is_digit(*p) && n <= MAX_NUMBER)
		n = n * 10 + (unsigned)(*p++ - '0');
	if (p == *pp || n > MAX_NUMBER)
		return false;
	*pp = p;
	*out = n;
	return true;
}

/* "Re:", "RE :", "Re[2]:", "Fwd:"; returns the text after it or NULL. */
static const char *skip_reply_prefix(const char *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(reply_words); i++) {
		size_t n = strlen(reply_words[i]);
		const char *q = p + n;
		if (strncasecmp(p, reply_words[i], n) != 0)
			continue;
		if (*q == '[' || *q == '(') {
			char close = *q == '[' ? ']' : ')';
			q++;
			while (ctype_is_digit(*q))
				q++;
			if (*q++ != close)
				continue;
		}
		q = skip_space(q);
		if (*q == ':')
			return q + 1;
	}
	return NULL;
}

/* Nothing, or "v2", "-v2", "V2": the rest of "PATCHv2" or the word "v2". */
static bool version_suffix(struct subject *s, const char *p, const char *end)
{
	unsigned n;

	if (p == end)
		return true;
	if (*p == '-')
		p++;
	if (p == end || (*p != 'v' && *p != 'V'))
		return false;
	p++;
	if (!read_number(&p, end, &n) || p != end || !n)
		return false;
	s->version = n;
	return true;
}

static void parse_tag_word(struct subject *s, const char *w, const char *end)
{
	size_t len = (size_t)(end - w);
	unsigned index, total;

	if (len >= 5 && strncasecmp(w, "PATCH", 5) == 0 && version_suffix(s, w + 5, end)) {
		s->patch = true;
	} else if (len >= 3 && strncasecmp(w, "RFC", 3) == 0 && version_suffix(s, w + 3, end)) {
		s->rfc = true;
	} else if (len == 6 && strncasecmp(w, "RESEND", 6) == 0) {
		s->resend = true;
	} else if (!version_suffix(s, w, end) && read_number(&w, end, &index) && w < end &&
		   *w++ == '/' && read_number(&w, end, &total) && w == end && total &&
		   index <= total) {
		s->index = index;
		s->total = total;
	}
}

static void parse_tags(struct subject *s, const char *p, const char *end)
{
	while (p < end) {
		while (p < end && (ctype_is_space(*p) || *p == ','))
			p++;
		const char *w = p;
		while (p < end && !ctype_is_space(*p) && *p != ',')
			p++;
		if (p > w)
			parse_tag_word(s, w, p);
	}
}

void subject_parse(struct subject *out, const char *raw)
{
	const char *p = skip_space(raw);
	struct strbuf sb = STRBUF_INIT;

	*out = (struct subject){ .version = 1 };
	for (;;) {
		const char *after = skip_reply_prefix(p);
		if (after) {
			out->reply = true;
			p = skip_space(after);
			continue;
		}
		if (*p == '[') {
			const char *close = strchr(p, ']');
			if (!close)
				break;
			parse_tags(out, p + 1, close);
			p = skip_space(close + 1);
			continue;
		}
		break;
	}
	while (*p) {
		if (ctype_is_space(*p)) {
			p = skip_space(p);
			if (*p)
				strbuf_addch(&sb, ' ');
			continue;
		}
		strbuf_addch(&sb, *p++);
	}
	out->normalized = strbuf_detach(&sb);
}

void subject_release(struct subject *s)
{
	free(s->normalized);
	s->normalized = NULL;
}

char *subject_key(const char *normalized)
{
	char *key = xstrdup(normalized);

	for (char *p = key; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return key;
}
