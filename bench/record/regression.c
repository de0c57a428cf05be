#include "regression.h"

#include "lib/array.h"
#include "lib/address.h"
#include "lib/base64.h"
#include "lib/error.h"
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define HEADER_WIDTH 78		/* RFC 5322's recommended line length */
#define BODY_WIDTH 72
/* Raw bytes per encoded word: base64 makes 52 characters, 64 with "=?UTF-8?B?" and "?=". */
#define WORD_BYTES 39

struct address {
	char *name;	/* "" when none */
	char *email;
};

static bool is_ascii_text(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* "Name <email> # comment" or "email" (address_split()); false when there is no address. */
static bool address_parse(struct address *a, const char *s)
{
	address_split(s, &a->name, &a->email);
	if (!address_is_plain(a->email)) {
		free(a->name);
		free(a->email);
		return false;
	}
	return true;
}

static void address_release(struct address *a)
{
	free(a->name);
	free(a->email);
}

/*
 * s as RFC 2047 encoded words, one token each in words: no word splits a
 * UTF-8 character, so each decodes on its own.
 */
static void encode_words(const char *s, char ***words, size_t *n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);

	while (p < end) {
		const unsigned char *q = p;
		while (q < end) {
			size_t len = strbuf_utf8_length(q, (size_t)(end - q));
			if (!len)
				len = 1;
			if ((size_t)(q + len - p) > WORD_BYTES && q > p)
				break;
			q += len;
		}
		struct strbuf w = STRBUF_INIT;
		strbuf_addstr(&w, "=?UTF-8?B?");
		base64_encode(&w, p, (size_t)(q - p));
		strbuf_addstr(&w, "?=");
		*words = xrealloc(*words, (*n + 1) * sizeof(**words));
		(*words)[(*n)++] = strbuf_detach(&w);
		p = q;
	}
}

/* RFC 5322 atext plus the spaces between words: a name that needs no quotes. */
static bool is_phrase(const char *s)
{
	for (; *s; s++)
		if (!(strchr(" !#$%&'*+-/=?^_`{|}~", *s) || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* One header's tokens; folding happens only between them. */
struct tokens {
	char **v;
	size_t n;
};

static void tokens_push(struct tokens *t, char *s)
{
	t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n++] = s;
}

static void tokens_release(struct tokens *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* Unstructured text: its words, or encoded words when it is not plain ASCII. */
static void tokens_text(struct tokens *t, const char *s)
{
	if (!is_ascii_text(s)) {
		encode_words(s, &t->v, &t->n);
		return;
	}
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, " ");
		if (n)
			tokens_push(t, xstrndup(p, n));
		p += n;
		p += strspn(p, " ");
	}
}

static void tokens_address(struct tokens *t, const struct address *a, bool comma)
{
	char *email = xasprintf("<%s>%s", a->email, comma ? "," : "");

	if (!*a->name) {
		tokens_push(t, xasprintf("%s%s", a->email, comma ? "," : ""));
		free(email);
		return;
	}
	if (!is_ascii_text(a->name)) {
		encode_words(a->name, &t->v, &t->n);
	} else if (is_phrase(a->name)) {
		tokens_text(t, a->name);
	} else {
		struct strbuf q = STRBUF_INIT;
		strbuf_addch(&q, '"');
		for (const char *p = a->name; *p; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_addch(&q, '\\');
			strbuf_addch(&q, *p);
		}
		strbuf_addch(&q, '"');
		tokens_push(t, strbuf_detach(&q));
	}
	tokens_push(t, email);
}

/* "Name: tok tok" folded: a line breaks before a token that would pass the width. */
static void add_header(struct strbuf *out, const char *name, struct tokens *t)
{
	size_t col = strlen(name) + 1;

	strbuf_addf(out, "%s:", name);
	for (size_t i = 0; i < t->n; i++) {
		size_t len = strlen(t->v[i]);
		if (i && col + 1 + len > HEADER_WIDTH) {
			strbuf_addstr(out, "\n");
			col = 0;
		}
		strbuf_addf(out, " %s", t->v[i]);
		col += 1 + len;
	}
	strbuf_addch(out, '\n');
	tokens_release(t);
}

struct recipients {
	struct address *v;
	size_t n;
};

static bool recipients_have(const struct recipients *r, const char *email)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcasecmp(r->v[i].email, email) == 0)
			return true;
	return false;
}

