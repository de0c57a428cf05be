/*
 * Patch files applied as `git am -3` applies them, on the miniature tree
 * (test_tree_fixture.h): every patch of an mbox, a maildir and a b4 .mbx
 * as its own commit, its author, date and message as git mailinfo reads
 * them, a cover letter skipped, junk refused by name, a hunk
 * found at an offset, one placed by a three-way merge and one whose merge
 * conflicts, and how each was placed in the commit's note.  The fixtures are real `git
 * format-patch` output made by tests/fixtures/patches/series/make-fixtures.sh.
 */
#include "test_tree_fixture.h"

#include "build/apply.h"

#define SERIES "tests/fixtures/patches/series/unit/"

/* Applies a fixture on `parent`, quietly; returns what it said on stderr. */
static char *apply_quietly(struct fixture *fx, const git_oid *parent, const char *path,
			   git_oid *out, int want)
{
	struct capture cap;

	capture_start(&cap, fx);
	int err = apply_patch_file(fx->tree, parent, path, NULL, out);
	char *said = capture_end(&cap);
	if (err != want)
		fprintf(stderr, "apply_patch_file: %d %s\n", err, err ? error_last() : "");
	assert_int_equal(err, want);
	return said;
}

/* The placement of hunk i of the patches below commit: "exact", "offset -2", "three-way". */
static char *placed(struct fixture *fx, const git_oid *commit, size_t patch)
{
	struct json_object *list = apply_notes_json(fx->tree, commit), *p, *hunks, *h, *v;
	char *out;

	assert_non_null(list);
	assert_true(patch < json_object_array_length(list));
	p = json_object_array_get_idx(list, patch);
	assert_true(json_object_object_get_ex(p, "hunks", &hunks));
	assert_int_equal(json_object_array_length(hunks), 1);
	h = json_object_array_get_idx(hunks, 0);
	assert_true(json_object_object_get_ex(h, "placed", &v));
	if (json_object_object_get_ex(h, "offset", &hunks))
		out = xasprintf("%s %d", json_object_get_string(v), json_object_get_int(hunks));
	else
		out = xstrdup(json_object_get_string(v));
	json_object_put(list);
	return out;
}

/* The two commits of the series: subjects, authors, dates, the tree at the end. */
static void assert_series(struct fixture *fx, const git_oid *last)
{
	git_commit *c2, *c1;

	assert_int_equal(git_commit_lookup(&c2, fx->tree->repo, last), 0);
	assert_string_equal(git_commit_summary(c2), "x86/fpu: Save the legacy state with fsave");
	assert_string_equal(git_commit_author(c2)->email, "ada@example.org");
	assert_int_equal(git_commit_author(c2)->when.time, 1796295600);	/* 2026-12-03 12:00 +0100 */
	assert_int_equal(git_commit_author(c2)->when.offset, 60);
	assert_int_equal(git_commit_parent(&c1, c2, 0), 0);
	assert_string_equal(git_commit_summary(c1), "x86/fpu: Reword the comment on the legacy FPU save");
	assert_true(git_oid_equal(git_commit_parent_id(c1, 0), &fx->tree->base));
	git_commit_free(c1);
	git_commit_free(c2);

	char *text = blob_at(fx->tree->repo, last, CORE_C);
	assert_non_null(strstr(text, "so we reload them from memory."));
	assert_non_null(strstr(text, "asm volatile(\"fsave %[fp]; fwait\""));
	free(text);
}

static void test_mbox_of_two_is_two_commits(void **state)
{
	struct fixture *fx = *state;
	git_oid oid;
	char *said = apply_quietly(fx, &fx->tree->base, SERIES "two.mbx", &oid, 0);

	assert_series(fx, &oid);
	assert_non_null(strstr(said, "applied patch '" SERIES "two.mbx' (1/2 \"x86/fpu: Reword"));
	assert_non_null(strstr(said, "applied patch '" SERIES "two.mbx' (2/2 \"x86/fpu: Save"));
	char *p1 = placed(fx, &oid, 0), *p2 = placed(fx, &oid, 1);
	assert_string_equal(p1, "exact");
	assert_string_equal(p2, "exact");
	free(p1);
	free(p2);
	free(said);
}

static void test_maildir_gives_the_mbox_commits(void **state)
{
	struct fixture *fx = *state;
	git_oid from_mbox, from_maildir;

	free(apply_quietly(fx, &fx->tree->base, SERIES "two.mbx", &from_mbox, 0));
	free(apply_quietly(fx, &fx->tree->base, SERIES "maildir", &from_maildir, 0));
	assert_series(fx, &from_maildir);
	assert_true(git_oid_equal(&from_mbox, &from_maildir));
}

static void test_b4_mbx_skips_its_cover_letter(void **state)
{
	struct fixture *fx = *state;
	git_oid oid;
	git_commit *c;
	char *said = apply_quietly(fx, &fx->tree->base, SERIES "b4-cover.mbx", &oid, 0);

	assert_series(fx, &oid);
	/* Numbered as in the file: the cover letter is message 1. */
	assert_non_null(strstr(said, "(2/2 \"x86/fpu: Reword"));
	assert_null(strstr(said, "the legacy save, reworded and broken"));
	assert_int_equal(git_commit_lookup(&c, fx->tree->repo, &oid), 0);
	assert_non_null(strstr(git_commit_message(c),
			       "\nLink: https://lore.kernel.org/r/20261203-legacy-save-v1@example.org\n"));
	git_commit_free(c);
	free(said);
}

