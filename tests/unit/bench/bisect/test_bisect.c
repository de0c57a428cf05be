/*
 * Bisection on small generated repositories: the midpoint against
 * `git rev-list --bisect`, skips, the confidence arithmetic, a log that
 * `git bisect replay` accepts, the check of the ends, the fix search and
 * the verification of a culprit (KernelCI's revert check).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bisect/bisect.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct repo {
	char dir[64];
	git_repository *git;
	git_oid commits[128];
	size_t n;
	int64_t clock;
};

static int setup(void **state)
{
	struct repo *r = calloc(1, sizeof(*r));

	strcpy(r->dir, "/tmp/fpubench-test-bisect.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	assert_int_equal(git_repository_init(&r->git, r->dir, 0), 0);
	r->clock = 1300000000;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct repo *r = *state;
	const char *rm[] = { "rm", "-rf", r->dir, NULL };

	git_repository_free(r->git);
	spawn_run(rm, NULL, NULL, NULL);
	free(r);
	return 0;
}

/* Adds commit number r->n with the given parents; distinct dates keep git's order defined. */
static size_t commit(struct repo *r, const size_t *parents, size_t nparents)
{
	git_treebuilder *tb;
	git_oid blob, tree;
	git_tree *t;
	git_signature *sig;
	const git_commit *ps[4];
	char text[32], subject[32];

	snprintf(text, sizeof(text), "%zu\n", r->n);
	snprintf(subject, sizeof(subject), "commit %zu\n", r->n);
	assert_int_equal(git_blob_create_from_buffer(&blob, r->git, text, strlen(text)), 0);
	assert_int_equal(git_treebuilder_new(&tb, r->git, NULL), 0);
	assert_int_equal(git_treebuilder_insert(NULL, tb, "f", &blob, GIT_FILEMODE_BLOB), 0);
	assert_int_equal(git_treebuilder_write(&tree, tb), 0);
	git_treebuilder_free(tb);
	assert_int_equal(git_tree_lookup(&t, r->git, &tree), 0);
	assert_int_equal(git_signature_new(&sig, "t", "t@t", r->clock++, 0), 0);
	for (size_t i = 0; i < nparents; i++)
		assert_int_equal(git_commit_lookup((git_commit **)&ps[i], r->git,
						   &r->commits[parents[i]]), 0);
	assert_int_equal(git_commit_create(&r->commits[r->n], r->git, NULL, sig, sig, NULL, subject,
					   t, nparents, ps), 0);
	for (size_t i = 0; i < nparents; i++)
		git_commit_free((git_commit *)ps[i]);
	git_signature_free(sig);
	git_tree_free(t);
	return r->n++;
}

static size_t linear(struct repo *r, size_t from, size_t count)
{
	size_t last = from;

	for (size_t i = 0; i < count; i++)
		last = commit(r, &last, 1);
	return last;
}

/* What `git rev-list --bisect bad ^good` picks. */
static void git_pick(struct repo *r, size_t good, size_t bad, git_oid *out)
{
	char bad_hex[GIT_OID_HEXSZ + 1], good_hex[GIT_OID_HEXSZ + 2];
	char *log = xasprintf("%s.out", r->dir), *gitdir = xasprintf("--git-dir=%s/.git", r->dir);
	struct strbuf text = STRBUF_INIT;

	git_oid_tostr(bad_hex, sizeof(bad_hex), &r->commits[bad]);
	good_hex[0] = '^';
	git_oid_tostr(good_hex + 1, sizeof(good_hex) - 1, &r->commits[good]);
	const char *argv[] = { "git", gitdir, "rev-list", "--bisect", bad_hex, good_hex, NULL };
	unlink(log);
	assert_int_equal(spawn_run(argv, NULL, log, NULL), 0);
	assert_int_equal(file_read(log, &text), 0);
	assert_true(text.len >= GIT_OID_HEXSZ);
	text.buf[GIT_OID_HEXSZ] = '\0';
	assert_int_equal(git_oid_fromstr(out, text.buf), 0);
	unlink(log);
	strbuf_release(&text);
	free(log);
	free(gitdir);
}

