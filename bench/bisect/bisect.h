/*
 * bisect: finds the commit that broke a test, or the one that fixed it,
 * over a libgit2 commit graph.
 *
 * The search is git's, in its old/new terms: the old end is an ancestor
 * of the new one (bisect_check_ends() says so before anything is built),
 * the candidates are the commits reachable from the newest commit known
 * new and from no old one (merges included), and each step tests the
 * candidate that best halves them, as `git rev-list --bisect` picks it.
 * A regression search's old commits pass (GOOD) and its new ones fail
 * (BAD); a fix search (`--fixed`) is the other way round: the old end is
 * BAD, the new one GOOD, and it finds the first commit that passes.  Testing is the caller's: a callback builds and boots a commit and
 * says good, bad or skip (untestable).  A skipped commit is never picked
 * again; the next best one is, so the search goes on around it.  It ends
 * with one culprit, or with the range of candidates that the skips leave
 * impossible to tell apart.
 *
 * A struct bisect owns everything in it; free it with bisect_free().
 */
#ifndef FPUBENCH_BISECT_H
#define FPUBENCH_BISECT_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* What a test said of a commit: good passes, bad fails, in either search. */
enum bisect_verdict { BISECT_GOOD, BISECT_BAD, BISECT_SKIP };

/*
 * "good", "bad" or "skip", as `git bisect` says them; in a fix search the
 * terms it is started with, "fixed" and "broken".
 */
const char *bisect_verdict_name(enum bisect_verdict v, bool fixed);

struct bisect_step {
	git_oid commit;
	char *subject;
	enum bisect_verdict verdict;
	int runs;		/* boots made */
	int failed_runs;	/* boots that failed or crashed */
	char *note;		/* why it was skipped, or the failing cells; may be NULL */
	double build_s;
	double test_s;
	/* What a report of the failure quotes; NULL when the step did not fail. */
	char *test;		/* the first failing cell's test */
	char *crash;		/* its crash title, or NULL when it failed without one */
	char *console;		/* its console log, relative to the run directory */
	char *setups;		/* the CPU setups whose cells failed, ", " between */
	char *config;		/* the .config it was built with, relative to the run directory */
};

/* A deep copy, and the release of what a step owns (its strings). */
void bisect_step_copy(struct bisect_step *to, const struct bisect_step *from);
void bisect_step_release(struct bisect_step *st);

/*
 * Tests one commit: fills verdict, runs, failed_runs, note and the times.
 * Returns 0, or a negative error code that ends the bisection (an
 * infrastructure failure, never a property of the commit).
 */
typedef int (*bisect_test_fn)(void *ctx, const git_oid *commit, struct bisect_step *step);

struct bisect {
	git_repository *repo;	/* borrowed */
	bool fixed;		/* a fix search: old commits fail, new ones pass */
	git_oid old;		/* the old end: GOOD, or BAD in a fix search */
	git_oid new;		/* the last commit found new: the candidates are its ancestors */
	git_oid *olds;		/* every commit known old */
	size_t nolds;
	git_oid *skipped;
	size_t nskipped;
	struct bisect_step *steps;	/* in the order they ran */
	size_t nsteps;
	bool found;		/* culprit is set */
	git_oid culprit;	/* the first new commit: the first bad one, or the first fixed */
	git_oid *range;		/* when not found: the candidates left, newest first */
	size_t nrange;
};

/*
 * Checks the question, as `git bisect start` does: GOOD must be an
 * ancestor of BAD (BAD of GOOD when fixed), else ERR_NOTFOUND, bad input,
 * with git's words and the revisions as the user named them; ends that
 * look swapped (the other end is the ancestor) are said so, with the
 * search that fits them.
 */
int bisect_check_ends(git_repository *repo, const git_oid *good, const char *good_name,
		      const git_oid *bad, const char *bad_name, bool fixed);

/*
 * The candidates: reachable from bad, not from any of goods, in the order
 * git's bisection walks them (oldest first).
 */
int bisect_candidates(git_repository *repo, const git_oid *bad, const git_oid *goods,
		      size_t ngoods, git_oid **out, size_t *n);

/*
 * git's choice among the candidates (as from bisect_candidates()),
 * leaving out the skipped ones; 1 and *out set, or 0 when only skipped
 * commits and bad itself are left.
 */
int bisect_choose(git_repository *repo, const git_oid *cands, size_t n,
		  const git_oid *skipped, size_t nskipped, git_oid *out);

/* About how many more steps n candidates need: ceil(log2 n). */
int bisect_steps_left(size_t n);

/*
 * Bisects between good and bad, which the caller has verified (a fix
 * search when fixed: bad is then the older end).  Calls test for every
 * step and `progress` (may be NULL) before each.
 */
int bisect_run(git_repository *repo, const git_oid *good, const git_oid *bad, bool fixed,
	       bisect_test_fn test, void *ctx,
	       void (*progress)(void *ctx, const struct bisect *b, const git_oid *next,
				int step, int steps_estimate),
	       struct bisect **out);

void bisect_free(struct bisect *b);

/* The step that tested commit, or NULL. */
const struct bisect_step *bisect_find_step(const struct bisect *b, const git_oid *commit);

/*
 * Fills out for commit (its id and subject) and tests it, or copies the
 * step of b that tested it (b may be NULL: nothing is known).  Returns
 * test's error, or 0.
 */
int bisect_test_once(git_repository *repo, const struct bisect *b, const git_oid *commit,
		     bisect_test_fn test, void *ctx, struct bisect_step *out);

/* KernelCI's checks of a culprit; a step is set when its have_ flag (or found) says it ran. */
struct bisect_verification {
	struct bisect_step parent, culprit, revert;
	bool have_parent, reverts_cleanly, have_revert;
};

/*
 * Verifies a found culprit as KernelCI does: the parent is old, the
 * culprit new, and reverting it on the new end (BAD, or GOOD in a fix
 * search) gives an old commit again.  A merge is reverted against its
 * first parent.  Commits b tested are not tested again; the revert is
 * committed in b->repo without a ref and tested.  A revert that conflicts
 * leaves reverts_cleanly unset, no error.  v starts zeroed; the caller
 * releases its steps.  Returns 0 or an error (test's, or reading the
 * commits).
 */
int bisect_verify(const struct bisect *b, const struct bisect_step *good_end,
		  const struct bisect_step *bad_end, bisect_test_fn test, void *ctx,
		  struct bisect_verification *v);

/*
 * A `git bisect log` of the search, which `git bisect replay` accepts:
 * the ends first, then every step.  ends are steps for good and bad.  A
 * fix search's log starts git's with the terms "broken" and "fixed".
 */
void bisect_format_log(struct strbuf *sb, const struct bisect *b,
		       const struct bisect_step *good_end, const struct bisect_step *bad_end);

/*
 * The confidence in a good verdict of `runs` passing boots, given a bug
 * that failed `failed` of `total` boots where it was seen: the chance that
 * such a bug would have shown at least once, 1 - (1 - failed/total)^runs.
 */
double bisect_confidence(int runs, int failed, int total);

/* The boots that failed, of all made, on bad_end and the bad steps: the bug's rate. */
void bisect_fail_rate(const struct bisect *b, const struct bisect_step *bad_end, int *failed,
		      int *total);

#endif
