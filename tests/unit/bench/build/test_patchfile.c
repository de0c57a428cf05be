#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "build/patchfile.h"
#include "lib/date.h"

#include <stdlib.h>
#include <string.h>

static void parse_file(const char *path, struct patchfile *p)
{
	struct strbuf text = STRBUF_INIT;

	assert_int_equal(file_read(path, &text), 0);
	assert_int_equal(patchfile_parse(p, path, text.buf, text.len), 0);
	strbuf_release(&text);
}

static void test_format_patch_keeps_author_date_message(void **state)
{
	struct patchfile p;

	(void)state;
	parse_file("patches/0002-x86-32-fpu-fix-fpu-exception-handling-on-non-sse-systems.patch", &p);
	assert_true(p.is_mail);
	assert_string_equal(p.author_name, "Hans Rosenfeld");
	assert_string_equal(p.author_email, "hans.rosenfeld@amd.com");
	assert_int_equal(p.author_time, 1302106003);	/* the id of the posting */
	assert_int_equal(p.author_tz, 120);
	/* The folded subject is one line, without "[PATCH 2/2]". */
	assert_true(strncmp(p.message,
			    "x86-32, fpu: Fix FPU exception handling on non-SSE systems\n\n", 60) == 0);
	assert_non_null(strstr(p.message,
			       "\n\nLink: http://lkml.kernel.org/r/1302106003-366952-1-git-send-email-hans.rosenfeld@amd.com\n"));
	/* The notes below "---" stay out of the message. */
	assert_null(strstr(p.message, "forward-ported"));
	assert_true(strncmp(p.diff, "diff --git a/arch/x86/kernel/fpu/core.c", 39) == 0);
	patchfile_release(&p);
}

static void test_git_diff_has_neutral_author(void **state)
{
	struct patchfile p;

	(void)state;
	parse_file("tests/fixtures/patches/fsave-regression.diff", &p);
	assert_false(p.is_mail);
	assert_string_equal(p.author_name, "fpubench");
	assert_non_null(strstr(p.message, "fsave-regression.diff"));
	assert_non_null(strstr(p.diff, "+\tasm volatile(\"fsave %[fp]; fwait\""));
	patchfile_release(&p);
}

static void test_plain_diff_gets_git_headers(void **state)
{
	struct patchfile p;

	(void)state;
	parse_file("tests/fixtures/patches/fsave-regression.plain.diff", &p);
	assert_true(strncmp(p.diff,
			    "diff --git a/arch/x86/kernel/fpu/core.c b/arch/x86/kernel/fpu/core.c\n"
			    "--- a/arch/x86/kernel/fpu/core.c\n"
			    "+++ b/arch/x86/kernel/fpu/core.c\n@@", 130) == 0);
	patchfile_release(&p);
}

static void test_plain_diff_new_and_deleted_files(void **state)
{
	const char *text =
		"--- /dev/null\t2026-01-01\n+++ b/new.c\t2026-01-01\n@@ -0,0 +1 @@\n+x\n"
		"--- a/old.c\t2026-01-01\n+++ /dev/null\t2026-01-01\n@@ -1 +0,0 @@\n-y\n";
	struct patchfile p;

	(void)state;
	assert_int_equal(patchfile_parse(&p, "t", text, strlen(text)), 0);
	assert_non_null(strstr(p.diff, "diff --git a/new.c b/new.c\nnew file mode 100644\n--- /dev/null\n+++ b/new.c\n"));
	assert_non_null(strstr(p.diff, "diff --git a/old.c b/old.c\ndeleted file mode 100644\n--- a/old.c\n+++ /dev/null\n"));
	patchfile_release(&p);
}

static void test_no_diff_is_an_error(void **state)
{
	const char *text = "From: A <a@b>\nSubject: [PATCH] nothing\n\njust words\n";
	struct patchfile p;

	(void)state;
	assert_int_equal(patchfile_parse(&p, "empty.patch", text, strlen(text)), ERR_INPUT);
	assert_string_equal(error_last(), "patch 'empty.patch' holds no diff");
}

static void test_bad_date_names_the_patch(void **state)
{
	const char *text = "From: A <a@b>\nDate: yesterday\nSubject: x\n\nbody\n---\n"
			   "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";
	struct patchfile p;

	(void)state;
	assert_int_equal(patchfile_parse(&p, "x.patch", text, strlen(text)), ERR_INPUT);
	assert_non_null(strstr(error_last(), "'x.patch'"));
}

#define SERIES "tests/fixtures/patches/series/unit/"

/* patchfile_read() of a fixture: 0 and its patches, or the error. */
static int read_list(const char *path, struct patchfile_list *l)
{
	return patchfile_read(l, path, NULL);
}

static void assert_two(const struct patchfile_list *l, size_t first_number)
{
	assert_int_equal(l->n, 2);
	assert_true(strncmp(l->v[0].message, "x86/fpu: Reword the comment on the legacy FPU save\n\n", 52) == 0);
	assert_true(strncmp(l->v[1].message, "x86/fpu: Save the legacy state with fsave\n\n", 43) == 0);
	assert_int_equal(l->v[0].number, first_number);
	assert_int_equal(l->v[1].number, first_number + 1);
	assert_int_equal(l->v[0].count, 2);
	assert_int_equal(l->v[1].author_time, 1796295600);
	assert_int_equal(l->v[1].author_tz, 60);
	/* Each diff stops at its own mail's signature, before the next mail. */
	assert_null(strstr(l->v[0].diff, "fsave %[fp]"));
	assert_null(strstr(l->v[0].diff, "From "));
	assert_non_null(strstr(l->v[1].diff, "+\tasm volatile(\"fsave %[fp]; fwait\""));
}