static void check_same_pick_as_git(struct repo *r, size_t good, size_t bad)
{
	git_oid *cands, ours, theirs;
	size_t n;

	assert_int_equal(bisect_candidates(r->git, &r->commits[bad], &r->commits[good], 1, &cands, &n), 0);
	assert_int_equal(bisect_choose(r->git, cands, n, NULL, 0, &ours), 1);
	git_pick(r, good, bad, &theirs);
	if (!git_oid_equal(&ours, &theirs))
		fail_msg("good %zu bad %zu: we pick %s, git picks %s", good, bad,
			 git_oid_tostr_s(&ours), git_oid_tostr_s(&theirs));
	free(cands);
}

static void test_midpoint_linear_matches_git(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), top = linear(r, root, 40);

	for (size_t good = 0; good < 6; good++)
		for (size_t bad = good + 2; bad <= top; bad += 3)
			check_same_pick_as_git(r, good, bad);
}

static void test_midpoint_with_merges_matches_git(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0);
	size_t a = linear(r, root, 5);
	size_t b = linear(r, root, 7);		/* a side branch from the root */
	size_t m1[] = { a, b };
	size_t merge1 = commit(r, m1, 2);
	size_t c = linear(r, merge1, 4);
	size_t d = linear(r, b, 3);		/* another branch from the side branch */
	size_t m2[] = { c, d };
	size_t merge2 = commit(r, m2, 2);
	size_t top = linear(r, merge2, 6);

	check_same_pick_as_git(r, root, top);
	check_same_pick_as_git(r, root, merge2);
	check_same_pick_as_git(r, a, top);
	check_same_pick_as_git(r, b, top);
	check_same_pick_as_git(r, root, merge1);
	check_same_pick_as_git(r, d, c);
}

/*
 * A fake tester: commits from `first_bad` on are bad (with `fix`, they are
 * the good ones and those before bad), those listed in `untestable` skip.
 */
struct fake {
	struct repo *r;
	size_t first_bad;
	bool fix;
	size_t untestable[8];
	size_t nuntestable;
	int calls;
};

static int fake_test(void *ctx, const git_oid *oid, struct bisect_step *step)
{
	struct fake *f = ctx;
	size_t i = 0;

	while (!git_oid_equal(&f->r->commits[i], oid))
		i++;
	f->calls++;
	step->runs = 1;
	step->verdict = (i >= f->first_bad) != f->fix ? BISECT_BAD : BISECT_GOOD;
	for (size_t k = 0; k < f->nuntestable; k++) {
		if (f->untestable[k] == i) {
			step->verdict = BISECT_SKIP;
			step->note = xstrdup("another bug: 486 fpu_seed WARNING in fpu__drop");
		}
	}
	step->failed_runs = step->verdict == BISECT_BAD;
	return 0;
}

static void test_finds_culprit_within_log2_steps(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), top = linear(r, root, 63);
	struct fake f = { .r = r, .first_bad = 37 };
	struct bisect *b;

	assert_int_equal(bisect_run(r->git, &r->commits[root], &r->commits[top], false, fake_test, &f,
				    NULL, &b), 0);
	assert_true(b->found);
	assert_true(git_oid_equal(&b->culprit, &r->commits[37]));
	assert_true(f.calls <= bisect_steps_left(64));
	bisect_free(b);
}

static void test_skip_next_to_culprit_is_worked_around(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), top = linear(r, root, 32);
	struct fake f = { .r = r, .first_bad = 16, .untestable = { 17 }, .nuntestable = 1 };
	struct bisect *b;

	assert_int_equal(bisect_run(r->git, &r->commits[root], &r->commits[top], false, fake_test, &f,
				    NULL, &b), 0);
	assert_true(b->found);
	assert_true(git_oid_equal(&b->culprit, &r->commits[16]));
	bisect_free(b);
}

static void test_skips_that_hide_the_culprit_give_a_range(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), top = linear(r, root, 20);
	struct fake f = { .r = r, .first_bad = 10, .untestable = { 9, 10 }, .nuntestable = 2 };
	struct bisect *b;

	assert_int_equal(bisect_run(r->git, &r->commits[root], &r->commits[top], false, fake_test, &f,
				    NULL, &b), 0);
	assert_false(b->found);
	/* 9 and 10 cannot be tested and 11 is bad: any of the three. */
	assert_int_equal(b->nrange, 3);
	assert_true(git_oid_equal(&b->range[0], &r->commits[11]));
	assert_true(git_oid_equal(&b->range[2], &r->commits[9]));
	bisect_free(b);
}

