#include "mail.h"

#include "encoding.h"
#include "lib/address.h"
#include "lib/base64.h"
#include "lib/ctype.h"
#include "lib/str.h"
#include "lib/date.h"
#include "lib/error.h"
#include "link.h"
#include "lib/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DEPTH 4		/* multipart nesting followed */
#define MAX_PARTS 128		/* leaf parts looked at in one message */
#define MAX_TOKEN 127

struct header {
	char *name;
	char *value;
};

struct headers {
	struct header *v;
	size_t n;
};

struct walk {
	struct mail *m;
	int parts;
};

/* The end of the line at p (before any CR LF) and where the next one starts. */
static const char *line_end(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *e = nl ? nl : end;

	*next = nl ? nl + 1 : end;
	if (e > p && e[-1] == '\r')
		e--;
	return e;
}

static void headers_release(struct headers *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].value);
	}
	free(h->v);
	h->v = NULL;
	h->n = 0;
}

/*
 * Reads header lines up to the empty line; *body is set after it (or to
 * end when there is none).  A line that is neither "Name: value" nor a
 * continuation is an error: this is then not a message.
 */
static int parse_headers(const char *p, const char *end, struct headers *h, const char **body)
{
	struct strbuf value = STRBUF_INIT;
	char *name = NULL;
	size_t lineno = 0;
	int err = 0;

	*body = end;
	while (p < end) {
		const char *next, *e = line_end(p, end, &next);
		lineno++;
		if (e == p) {
			*body = next;
			break;
		}
		if (ctype_is_blank(*p)) {
			if (!name) {
				err = error_set(ERR_INPUT, "header line %zu is a continuation of nothing",
						lineno);
				break;
			}
			/* Unfolding drops the line break and keeps the white space. */
			strbuf_add(&value, p, (size_t)(e - p));
			p = next;
			continue;
		}
		const char *colon = p;
		while (colon < e && *colon != ':' && *colon > ' ' && *colon < 0x7f)
			colon++;
		if (colon == p || colon == e || *colon != ':') {
			err = error_set(ERR_INPUT, "header line %zu is not 'Name: value'", lineno);
			break;
		}
		if (name) {
			h->v = xrealloc(h->v, (h->n + 1) * sizeof(*h->v));
			h->v[h->n++] = (struct header){ name, xstrndup_trimmed(value.buf, value.buf + value.len) };
		}
		name = xstrndup(p, (size_t)(colon - p));
		strbuf_reset(&value);
		strbuf_add(&value, colon + 1, (size_t)(e - colon - 1));
		p = next;
	}
	if (name) {
		h->v = xrealloc(h->v, (h->n + 1) * sizeof(*h->v));
		h->v[h->n++] = (struct header){ name, xstrndup_trimmed(value.buf, value.buf + value.len) };
	}
	strbuf_release(&value);
	if (err)
		headers_release(h);
	return err;
}

static const char *header_get(const struct headers *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (strcasecmp(h->v[i].name, name) == 0)
			return h->v[i].value;
	return NULL;
}

/* The first token of a structured value, lowercased: "text/plain", "attachment". */
static char *header_token(const char *value)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = value ? value : ""; *p && *p != ';' && !ctype_is_space(*p); p++)
		if (sb.len < MAX_TOKEN)
			strbuf_addch(&sb, (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p));
	return strbuf_detach(&sb);
}

/* A parameter of a structured value ("boundary", "filename"); NULL when absent. */
static char *header_param(const char *value, const char *param)
{
	size_t n = strlen(param);
	const char *p = value;

	while (p && (p = strchr(p, ';'))) {
		p++;
		while (ctype_is_space(*p))
			p++;
		if (strncasecmp(p, param, n) != 0 || p[n] != '=')
			continue;
		p += n + 1;
		struct strbuf sb = STRBUF_INIT;
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				strbuf_addch(&sb, *p);
			}
		} else {
			while (*p && *p != ';' && !ctype_is_space(*p))
				strbuf_addch(&sb, *p++);
		}
		return strbuf_detach(&sb);
	}
	return NULL;
}

/* An address (address_split()) with its name's RFC 2047 words decoded. */
static void parse_address(const char *value, char **name_out, char **email_out)
{
	char *name, *decoded;

	address_split(value, &name, email_out);
	decoded = encoding_decode_words(name);
	*name_out = xstrndup_trimmed(decoded, decoded + strlen(decoded));
	free(decoded);
	free(name);
}

static void parse_from(struct mail *m, const char *value)
{
	parse_address(value, &m->from_name, &m->from_email);
}

