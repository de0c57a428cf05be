#include "link.h"

#include "lib/array.h"
#include "lib/ctype.h"
#include "lib/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_SEGMENTS 8

struct span {
	const char *p;
	size_t len;
};

static const struct {
	const char *host;
	enum link_kind kind;
} known_hosts[] = {
	{ "lore.kernel.org", LINK_LORE },
	{ "lkml.kernel.org", LINK_LKML_KERNEL_ORG },
	{ "patch.msgid.link", LINK_MSGID },
	{ "msgid.link", LINK_MSGID },
	{ "gmane.org", LINK_GMANE },
	{ "marc.info", LINK_MARC },
	{ "lkml.org", LINK_LKML_ORG },
	{ "spinics.net", LINK_SPINICS },
};

static const char *const kind_names[] = {
	[LINK_LORE] = "lore",
	[LINK_LKML_KERNEL_ORG] = "lkml.kernel.org",
	[LINK_MSGID] = "msgid.link",
	[LINK_GMANE] = "gmane",
	[LINK_PATCHWORK] = "patchwork",
	[LINK_MARC] = "marc.info",
	[LINK_LKML_ORG] = "lkml.org",
	[LINK_SPINICS] = "spinics",
	[LINK_BUGZILLA] = "bugzilla",
	[LINK_URL] = "url",
	[LINK_TEXT] = "text",
};

const char *link_kind_name(enum link_kind kind)
{
	return kind_names[kind];
}

/* A host equal to name or a subdomain of it. */
static bool host_is(struct span host, const char *name)
{
	size_t n = strlen(name);

	if (host.len < n || strncasecmp(host.p + host.len - n, name, n) != 0)
		return false;
	return host.len == n || host.p[host.len - n - 1] == '.';
}

static bool span_is(struct span s, const char *word)
{
	return s.len == strlen(word) && strncmp(s.p, word, s.len) == 0;
}

char *link_msgid_normalize(const char *s, size_t len)
{
	const char *lt = memchr(s, '<', len);
	const char *end = s + len;

	if (lt) {
		const char *gt = memchr(lt, '>', (size_t)(end - lt));
		if (!gt)
			return NULL;
		s = lt + 1;
		end = gt;
	}
	while (s < end && ctype_is_space(*s))
		s++;
	while (end > s && ctype_is_space(end[-1]))
		end--;
	if (s == end)
		return NULL;
	for (const char *p = s; p < end; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '<' || *p == '>')
			return NULL;
	return xstrndup(s, (size_t)(end - s));
}

/* The message-id in a path segment, %XX decoded; a stray '%', and %00, stay as written. */
static char *segment_msgid(struct span seg)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < seg.len; i++) {
		int hi, lo;
		if (seg.p[i] == '%' && i + 2 < seg.len && (hi = ctype_hex_value(seg.p[i + 1])) >= 0 &&
		    (lo = ctype_hex_value(seg.p[i + 2])) >= 0 && (hi || lo)) {
			strbuf_addch(&sb, (char)(hi << 4 | lo));
			i += 2;
		} else {
			strbuf_addch(&sb, seg.p[i]);
		}
	}
	char *id = link_msgid_normalize(sb.buf, sb.len);
	strbuf_release(&sb);
	return id;
}

static bool span_has_at(struct span s)
{
	return memchr(s.p, '@', s.len) != NULL || memmem(s.p, s.len, "%40", 3) != NULL;
}

/*
 * The message-id of an archive URL: the first of the first two path
 * segments with an '@' ("/r/<id>", "/all/<id>", "/<list>/<id>/"); list
 * names never have one.
 */
static char *archive_msgid(const struct span *seg, size_t n)
{
	for (size_t i = 0; i < n && i < 2; i++)
		if (span_has_at(seg[i]))
			return segment_msgid(seg[i]);
	return NULL;
}

static char *patchwork_msgid(const struct span *seg, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (span_is(seg[i], "patch") && span_has_at(seg[i + 1]))
			return segment_msgid(seg[i + 1]);
	return NULL;
}

static size_t split_path(const char *p, const char *end, struct span *seg)
{
	size_t n = 0;

	while (p < end && n < MAX_SEGMENTS) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		const char *stop = slash ? slash : end;
		if (stop > p)
			seg[n++] = (struct span){ p, (size_t)(stop - p) };
		p = stop + 1;
	}
	return n;
}

static const char *find_url(const char *s)
{
	for (; *s; s++)
		if (strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0)
			return s;
	return NULL;
}

static void parse_url(struct link *l, const char *url)
{
	const char *end = url;
	struct span seg[MAX_SEGMENTS];
	struct span host;
	size_t n;

	while (*end && !ctype_is_space(*end) && *end != '>' && *end != '"')
		end++;
	/* Sentence punctuation after a URL; a message-id never ends in '.'. */
	while (end > url && strchr(".,;", end[-1]))
		end--;
	if (end > url && end[-1] == ')' && !memchr(url, '(', (size_t)(end - url)))
		end--;

	host.p = strchr(url, ':') + 3;
	host.len = strcspn(host.p, "/?#");
	if (host.p + host.len > end)
		host.len = (size_t)(end - host.p);
	const char *path = host.p + host.len;
	const char *path_end = path;
	while (path_end < end && *path_end != '?' && *path_end != '#')
		path_end++;
	const char *colon = memchr(host.p, ':', host.len);
	if (colon)
		host.len = (size_t)(colon - host.p);
	n = split_path(path, path_end, seg);

	l->kind = LINK_URL;
	for (size_t i = 0; i < ARRAY_SIZE(known_hosts); i++) {
		if (host_is(host, known_hosts[i].host)) {
			l->kind = known_hosts[i].kind;
			break;
		}
	}
	if (l->kind == LINK_URL && memmem(host.p, host.len, "bugzilla", 8))
		l->kind = LINK_BUGZILLA;
	if (l->kind == LINK_URL && memmem(host.p, host.len, "patchwork", 9))
		l->kind = LINK_PATCHWORK;

	switch (l->kind) {
	case LINK_LORE:
	case LINK_LKML_KERNEL_ORG:
		l->message_id = archive_msgid(seg, n);
		break;
	case LINK_MSGID:
		l->message_id = n && span_has_at(seg[0]) ? segment_msgid(seg[0]) : NULL;
		break;
	case LINK_GMANE:
		if (host_is(host, "mid.gmane.org") && n && span_has_at(seg[0]))
			l->message_id = segment_msgid(seg[0]);
		break;
	case LINK_PATCHWORK:
		l->message_id = patchwork_msgid(seg, n);
		break;
	default:
		break;
	}
}

void link_parse(struct link *out, const char *value)
{
	const char *url = find_url(value);

	*out = (struct link)LINK_INIT;
	out->value = xstrdup(value);
	if (!url)
		return;
	parse_url(out, url);
	if (out->message_id)
		out->lore_url = link_lore_url(out->message_id);
}

char *link_lore_url(const char *message_id)
{
	static const char keep[] = "-._~!$&'()*+,;=:@";
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "https://lore.kernel.org/r/");
	for (const unsigned char *p = (const unsigned char *)message_id; *p; p++) {
		bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || (*p && strchr(keep, *p));
		if (plain)
			strbuf_addch(&sb, (char)*p);
		else
			strbuf_addf(&sb, "%%%02X", *p);
	}
	return strbuf_detach(&sb);
}

void link_release(struct link *l)
{
	free(l->value);
	free(l->message_id);
	free(l->lore_url);
	*l = (struct link)LINK_INIT;
}
