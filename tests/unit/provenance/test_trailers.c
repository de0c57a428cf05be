#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_provenance_repo.h"
#include "provenance/trailers.h"
#include "lib/array.h"

/* Messages where git's trailer rules are easy to get wrong. */
static const char *const edge_messages[] = {
	"subj\n\nbody\n---\nmore\n\nLink: https://a/1\n",
	"subj\n\nbody\n\nLink: https://a/2\n\tcontinued-tab\nLink: https://a/3\n  cont-space\n",
	"subj\n\nbody\n\nLink:\nFoo: bar\nLink: https://a/4   \n",
	"subj\n\nbody\n\nLink: https://a/5\r\nSigned-off-by: x <y>\r\n",
	"subj\n\nbody\n\nlink: https://a/6\nLink : https://a/7\nLINK:https://a/8\n",
	"subj\nLink: https://a/9\n",
	"subj\n\nLink: https://a/10\nnot a trailer\nSigned-off-by: x <y>\n",
	"subj\n\nLink: https://a/11\n---\nLink: https://a/12\n",
	"subj\n\nLink: https://a/13\nnot one\nnot two\nnot three\nSigned-off-by: x <y>\n",
	"subj\n\nLink: https://a/14\nnot one\nnot two\nnot three\nnot four\nSigned-off-by: x <y>\n",
	"subj\n\nLink: https://a/15\n# a comment\nAcked-by: z\n\n# trailing comment\n",
	"subj\n\nLink: https://a/16\n(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)\n",
	"subj\n\nbody\n\nLink: https://a/17\n\n\n\n",
	"subj\n\nLink: https://a/18\nConflicts:\n\tfile.c\n",
	"subj\n\n Link: https://a/19\n",
	"subj\n\nLinks: https://a/20\nLink-X: https://a/21\n",
	"subj\n\nbody\n\nLink: https://a/22\n# ------------------------ >8 ------------------------\nLink: cut\n",
	"Link: https://a/23\n",
	"subj\n\nReviewed-by: r\nLink: https://a/24\nLink: https://a/25\n",
};

static char *our_links(const char *message)
{
	struct trailers *t = trailers_parse(message);
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < t->nlinks; i++) {
		strbuf_addstr(&sb, t->links[i].value);
		strbuf_addch(&sb, '\n');
	}
	trailers_free(t);
	return strbuf_detach(&sb);
}

static void test_link_values_equal_git_log(void **state)
{
	const size_t n = ARRAY_SIZE(edge_messages);
	git_oid ids[ARRAY_SIZE(edge_messages)];
	char hex[GIT_OID_HEXSZ + 1], *dir;
	git_repository *repo = test_repo_new(&dir);
	size_t seen = 0;

	(void)state;
	for (size_t i = 0; i < n; i++)
		ids[i] = test_commit(repo, i ? &ids[i - 1] : NULL, NULL, 0, edge_messages[i], "a",
				     "a@x", 1700000000 + (git_time_t)i);
	const char *argv[] = { "git", "log", "--format=%H%x02%(trailers:key=Link,valueonly)%x01",
			       NULL };
	char *out = test_run_git(dir, argv, NULL);
	/* One "<sha>\x02<values>\x01\n" per commit. */
	for (char *p = out; *p; seen++) {
		char *sep = strchr(p, '\x02'), *end = sep ? strchr(sep, '\x01') : NULL;
		assert_non_null(end);
		*sep = *end = '\0';
		for (size_t i = 0; i < n; i++) {
			if (strcmp(git_oid_tostr(hex, sizeof(hex), &ids[i]), p) != 0)
				continue;
			char *ours = our_links(edge_messages[i]);
			if (strcmp(ours, sep + 1) != 0)
				fail_msg("message %zu: git says '%s', we say '%s'", i, sep + 1, ours);
			free(ours);
		}
		p = end + 1 + (end[1] == '\n');
	}
	assert_int_equal(seen, n);
	free(out);
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}

/* Why trailers.c does not use git_message_trailers(): it is not git. */
static void test_libgit2_trailers_differ_from_git(void **state)
{
	git_message_trailer_array arr;

	(void)state;
	/* git ignores "---" in a commit message; libgit2 stops there and finds nothing. */
	assert_int_equal(git_message_trailers(&arr, edge_messages[0]), 0);
	assert_int_equal(arr.count, 0);
	git_message_trailer_array_free(&arr);
	char *ours = our_links(edge_messages[0]);
	assert_string_equal(ours, "https://a/1\n");
	free(ours);
	/* git joins a tab-indented continuation line; libgit2 only a space-indented one. */
	assert_int_equal(git_message_trailers(&arr, edge_messages[1]), 0);
	assert_string_equal(arr.trailers[0].value, "https://a/2");
	git_message_trailer_array_free(&arr);
	ours = our_links(edge_messages[1]);
	assert_string_equal(ours, "https://a/2\n\tcontinued-tab\nhttps://a/3\n  cont-space\n");
	free(ours);
}

