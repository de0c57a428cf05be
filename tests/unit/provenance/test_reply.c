#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/error.h"
#include "provenance/provenance.h"
#include "test_provenance_repo.h"

/*
 * tests/fixtures/provenance/regression-thread.mbox was written by
 * scripts/make-history.sh (git format-patch) from a file like this one:
 * v1 with a comment more, a review of v1, and v2 with the commit's diff.
 */
static const char before[] = "a\n\tasm volatile(\"fnsave %[fp]; fwait\" : [fp] \"=m\" (fpu));\nb\n";
static const char after[] = "a\n\tasm volatile(\"fsave %[fp]; fwait\" : [fp] \"=m\" (fpu));\nb\n";
static const char after_v1[] = "/* v1: the waiting save */\n"
			       "a\n\tasm volatile(\"fsave %[fp]; fwait\" : [fp] \"=m\" (fpu));\nb\n";
static const char message[] =
	"x86/fpu: Save the legacy x87 state with the waiting fsave\n\n"
	"fsave and fnsave store the same image; the waiting form orders the\n"
	"store after the x87 instructions still in flight.\n\n"
	"Signed-off-by: Zoë Ünal <zoe.unal@example.org>\n"
	"Reviewed-by: Bob Reviewer <bob@example.org>\n"
	"Acked-by: \"Maintainer, Carol\" <carol@example.org>\n"
	"Signed-off-by: Dave Committer <dave@example.org>\n";
static const char *const archive[] = { "tests/fixtures/provenance/regression-thread.mbox" };

struct repo {
	char *dir;
	git_repository *r;
	git_oid base;
};

static void repo_new(struct repo *t)
{
	struct test_file f[] = { { "arch/x86/kernel/fpu/core.c", before, 0, 0 } };

	t->r = test_repo_new(&t->dir);
	t->base = test_commit(t->r, NULL, f, 1, "base\n", "a", "a@x", 1700000000);
}

static void repo_free(struct repo *t)
{
	git_repository_free(t->r);
	test_rmtree(t->dir);
	free(t->dir);
}

static git_oid commit(struct repo *t, const char *content, const char *msg)
{
	struct test_file f[] = { { "arch/x86/kernel/fpu/core.c", content, 0, 0 } };

	return test_commit(t->r, &t->base, f, 1, msg, "Zoë Ünal", "zoe.unal@example.org",
			   1700000100);
}

static void test_replies_to_the_version_with_the_commits_patch_id(void **state)
{
	struct repo t;
	struct provenance_reply r;

	(void)state;
	repo_new(&t);
	git_oid id = commit(&t, after, message);
	assert_int_equal(provenance_reply_find(&r, t.r, &id, archive, 1), 0);
	assert_string_equal(r.message_id, "20231114000000.2-1-zoe.unal@example.org");
	assert_string_equal(r.subject,
			    "[PATCH v2] x86/fpu: Save the legacy x87 state with the waiting fsave");
	assert_string_equal(r.author, "Zoë Ünal <zoe.unal@example.org>");
	assert_int_equal(r.people.n, 4);
	assert_string_equal(r.people.v[2], "\"Maintainer, Carol\" <carol@example.org>");
	assert_int_equal(r.references.n, 1);
	assert_string_equal(r.references.v[0], "20231113000000.1-1-zoe.unal@example.org");
	assert_int_equal(r.recipients.n, 4);
	assert_non_null(strstr(r.found_by, "v2, the last of 2 versions"));
	assert_non_null(strstr(r.found_by, "patch-id"));
	provenance_reply_release(&r);

	/* The commit as v1 was: v1, though v2 is newer. */
	id = commit(&t, after_v1, message);
	assert_int_equal(provenance_reply_find(&r, t.r, &id, archive, 1), 0);
	assert_string_equal(r.message_id, "20231113000000.1-1-zoe.unal@example.org");
	assert_non_null(strstr(r.found_by, "whose patch-id is the commit's"));
	provenance_reply_release(&r);
	repo_free(&t);
}

static void test_a_link_outside_the_archives_and_no_posting(void **state)
{
	struct repo t;
	struct provenance_reply r;

	(void)state;
	repo_new(&t);
	git_oid id = commit(&t, "x\n", "x86: something\n\nLink: https://lore.kernel.org/r/abc@x.org\n"
			    "Signed-off-by: Zoë Ünal <zoe.unal@example.org>\n");
	assert_int_equal(provenance_reply_find(&r, t.r, &id, archive, 1), 0);
	assert_string_equal(r.message_id, "abc@x.org");
	assert_string_equal(r.subject, "x86: something");
	assert_int_equal(r.recipients.n, 0);
	provenance_reply_release(&r);

	id = commit(&t, "y\n", "x86: nothing known\n");
	assert_int_equal(provenance_reply_find(&r, t.r, &id, NULL, 0), 0);
	assert_null(r.message_id);
	assert_null(r.found_by);
	assert_string_equal(r.summary, "x86: nothing known");
	assert_int_equal(r.people.n, 0);
	provenance_reply_release(&r);

	assert_int_equal(provenance_reply_find(&r, t.r, &id, (const char *const[]){ "/nonexistent" }, 1),
			 ERR_NOTFOUND);
	assert_null(r.summary);
	repo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replies_to_the_version_with_the_commits_patch_id),
		cmocka_unit_test(test_a_link_outside_the_archives_and_no_posting),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
