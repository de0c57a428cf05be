#include "patchid.h"
#include "patchid_state.h"

#include "lib/ctype.h"
#include "lib/str.h"

#include <stdlib.h>
#include <string.h>

void patchid_state_init(struct patchid_state *st)
{
	memset(st, 0, sizeof(*st));
	st->before = st->after = -1;
	st->ctx = EVP_MD_CTX_new();
	if (!st->ctx || !EVP_DigestInit_ex(st->ctx, EVP_sha1(), NULL)) {
		fputs("fpubench: cannot set up SHA-1\n", stderr);
		abort();
	}
	strbuf_init(&st->scratch);
}

void patchid_state_release(struct patchid_state *st)
{
	EVP_MD_CTX_free(st->ctx);
	strbuf_release(&st->scratch);
}

/* Ends one file's hash and adds it to the sum, so file order does not matter. */
static void flush_file(struct patchid_state *st)
{
	unsigned char hash[EVP_MAX_MD_SIZE];
	unsigned carry = 0;

	EVP_DigestFinal_ex(st->ctx, hash, NULL);
	EVP_DigestInit_ex(st->ctx, EVP_sha1(), NULL);
	for (size_t i = 0; i < sizeof(st->sum); i++) {
		carry += st->sum[i] + hash[i];
		st->sum[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

static void hash_without_space(struct patchid_state *st, const char *line, size_t len)
{
	strbuf_reset(&st->scratch);
	strbuf_grow(&st->scratch, len);
	for (size_t i = 0; i < len; i++)
		if (!ctype_is_space(line[i]))
			st->scratch.buf[st->scratch.len++] = line[i];
	st->patchlen += (long)st->scratch.len;
	EVP_DigestUpdate(st->ctx, st->scratch.buf, st->scratch.len);
}

static void copy_oid_text(char *dst, const char *p, const char *end)
{
	size_t n = (size_t)(end - p);

	if (n > OID_TEXT_MAX)
		n = OID_TEXT_MAX;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* "index abc..def 100644": remembered for binary files, as git does. */
static void read_index_line(struct patchid_state *st, const char *line, size_t len)
{
	const char *end = line + len;
	const char *dots = memmem(line, len, "..", 2);

	if (!dots)
		return;
	const char *space = memchr(dots, ' ', (size_t)(end - dots));
	const char *post_end = space ? space : end - 1;
	if (post_end < dots + 2)
		post_end = dots + 2;
	copy_oid_text(st->pre_oid, line + 6, dots);
	copy_oid_text(st->post_oid, dots + 2, post_end);
}

/* get_oid_hex(): the first 40 characters are hex digits. */
static bool starts_with_oid(const char *p, size_t len)
{
	if (len < 40)
		return false;
	for (size_t i = 0; i < 40; i++)
		if (!ctype_is_xdigit(p[i]))
			return false;
	return true;
}

static size_t count_digits(const char *p, const char *end)
{
	size_t n = 0;

	while (p + n < end && p[n] >= '0' && p[n] <= '9')
		n++;
	return n;
}

/* atoi() within bounds; counts past nine digits are not worth exactness. */
static int read_count(const char *p, const char *end)
{
	int n = 0;

	for (size_t i = 0; i < 9 && p + i < end && p[i] >= '0' && p[i] <= '9'; i++)
		n = n * 10 + (p[i] - '0');
	return n;
}

/* git's scan_hunk_header() as of 2.39, quirks included. */
static void scan_hunk_header(const char *line, size_t len, int *before, int *after)
{
	const char *end = line + len, *q = line + 4, *r;
	size_t n = count_digits(q, end);

	if (q + n < end && q[n] == ',') {
		q += n + 1;
		*before = read_count(q, end);
		n = count_digits(q, end);
	} else {
		*before = 1;
	}
	if (n == 0 || q + n + 1 >= end || q[n] != ' ' || q[n + 1] != '+')
		return;
	r = q + n + 2;
	n = count_digits(r, end);
	if (r + n < end && r[n] == ',')
		*after = read_count(r + n + 1, end);
	else
		*after = 1;
}

/*
 * One line of patch text, with its newline if it has one.  This is the
 * loop body of git's get_one_patchid() for one patch, --stable.
 */
void patchid_state_feed_line(struct patchid_state *st, const char *line, size_t len)
{
	const char *nul = memchr(line, '\0', len);
	const char *p = line;
	size_t plen;

	if (st->done)
		return;
	/* git reads the line into a C string: a NUL ends it there. */
	if (nul)
		len = (size_t)(nul - line);
	plen = len;
	if (str_has_prefix(line, len, "commit ")) {
		p += 7;
		plen -= 7;
	} else if (str_has_prefix(line, len, "From ")) {
		p += 5;
		plen -= 5;
	} else if (str_has_prefix(line, len, "\\ ") && len > 12) {
		return;
	}
	/* Another commit begins: the end of this patch, or of a preamble. */
	if (starts_with_oid(p, plen)) {
		st->done = st->patchlen > 0;
		return;
	}
	if (!st->patchlen && !str_has_prefix(line, len, "diff "))
		return;

	if (st->before == -1) {
		if (str_has_prefix(line, len, "GIT binary patch") ||
		    str_has_prefix(line, len, "Binary files")) {
			st->binary = true;
			st->before = 0;
			EVP_DigestUpdate(st->ctx, st->pre_oid, strlen(st->pre_oid));
			EVP_DigestUpdate(st->ctx, st->post_oid, strlen(st->post_oid));
			flush_file(st);
			return;
		}
		if (str_has_prefix(line, len, "index ")) {
			read_index_line(st, line, len);
			return;
		}
		if (str_has_prefix(line, len, "--- ")) {
			st->before = st->after = 1;
		} else if (!ctype_is_alpha(line[0])) {
			st->done = true;
			return;
		}
	}
	if (st->binary) {
		/* git skips the next file's "diff" line here, and so must we. */
		if (str_has_prefix(line, len, "diff ")) {
			st->binary = false;
			st->before = -1;
		}
		return;
	}
	if (st->before == 0 && st->after == 0) {
		if (str_has_prefix(line, len, "@@ -")) {
			scan_hunk_header(line, len, &st->before, &st->after);
			return;
		}
		if (!str_has_prefix(line, len, "diff ")) {
			st->done = true;
			return;
		}
		flush_file(st);
		st->before = st->after = -1;
	}
	if (line[0] == '-' || line[0] == ' ')
		st->before--;
	if (line[0] == '+' || line[0] == ' ')
		st->after--;
	hash_without_space(st, line, len);
}

void patchid_state_feed_lines(struct patchid_state *st, const char *text, size_t len)
{
	const char *end = text + len;

	while (text < end && !st->done) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		const char *next = nl ? nl + 1 : end;
		patchid_state_feed_line(st, text, (size_t)(next - text));
		text = next;
	}
}

void patchid_state_finish(struct patchid_state *st, git_oid *out)
{
	flush_file(st);
	memset(out, 0, sizeof(*out));
	if (st->patchlen)
		git_oid_fromraw(out, st->sum);
}

void patchid_from_text(git_oid *out, const char *text, size_t len)
{
	struct patchid_state st;

	patchid_state_init(&st);
	patchid_state_feed_lines(&st, text, len);
	patchid_state_finish(&st, out);
	patchid_state_release(&st);
}
