#include "ktap.h"

#include "lib/array.h"
#include "lib/ctype.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

bool ktap_span_eat(struct ktap_span *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (s->len < n || memcmp(s->ptr, prefix, n) != 0)
		return false;
	s->ptr += n;
	s->len -= n;
	return true;
}

static void span_skip_blanks(struct ktap_span *s)
{
	while (s->len && ctype_is_blank(*s->ptr)) {
		s->ptr++;
		s->len--;
	}
}

static void span_trim_blanks(struct ktap_span *s)
{
	while (s->len && ctype_is_blank(s->ptr[s->len - 1]))
		s->len--;
}

bool ktap_span_eat_number(struct ktap_span *s, int *out)
{
	size_t i = 0;
	int v = 0;

	for (; i < s->len && ctype_is_digit(s->ptr[i]); i++) {
		if (v > (INT_MAX - (s->ptr[i] - '0')) / 10)
			return false;
		v = v * 10 + (s->ptr[i] - '0');
	}
	if (i == 0)
		return false;
	s->ptr += i;
	s->len -= i;
	*out = (int)v;
	return true;
}

/* "[    1.234567] ": the form CONFIG_PRINTK_TIME gives every kernel line. */
static bool span_eat_timestamp(struct ktap_span *s)
{
	size_t i = 1;

	if (!s->len || s->ptr[0] != '[')
		return false;
	while (i < s->len && s->ptr[i] == ' ')
		i++;
	size_t digits = i;
	while (i < s->len && ctype_is_digit(s->ptr[i]))
		i++;
	if (i == digits || i >= s->len || s->ptr[i] != '.')
		return false;
	digits = ++i;
	while (i < s->len && ctype_is_digit(s->ptr[i]))
		i++;
	if (i == digits || i >= s->len || s->ptr[i] != ']')
		return false;
	i++;
	if (i < s->len && s->ptr[i] == ' ')
		i++;
	s->ptr += i;
	s->len -= i;
	return true;
}

static bool at_word_end(const struct ktap_span *s)
{
	return !s->len || ctype_is_blank(*s->ptr);
}

static bool parse_version(struct ktap_line *l, struct ktap_span s)
{
	int n;

	if (!ktap_span_eat(&s, "KTAP version ") && !ktap_span_eat(&s, "TAP version "))
		return false;
	if (!ktap_span_eat_number(&s, &n) || s.len)
		return false;
	l->kind = KTAP_VERSION;
	l->number = n;
	return true;
}

static bool parse_plan(struct ktap_line *l, struct ktap_span s)
{
	int n;

	/* TAP allows a trailing "# SKIP reason" on a plan: only the count matters. */
	if (!ktap_span_eat(&s, "1..") || !ktap_span_eat_number(&s, &n) || !at_word_end(&s))
		return false;
	l->kind = KTAP_PLAN;
	l->number = n;
	return true;
}

static const struct {
	const char *word;
	enum ktap_directive directive;
} directives[] = {
	{ "SKIP", KTAP_DIRECTIVE_SKIP },
	{ "TODO", KTAP_DIRECTIVE_TODO },
	{ "TIMEOUT", KTAP_DIRECTIVE_TIMEOUT },
};

/* s is the text after '#'. */
static void parse_directive(struct ktap_line *l, struct ktap_span s)
{
	span_skip_blanks(&s);
	span_trim_blanks(&s);
	if (!s.len)
		return;
	l->directive = KTAP_DIRECTIVE_OTHER;
	l->text = s;
	for (size_t i = 0; i < ARRAY_SIZE(directives); i++) {
		size_t n = strlen(directives[i].word);

		/* TAP takes directive keywords in any case. */
		if (s.len >= n && strncasecmp(s.ptr, directives[i].word, n) == 0 &&
		    (s.len == n || ctype_is_blank(s.ptr[n]))) {
			l->directive = directives[i].directive;
			l->text = (struct ktap_span){ s.ptr + n, s.len - n };
			span_skip_blanks(&l->text);
			return;
		}
	}
}

static bool parse_result(struct ktap_line *l, struct ktap_span s)
{
	bool ok = ktap_span_eat(&s, "ok ");
	int n;

	if (!ok && !ktap_span_eat(&s, "not ok "))
		return false;
	if (!ktap_span_eat_number(&s, &n) || !at_word_end(&s))
		return false;
	l->kind = KTAP_RESULT;
	l->number = n;
	l->ok = ok;
	span_skip_blanks(&s);

	/* The description ends at the first '#' that starts a word. */
	size_t hash = 0;
	while (hash < s.len && !(s.ptr[hash] == '#' && (hash == 0 || ctype_is_blank(s.ptr[hash - 1]))))
		hash++;
	l->name = (struct ktap_span){ s.ptr, hash };
	ktap_span_eat(&l->name, "- ");
	span_trim_blanks(&l->name);
	if (hash < s.len)
		parse_directive(l, (struct ktap_span){ s.ptr + hash + 1, s.len - hash - 1 });
	return true;
}

static bool parse_diag(struct ktap_line *l, struct ktap_span s)
{
	/* "#" must stand alone: kernel lines like "#PF: ..." are not diagnostics. */
	if (!s.len || s.ptr[0] != '#' || (s.len > 1 && !ctype_is_blank(s.ptr[1])))
		return false;
	s.ptr++;
	s.len--;
	span_skip_blanks(&s);
	span_trim_blanks(&s);
	l->kind = KTAP_DIAG;
	l->text = s;
	return true;
}

void ktap_parse_line(struct ktap_line *out, const char *line, size_t len)
{
	struct ktap_span s = { line, len };

	memset(out, 0, sizeof(*out));
	while (s.len && (s.ptr[s.len - 1] == '\r' || s.ptr[s.len - 1] == '\n'))
		s.len--;
	out->printk = span_eat_timestamp(&s);
	out->body = s;
	while (ktap_span_eat(&s, "    ") || ktap_span_eat(&s, "\t"))
		if (out->depth < INT_MAX)	/* a flood of blanks must not overflow */
			out->depth++;
	if (s.len && s.ptr[0] == ' ')
		return;
	if (!parse_version(out, s) && !parse_plan(out, s) && !parse_result(out, s))
		parse_diag(out, s);
}
