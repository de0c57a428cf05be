#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "provenance/archive.h"
#include "provenance/mail.h"

#include <stdlib.h>
#include <string.h>

static struct mail *parse(const char *text)
{
	struct mail *m;

	if (mail_parse(&m, text, strlen(text)) < 0)
		fail_msg("not parsed: %s", error_last());
	return m;
}

static void test_headers_and_threading(void **state)
{
	struct mail *m = parse(
		"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
		"From: \"Lovelace, Ada\" <ada@example.org>\n"
		"Date: Wed, 6 Apr 2011 18:06:43 +0200\n"
		"Subject: [PATCH v2 1/2] x86/fpu: a subject\n"
		"  folded over two lines\n"
		"Message-ID: <20240101.1@example.org>\n"
		"In-Reply-To: <cover@example.org> (Ada's message)\n"
		"References: <v1@example.org>\n"
		"\t<cover@example.org>\n"
		"\n"
		"Body.\n");

	(void)state;
	assert_string_equal(m->from_name, "Lovelace, Ada");
	assert_string_equal(m->from_email, "ada@example.org");
	assert_string_equal(m->subject, "[PATCH v2 1/2] x86/fpu: a subject  folded over two lines");
	assert_string_equal(m->message_id, "20240101.1@example.org");
	assert_string_equal(m->in_reply_to, "cover@example.org");
	assert_int_equal(m->references.n, 2);
	assert_string_equal(m->references.v[1], "cover@example.org");
	assert_string_equal(m->date, "Wed, 6 Apr 2011 18:06:43 +0200");
	assert_int_equal(m->time, 1302106003);
	assert_string_equal(m->body, "Body.\n");
	assert_null(m->patch);
	mail_free(m);
}

static void test_encoded_words(void **state)
{
	struct mail *m = parse(
		"From: =?ISO-8859-1?B?SvxyZ2VuIEdyb98=?= <jgross@example.com>\n"
		"Subject: =?UTF-8?Q?caf=C3=A9_?= =?utf-8?q?au_lait?= and =?x-unknown?q?keep?= "
		"=?utf-8*en?b?w6k=?=\n"
		"\n");

	(void)state;
	assert_string_equal(m->from_name, "J\xc3\xbcrgen Gro\xc3\x9f");
	assert_string_equal(m->subject, "caf\xc3\xa9 au lait and =?x-unknown?q?keep?= \xc3\xa9");
	assert_string_equal(m->body, "");
	assert_null(m->message_id);
	assert_int_equal(m->time, 0);
	mail_free(m);
}

static void test_crlf_and_inline_patch(void **state)
{
	struct mail *m = parse(
		"From: a@example.org (Ada)\r\n"
		"Subject: [PATCH] a\r\n"
		"\r\n"
		"Text.\r\n"
		"---\r\n"
		"diff --git a/f b/f\r\n"
		"--- a/f\r\n"
		"+++ b/f\r\n"
		"@@ -1 +1 @@\r\n"
		"-x\r\n"
		"+y\r\n");

	(void)state;
	assert_string_equal(m->from_name, "Ada");
	assert_string_equal(m->from_email, "a@example.org");
	assert_non_null(m->patch);
	assert_string_equal(m->patch, m->body);
	assert_null(strchr(m->body, '\r'));
	mail_free(m);
}

static void test_multipart_attachment(void **state)
{
	struct mail *m = parse(
		"From: a@example.org\n"
		"Subject: a\n"
		"Content-Type: multipart/mixed; boundary=\"b1\"\n"
		"\n"
		"preamble\n"
		"--b1\n"
		"Content-Type: multipart/alternative; boundary=b2\n"
		"\n"
		"--b2\n"
		"Content-Type: text/plain; charset=us-ascii\n"
		"Content-Transfer-Encoding: quoted-printable\n"
		"\n"
		"A soft=\n"
		" break and =3D.\n"
		"--b2\n"
		"Content-Type: text/html\n"
		"\n"
		"<p>html</p>\n"
		"--b2--\n"
		"--b1\n"
		"Content-Type: text/x-diff\n"
		"Content-Disposition: attachment; filename=\"x.patch\"\n"
		"Content-Transfer-Encoding: base64\n"
		"\n"
		"LS0tIGEvZgorKysgYi9mCkBAIC0xICsxIEBACi14Cit5Cg==\n"
		"--b1\n"
		"no headers at all, then a blank line\n"
		"--b1--\n"
		"epilogue\n");

	(void)state;
	assert_string_equal(m->body, "A soft break and =.");
	assert_string_equal(m->patch, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n");
	mail_free(m);
}

static void test_a_plain_text_attachment_is_not_the_body(void **state)
{
	struct mail *m = parse(
		"From: a@example.org\n"
		"Content-Type: multipart/mixed; boundary=b\n"
		"\n"
		"--b\n"
		"Content-Type: text/plain\n"
		"Content-Disposition: attachment\n"
		"\n"
		"attached\n"
		"--b\n"
		"\n"
		"inline, default type\n"
		"--b--\n");

	(void)state;
	assert_string_equal(m->body, "inline, default type");
	mail_free(m);
}

static void test_strict_about_headers(void **state)
{
	static const char *const bad[] = {
		"",
		"\n\nbody only\n",
		" continuation first: x\n\n",
		"no colon here\n\n",
		"Bad Name: x\n\n",
		": empty name\n\n",
		"From: a\nSubject x\n\n",
	};
	struct mail *m;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (mail_parse(&m, bad[i], strlen(bad[i])) != ERR_INPUT)
			fail_msg("accepted '%s'", bad[i]);
		assert_null(m);
	}
	assert_non_null(strstr(error_last(), "header line 2"));
	mail_free(NULL);
}

