#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cmd/cmd.h"
#include "provenance/provenance.h"
#include "lib/error.h"
#include "test_json.h"
#include "test_provenance_repo.h"

#define SEED_ID "1302106003-366952-1-git-send-email-hans.rosenfeld@amd.com"

struct fixture {
	char *dir;
	git_repository *repo;
	git_oid commits[NCOMMITS];
	char hex[NCOMMITS][GIT_OID_HEXSZ + 1];
	char *json;
	char *out;
	char *err;
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
	fx->json = xasprintf("%s/report.json", fx->dir);
	fx->out = xasprintf("%s/stdout", fx->dir);
	fx->err = xasprintf("%s/stderr", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	git_repository_free(fx->repo);
	test_rmtree(fx->dir);
	free(fx->dir);
	free(fx->json);
	free(fx->out);
	free(fx->err);
	free(fx);
	git_libgit2_shutdown();
	return 0;
}

/* Runs the command line with stdout in fx->out and stderr in fx->err; returns the exit status. */
static int run(struct fixture *fx, const char *const *args)
{
	char *argv[40] = { "fpubench" };
	int argc = 1, saved, saved_err, fd, status;

	while (args[argc - 1]) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	saved = dup(1);
	saved_err = dup(2);
	fd = open(fx->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	close(fd);
	fd = open(fx->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
	status = cmd_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, 1);
	close(saved);
	dup2(saved_err, 2);
	close(saved_err);
	return status;
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(file_read(path, &sb), 0);
	return strbuf_detach(&sb);
}

#define ARCHIVES "--archive", FIXTURES "series.mbox", "--archive", FIXTURES "resend.mbox", \
	"--archive", FIXTURES "multipart-crlf.mbox", "--archive", FIXTURES "maintainer-edit.mbox", \
	"--archive", FIXTURES "seed.mbox"

static void test_the_seed_commit_without_an_archive(void **state)
{
	struct fixture *fx = *state;
	const char *args[] = { "provenance", "--repo", fx->dir, "--json", fx->json, fx->hex[G], NULL };

	assert_int_equal(run(fx, args), 0);
	char *out = slurp(fx->out), *json = slurp(fx->json);
	assert_non_null(strstr(out, "-> https://lore.kernel.org/r/" SEED_ID "\n"));
	assert_non_null(strstr(out, "introduced by 58a992b9cbaf (\"x86-32, fpu: Rewrite fpu_save_init()\")"));
	assert_non_null(strstr(out, "Patch-id:      b36bcaa6f6a00ea722b7b6043511f6fac8bdd5b3"));
	struct json_object *doc = test_json_parse(json);
	test_json_expect(doc, "/0/links", "[\"http://lkml.kernel.org/r/" SEED_ID "\"]");
	test_json_expect(doc, "/0/message_ids", "[\"" SEED_ID "\"]");
	test_json_expect(doc, "/0/lore_urls", "[\"https://lore.kernel.org/r/" SEED_ID "\"]");
	test_json_expect(doc, "/0/patch_id", "\"b36bcaa6f6a00ea722b7b6043511f6fac8bdd5b3\"");
	test_json_expect(doc, "/0/history/0/kind", "\"introduced-by\"");
	test_json_expect(doc, "/0/postings", "[]");
	json_object_put(doc);
	free(out);
	free(json);
}

static void test_the_chain_with_the_fixtures_as_archives(void **state)
{
	struct fixture *fx = *state;
	const char *args[] = { "provenance", "--repo", fx->dir, ARCHIVES, "--json", fx->json,
			       fx->hex[A], NULL };

	assert_int_equal(run(fx, args), 0);
	char *out = slurp(fx->out), *json = slurp(fx->json);
	assert_non_null(strstr(out, "Versions:      v1 2024-01-01, 3 replies: "
				    "https://lore.kernel.org/r/20240101100000.1000-1-ada@example.org\n"));
	assert_non_null(strstr(out, "  since v1: 5 lines differ in arch/x86/kernel/fpu/core.c\n"));
	assert_non_null(strstr(out, "names the final version (v3); 2 earlier versions with review "
				    "discussion are not reachable from it: v1 (3 replies), v2 (1 reply)"));
	struct json_object *doc = test_json_parse(json);
	test_json_expect(doc, "/0/postings/0/method", "\"message-id\"");
	test_json_expect(doc, "/0/postings/0/confidence", "1.0");
	/* A confidence keeps its two digits. */
	assert_non_null(strstr(json, "\"confidence\": 1.00"));
	test_json_expect(doc, "/0/link_quality", "{\"link\": \"final\", \"unreached_reviewed_versions\": 2}");
	test_json_expect(doc, "/0/versions/1/review_tags",
			 "[\"Reviewed-by: Bob Reviewer <bob@example.org>\"]");
	json_object_put(doc);
	free(out);
	free(json);
}

static size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* The report's commits, in its order, are the JSON array want. */
static void expect_commits(struct json_object *doc, const char *want)
{
	struct json_object *commits = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(doc); i++) {
		struct json_object *commit = json_object_object_get(json_object_array_get_idx(doc, i),
								    "commit");
		json_object_array_add(commits, json_object_get(commit));
	}
	test_json_expect(commits, "", want);
	json_object_put(commits);
}

static void test_ranges_and_repeats(void **state)
{
	struct fixture *fx = *state;
	const char *range[] = { "provenance", "--repo", fx->dir, "--json", fx->json, "HEAD~3..HEAD",
				"HEAD", NULL };
	const char *symmetric[] = { "provenance", "--repo", fx->dir, "--json", fx->json,
				    "HEAD...HEAD~2", NULL };

	assert_int_equal(run(fx, range), 0);
	char *json = slurp(fx->json), *want;
	struct json_object *doc = test_json_parse(json);
	/* Newest first, as git log lists them, and HEAD once. */
	want = xasprintf("[\"%s\", \"%s\", \"%s\"]", fx->hex[G], fx->hex[F], fx->hex[E]);
	expect_commits(doc, want);
	free(want);
	json_object_put(doc);
	free(json);
	assert_int_equal(run(fx, symmetric), 0);
	json = slurp(fx->json);
	doc = test_json_parse(json);
	want = xasprintf("[\"%s\", \"%s\"]", fx->hex[G], fx->hex[F]);
	expect_commits(doc, want);
	free(want);
	json_object_put(doc);
	free(json);
}

static void test_list(void **state)
{
	struct fixture *fx = *state;
	const char *args[] = { "provenance", ARCHIVES, "--list", "--json", fx->json, NULL };

	assert_int_equal(run(fx, args), 0);
	char *json = slurp(fx->json), *out = slurp(fx->out);
	struct json_object *doc = test_json_parse(json), *v2 = NULL;
	/* Every message once, with its id. */
	assert_int_equal(json_object_array_length(doc), 19);
	for (size_t i = 0; i < 19; i++) {
		struct json_object *m = json_object_array_get_idx(doc, i), *id;

		assert_true(json_object_object_get_ex(m, "message_id", &id));
		if (id && strcmp(json_object_get_string(id), "20240108100000.2000-1-ada@example.org") == 0)
			v2 = m;
	}
	assert_non_null(v2);
	test_json_expect(v2, "/subject", "\"[PATCH v2 1/2] x86/fpu: Use FNSAVE for the legacy save path\"");
	test_json_expect(v2, "/normalized_subject", "\"x86/fpu: Use FNSAVE for the legacy save path\"");
	test_json_expect(v2, "/version", "2");
	test_json_expect(v2, "/index", "1");
	test_json_expect(v2, "/total", "2");
	test_json_expect(v2, "/in_reply_to", "\"20240108100000.2000-0-ada@example.org\"");
	test_json_expect(v2, "/has_patch", "true");
	test_json_expect(v2, "/patch_id", "\"0e27277f46758d72c7b4b74bebc3a26bdbd896fc\"");
	json_object_put(doc);
	assert_int_equal(count(out, "\n"), 19);
	free(json);
	free(out);
}

static void test_usage_and_input_errors(void **state)
{
	struct fixture *fx = *state;
	const char *no_rev[] = { "provenance", "--repo", fx->dir, NULL };
	const char *list_no_archive[] = { "provenance", "--list", NULL };
	const char *list_and_rev[] = { "provenance", "--list", ARCHIVES, "HEAD", NULL };
	const char *bad_option[] = { "provenance", "--frobnicate", NULL };
	const char *bad_rev[] = { "provenance", "--repo", fx->dir, "no-such-branch", NULL };
	const char *no_repo[] = { "provenance", "--repo", "/nonexistent/repo", "HEAD", NULL };
	const char *no_archive[] = { "provenance", "--repo", fx->dir, "--archive",
				     FIXTURES "absent.mbox", "HEAD", NULL };
	char *text = xasprintf("%s/notes.txt", fx->dir);
	const char *not_mail[] = { "provenance", "--repo", fx->dir, "--archive", text, "HEAD", NULL };
	char *holds_no_mail = xasprintf("archive '%s' holds no mail", text);

	assert_int_equal(file_write_atomic(text, "not a mail, just notes\n", 23), 0);
	assert_int_equal(run(fx, no_rev), EXIT_USAGE);
	assert_int_equal(run(fx, list_no_archive), EXIT_USAGE);
	assert_int_equal(run(fx, list_and_rev), EXIT_USAGE);
	assert_int_equal(run(fx, bad_option), EXIT_USAGE);
	assert_int_equal(run(fx, bad_rev), EXIT_USAGE);
	assert_non_null(strstr(error_last(), "unknown revision 'no-such-branch'"));
	assert_int_equal(run(fx, no_repo), EXIT_INPUT);
	assert_non_null(strstr(error_last(), "cannot open repository '/nonexistent/repo'"));
	assert_int_equal(run(fx, no_archive), EXIT_INPUT);
	assert_non_null(strstr(error_last(), "cannot read archive '" FIXTURES "absent.mbox'"));
	/* A file that is not mail, named as given. */
	assert_int_equal(run(fx, not_mail), EXIT_INPUT);
	assert_non_null(strstr(error_last(), holds_no_mail));
	free(holds_no_mail);
	free(text);
}

/* The whole text is one JSON document, a newline at most after it; returns it. */
static struct json_object *parse_alone(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc = json_tokener_parse_ex(tok, text, (int)strlen(text));
	size_t end = json_tokener_get_parse_end(tok);

	if (json_tokener_get_error(tok) != json_tokener_success || !doc)
		fail_msg("not JSON: %s", text);
	if (strspn(text + end, "\n") != strlen(text + end))
		fail_msg("more than the JSON: %s", text + end);
	json_tokener_free(tok);
	return doc;
}

static void test_json_to_stdout_alone(void **state)
{
	struct fixture *fx = *state;
	const char *report[] = { "provenance", "--repo", fx->dir, ARCHIVES, "--json", "-",
				 fx->hex[A], fx->hex[G], NULL };
	const char *list[] = { "provenance", ARCHIVES, "--list", "--json", "-", NULL };

	assert_int_equal(run(fx, report), 0);
	char *out = slurp(fx->out);
	struct json_object *doc = parse_alone(out);
	test_json_expect(doc, "/0/link_quality/link", "\"final\"");
	test_json_expect(doc, "/1/patch_id", "\"b36bcaa6f6a00ea722b7b6043511f6fac8bdd5b3\"");
	assert_int_equal(json_object_array_length(doc), 2);
	json_object_put(doc);
	free(out);
	assert_int_equal(run(fx, list), 0);
	out = slurp(fx->out);
	doc = parse_alone(out);
	assert_int_equal(json_object_array_length(doc), 19);
	json_object_put(doc);
	free(out);
}

/* Messages that are not mail are counted on stderr, whatever goes to stdout. */
static void test_skipped_messages(void **state)
{
	struct fixture *fx = *state;
	char *mbox = xasprintf("%s/junk.mbox", fx->dir);
	static const char text[] =
		"From a@x Mon Jan  1 00:00:00 2024\n"
		"From: a@x\nMessage-ID: <1@x>\nSubject: [PATCH] one\n\nfirst\n"
		"\n"
		"From junk Mon Jan  1 00:00:00 2024\n"
		"this is not a mail\n";
	const char *list[] = { "provenance", "--archive", mbox, "--list", NULL };
	const char *list_json[] = { "provenance", "--archive", mbox, "--list", "--json", "-", NULL };

	assert_int_equal(file_write_atomic(mbox, text, sizeof(text) - 1), 0);
	assert_int_equal(run(fx, list), 0);
	char *out = slurp(fx->out), *err = slurp(fx->err);
	assert_string_equal(out, "? v1 [PATCH] one <1@x>\n");
	assert_string_equal(err, "fpubench: skipped 1 messages that are not mail\n");
	free(out);
	free(err);
	assert_int_equal(run(fx, list_json), 0);
	out = slurp(fx->out);
	err = slurp(fx->err);
	struct json_object *doc = parse_alone(out);
	test_json_expect(doc, "/0/message_id", "\"1@x\"");
	assert_string_equal(err, "fpubench: skipped 1 messages that are not mail\n");
	json_object_put(doc);
	free(out);
	free(err);
	free(mbox);
}

/* A --json path that cannot be written is refused before the archives or the repository are read. */
static void test_json_path_checked_first(void **state)
{
	struct fixture *fx = *state;
	const char *bad_json[] = { "provenance", "--repo", fx->dir, "--json", "/nonexistent/x.json",
				   fx->hex[G], NULL };
	const char *bad_json_and_archive[] = { "provenance", "--repo", "/nonexistent/repo",
					       "--archive", FIXTURES "absent.mbox", "--json",
					       "/nonexistent/x.json", "HEAD", NULL };
	const char *bad_json_no_rev[] = { "provenance", "--repo", fx->dir, "--json",
					  "/nonexistent/x.json", NULL };

	assert_int_equal(run(fx, bad_json), EXIT_INPUT);
	assert_non_null(strstr(error_last(), "cannot write --json '/nonexistent/x.json'"));
	char *out = slurp(fx->out);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(run(fx, bad_json_and_archive), EXIT_INPUT);
	assert_non_null(strstr(error_last(), "'/nonexistent/x.json'"));
	/* A usage error is still a usage error. */
	assert_int_equal(run(fx, bad_json_no_rev), EXIT_USAGE);
}

static void test_commit_json_for_a_results_cell(void **state)
{
	struct fixture *fx = *state;
	struct strbuf sb = STRBUF_INIT;
	git_oid unknown;

	assert_int_equal(provenance_commit_json(fx->repo, &fx->commits[G], &sb), 0);
	assert_true(sb.buf[0] == '{' && sb.buf[sb.len - 1] == '}');
	/* One line, as history.db keeps it. */
	assert_null(strchr(sb.buf, '\n'));
	struct json_object *doc = test_json_parse(sb.buf);
	test_json_expect(doc, "/lore_urls", "[\"https://lore.kernel.org/r/" SEED_ID "\"]");
	test_json_expect(doc, "/patch_id", "\"b36bcaa6f6a00ea722b7b6043511f6fac8bdd5b3\"");
	assert_null(strstr(sb.buf, "postings"));
	json_object_put(doc);
	assert_int_equal(git_oid_fromstr(&unknown, "0123456789012345678901234567890123456789"), 0);
	assert_int_equal(provenance_commit_json(fx->repo, &unknown, &sb), ERR_NOTFOUND);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_seed_commit_without_an_archive),
		cmocka_unit_test(test_the_chain_with_the_fixtures_as_archives),
		cmocka_unit_test(test_ranges_and_repeats),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_usage_and_input_errors),
		cmocka_unit_test(test_commit_json_for_a_results_cell),
		cmocka_unit_test(test_json_to_stdout_alone),
		cmocka_unit_test(test_json_path_checked_first),
		cmocka_unit_test(test_skipped_messages),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
