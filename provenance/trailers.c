#include "trailers.h"

#include "lib/array.h"
#include "lib/ctype.h"
#include "lib/str.h"
#include "lib/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define COMMENT_CHAR '#'
#define MIN_SHA 7
#define BARE_SHA 12		/* the kernel's usual abbreviation */
#define MAX_SHA 40
/* How far before "commit" the words that say what it is may stand. */
#define CONTEXT_BACK 160
#define MAX_SUBJECT 300

/* What `git commit -v` puts above the diff it shows; git stops reading there. */
static const char cut_line[] = "\n# ------------------------ >8 ------------------------";

static const char *const git_generated_prefixes[] = {
	"Signed-off-by: ",
	"(cherry picked from commit ",
};

static const char *const history_names[] = {
	[TRAILERS_REF_FIXES] = "fixes",
	[TRAILERS_REF_UPSTREAM] = "upstream",
	[TRAILERS_REF_CHERRY_PICK] = "cherry-pick",
	[TRAILERS_REF_REVERT] = "revert",
	[TRAILERS_REF_INTRODUCED_BY] = "introduced-by",
	[TRAILERS_REF_MENTION] = "mention",
};

const char *trailers_ref_kind_name(enum trailers_ref_kind kind)
{
	return history_names[kind];
}

/* git's ctype: ASCII only, and neither \v nor \f is a space. */
static const char *next_line(const char *s)
{
	const char *nl = strchrnul(s, '\n');

	return nl + (*nl != '\0');
}

static bool is_blank_line(const char *s)
{
	while (*s && *s != '\n' && ctype_is_space(*s))
		s++;
	return !*s || *s == '\n';
}

/* The start of the last line of buf[0..len), or -1 when len is 0. */
static long last_line(const char *buf, long len)
{
	if (len == 0)
		return -1;
	if (len == 1)
		return 0;
	/* A final newline belongs to the last line. */
	for (long i = len - 2; i >= 0; i--)
		if (buf[i] == '\n')
			return i + 1;
	return 0;
}

/* "<token><optional blanks>:": the colon's offset, else -1. */
static long find_separator(const char *line)
{
	bool blank_seen = false;

	for (const char *c = line; *c; c++) {
		if (*c == ':')
			return c - line;
		if (!blank_seen && (ctype_is_alnum(*c) || *c == '-'))
			continue;
		if (c != line && (*c == ' ' || *c == '\t')) {
			blank_seen = true;
			continue;
		}
		break;
	}
	return -1;
}

/* git's ignore_non_trailer(): trailing comments, blank lines, "Conflicts:". */
static long trailer_end(const char *buf, long len)
{
	long boc = 0, bol = 0, cutoff = len;
	bool in_conflicts = false;
	const char *cut = strstr(buf, cut_line);

	if (str_has_prefix(buf, strlen(buf), &cut_line[1]))
		cutoff = 0;
	else if (cut)
		cutoff = cut - buf + 1;
	while (bol < cutoff) {
		const char *nl = memchr(buf + bol, '\n', (size_t)(len - bol));
		long next = nl ? nl - buf + 1 : len;

		if (buf[bol] == COMMENT_CHAR || buf[bol] == '\n') {
			if (!boc)
				boc = bol;
		} else if (str_has_prefix(buf + bol, strlen(buf + bol), "Conflicts:\n")) {
			in_conflicts = true;
			if (!boc)
				boc = bol;
		} else if (in_conflicts && buf[bol] == '\t') {
			;
		} else if (boc) {
			boc = 0;
			in_conflicts = false;
		}
		bol = next;
	}
	return boc ? boc : cutoff;
}

/* git's find_trailer_start(): where the block begins, or len for none. */
static long trailer_start(const char *buf, long len)
{
	const char *s;
	long l, end_of_title;
	bool only_spaces = true, recognized_prefix = false;
	int trailer_lines = 0, non_trailer_lines = 0, possible_continuation_lines = 0;

	/* The first paragraph is the title and cannot be trailers. */
	for (s = buf; s < buf + len; s = next_line(s)) {
		if (s[0] == COMMENT_CHAR)
			continue;
		if (is_blank_line(s))
			break;
	}
	end_of_title = s - buf;

	for (l = last_line(buf, len); l >= end_of_title; l = last_line(buf, l)) {
		const char *bol = buf + l;
		bool generated = false;

		if (bol[0] == COMMENT_CHAR) {
			non_trailer_lines += possible_continuation_lines;
			possible_continuation_lines = 0;
			continue;
		}
		if (is_blank_line(bol)) {
			if (only_spaces)
				continue;
			non_trailer_lines += possible_continuation_lines;
			if (recognized_prefix && trailer_lines * 3 >= non_trailer_lines)
				return next_line(bol) - buf;
			if (trailer_lines && !non_trailer_lines)
				return next_line(bol) - buf;
			return len;
		}
		only_spaces = false;

		for (size_t i = 0; i < ARRAY_SIZE(git_generated_prefixes); i++)
			generated |= str_has_prefix(bol, strlen(bol), git_generated_prefixes[i]);
		if (generated) {
			trailer_lines++;
			possible_continuation_lines = 0;
			recognized_prefix = true;
		} else if (find_separator(bol) >= 1 && !ctype_is_space(bol[0])) {
			trailer_lines++;
			possible_continuation_lines = 0;
		} else if (ctype_is_space(bol[0])) {
			possible_continuation_lines++;
		} else {
			non_trailer_lines += 1 + possible_continuation_lines;
			possible_continuation_lines = 0;
		}
	}
	return len;
}