static void test_author_as_git_am_reads_it(void **state)
{
	struct fixture *fx = *state;
	git_oid oid;
	git_commit *c;

	/* The subject RFC 2047-encoded, the author in an in-body From: under the sender's. */
	free(apply_quietly(fx, &fx->tree->base, SERIES "sender.patch", &oid, 0));
	assert_int_equal(git_commit_lookup(&c, fx->tree->repo, &oid), 0);
	assert_string_equal(git_commit_author(c)->name, "Ren\xc3\xa9 Sch\xc3\xa4rfe");
	assert_string_equal(git_commit_author(c)->email, "rene@example.org");
	assert_string_equal(git_commit_message(c),
			    "x86/fpu: Reword the comment \xe2\x80\x94 s\xc3\xbc\xc3\x9f\n\n"
			    "Signed-off-by: Ren\xc3\xa9 Sch\xc3\xa4rfe <rene@example.org>\n");
	git_commit_free(c);

	/* The same mail quoted-printable, as a mail client sends it, is the same commit. */
	git_oid from_qp;
	free(apply_quietly(fx, &fx->tree->base, SERIES "qp.patch", &from_qp, 0));
	assert_true(git_oid_equal(&oid, &from_qp));
}

static void test_junk_is_refused_by_name(void **state)
{
	struct fixture *fx = *state;
	git_oid oid;

	free(apply_quietly(fx, &fx->tree->base, SERIES "junk.mbx", &oid, ERR_INPUT));
	assert_string_equal(error_last(),
			    "patch '" SERIES "junk.mbx' message 3 (\"Re: [PATCH 2/2] x86/fpu: Save the legacy state with fsave\") is neither a patch nor a cover letter");
	free(apply_quietly(fx, &fx->tree->base, SERIES "prose.mbx", &oid, ERR_INPUT));
	assert_string_equal(error_last(),
			    "patch '" SERIES "prose.mbx' holds text that is not a mail before its first message");
}

static void test_hunk_found_at_an_offset(void **state)
{
	struct fixture *fx = *state;
	git_oid oid;
	char *said = apply_quietly(fx, &fx->tree->base, SERIES "offset2.patch", &oid, 0);
	char *text = blob_at(fx->tree->repo, &oid, CORE_C), *how = placed(fx, &oid, 0);

	assert_non_null(strstr(text, "asm volatile(\"fsave %[fp]; fwait\""));
	assert_string_equal(how, "offset -2");
	assert_non_null(strstr(said, ": " CORE_C " hunk 1 at offset -2\n"));
	free(text);
	free(how);
	free(said);
}

static void test_hunk_placed_by_three_way_merge(void **state)
{
	struct fixture *fx = *state;
	git_oid reworded, oid;
	char *said;

	/* fsave.patch was made on the pristine file: its context no longer matches. */
	free(apply_quietly(fx, &fx->tree->base,
			   SERIES "maildir/new/0001-x86-fpu-Reword-the-comment-on-the-legacy-FPU-save.patch",
			   &reworded, 0));
	said = apply_quietly(fx, &reworded, SERIES "fsave.patch", &oid, 0);

	char *text = blob_at(fx->tree->repo, &oid, CORE_C), *how = placed(fx, &oid, 1);
	assert_non_null(strstr(text, "so we reload them from memory."));
	assert_non_null(strstr(text, "asm volatile(\"fsave %[fp]; fwait\""));
	assert_string_equal(how, "three-way");
	assert_non_null(strstr(said, CORE_C " hunk 1 by three-way merge"));
	free(text);
	free(how);
	free(said);
}

static void test_three_way_conflict_is_refused(void **state)
{
	struct fixture *fx = *state;
	git_oid reworded, oid;

	free(apply_quietly(fx, &fx->tree->base,
			   SERIES "maildir/new/0001-x86-fpu-Reword-the-comment-on-the-legacy-FPU-save.patch",
			   &reworded, 0));
	free(apply_quietly(fx, &reworded, SERIES "conflict.patch", &oid, ERR_APPLY));
	assert_string_equal(error_last(),
			    "cannot apply patch '" SERIES "conflict.patch' to '" CORE_C "': the hunk at line 127 does not apply at any offset, and its three-way merge has conflicts");
}

static void test_placement_survives_the_cache(void **state)
{
	struct fixture *fx = *state;
	git_oid first, again;

	free(apply_quietly(fx, &fx->tree->base, SERIES "offset2.patch", &first, 0));
	char *said = apply_quietly(fx, &fx->tree->base, SERIES "offset2.patch", &again, 0);
	assert_true(git_oid_equal(&first, &again));
	assert_non_null(strstr(said, "hunk 1 at offset -2"));
	free(said);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbox_of_two_is_two_commits),
		cmocka_unit_test(test_maildir_gives_the_mbox_commits),
		cmocka_unit_test(test_b4_mbx_skips_its_cover_letter),
		cmocka_unit_test(test_author_as_git_am_reads_it),
		cmocka_unit_test(test_junk_is_refused_by_name),
		cmocka_unit_test(test_hunk_found_at_an_offset),
		cmocka_unit_test(test_hunk_placed_by_three_way_merge),
		cmocka_unit_test(test_three_way_conflict_is_refused),
		cmocka_unit_test(test_placement_survives_the_cache),
	};
	int failed;

	git_libgit2_init();
	failed = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return failed;
}
