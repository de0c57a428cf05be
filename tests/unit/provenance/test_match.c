#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "provenance/facts.h"
#include "provenance/match.h"
#include "test_provenance_repo.h"

struct fixture {
	char *dir;
	git_repository *repo;
	struct archive archive;
	struct match_index *idx;
	git_oid commits[NCOMMITS];
	struct commit_facts *facts[NCOMMITS];
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	git_libgit2_init();
	fx->repo = test_repo_new(&fx->dir);
	test_story_archive(&fx->archive);
	fx->idx = match_index_new(fx->archive.mails, fx->archive.nmails);
	test_story_commits(fx->repo, &fx->archive, fx->commits);
	for (int i = 0; i < NCOMMITS; i++)
		assert_int_equal(facts_read(&fx->facts[i], fx->repo, &fx->commits[i], FACTS_CHANGES), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	for (int i = 0; i < NCOMMITS; i++)
		facts_free(fx->facts[i]);
	match_index_free(fx->idx);
	archive_release(&fx->archive);
	git_repository_free(fx->repo);
	test_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
	git_libgit2_shutdown();
	return 0;
}

static const char *posting_id(const struct fixture *fx, const struct match_result *r, size_t i)
{
	return fx->archive.mails[r->postings[i].mail]->message_id;
}

static const char *version_id(const struct fixture *fx, const struct match_result *r, size_t i)
{
	return fx->archive.mails[r->versions[i].mail]->message_id;
}

static void test_link_to_the_final_version_misses_the_reviews(void **state)
{
	struct fixture *fx = *state;
	struct match_result *r = match_commit(fx->idx, fx->facts[A]);

	assert_int_equal(r->npostings, 1);
	assert_int_equal(r->postings[0].method, MATCH_MESSAGE_ID);
	assert_true(r->postings[0].confidence == 1.0);
	assert_string_equal(posting_id(fx, r, 0), "20240115100000.3000-1-ada@example.org");
	/* v1 had another subject; its cover letter, linked from v2's, leads there. */
	assert_int_equal(r->nversions, 3);
	assert_string_equal(version_id(fx, r, 0), "20240101100000.1000-1-ada@example.org");
	assert_string_equal(version_id(fx, r, 1), "20240108100000.2000-1-ada@example.org");
	assert_string_equal(version_id(fx, r, 2), "20240115100000.3000-1-ada@example.org");
	assert_int_equal(r->versions[0].version, 1);
	assert_int_equal(r->versions[2].version, 3);
	/* Bob, Ada's answer, and Carol on the cover letter. */
	assert_int_equal(r->versions[0].replies, 3);
	assert_int_equal(r->versions[0].review_tags.n, 1);
	assert_string_equal(r->versions[0].review_tags.v[0],
			    "Acked-by: Carol Maintainer <carol@example.org>");
	assert_int_equal(r->versions[1].replies, 1);
	assert_string_equal(r->versions[1].review_tags.v[0],
			    "Reviewed-by: Bob Reviewer <bob@example.org>");
	assert_int_equal(r->versions[2].replies, 0);
	assert_string_equal(r->versions[0].changes, "");
	assert_string_equal(r->versions[1].changes,
			    "5 lines differ in arch/x86/kernel/fpu/core.c");
	assert_string_equal(r->versions[2].changes, "same changes");
	assert_string_equal(r->applied_changes, "same changes");
	assert_int_equal(r->link, MATCH_LINK_FINAL);
	assert_false(r->versions[0].reached);
	assert_false(r->versions[1].reached);
	assert_true(r->versions[2].reached);
	assert_int_equal(r->unreached_reviewed, 2);
	match_result_free(r);
}

static void test_link_to_an_earlier_version(void **state)
{
	struct fixture *fx = *state;
	struct match_result *r = match_commit(fx->idx, fx->facts[B]);

	assert_int_equal(r->postings[0].method, MATCH_MESSAGE_ID);
	assert_string_equal(posting_id(fx, r, 0), "20240108100000.2000-2-ada@example.org");
	assert_int_equal(r->nversions, 3);
	assert_int_equal(r->link, MATCH_LINK_EARLIER);
	/* v2's cover letter links v1's, so the Link reaches v1 but not v3. */
	assert_true(r->versions[0].reached);
	assert_true(r->versions[1].reached);
	assert_false(r->versions[2].reached);
	assert_int_equal(r->unreached_reviewed, 0);
	assert_string_equal(r->versions[1].changes,
			    "5 lines differ in arch/x86/include/asm/fpu/internal.h");
	match_result_free(r);
}

static void test_patch_id_finds_a_resend(void **state)
{
	struct fixture *fx = *state;
	struct match_result *r = match_commit(fx->idx, fx->facts[C]);

	assert_int_equal(r->npostings, 2);
	assert_int_equal(r->postings[0].method, MATCH_PATCH_ID);
	assert_int_equal(r->postings[1].method, MATCH_PATCH_ID);
	assert_int_equal(r->nversions, 2);
	assert_false(r->versions[0].resend);
	assert_true(r->versions[1].resend);
	assert_string_equal(version_id(fx, r, 1), "20240117.dave-2@example.net");
	assert_string_equal(r->versions[1].changes, "same changes");
	assert_int_equal(r->link, MATCH_LINK_NONE);
	match_result_free(r);
}

static void test_patch_id_reads_a_base64_attachment(void **state)
{
	struct fixture *fx = *state;
	struct match_result *r = match_commit(fx->idx, fx->facts[D]);

	assert_int_equal(r->npostings, 1);
	assert_int_equal(r->postings[0].method, MATCH_PATCH_ID);
	assert_string_equal(posting_id(fx, r, 0), "87jzmultipart.fsf@example.com");
	match_result_free(r);
}

static void test_subject_and_author_find_an_edited_patch(void **state)
{
	struct fixture *fx = *state;
	struct match_result *r = match_commit(fx->idx, fx->facts[E]);

	assert_int_equal(r->npostings, 1);
	assert_int_equal(r->postings[0].method, MATCH_SUBJECT);
	assert_string_equal(posting_id(fx, r, 0), "20240112.dave-3@example.net");
	assert_true(r->postings[0].confidence > 0.6 && r->postings[0].confidence < 0.9);
	assert_string_equal(r->applied_changes, "3 lines differ in arch/x86/kernel/fpu/core.c");
	match_result_free(r);
}

static void test_fuzzy_finds_a_reworded_and_edited_patch(void **state)
{
	struct fixture *fx = *state;
	struct match_result *r = match_commit(fx->idx, fx->facts[F]);

	assert_int_equal(r->npostings, 1);
	assert_int_equal(r->postings[0].method, MATCH_FUZZY);
	assert_string_equal(posting_id(fx, r, 0), "20240113.dave-4@example.net");
	assert_true(r->postings[0].confidence >= 0.8 * MATCH_FUZZY_THRESHOLD);
	match_result_free(r);
}

static void test_the_seed_is_found_by_its_link(void **state)
{
	struct fixture *fx = *state;
	struct match_result *r = match_commit(fx->idx, fx->facts[G]);

	assert_int_equal(r->postings[0].method, MATCH_MESSAGE_ID);
	assert_string_equal(posting_id(fx, r, 0),
			    "1302106003-366952-1-git-send-email-hans.rosenfeld@amd.com");
	assert_int_equal(r->nversions, 1);
	assert_int_equal(r->link, MATCH_LINK_FINAL);
	assert_string_equal(r->applied_changes, "same changes");
	match_result_free(r);
}

static void test_a_commit_with_no_posting(void **state)
{
	struct fixture *fx = *state;
	struct match_result *r = match_commit(fx->idx, fx->facts[BASE]);

	assert_int_equal(r->npostings, 0);
	assert_int_equal(r->nversions, 0);
	assert_null(r->applied_changes);
	assert_int_equal(r->link, MATCH_LINK_NONE);
	match_result_free(r);
}

static void test_a_link_outside_the_archive(void **state)
{
	struct fixture *fx = *state;
	struct commit_facts f = *fx->facts[BASE];
	struct match_result *r;

	f.trailers = trailers_parse("x\n\nLink: https://lore.kernel.org/r/nowhere@example.org\n");
	r = match_commit(fx->idx, &f);
	assert_int_equal(r->link, MATCH_LINK_UNKNOWN);
	match_result_free(r);
	trailers_free(f.trailers);
}

static void test_a_cover_letter_link_finds_the_patch(void **state)
{
	struct fixture *fx = *state;
	struct commit_facts f = *fx->facts[A];
	struct match_result *r;

	f.trailers = trailers_parse("x\n\nLink: https://lore.kernel.org/all/"
				    "20240115100000.3000-0-ada@example.org/\n");
	r = match_commit(fx->idx, &f);
	assert_int_equal(r->npostings, 2);
	assert_int_equal(r->postings[0].method, MATCH_MESSAGE_ID);
	assert_int_equal(r->postings[1].method, MATCH_COVER_LETTER);
	assert_string_equal(posting_id(fx, r, 1), "20240115100000.3000-1-ada@example.org");
	assert_int_equal(r->nversions, 3);
	assert_int_equal(r->link, MATCH_LINK_FINAL);
	match_result_free(r);
	trailers_free(f.trailers);
}

static void test_index_lists_tags_and_patch_ids(void **state)
{
	struct fixture *fx = *state;
	size_t v2 = mail_index(&fx->archive, "20240108100000.2000-1-ada@example.org");
	size_t cover = mail_index(&fx->archive, "20240108100000.2000-0-ada@example.org");

	assert_int_equal(match_mail_subject(fx->idx, v2)->version, 2);
	assert_int_equal(match_mail_subject(fx->idx, v2)->index, 1);
	assert_false(git_oid_is_zero(match_mail_patch_id(fx->idx, v2)));
	assert_true(git_oid_is_zero(match_mail_patch_id(fx->idx, cover)));
	assert_string_equal(match_method_name(MATCH_FUZZY), "fuzzy");
	assert_string_equal(match_link_name(MATCH_LINK_EARLIER), "earlier-version");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_to_the_final_version_misses_the_reviews),
		cmocka_unit_test(test_link_to_an_earlier_version),
		cmocka_unit_test(test_patch_id_finds_a_resend),
		cmocka_unit_test(test_patch_id_reads_a_base64_attachment),
		cmocka_unit_test(test_subject_and_author_find_an_edited_patch),
		cmocka_unit_test(test_fuzzy_finds_a_reworded_and_edited_patch),
		cmocka_unit_test(test_the_seed_is_found_by_its_link),
		cmocka_unit_test(test_a_commit_with_no_posting),
		cmocka_unit_test(test_a_link_outside_the_archive),
		cmocka_unit_test(test_a_cover_letter_link_finds_the_patch),
		cmocka_unit_test(test_index_lists_tags_and_patch_ids),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