static void add_trailer(struct trailers *t, const char *line, size_t len)
{
	char *copy = xstrndup(line, len);
	long sep = find_separator(copy);

	if (sep >= 1) {
		t->items = xrealloc(t->items, (t->nitems + 1) * sizeof(*t->items));
		t->items[t->nitems].key = xstrndup_trimmed(copy, copy + sep);
		t->items[t->nitems].value = xstrndup_trimmed(copy + sep + 1, copy + len);
		t->nitems++;
	}
	free(copy);
}

/* Splits the block into trailers, joining continuation lines as git does. */
static void split_block(struct trailers *t, const char *p, const char *end)
{
	const char *item = NULL;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		if (item && ctype_is_space(*p)) {
			p = next;
			continue;
		}
		if (item)
			add_trailer(t, item, (size_t)(p - item));
		/* Only a trailer takes continuation lines. */
		char *line = xstrndup(p, (size_t)(next - p));
		item = find_separator(line) >= 1 ? p : NULL;
		free(line);
		p = next;
	}
	if (item)
		add_trailer(t, item, (size_t)(end - item));
}

static const char *skip_blanks(const char *p)
{
	while (ctype_is_space(*p))
		p++;
	return p;
}

/* A sha as people write it; a digit tells it from a word like "defaced". */
static size_t sha_length(const char *p)
{
	size_t n = 0;
	bool digit = false;

	while (n <= MAX_SHA && ctype_is_xdigit(p[n]))
		digit |= p[n++] <= '9';
	if (n < MIN_SHA || n > MAX_SHA || !digit || ctype_is_alnum(p[n]))
		return 0;
	return n;
}

/* ("subject") after a sha, or ":" and the subject on the next, indented line. */
static char *subject_after(const char *p)
{
	struct strbuf sb = STRBUF_INIT;
	const char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (p[0] == '(' && p[1] == '"') {
		p += 2;
		end = memmem(p, strnlen(p, MAX_SUBJECT + 2), "\")", 2);
		if (!end)
			return NULL;
	} else if (p[0] == ':' && p[1] == '\n' && (p[2] == ' ' || p[2] == '\t')) {
		p = skip_blanks(p + 2);
		end = strchrnul(p, '\n');
	} else {
		return NULL;
	}
	while (p < end) {
		if (*p == '\n') {
			p = skip_blanks(p);
			strbuf_addch(&sb, ' ');
			continue;
		}
		strbuf_addch(&sb, *p++);
	}
	char *subject = xstrndup_trimmed(sb.buf, sb.buf + sb.len);
	strbuf_release(&sb);
	if (!*subject) {
		free(subject);
		return NULL;
	}
	return subject;
}

static bool context_has(const char *from, const char *to, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = from; p + n <= to; p++)
		if (strncasecmp(p, word, n) == 0)
			return true;
	return false;
}

/* What the words of its sentence say a reference starting at `ref` is. */
static enum trailers_ref_kind classify(const char *msg, const char *ref, const char *after_sha)
{
	static const char *const introduced[] = { "introduc", "caused by", "broken by", "broke ",
						  "regress" };
	const char *from = ref - (ref - msg > CONTEXT_BACK ? CONTEXT_BACK : ref - msg);

	/* The sentence, or the paragraph, that holds the reference. */
	for (const char *p = ref; p > from; p--) {
		if (p[-1] == '.' || (p[-1] == '\n' && p - 1 > from && p[-2] == '\n')) {
			from = p;
			break;
		}
	}
	if (context_has(from, ref, "cherry picked from"))
		return TRAILERS_REF_CHERRY_PICK;
	if (context_has(from, ref, "revert"))
		return TRAILERS_REF_REVERT;
	if (strncasecmp(skip_blanks(after_sha), "upstream", 8) == 0 ||
	    context_has(from, ref, "upstream"))
		return TRAILERS_REF_UPSTREAM;
	for (size_t i = 0; i < ARRAY_SIZE(introduced); i++)
		if (context_has(from, ref, introduced[i]))
			return TRAILERS_REF_INTRODUCED_BY;
	return TRAILERS_REF_MENTION;
}

static bool same_sha(const struct trailers_ref *r, const char *sha, size_t len)
{
	return strlen(r->sha) == len && strncasecmp(r->sha, sha, len) == 0;
}