static void test_known_trailers_are_sorted_out(void **state)
{
	struct trailers *t = trailers_parse(
		"x86/fpu: Fix the legacy save\n\nBody.\n\n"
		"Fixes: 58a992b9cbaf (\"x86-32, fpu: Rewrite fpu_save_init()\")\n"
		"Reported-by: Someone <s@example.org>\n"
		"Closes: https://lore.kernel.org/r/report@example.org/\n"
		"Change-Id: I6a007dfe91ee1077a437963cf26d91370fdd9556\n"
		"Signed-off-by: Ada <ada@example.org>\n"
		"Message-Id: <20240101.1@example.org>\n"
		"Link: https://lore.kernel.org/r/20240101.1@example.org\n"
		"Link: https://bugzilla.kernel.org/show_bug.cgi?id=1\n"
		"Link: https://patch.msgid.link/20240102.2@example.org\n"
		"Signed-off-by: Maintainer <m@kernel.org>\n");

	(void)state;
	assert_int_equal(t->nitems, 10);
	assert_string_equal(t->items[5].key, "Message-Id");
	assert_int_equal(t->nlinks, 3);
	assert_int_equal(t->links[1].kind, LINK_BUGZILLA);
	assert_int_equal(t->message_ids.n, 2);
	assert_string_equal(t->message_ids.v[0], "20240101.1@example.org");
	assert_string_equal(t->message_ids.v[1], "20240102.2@example.org");
	assert_int_equal(t->nfixes, 1);
	assert_string_equal(t->fixes[0].sha, "58a992b9cbaf");
	assert_string_equal(t->fixes[0].subject, "x86-32, fpu: Rewrite fpu_save_init()");
	assert_int_equal(t->closes.n, 1);
	assert_string_equal(t->reported_by.v[0], "Someone <s@example.org>");
	assert_string_equal(t->change_ids.v[0], "I6a007dfe91ee1077a437963cf26d91370fdd9556");
	assert_int_equal(t->signed_off_by.n, 2);
	assert_string_equal(t->signed_off_by.v[1], "Maintainer <m@kernel.org>");
	/* The Fixes: sha is not a history reference a second time. */
	assert_int_equal(t->nhistory, 0);
	trailers_free(t);
}

static void test_the_seed_names_the_commit_that_broke_it(void **state)
{
	struct trailers *t = trailers_parse(
		"x86-32, fpu: Fix FPU exception handling on non-SSE systems\n\n"
		"This usually continues in slight variations until the system is reset.\n\n"
		"This bug was introduced by commit 58a992b9cbaf449aeebd3575c3695a9eb5d95b5e:\n"
		"\tx86-32, fpu: Rewrite fpu_save_init()\n\n"
		"Link: http://lkml.kernel.org/r/1302106003-366952-1-git-send-email-hans.rosenfeld@amd.com\n");

	(void)state;
	assert_int_equal(t->nhistory, 1);
	assert_int_equal(t->history[0].kind, TRAILERS_REF_INTRODUCED_BY);
	assert_string_equal(t->history[0].sha, "58a992b9cbaf449aeebd3575c3695a9eb5d95b5e");
	assert_string_equal(t->history[0].subject, "x86-32, fpu: Rewrite fpu_save_init()");
	assert_string_equal(t->message_ids.v[0],
			    "1302106003-366952-1-git-send-email-hans.rosenfeld@amd.com");
	assert_string_equal(trailers_ref_kind_name(t->history[0].kind), "introduced-by");
	trailers_free(t);
}

static void test_history_in_the_body(void **state)
{
	struct trailers *t = trailers_parse(
		"x86/fpu: Backport\n\n"
		"commit 0123456789abcdef0123456789abcdef01234567 upstream.\n\n"
		"[ Upstream commit 1111111111222222222233333333334444444444 ]\n\n"
		"This reverts commit 2222222abc.\n"
		"Since commit 3333333333ab (\"x86: Do a thing\n  well\") the path is hot.\n"
		"The commit message says so, and commit defaced is no sha.\n"
		"A recommit 4444444444 is not a reference either.\n"
		"It puts back what 6666666666ab (\"x86: Undo\") took out; abcdef12 (\"short\") is too short.\n\n"
		"(cherry picked from commit 5555555555555555555555555555555555555555)\n"
		"Signed-off-by: S <s@x>\n");

	(void)state;
	assert_int_equal(t->nhistory, 6);
	assert_int_equal(t->history[0].kind, TRAILERS_REF_UPSTREAM);
	assert_string_equal(t->history[0].sha, "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(t->history[1].kind, TRAILERS_REF_UPSTREAM);
	assert_int_equal(t->history[2].kind, TRAILERS_REF_REVERT);
	assert_string_equal(t->history[2].sha, "2222222abc");
	assert_int_equal(t->history[3].kind, TRAILERS_REF_MENTION);
	assert_string_equal(t->history[3].subject, "x86: Do a thing well");
	assert_int_equal(t->history[4].kind, TRAILERS_REF_CHERRY_PICK);
	assert_null(t->history[4].subject);
	/* The bare "<sha> (\"subject\")" form comes from a second pass, after the others. */
	assert_int_equal(t->history[5].kind, TRAILERS_REF_MENTION);
	assert_string_equal(t->history[5].sha, "6666666666ab");
	assert_string_equal(t->history[5].subject, "x86: Undo");
	trailers_free(t);
}

static void test_no_trailers(void **state)
{
	struct trailers *t = trailers_parse("just a subject");

	(void)state;
	assert_int_equal(t->nitems, 0);
	assert_int_equal(t->nlinks, 0);
	assert_int_equal(t->message_ids.n, 0);
	trailers_free(t);
	trailers_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_values_equal_git_log),
		cmocka_unit_test(test_libgit2_trailers_differ_from_git),
		cmocka_unit_test(test_known_trailers_are_sorted_out),
		cmocka_unit_test(test_the_seed_names_the_commit_that_broke_it),
		cmocka_unit_test(test_history_in_the_body),
		cmocka_unit_test(test_no_trailers),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