static void test_confidence(void **state)
{
	(void)state;
	/* A bug seen in every boot: one passing boot is proof enough. */
	assert_float_equal(bisect_confidence(1, 5, 5), 1.0, 1e-9);
	/* Failing half the time: three passes leave a 1/8 chance it was there. */
	assert_float_equal(bisect_confidence(3, 5, 10), 0.875, 1e-9);
	assert_float_equal(bisect_confidence(10, 1, 10), 1.0 - pow(0.9, 10), 1e-9);
	/* Never seen failing: no confidence to give. */
	assert_float_equal(bisect_confidence(5, 0, 10), 0.0, 1e-9);
}

/* Replays log in git and returns what refs/bisect/<ref> names then. */
static void git_replay(struct repo *r, const struct strbuf *log, size_t top, const char *ref,
		       git_oid *out)
{
	char *path = xasprintf("%s/bisect.log", r->dir), *result = xasprintf("%s.replay", r->dir);
	char *name = xasprintf("refs/bisect/%s", ref);
	struct strbuf text = STRBUF_INIT;

	assert_int_equal(file_write_atomic(path, log->buf, log->len), 0);
	/* replay needs a checkout to move around in. */
	const char *checkout[] = { "git", "checkout", "-q", "--detach", git_oid_tostr_s(&r->commits[top]), NULL };
	const char *replay[] = { "git", "bisect", "replay", path, NULL };
	const char *rev[] = { "git", "rev-parse", name, NULL };
	assert_int_equal(spawn_run(checkout, r->dir, NULL, NULL), 0);
	assert_int_equal(spawn_run(replay, r->dir, result, NULL), 0);
	unlink(result);
	assert_int_equal(spawn_run(rev, r->dir, result, NULL), 0);
	assert_int_equal(file_read(result, &text), 0);
	assert_true(text.len >= GIT_OID_HEXSZ);
	text.buf[GIT_OID_HEXSZ] = '\0';
	assert_int_equal(git_oid_fromstr(out, text.buf), 0);
	unlink(result);
	strbuf_release(&text);
	free(path);
	free(result);
	free(name);
}

static void test_log_replays_in_git(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), top = linear(r, root, 16);
	struct fake f = { .r = r, .first_bad = 6, .untestable = { 8 }, .nuntestable = 1 };
	struct bisect_step good = { .verdict = BISECT_GOOD, .subject = "commit 0" };
	struct bisect_step bad = { .verdict = BISECT_BAD, .subject = "commit 16" };
	struct strbuf log = STRBUF_INIT;
	struct bisect *b;
	git_oid replayed;

	git_oid_cpy(&good.commit, &r->commits[root]);
	git_oid_cpy(&bad.commit, &r->commits[top]);
	assert_int_equal(bisect_run(r->git, &r->commits[root], &r->commits[top], false, fake_test, &f,
				    NULL, &b), 0);
	bisect_format_log(&log, b, &good, &bad);
	/* A skipped step says why, in a comment. */
	assert_non_null(strstr(log.buf, "# skipped: another bug: 486 fpu_seed WARNING in fpu__drop\n"));
	git_replay(r, &log, top, "bad", &replayed);
	assert_true(git_oid_equal(&replayed, &r->commits[6]));
	strbuf_release(&log);
	bisect_free(b);
}

/* The error of bisect_check_ends() holds every one of the strings. */
static void check_refused(int err, const char *const *want)
{
	assert_int_equal(err, ERR_NOTFOUND);
	assert_int_equal(error_exit_status(err), 128);
	for (; *want; want++)
		if (!strstr(error_last(), *want))
			fail_msg("'%s' does not say '%s'", error_last(), *want);
	error_clear();
}