static bool is_known_sha(const struct trailers *t, const char *sha, size_t len)
{
	for (size_t i = 0; i < t->nhistory; i++)
		if (same_sha(&t->history[i], sha, len))
			return true;
	for (size_t i = 0; i < t->nfixes; i++)
		if (same_sha(&t->fixes[i], sha, len))
			return true;
	return false;
}

static void add_history(struct trailers *t, enum trailers_ref_kind kind, const char *sha, size_t len,
			char *subject)
{
	for (size_t i = 0; i < t->nhistory; i++) {
		if (t->history[i].kind == kind && same_sha(&t->history[i], sha, len)) {
			free(subject);
			return;
		}
	}
	t->history = xrealloc(t->history, (t->nhistory + 1) * sizeof(*t->history));
	t->history[t->nhistory++] = (struct trailers_ref){ kind, xstrndup(sha, len), subject };
}

/*
 * "commit <sha>", and the bare form "<sha> ("subject")" with at least
 * BARE_SHA digits, which is how text names a commit without the word.
 */
static void scan_history(struct trailers *t, const char *msg)
{
	for (const char *p = msg; (p = strcasestr(p, "commit")); p += 6) {
		if (p > msg && (ctype_is_alnum(p[-1]) || p[-1] == '-'))
			continue;
		const char *sha = skip_blanks(p + 6);
		size_t len = sha == p + 6 ? 0 : sha_length(sha);
		if (!len)
			continue;
		add_history(t, classify(msg, p, sha + len), sha, len, subject_after(sha + len));
	}
	for (const char *p = msg; *p; p++) {
		size_t len;
		if ((p > msg && (ctype_is_alnum(p[-1]) || p[-1] == '-')) || !ctype_is_xdigit(*p) ||
		    (len = sha_length(p)) < BARE_SHA) {
			continue;
		}
		const char *after = p + len;
		while (*after == ' ')
			after++;
		if (after[0] == '(' && after[1] == '"' && !is_known_sha(t, p, len))
			add_history(t, classify(msg, p, p + len), p, len, subject_after(p + len));
		p += len - 1;
	}
}

static void add_fixes(struct trailers *t, const char *value)
{
	size_t len = sha_length(value);

	if (!len)
		return;
	t->fixes = xrealloc(t->fixes, (t->nfixes + 1) * sizeof(*t->fixes));
	t->fixes[t->nfixes++] = (struct trailers_ref){ TRAILERS_REF_FIXES, xstrndup(value, len),
						      subject_after(value + len) };
}

static void classify_trailers(struct trailers *t)
{
	for (size_t i = 0; i < t->nitems; i++) {
		const char *key = t->items[i].key, *value = t->items[i].value;

		if (strcasecmp(key, "Link") == 0) {
			t->links = xrealloc(t->links, (t->nlinks + 1) * sizeof(*t->links));
			link_parse(&t->links[t->nlinks], value);
			if (t->links[t->nlinks].message_id)
				strlist_push_unique(&t->message_ids, t->links[t->nlinks].message_id);
			t->nlinks++;
		} else if (strcasecmp(key, "Message-ID") == 0) {
			char *id = link_msgid_normalize(value, strlen(value));
			if (id)
				strlist_push_unique(&t->message_ids, id);
			free(id);
		} else if (strcasecmp(key, "Closes") == 0) {
			strlist_push(&t->closes, xstrdup(value));
		} else if (strcasecmp(key, "Fixes") == 0) {
			add_fixes(t, value);
		} else if (strcasecmp(key, "Reported-by") == 0) {
			strlist_push(&t->reported_by, xstrdup(value));
		} else if (strcasecmp(key, "Change-Id") == 0) {
			strlist_push(&t->change_ids, xstrdup(value));
		} else if (strcasecmp(key, "Signed-off-by") == 0) {
			strlist_push(&t->signed_off_by, xstrdup(value));
		}
	}
}

struct trailers *trailers_parse(const char *message)
{
	struct trailers *t = xcalloc(1, sizeof(*t));
	long len = (long)strlen(message);
	long end = trailer_end(message, len);
	long start = trailer_start(message, end);

	split_block(t, message + start, message + end);
	classify_trailers(t);
	scan_history(t, message);
	return t;
}

static void release_refs(struct trailers_ref *refs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(refs[i].sha);
		free(refs[i].subject);
	}
	free(refs);
}

void trailers_free(struct trailers *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nitems; i++) {
		free(t->items[i].key);
		free(t->items[i].value);
	}
	free(t->items);
	for (size_t i = 0; i < t->nlinks; i++)
		link_release(&t->links[i]);
	free(t->links);
	strlist_release(&t->message_ids);
	strlist_release(&t->closes);
	strlist_release(&t->reported_by);
	strlist_release(&t->change_ids);
	strlist_release(&t->signed_off_by);
	release_refs(t->fixes, t->nfixes);
	release_refs(t->history, t->nhistory);
	free(t);
}