static void recipients_add(struct recipients *r, const char *s)
{
	struct address a;

	if (!s || !address_parse(&a, s))
		return;
	if (recipients_have(r, a.email)) {
		address_release(&a);
		return;
	}
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->v[r->n++] = a;
}

static void recipients_release(struct recipients *r)
{
	for (size_t i = 0; i < r->n; i++)
		address_release(&r->v[i]);
	free(r->v);
}

/* The addresses [from, to) of r as one header; none, no header. */
static void add_address_header(struct strbuf *out, const char *name, const struct recipients *r,
			       size_t from, size_t to)
{
	struct tokens t = { NULL, 0 };

	if (to > r->n)
		to = r->n;
	if (from >= to)
		return;
	for (size_t i = from; i < to; i++)
		tokens_address(&t, &r->v[i], i + 1 < to);
	add_header(out, name, &t);
}

static void add_text_header(struct strbuf *out, const char *name, const char *value)
{
	struct tokens t = { NULL, 0 };

	tokens_text(&t, value);
	add_header(out, name, &t);
}

/* Words wrapped at BODY_WIDTH, each line after `indent`; a word longer than that stays whole. */
static void add_paragraph(struct strbuf *out, const char *indent, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_paragraph(struct strbuf *out, const char *indent, const char *fmt, ...)
{
	struct strbuf text = STRBUF_INIT;
	size_t col = 0;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&text, fmt, ap);
	va_end(ap);
	for (const char *p = text.buf; *p;) {
		p += strspn(p, " \n");
		size_t n = strcspn(p, " \n");
		if (!n)
			break;
		/* Width in characters, not bytes: UTF-8 continuation bytes do not count. */
		size_t width = 0;
		for (size_t i = 0; i < n; i++)
			width += ((unsigned char)p[i] & 0xc0) != 0x80;
		if (col && col + 1 + width > BODY_WIDTH) {
			strbuf_addch(out, '\n');
			col = 0;
		}
		if (!col) {
			strbuf_addstr(out, indent);
			col = strlen(indent);
		} else {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, p, n);
		col += width;
		p += n;
	}
	strbuf_addstr(out, "\n\n");
	strbuf_release(&text);
}

/* Lines as they are, indented: logs and commands are never wrapped. */
static void add_verbatim(struct strbuf *out, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		strbuf_addstr(out, n ? "  " : "");
		strbuf_add(out, p, n);
		strbuf_addch(out, '\n');
		p += n + (p[n] == '\n');
	}
	strbuf_addch(out, '\n');
}

static void add_date(struct strbuf *out, int64_t date)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)date;
	struct tm tm;

	gmtime_r(&t, &tm);
	strbuf_addf(out, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\n", days[tm.tm_wday],
		    tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		    tm.tm_sec);
}

static void add_headers(struct strbuf *out, const struct regression *r)
{
	struct recipients to = { NULL, 0 };
	struct tokens t = { NULL, 0 };
	char *subject;

	recipients_add(&to, r->from);
	add_address_header(out, "From", &to, 0, 1);
	recipients_release(&to);
	/* To is the author (or, without a usable address, the first of the others). */
	to = (struct recipients){ NULL, 0 };
	recipients_add(&to, r->author);
	for (size_t i = 0; i < r->npeople; i++)
		recipients_add(&to, r->people[i]);
	for (size_t i = 0; i < r->nrecipients; i++)
		recipients_add(&to, r->recipients[i]);
	recipients_add(&to, REGRESSION_LIST);
	add_address_header(out, "To", &to, 0, 1);
	add_address_header(out, "Cc", &to, 1, to.n);
	recipients_release(&to);

	if (r->reply_to)
		subject = strncasecmp(r->reply_subject, "Re:", 3) == 0
				  ? xstrdup(r->reply_subject)
				  : xasprintf("Re: %s", r->reply_subject);
	else
		subject = xasprintf("[REGRESSION] %s", r->culprit_subject);
	add_text_header(out, "Subject", subject);
	free(subject);
	add_date(out, r->date);
	strbuf_addf(out, "Message-ID: <%s>\n", r->message_id);
	if (r->reply_to) {
		strbuf_addf(out, "In-Reply-To: <%s>\n", r->reply_to);
		for (size_t i = 0; i < r->nreferences; i++)
			if (strcmp(r->references[i], r->reply_to) != 0)
				tokens_push(&t, xasprintf("<%s>", r->references[i]));
		tokens_push(&t, xasprintf("<%s>", r->reply_to));
		add_header(out, "References", &t);
	}
	strbuf_addstr(out, "MIME-Version: 1.0\n");
}

