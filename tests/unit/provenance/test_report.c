#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "provenance/provenance.h"
#include "lib/array.h"
#include "lib/error.h"
#include "test_json.h"
#include "test_provenance_repo.h"

struct fixture {
	char *dir;
	git_repository *repo;
	git_oid commits[NCOMMITS];
	char hex[NCOMMITS][GIT_OID_HEXSZ + 1];
	char *out;	/* what the build wrote to stdout and stderr: nothing */
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	struct archive a = ARCHIVE_INIT;

	git_libgit2_init();
	fx->repo = test_repo_new(&fx->dir);
	test_story_archive(&a);
	test_story_commits(fx->repo, &a, fx->commits);
	archive_release(&a);
	for (int i = 0; i < NCOMMITS; i++)
		git_oid_tostr(fx->hex[i], sizeof(fx->hex[i]), &fx->commits[i]);
	fx->out = xasprintf("%s/output", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	git_repository_free(fx->repo);
	test_rmtree(fx->dir);
	free(fx->dir);
	free(fx->out);
	free(fx);
	git_libgit2_shutdown();
	return 0;
}

/* provenance_report_build() with stdout and stderr in fx->out, which must stay empty. */
static int build(struct fixture *fx, struct provenance_report **out,
		 const struct provenance_request *req)
{
	int saved_out, saved_err, fd, err;
	struct strbuf sb = STRBUF_INIT;

	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	fd = open(fx->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	err = provenance_report_build(out, req);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	assert_int_equal(file_read(fx->out, &sb), 0);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
	return err;
}

static void test_commits_with_their_matches(void **state)
{
	struct fixture *fx = *state;
	const char *revs[] = { fx->hex[A], fx->hex[G] };
	const struct provenance_request req = { .repo = fx->dir, .archives = archives,
		.narchives = ARRAY_SIZE(archives), .revs = revs, .nrevs = 2 };
	struct provenance_report *r;

	assert_int_equal(build(fx, &r, &req), 0);
	assert_int_equal(r->ncommits, 2);
	assert_int_equal(r->nmessages, 0);
	assert_int_equal(r->nmails, 19);
	assert_int_equal(r->skipped, 0);
	assert_true(git_oid_equal(&r->commits[0].facts->id, &fx->commits[A]));
	assert_true(git_oid_equal(&r->commits[1].facts->id, &fx->commits[G]));
	/* A posting's mail is an index into the report's mails. */
	const struct match_result *m = r->commits[0].match;
	assert_non_null(m);
	assert_int_equal(m->link, MATCH_LINK_FINAL);
	assert_string_equal(r->mails[m->postings[0].mail]->message_id,
			    "20240115100000.3000-1-ada@example.org");
	assert_int_equal(m->nversions, 3);
	/* The JSON says the same. */
	assert_int_equal(json_object_array_length(r->json), 2);
	test_json_expect(r->json, "/0/link_quality/link", "\"final\"");
	test_json_expect(r->json, "/0/postings/0/message_id",
			 "\"20240115100000.3000-1-ada@example.org\"");
	provenance_report_free(r);
}

static void test_without_archives_no_match(void **state)
{
	struct fixture *fx = *state;
	const char *revs[] = { "HEAD~1..HEAD" };
	const struct provenance_request req = { .repo = fx->dir, .revs = revs, .nrevs = 1 };
	struct provenance_report *r;

	assert_int_equal(build(fx, &r, &req), 0);
	assert_int_equal(r->ncommits, 1);
	assert_true(git_oid_equal(&r->commits[0].facts->id, &fx->commits[G]));
	assert_null(r->commits[0].match);
	assert_int_equal(r->nmails, 0);
	test_json_expect(r->json, "/0/postings", "[]");
	provenance_report_free(r);
}

/* --list: the messages, and those that are not mail counted, not printed. */
static void test_list_counts_what_is_not_mail(void **state)
{
	struct fixture *fx = *state;
	char *mbox = xasprintf("%s/junk.mbox", fx->dir);
	static const char text[] =
		"From a@x Mon Jan  1 00:00:00 2024\n"
		"From: a@x\nMessage-ID: <1@x>\nSubject: [PATCH v2] one\n\nfirst\n"
		"\n"
		"From junk Mon Jan  1 00:00:00 2024\n"
		"this is not a mail\n";
	const char *paths[] = { mbox };
	const struct provenance_request req = { .archives = paths, .narchives = 1, .list = true };
	struct provenance_report *r;

	assert_int_equal(file_write_atomic(mbox, text, sizeof(text) - 1), 0);
	assert_int_equal(build(fx, &r, &req), 0);
	assert_int_equal(r->skipped, 1);
	assert_int_equal(r->ncommits, 0);
	assert_int_equal(r->nmessages, 1);
	assert_string_equal(r->messages[0].mail->message_id, "1@x");
	assert_int_equal(r->messages[0].subject->version, 2);
	test_json_expect(r->json, "/0/version", "2");
	provenance_report_free(r);
	free(mbox);
}

static void test_failures_leave_no_report(void **state)
{
	struct fixture *fx = *state;
	const char *revs[] = { "HEAD" }, *missing[] = { FIXTURES "absent.mbox" };
	const struct provenance_request no_repo = { .repo = "/nonexistent/repo", .revs = revs,
						    .nrevs = 1 };
	const struct provenance_request no_archive = { .repo = fx->dir, .archives = missing,
						       .narchives = 1, .revs = revs, .nrevs = 1 };
	struct provenance_report *r = (struct provenance_report *)1;

	assert_int_equal(build(fx, &r, &no_repo), ERR_NOTFOUND);
	assert_null(r);
	assert_non_null(strstr(error_last(), "cannot open repository '/nonexistent/repo'"));
	assert_int_equal(build(fx, &r, &no_archive), ERR_NOTFOUND);
	assert_null(r);
	provenance_report_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commits_with_their_matches),
		cmocka_unit_test(test_without_archives_no_match),
		cmocka_unit_test(test_list_counts_what_is_not_mail),
		cmocka_unit_test(test_failures_leave_no_report),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