static void test_ends_are_checked_as_git_does(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), top = linear(r, root, 8), side = linear(r, root + 2, 3);
	const git_oid *c = r->commits;

	assert_int_equal(bisect_check_ends(r->git, &c[root], "v1", &c[top], "v2", false), 0);
	assert_int_equal(bisect_check_ends(r->git, &c[top], "v2", &c[root], "v1", true), 0);
	/* The case: BAD an ancestor of GOOD, asked as a regression. */
	check_refused(bisect_check_ends(r->git, &c[top], "v2", &c[root], "v1", false),
		      (const char *const[]){ "some good revs are not ancestors of the bad rev",
					     "look swapped", "BAD 'v1' is an ancestor of GOOD 'v2'",
					     "--fixed", NULL });
	check_refused(bisect_check_ends(r->git, &c[root], "v1", &c[top], "v2", true),
		      (const char *const[]){ "some bad revs are not ancestors of the good rev",
					     "look swapped", "leave out --fixed", NULL });
	/* Two branches: neither end is the other's ancestor. */
	check_refused(bisect_check_ends(r->git, &c[side], "side", &c[top], "v2", false),
		      (const char *const[]){ "some good revs are not ancestors of the bad rev",
					     "GOOD 'side' is not an ancestor of BAD 'v2'", NULL });
	check_refused(bisect_check_ends(r->git, &c[top], "v2", &c[top], "HEAD", false),
		      (const char *const[]){ "the same commit", NULL });
}

static void test_fixed_finds_the_first_commit_that_passes(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), top = linear(r, root, 40);
	struct fake f = { .r = r, .first_bad = 23, .fix = true };
	struct bisect_step good = { .verdict = BISECT_GOOD, .subject = "commit 40" };
	struct bisect_step bad = { .verdict = BISECT_BAD, .subject = "commit 0" };
	struct strbuf log = STRBUF_INIT;
	struct bisect *b;
	git_oid replayed;

	/* GOOD is the newer end: the fix came after BAD. */
	git_oid_cpy(&good.commit, &r->commits[top]);
	git_oid_cpy(&bad.commit, &r->commits[root]);
	assert_int_equal(bisect_run(r->git, &r->commits[top], &r->commits[root], true, fake_test, &f,
				    NULL, &b), 0);
	assert_true(b->found);
	assert_true(git_oid_equal(&b->culprit, &r->commits[23]));
	assert_true(f.calls <= bisect_steps_left(41));
	bisect_format_log(&log, b, &good, &bad);
	assert_non_null(strstr(log.buf, "# first fixed commit: ["));
	/* git, started with the same terms, ends on the same commit. */
	git_replay(r, &log, top, "fixed", &replayed);
	assert_true(git_oid_equal(&replayed, &r->commits[23]));
	strbuf_release(&log);
	bisect_free(b);
}

/* Commit r->n on parent: its tree with path set to text, or removed for a NULL text. */
static size_t commit_edit(struct repo *r, size_t parent, const char *path, const char *text)
{
	git_commit *p;
	git_tree *pt, *t;
	git_treebuilder *tb;
	git_signature *sig;
	git_oid blob, tree;
	char subject[32];

	snprintf(subject, sizeof(subject), "commit %zu\n", r->n);
	assert_int_equal(git_commit_lookup(&p, r->git, &r->commits[parent]), 0);
	assert_int_equal(git_commit_tree(&pt, p), 0);
	assert_int_equal(git_treebuilder_new(&tb, r->git, pt), 0);
	if (text) {
		assert_int_equal(git_blob_create_from_buffer(&blob, r->git, text, strlen(text)), 0);
		assert_int_equal(git_treebuilder_insert(NULL, tb, path, &blob, GIT_FILEMODE_BLOB), 0);
	} else {
		assert_int_equal(git_treebuilder_remove(tb, path), 0);
	}
	assert_int_equal(git_treebuilder_write(&tree, tb), 0);
	assert_int_equal(git_tree_lookup(&t, r->git, &tree), 0);
	assert_int_equal(git_signature_new(&sig, "t", "t@t", r->clock++, 0), 0);
	assert_int_equal(git_commit_create(&r->commits[r->n], r->git, NULL, sig, sig, NULL, subject,
					   t, 1, (const git_commit **)&p), 0);
	git_signature_free(sig);
	git_tree_free(t);
	git_treebuilder_free(tb);
	git_tree_free(pt);
	git_commit_free(p);
	return r->n++;
}

/* count commits on from, each rewriting "f" and keeping the rest of its tree. */
static size_t linear_edit(struct repo *r, size_t from, size_t count)
{
	char text[32];

	for (size_t i = 0; i < count; i++) {
		snprintf(text, sizeof(text), "%zu\n", r->n);
		from = commit_edit(r, from, "f", text);
	}
	return from;
}