static void test_bounds_without_a_terminator(void **state)
{
	/* Every prefix of a message, copied so ASan sees a read past its end. */
	static const char text[] =
		"Subject: =?utf-8?q?x?=\nContent-Type: multipart/mixed; boundary=q\n\n--q\n"
		"Content-Transfer-Encoding: base64\n\nQUJD\n--q--";

	(void)state;
	for (size_t n = 0; n < sizeof(text) - 1; n++) {
		char *copy = malloc(n ? n : 1);
		struct mail *m;
		memcpy(copy, text, n);
		if (mail_parse(&m, copy, n) == 0)
			mail_free(m);
		free(copy);
	}
}

static void test_the_fixture_attachment(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct mail *m;

	(void)state;
	assert_int_equal(file_read("tests/fixtures/provenance/multipart-crlf.mbox", &sb), 0);
	assert_int_equal(mail_parse(&m, sb.buf, sb.len), 0);
	assert_string_equal(m->subject,
			    "[PATCH] x86/fpu: Clear exceptions before FNINIT \xe2\x80\x93 attached");
	assert_string_equal(m->from_name, "J\xc3\xbcrgen Gro\xc3\x9f");
	assert_non_null(strstr(m->body, "Gr\xc3\xbc\xc3\x9f" "e, J\xc3\xbcrgen"));
	assert_non_null(m->patch);
	assert_true(strncmp(m->patch, "diff --git a/arch/x86/include/asm/fpu/internal.h", 48) == 0);
	mail_free(m);
	strbuf_release(&sb);
}

/* git format-patch's To and Cc (folded, quoted names), and a hand-written reply's encoded one. */
static void test_recipients(void **state)
{
	struct archive a = ARCHIVE_INIT;

	(void)state;
	assert_int_equal(archive_add(&a, "tests/fixtures/provenance/regression-thread.mbox"), 0);
	assert_int_equal(a.nmails, 3);
	const struct strlist *v1 = &a.mails[0]->recipients, *reply = &a.mails[1]->recipients;
	const struct strlist *v2 = &a.mails[2]->recipients;
	assert_int_equal(v1->n, 3);
	assert_string_equal(v1->v[0], "x86@kernel.org");
	assert_string_equal(v1->v[2], "Bob Reviewer <bob@example.org>");
	assert_int_equal(reply->n, 3);
	assert_string_equal(reply->v[0], "Zoë Ünal <zoe.unal@example.org>");
	assert_int_equal(v2->n, 4);
	assert_string_equal(v2->v[1], "linux-kernel@vger.kernel.org");
	assert_string_equal(v2->v[2], "Maintainer, Carol <carol@example.org>");
	archive_release(&a);

	/* Each address once, case aside; a comma inside a comment splits nothing. */
	const char text[] = "From: a@x\nTo: A <a@x>, \"B, b\" <b@x> (team, x), B@X\nCc: a@X, c@x\n\nbody\n";
	struct mail *m;
	assert_int_equal(mail_parse(&m, text, sizeof(text) - 1), 0);
	assert_int_equal(m->recipients.n, 3);
	assert_string_equal(m->recipients.v[0], "A <a@x>");
	assert_string_equal(m->recipients.v[1], "B, b <b@x>");
	assert_string_equal(m->recipients.v[2], "c@x");
	mail_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers_and_threading),
		cmocka_unit_test(test_encoded_words),
		cmocka_unit_test(test_crlf_and_inline_patch),
		cmocka_unit_test(test_multipart_attachment),
		cmocka_unit_test(test_a_plain_text_attachment_is_not_the_body),
		cmocka_unit_test(test_strict_about_headers),
		cmocka_unit_test(test_bounds_without_a_terminator),
		cmocka_unit_test(test_the_fixture_attachment),
		cmocka_unit_test(test_recipients),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
