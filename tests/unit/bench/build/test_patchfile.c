#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/fileutil.h"
#include "build/patchfile.h"
#include "lib/date.h"

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
		cmocka_unit_test(test_dates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