/* The text's own headers: the mail's, or its first part's. */
#define TEXT_PART_HEADERS "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\n"

/*
 * The body's parts after the headers.  The boundary cannot be in base64
 * ('_' is not of its alphabet); the text, which quotes an untrusted
 * console, is searched for it, and a longer one taken while it is there.
 */
static void add_parts(struct strbuf *out, const struct regression *r, const char *text)
{
	struct strbuf boundary = STRBUF_INIT;

	if (!r->nattachments) {
		strbuf_addf(out, TEXT_PART_HEADERS "%s", text);
		return;
	}
	strbuf_addstr(&boundary, "=_fpubench_");
	strbuf_add(&boundary, r->culprit, strlen(r->culprit) < 12 ? strlen(r->culprit) : 12);
	while (strstr(text, boundary.buf))
		strbuf_addch(&boundary, '_');
	/* 8bit, as its text part: `git send-email` asks about an undeclared 8-bit body. */
	strbuf_addf(out, "Content-Type: multipart/mixed; boundary=\"%s\"\n"
		    "Content-Transfer-Encoding: 8bit\n\n", boundary.buf);
	strbuf_addf(out, "--%s\n" TEXT_PART_HEADERS "%s", boundary.buf, text);
	for (size_t i = 0; i < r->nattachments; i++) {
		const struct regression_attachment *a = &r->attachments[i];

		strbuf_addf(out, "\n--%s\nContent-Type: text/plain; charset=UTF-8\n"
			    "Content-Disposition: attachment; filename=\"%s\"\n"
			    "Content-Transfer-Encoding: base64\n\n", boundary.buf, a->name);
		base64_encode_lines(out, a->data, a->len);
	}
	strbuf_addf(out, "\n--%s--\n", boundary.buf);
	strbuf_release(&boundary);
}

/* The text of the mail, after its headers. */
static void add_text(struct strbuf *text, const struct regression *r)
{
	char sha[13], good[13], bad[13], runs[32];

	snprintf(sha, sizeof(sha), "%.12s", r->culprit);
	snprintf(good, sizeof(good), "%.12s", r->good);
	snprintf(bad, sizeof(bad), "%.12s", r->bad);
	if (r->runs == 1)
		snprintf(runs, sizeof(runs), "once");
	else
		snprintf(runs, sizeof(runs), "%d times", r->runs);
	strbuf_addstr(text, "Hello,\n\n");
	if (r->crash)
		add_paragraph(text, "", "fpubench, a regression test bench for the kernel's x87 FPU "
			      "handling on CPUs without FXSR, found that the test %s crashes the "
			      "kernel on the CPU setup%s %s since the commit below. The crash is:",
			      r->test, strstr(r->setups, ", ") ? "s" : "", r->setups);
	else
		add_paragraph(text, "", "fpubench, a regression test bench for the kernel's x87 FPU "
			      "handling on CPUs without FXSR, found that the test %s fails on the "
			      "CPU setup%s %s since the commit below.",
			      r->test, strstr(r->setups, ", ") ? "s" : "", r->setups);
	if (r->crash)
		add_verbatim(text, r->crash);
	strbuf_addstr(text, "The culprit:\n\n");
	strbuf_addf(text, "  %s (\"%s\")\n\n", sha, r->culprit_subject);
	if (r->culprit_url)
		add_paragraph(text, "", "It is on the branch %s of %s.", r->culprit_branch,
			      r->culprit_url);
	else
		add_paragraph(text, "", "This commit is not public: no branch of the remotes of the "
			      "repository it was found in holds it, so regzbot is not told of it and "
			      "this report names it by its id and subject only.");
	add_paragraph(text, "", "It was found by bisecting between %s (good) and %s (bad) in %zu "
		      "steps, booting each step %s; the good verdicts hold with %.0f %% "
		      "confidence. Its parent passes, it fails, and %s%s", good, bad, r->steps,
		      runs, r->confidence * 100, bad,
		      r->revert_verified ? " with it reverted passes again."
					 : " could not be verified with it reverted.");
	if (r->found_by)
		add_paragraph(text, "", "This mail replies to the patch's posting, %s.", r->found_by);
	if (r->console && *r->console) {
		strbuf_addstr(text, "The console of the failing boot:\n\n");
		add_verbatim(text, r->console);
	}
	strbuf_addstr(text, "To reproduce:\n\n");
	add_verbatim(text, r->reproduce);
	if (r->nattachments) {
		strbuf_addstr(text, "Attached:");
		for (size_t i = 0; i < r->nattachments; i++)
			strbuf_addf(text, "%s %s", i ? "," : "", r->attachments[i].name);
		strbuf_addstr(text, "\n\n");
	}
	/* regzbot tracks what others can fetch: a local commit would be a dead end. */
	if (r->culprit_url)
		strbuf_addf(text, "#regzbot introduced: %s\n\n", sha);
	add_paragraph(text, "", "If you fix the regression, please add these tags to the fix:");
	strbuf_addf(text, "  Reported-by: %s\n", r->from);
	strbuf_addf(text, "  Closes: https://lore.kernel.org/r/%s\n\n", r->message_id);
	strbuf_addstr(text, "Thanks.\n");
}