/* A commit fails when its tree holds a file named "bug", whatever made it (a revert too). */
static int bug_test(void *ctx, const git_oid *oid, struct bisect_step *step)
{
	struct fake *f = ctx;
	git_commit *c;
	git_tree *t;

	assert_int_equal(git_commit_lookup(&c, f->r->git, oid), 0);
	assert_int_equal(git_commit_tree(&t, c), 0);
	step->runs = 1;
	step->verdict = git_tree_entry_byname(t, "bug") ? BISECT_BAD : BISECT_GOOD;
	step->failed_runs = step->verdict == BISECT_BAD;
	f->calls++;
	git_tree_free(t);
	git_commit_free(c);
	return 0;
}

/* Bisects the repository's first and last commits with bug_test, then verifies. */
static void verify(struct repo *r, struct fake *f, struct bisect **b,
		   struct bisect_verification *v)
{
	struct bisect_step good = { .commit = r->commits[0] }, bad = { .commit = r->commits[r->n - 1] };

	assert_int_equal(bisect_run(r->git, &r->commits[0], &r->commits[r->n - 1], false, bug_test, f,
				    NULL, b), 0);
	assert_true((*b)->found);
	memset(v, 0, sizeof(*v));
	assert_int_equal(bisect_verify(*b, &good, &bad, bug_test, f, v), 0);
}

static void verification_release(struct bisect_verification *v)
{
	bisect_step_release(&v->parent);
	bisect_step_release(&v->culprit);
	bisect_step_release(&v->revert);
}

static void test_verify_reverts_the_culprit_on_bad(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), culprit;
	struct fake f = { .r = r };
	struct bisect_verification v;
	struct bisect *b;
	int calls;

	culprit = commit_edit(r, linear(r, root, 5), "bug", "1\n");
	linear_edit(r, culprit, 5);
	verify(r, &f, &b, &v);
	assert_true(git_oid_equal(&b->culprit, &r->commits[culprit]));
	assert_true(v.have_parent && v.reverts_cleanly && v.have_revert);
	assert_true(git_oid_equal(&v.parent.commit, &r->commits[culprit - 1]));
	assert_int_equal(v.parent.verdict, BISECT_GOOD);
	assert_int_equal(v.culprit.verdict, BISECT_BAD);
	assert_int_equal(v.revert.verdict, BISECT_GOOD);
	assert_string_equal(v.culprit.subject, "commit 6");
	assert_string_equal(v.revert.subject, "Revert \"commit 6\"");
	/* The bisection tested the culprit and its parent: only the revert is new. */
	calls = f.calls;
	verification_release(&v);
	assert_int_equal(bisect_verify(b, &(struct bisect_step){ .commit = r->commits[0] },
				       &(struct bisect_step){ .commit = r->commits[r->n - 1] },
				       bug_test, &f, &v), 0);
	assert_int_equal(f.calls, calls + 1);
	verification_release(&v);
	bisect_free(b);
}

static void test_verify_says_a_conflicting_revert(void **state)
{
	struct repo *r = *state;
	size_t root = commit(r, NULL, 0), culprit;
	struct fake f = { .r = r };
	struct bisect_verification v;
	struct bisect *b;

	culprit = commit_edit(r, linear(r, root, 3), "bug", "1\n");
	commit_edit(r, linear_edit(r, culprit, 2), "bug", "2\n");
	verify(r, &f, &b, &v);
	assert_true(git_oid_equal(&b->culprit, &r->commits[culprit]));
	assert_true(v.have_parent && !v.reverts_cleanly && !v.have_revert);
	assert_int_equal(v.parent.verdict, BISECT_GOOD);
	assert_int_equal(v.culprit.verdict, BISECT_BAD);
	verification_release(&v);
	bisect_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_midpoint_linear_matches_git, setup, teardown),
		cmocka_unit_test_setup_teardown(test_midpoint_with_merges_matches_git, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finds_culprit_within_log2_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_next_to_culprit_is_worked_around, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skips_that_hide_the_culprit_give_a_range, setup, teardown),
		cmocka_unit_test(test_confidence),
		cmocka_unit_test_setup_teardown(test_log_replays_in_git, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ends_are_checked_as_git_does, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixed_finds_the_first_commit_that_passes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_verify_reverts_the_culprit_on_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_says_a_conflicting_revert, setup, teardown),
	};
	int failed;

	git_libgit2_init();
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return failed;
}