static void test_mbox_holds_every_patch(void **state)
{
	struct patchfile_list l;

	(void)state;
	assert_int_equal(read_list(SERIES "two.mbx", &l), 0);
	assert_two(&l, 1);
	patchfile_list_release(&l);
}

static void test_maildir_in_name_order(void **state)
{
	struct patchfile_list l;

	(void)state;
	assert_true(patchfile_is_maildir(SERIES "maildir"));
	assert_false(patchfile_is_maildir(SERIES));
	assert_int_equal(read_list(SERIES "maildir", &l), 0);
	assert_two(&l, 1);
	patchfile_list_release(&l);
}

static void test_cover_letters_are_skipped(void **state)
{
	struct patchfile_list l;

	(void)state;
	/* b4's "From git@z Thu Jan  1 00:00:00 1970" separators. */
	assert_int_equal(read_list(SERIES "b4-cover.mbx", &l), 0);
	assert_two(&l, 2);
	assert_non_null(strstr(l.v[1].message, "\nLink: https://lore.kernel.org/r/20261203-legacy-save-v1@example.org\n"));
	patchfile_list_release(&l);
	/* A cover letter's interdiff is a diff, not a patch to apply. */
	assert_int_equal(read_list(SERIES "interdiff.mbx", &l), 0);
	assert_two(&l, 2);
	patchfile_list_release(&l);
}

static void test_cover_letter_subjects(void **state)
{
	static const struct {
		const char *subject;
		bool cover;
	} cases[] = {
		{ "[PATCH 0/2] x", true },
		{ "[PATCH v3 00/12] x", true },
		{ "[RFC PATCH net-next 0/7] x", true },
		{ "[PATCH 1/2] x", false },
		{ "[PATCH 10/12] x", false },
		{ "[PATCH] 0/2 is not a tag", false },
		{ "Re: [PATCH 0/2] x", false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = xasprintf("From: A <a@b>\nSubject: %s\n\nbody\n---\n"
				       "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
				       cases[i].subject);
		struct patchfile p;

		assert_int_equal(patchfile_parse(&p, "t", text, strlen(text)), 0);
		if (p.is_cover != cases[i].cover)
			fail_msg("'%s': is_cover %d", cases[i].subject, p.is_cover);
		patchfile_release(&p);
		free(text);
	}
}

static void test_junk_is_refused_with_its_number(void **state)
{
	struct patchfile_list l;

	(void)state;
	assert_int_equal(read_list(SERIES "junk.mbx", &l), ERR_INPUT);
	assert_string_equal(error_last(),
			    "patch '" SERIES "junk.mbx' message 3 (\"Re: [PATCH 2/2] x86/fpu: Save the legacy state with fsave\") is neither a patch nor a cover letter");
	assert_int_equal(read_list(SERIES "prose.mbx", &l), ERR_INPUT);
	assert_string_equal(error_last(),
			    "patch '" SERIES "prose.mbx' holds text that is not a mail before its first message");

	const char *not_mail = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
			       "just text\n";
	assert_int_equal(patchfile_parse_all(&l, "x.mbx", not_mail, strlen(not_mail)), ERR_INPUT);
	assert_string_equal(error_last(), "patch 'x.mbx' message 1 is not a mail");
	const char *cover_only = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
				 "From: A <a@b>\nSubject: [PATCH 0/1] x\n\nwords\n";
	assert_int_equal(patchfile_parse_all(&l, "c.mbx", cover_only, strlen(cover_only)), ERR_INPUT);
	assert_string_equal(error_last(), "patch 'c.mbx' holds no diff");
}

static void test_one_patch_as_before(void **state)
{
	struct patchfile_list l;

	(void)state;
	/* A plain diff, with no separator and no mail: one patch with a neutral author. */
	assert_int_equal(read_list("tests/fixtures/patches/fsave-regression.plain.diff", &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].count, 1);
	assert_string_equal(l.v[0].author_name, "fpubench");
	patchfile_list_release(&l);
	/* format-patch of one commit: an mbox of one. */
	assert_int_equal(read_list(SERIES "fsave.patch", &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].author_email, "ada@example.org");
	patchfile_list_release(&l);
	assert_int_equal(read_list(SERIES "missing.mbx", &l), ERR_NOTFOUND);
}

static void test_dates(void **state)
{
	int64_t t;
	int tz;

	(void)state;
	assert_int_equal(date_parse_rfc2822("Thu, 3 Dec 2026 09:00:00 +0000", &t, &tz), 0);
	assert_int_equal(t, 1796288400);
	assert_int_equal(tz, 0);
	assert_int_equal(date_parse_rfc2822("6 Apr 2011 09:06:43 -0700", &t, &tz), 0);
	assert_int_equal(t, 1302106003);
	assert_int_equal(tz, -420);
	assert_int_equal(date_parse_rfc2822("Wed, 6 Foo 2011 18:06:43 +0200", &t, &tz), -1);
	assert_int_equal(date_parse_rfc2822("", &t, &tz), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_patch_keeps_author_date_message),
		cmocka_unit_test(test_git_diff_has_neutral_author),
		cmocka_unit_test(test_plain_diff_gets_git_headers),
		cmocka_unit_test(test_plain_diff_new_and_deleted_files),
		cmocka_unit_test(test_no_diff_is_an_error),
		cmocka_unit_test(test_bad_date_names_the_patch),
		cmocka_unit_test(test_mbox_holds_every_patch),
		cmocka_unit_test(test_maildir_in_name_order),
		cmocka_unit_test(test_cover_letters_are_skipped),
		cmocka_unit_test(test_cover_letter_subjects),
		cmocka_unit_test(test_junk_is_refused_with_its_number),
		cmocka_unit_test(test_one_patch_as_before),
		cmocka_unit_test(test_dates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