void regression_format(struct strbuf *out, const struct regression *r)
{
	struct strbuf text = STRBUF_INIT;

	add_headers(out, r);
	add_text(&text, r);
	add_parts(out, r, text.buf);
	strbuf_release(&text);
}

/* The first words of a kernel report's first line, after the printk timestamp. */
static const char *const report_starts[] = {
	"------------[ cut here ]", "fpu exception", "Oops", "BUG:", "WARNING:", "kernel BUG at",
	"general protection fault", "invalid opcode", "Kernel panic",
};

static bool starts_report(const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));
		if (close)
			p = close + 1;
		while (p < end && *p == ' ')
			p++;
	}
	for (size_t i = 0; i < ARRAY_SIZE(report_starts); i++) {
		size_t n = strlen(report_starts[i]);
		if ((size_t)(end - p) >= n && memcmp(p, report_starts[i], n) == 0)
			return true;
	}
	return false;
}

void regression_console_excerpt(struct strbuf *out, const char *log, size_t len)
{
	const char *end = log + len, *from = NULL;
	size_t nlines = 0;

	for (const char *p = log; p < end && !from;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		if (starts_report(p, (size_t)(next - p)))
			from = p;
		p = next;
	}
	if (!from) {
		/* No report: the last lines say how the boot ended. */
		from = end;
		if (from > log && from[-1] == '\n')
			from--;
		while (from > log && nlines < REGRESSION_EXCERPT_LINES) {
			from--;
			if (*from == '\n' && ++nlines == REGRESSION_EXCERPT_LINES) {
				from++;
				break;
			}
		}
	}
	nlines = 0;
	const char *to = from;
	while (to < end && nlines < REGRESSION_EXCERPT_LINES) {
		const char *nl = memchr(to, '\n', (size_t)(end - to));
		to = nl ? nl + 1 : end;
		nlines++;
	}
	report_add_safe(out, from, (size_t)(to - from));
}

int regression_sender(char **out, const char *conf_from, git_repository *repo)
{
	git_config *cfg = NULL;
	git_buf name = { 0 }, email = { 0 };
	int err = 0;

	*out = NULL;
	if (conf_from && *conf_from) {
		*out = xstrdup(conf_from);
		return 0;
	}
	if ((repo ? git_repository_config(&cfg, repo) : git_config_open_default(&cfg)) == 0 &&
	    git_config_get_string_buf(&name, cfg, "user.name") == 0 &&
	    git_config_get_string_buf(&email, cfg, "user.email") == 0 && *name.ptr && *email.ptr)
		*out = xasprintf("%s <%s>", name.ptr, email.ptr);
	else
		err = error_set(ERR_INPUT, "no sender for regression.eml: set 'from' in [report] of "
				"the config, or git's user.name and user.email");
	git_error_clear();
	git_buf_dispose(&name);
	git_buf_dispose(&email);
	git_config_free(cfg);
	return err;
}