/* Whether an entry of the list ("Name <a@b>" or "a@b") is address email, case aside. */
static bool address_is(const char *entry, const char *email)
{
	const char *lt = strrchr(entry, '<');
	size_t n = strlen(email);

	if (!lt)
		return strcasecmp(entry, email) == 0;
	return strncasecmp(lt + 1, email, n) == 0 && strcmp(lt + 1 + n, ">") == 0;
}

/*
 * The addresses of a To or Cc value, split at the commas outside quotes,
 * angle brackets and comments, each as "Name <a@b>" (or "a@b"), once.
 */
static void parse_address_list(struct strlist *out, const char *value)
{
	const char *start = value;
	bool quoted = false;
	int angle = 0, paren = 0;

	for (const char *p = value;; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == '<')
			angle++;
		else if (!quoted && *p == '>' && angle)
			angle--;
		else if (!quoted && *p == '(')
			paren++;
		else if (!quoted && *p == ')' && paren)
			paren--;
		if (*p && (*p != ',' || quoted || angle || paren))
			continue;
		char *one = xstrndup(start, (size_t)(p - start)), *name, *email;
		parse_address(one, &name, &email);
		if (strchr(email, '@')) {
			char *entry = *name ? xasprintf("%s <%s>", name, email) : xstrdup(email);
			bool seen = false;
			for (size_t i = 0; i < out->n && !seen; i++)
				seen = address_is(out->v[i], email);
			if (!seen)
				strlist_push(out, entry);
			else
				free(entry);
		}
		free(one);
		free(name);
		free(email);
		if (!*p)
			break;
		start = p + 1;
	}
}

/* Every <id> of a References or In-Reply-To value, in order. */
static void parse_ids(struct strlist *ids, const char *value)
{
	const char *p = value;

	while ((p = strchr(p, '<'))) {
		const char *gt = strchr(p, '>');
		if (!gt)
			break;
		char *id = link_msgid_normalize(p, (size_t)(gt - p + 1));
		if (id)
			strlist_push(ids, id);
		p = gt + 1;
	}
}

/* CR LF to LF, for text. */
static void add_text(struct strbuf *out, const char *p, const char *end)
{
	strbuf_grow(out, (size_t)(end - p));
	for (; p < end; p++)
		if (!(*p == '\r' && p + 1 < end && p[1] == '\n'))
			strbuf_addch(out, *p);
}

static void decode_body(const struct headers *h, const char *p, const char *end,
			struct strbuf *out)
{
	char *cte = header_token(header_get(h, "Content-Transfer-Encoding"));
	struct strbuf raw = STRBUF_INIT;

	if (strcmp(cte, "base64") == 0) {
		base64_decode(&raw, p, end);
		add_text(out, raw.buf, raw.buf + raw.len);
	} else if (strcmp(cte, "quoted-printable") == 0) {
		encoding_decode_qp(&raw, p, end);
		add_text(out, raw.buf, raw.buf + raw.len);
	} else {
		add_text(out, p, end);
	}
	strbuf_release(&raw);
	free(cte);
}

/* A git diff, or a unified diff's "---" and "+++" pair. */
static bool has_diff(const char *p, const char *end)
{
	bool minus = false;

	while (p < end) {
		const char *next, *e = line_end(p, end, &next);
		size_t len = (size_t)(e - p);

		if (str_has_prefix(p, len, "diff --git ") || (minus && str_has_prefix(p, len, "+++ ")))
			return true;
		minus = str_has_prefix(p, len, "--- ");
		p = next;
	}
	return false;
}

/*
 * The next "--boundary" line at or after p: returns where it starts, sets
 * *after to the line after it and *closing for "--boundary--".
 */
static const char *find_delimiter(const char *p, const char *end, const char *boundary,
				  const char **after, bool *closing)
{
	size_t n = strlen(boundary);

	while (p < end) {
		const char *next, *e = line_end(p, end, &next);
		if ((size_t)(e - p) >= n + 2 && p[0] == '-' && p[1] == '-' &&
		    memcmp(p + 2, boundary, n) == 0) {
			const char *rest = p + 2 + n;
			*closing = e - rest >= 2 && rest[0] == '-' && rest[1] == '-';
			if (*closing)
				rest += 2;
			while (rest < e && ctype_is_blank(*rest))
				rest++;
			if (rest == e) {
				*after = next;
				return p;
			}
		}
		p = next;
	}
	return NULL;
}

static void walk_entity(struct walk *w, const struct headers *h, const char *p, const char *end,
			int depth);

