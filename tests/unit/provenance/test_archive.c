#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "provenance/archive.h"
#include "lib/error.h"
#include "test_provenance_repo.h"

#include <sys/stat.h>

static void test_mboxrd_and_mboxo(void **state)
{
	static const char mbox[] =
		"From a@x Mon Jan  1 00:00:00 2024\n"
		"From: a@x\nMessage-ID: <1@x>\n\n"
		">From the start of a line\n"
		">>From quoted twice\n"
		"From inside a paragraph is not a separator\n"
		"\n"
		"From b@x Mon Jan  1 00:00:00 2024\n"
		"From: b@x\nMessage-ID: <2@x>\n\nsecond\n"
		"\n"
		"From junk Mon Jan  1 00:00:00 2024\n"
		"this is not a mail\n"
		"\n"
		"From c@x Mon Jan  1 00:00:00 2024\n"
		"From: c@x\nMessage-ID: <3@x>\n\nthird, with no newline at the end";
	struct archive a = ARCHIVE_INIT;

	(void)state;
	archive_add_mbox(&a, mbox, sizeof(mbox) - 1);
	assert_int_equal(a.nmails, 3);
	assert_int_equal(a.skipped, 1);
	assert_string_equal(a.mails[0]->body,
			    "From the start of a line\n>From quoted twice\n"
			    "From inside a paragraph is not a separator\n\n");
	assert_string_equal(a.mails[1]->message_id, "2@x");
	assert_string_equal(a.mails[2]->body, "third, with no newline at the end");
	archive_release(&a);
}

static void test_crlf_mbox_and_single_message_files(void **state)
{
	struct archive a = ARCHIVE_INIT;

	(void)state;
	archive_add_mbox(&a, "From x\r\nFrom: a@x\r\n\r\nbody\r\n\r\nFrom y\r\nFrom: b@x\r\n\r\nb2\r\n",
			 strlen("From x\r\nFrom: a@x\r\n\r\nbody\r\n\r\nFrom y\r\nFrom: b@x\r\n\r\nb2\r\n"));
	assert_int_equal(a.nmails, 2);
	assert_string_equal(a.mails[0]->body, "body\n\n");
	archive_add_mbox(&a, "From: c@x\n\nan .eml file, no mbox line\n",
			 strlen("From: c@x\n\nan .eml file, no mbox line\n"));
	assert_int_equal(a.nmails, 3);
	assert_string_equal(a.mails[2]->from_email, "c@x");
	archive_release(&a);
}

static void test_fixture_files(void **state)
{
	struct archive a = ARCHIVE_INIT;

	(void)state;
	assert_int_equal(archive_add(&a, "tests/fixtures/provenance/series.mbox"), 0);
	assert_int_equal(a.nmails, 13);
	assert_int_equal(a.skipped, 0);
	assert_non_null(strstr(a.mails[0]->body, "\nFrom the original report:"));
	assert_int_equal(archive_add(&a, "tests/fixtures/provenance/multipart-crlf.mbox"), 0);
	assert_int_equal(a.nmails, 14);
	archive_release(&a);
}

static void write_file(const char *path, const char *text)
{
	assert_int_equal(file_write_atomic(path, text, strlen(text)), 0);
}

static void test_maildir(void **state)
{
	char *dir = test_tmpdir(), *path;
	struct archive a = ARCHIVE_INIT;

	(void)state;
	path = xasprintf("%s/new", dir);
	assert_int_equal(dir_create(path, ERR_GENERIC), 0);
	free(path);
	path = xasprintf("%s/cur", dir);
	assert_int_equal(dir_create(path, ERR_GENERIC), 0);
	free(path);
	path = xasprintf("%s/cur/2:2,S", dir);
	write_file(path, "From: b@x\nMessage-ID: <2@x>\n\n");
	free(path);
	path = xasprintf("%s/cur/1:2,S", dir);
	write_file(path, "From: a@x\nMessage-ID: <1@x>\n\n");
	free(path);
	path = xasprintf("%s/new/3", dir);
	write_file(path, "From: c@x\nMessage-ID: <3@x>\n\n");
	free(path);
	path = xasprintf("%s/cur/.hidden", dir);
	write_file(path, "not read\n");
	free(path);
	assert_int_equal(archive_add(&a, dir), 0);
	assert_int_equal(a.nmails, 3);
	assert_string_equal(a.mails[0]->message_id, "1@x");
	assert_string_equal(a.mails[1]->message_id, "2@x");
	assert_string_equal(a.mails[2]->message_id, "3@x");
	archive_release(&a);
	test_rmtree(dir);
	free(dir);
}

/* A public-inbox v2 epoch: every commit's tree holds the message as "m", or "d" when removed. */
static void make_epoch(const char *path, const char *const *messages, size_t n)
{
	git_repository *repo;
	git_oid prev;

	assert_int_equal(git_repository_init(&repo, path, 1), 0);
	for (size_t i = 0; i < n; i++) {
		bool removed = strncmp(messages[i], "DELETE", 6) == 0;
		struct test_file f = { removed ? "d" : "m", messages[i], 0, 0 };
		/* Each commit's tree holds only this message. */
		struct test_file drop = { removed ? "m" : "d", NULL, 0, 0 };
		struct test_file files[2] = { drop, f };
		prev = test_commit(repo, i ? &prev : NULL, i ? files : &f, i ? 2 : 1, "m\n",
				   "public-inbox", "pi@x", 1700000000 + (git_time_t)i);
	}
	git_repository_free(repo);
}

static void test_public_inbox_v2(void **state)
{
	static const char *const epoch0[] = {
		"From: a@x\nMessage-ID: <1@x>\n\nfirst\n",
		"From: b@x\nMessage-ID: <2@x>\n\nsecond\n",
		"DELETE: spam\n",
	};
	static const char *const epoch1[] = { "From: c@x\nMessage-ID: <3@x>\n\nthird\n" };
	char *dir = test_tmpdir(), *path;
	struct archive a = ARCHIVE_INIT;

	(void)state;
	path = xasprintf("%s/git/0.git", dir);
	make_epoch(path, epoch0, 3);
	free(path);
	path = xasprintf("%s/git/1.git", dir);
	make_epoch(path, epoch1, 1);
	assert_int_equal(archive_add(&a, dir), 0);
	assert_int_equal(a.nmails, 3);
	assert_string_equal(a.mails[0]->message_id, "1@x");
	assert_string_equal(a.mails[2]->message_id, "3@x");
	/* One epoch on its own. */
	assert_int_equal(archive_add(&a, path), 0);
	assert_int_equal(a.nmails, 4);
	free(path);
	archive_release(&a);
	test_rmtree(dir);
	free(dir);
}

static void test_errors_name_the_archive(void **state)
{
	struct archive a = ARCHIVE_INIT;
	char *dir = test_tmpdir();

	(void)state;
	assert_int_equal(archive_add(&a, "tests/fixtures/provenance/no-such.mbox"), ERR_NOTFOUND);
	assert_non_null(strstr(error_last(), "cannot read archive 'tests/fixtures/provenance/no-such.mbox'"));
	assert_int_equal(archive_add(&a, dir), ERR_INPUT);
	assert_non_null(strstr(error_last(), "is no mbox, maildir or public-inbox"));
	assert_int_equal(a.nmails, 0);
	archive_release(&a);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mboxrd_and_mboxo),
		cmocka_unit_test(test_crlf_mbox_and_single_message_files),
		cmocka_unit_test(test_fixture_files),
		cmocka_unit_test(test_maildir),
		cmocka_unit_test(test_public_inbox_v2),
		cmocka_unit_test(test_errors_name_the_archive),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