static void walk_multipart(struct walk *w, const char *boundary, const char *p, const char *end,
			   int depth)
{
	const char *start;
	bool closing = false;

	/* The preamble before the first delimiter is not a part. */
	if (!find_delimiter(p, end, boundary, &start, &closing))
		return;
	while (!closing && w->parts < MAX_PARTS) {
		const char *next, *stop = find_delimiter(start, end, boundary, &next, &closing);
		const char *part_end = stop ? stop : end;
		struct headers h = { NULL, 0 };
		const char *body;

		/* The line break before a delimiter belongs to the delimiter. */
		if (stop && part_end > start && part_end[-1] == '\n')
			part_end--;
		if (stop && part_end > start && part_end[-1] == '\r')
			part_end--;
		/* A part whose headers are not headers is skipped, not fatal. */
		if (parse_headers(start, part_end, &h, &body) == 0)
			walk_entity(w, &h, body, part_end, depth + 1);
		else
			error_clear();
		headers_release(&h);
		if (!stop)
			break;
		start = next;
	}
}

static bool is_patch_type(const char *type)
{
	return strncmp(type, "text/", 5) == 0 || strcmp(type, "application/x-patch") == 0 ||
	       strcmp(type, "application/x-diff") == 0 ||
	       strcmp(type, "application/octet-stream") == 0;
}

static void walk_entity(struct walk *w, const struct headers *h, const char *p, const char *end,
			int depth)
{
	const char *ctype = header_get(h, "Content-Type");
	char *type = header_token(ctype);

	if (!*type) {
		free(type);
		type = xstrdup("text/plain");
	}
	if (strncmp(type, "multipart/", 10) == 0) {
		char *boundary = header_param(ctype, "boundary");
		if (boundary && *boundary && depth < MAX_DEPTH)
			walk_multipart(w, boundary, p, end, depth);
		free(boundary);
	} else if (is_patch_type(type) && w->parts++ < MAX_PARTS) {
		char *disposition = header_token(header_get(h, "Content-Disposition"));
		bool attachment = strcmp(disposition, "attachment") == 0;
		struct strbuf text = STRBUF_INIT;

		decode_body(h, p, end, &text);
		if (!w->m->body && strcmp(type, "text/plain") == 0 && !attachment)
			w->m->body = xstrndup(text.buf, text.len);
		if (!w->m->patch && has_diff(text.buf, text.buf + text.len))
			w->m->patch = xstrndup(text.buf, text.len);
		strbuf_release(&text);
		free(disposition);
	}
	free(type);
}

static void read_fields(struct mail *m, const struct headers *h)
{
	const char *v;

	if ((v = header_get(h, "Message-ID")))
		m->message_id = link_msgid_normalize(v, strlen(v));
	if ((v = header_get(h, "In-Reply-To"))) {
		struct strlist ids = STRLIST_INIT;
		parse_ids(&ids, v);
		m->in_reply_to = ids.n ? xstrdup(ids.v[0]) : link_msgid_normalize(v, strlen(v));
		strlist_release(&ids);
	}
	if ((v = header_get(h, "References")))
		parse_ids(&m->references, v);
	if ((v = header_get(h, "To")))
		parse_address_list(&m->recipients, v);
	if ((v = header_get(h, "Cc")))
		parse_address_list(&m->recipients, v);
	if ((v = header_get(h, "From")))
		parse_from(m, v);
	else
		parse_from(m, "");
	m->date = xstrdup((v = header_get(h, "Date")) ? v : "");
	int tz;
	if (date_parse_rfc2822(m->date, &m->time, &tz) < 0)
		m->time = 0;
	m->subject = (v = header_get(h, "Subject")) ? encoding_decode_words(v) : xstrdup("");
}

int mail_parse(struct mail **out, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *body, *next;
	struct headers h = { NULL, 0 };
	struct walk w = { NULL, 0 };
	int err;

	*out = NULL;
	/* An mbox separator line. */
	if (str_has_prefix(p, (size_t)(end - p), "From ")) {
		line_end(p, end, &next);
		p = next;
	}
	if ((err = parse_headers(p, end, &h, &body)) < 0)
		return err;
	if (!h.n)
		return error_set(ERR_INPUT, "a mail without headers");
	w.m = xcalloc(1, sizeof(*w.m));
	read_fields(w.m, &h);
	walk_entity(&w, &h, body, end, 0);
	if (!w.m->body)
		w.m->body = xstrdup("");
	headers_release(&h);
	*out = w.m;
	return 0;
}

void mail_free(struct mail *m)
{
	if (!m)
		return;
	free(m->message_id);
	free(m->in_reply_to);
	strlist_release(&m->references);
	strlist_release(&m->recipients);
	free(m->from_name);
	free(m->from_email);
	free(m->date);
	free(m->subject);
	free(m->body);
	free(m->patch);
	free(m);
}
