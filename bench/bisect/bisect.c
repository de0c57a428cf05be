#include "bisect.h"

#include "lib/error.h"
#include "lib/gitutil.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void oids_push(git_oid **list, size_t *n, const git_oid *oid)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	git_oid_cpy(&(*list)[(*n)++], oid);
}

static bool oids_contain(const git_oid *list, size_t n, const git_oid *oid)
{
	for (size_t i = 0; i < n; i++)
		if (git_oid_equal(&list[i], oid))
			return true;
	return false;
}

int bisect_candidates(git_repository *repo, const git_oid *bad, const git_oid *goods,
		      size_t ngoods, git_oid **out, size_t *n)
{
	git_revwalk *walk = NULL;
	git_oid oid, *list = NULL;
	size_t count = 0;
	int err = 0;

	/* git's bisection takes the date-ordered walk and reverses it. */
	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TIME | GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_push(walk, bad) < 0) {
		err = error_set(ERR_GENERIC, "cannot walk from %s: %s", git_oid_tostr_s(bad),
				gitutil_error());
		goto out;
	}
	for (size_t i = 0; i < ngoods; i++) {
		if (git_revwalk_hide(walk, &goods[i]) < 0) {
			err = error_set(ERR_GENERIC, "cannot hide %s: %s", git_oid_tostr_s(&goods[i]),
					gitutil_error());
			goto out;
		}
	}
	while (git_revwalk_next(&oid, walk) == 0)
		oids_push(&list, &count, &oid);
out:
	git_revwalk_free(walk);
	if (err) {
		free(list);
		return err;
	}
	*out = list;
	*n = count;
	return 0;
}

/* The candidates as a graph: each one's parents among the candidates. */
struct graph {
	size_t n;
	size_t **parents;	/* indexes into the candidate list */
	size_t *nparents;
};

static long index_of(const git_oid *cands, size_t n, const git_oid *oid)
{
	for (size_t i = 0; i < n; i++)
		if (git_oid_equal(&cands[i], oid))
			return (long)i;
	return -1;
}

static int graph_build(git_repository *repo, const git_oid *cands, size_t n, struct graph *g)
{
	g->n = n;
	g->parents = xcalloc(n, sizeof(*g->parents));
	g->nparents = xcalloc(n, sizeof(*g->nparents));
	for (size_t i = 0; i < n; i++) {
		git_commit *c;

		if (git_commit_lookup(&c, repo, &cands[i]) < 0)
			return error_set(ERR_GENERIC, "cannot read commit %s: %s",
					 git_oid_tostr_s(&cands[i]), gitutil_error());
		unsigned np = git_commit_parentcount(c);
		g->parents[i] = xcalloc(np ? np : 1, sizeof(size_t));
		for (unsigned p = 0; p < np; p++) {
			long k = index_of(cands, n, git_commit_parent_id(c, p));
			if (k >= 0)
				g->parents[i][g->nparents[i]++] = (size_t)k;
		}
		git_commit_free(c);
	}
	return 0;
}

static void graph_release(struct graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->parents[i]);
	free(g->parents);
	free(g->nparents);
}

/* How many candidates commit i reaches, itself included. */
static int count_distance(const struct graph *g, size_t i, char *seen, size_t *stack)
{
	size_t top = 0;
	int count = 0;

	memset(seen, 0, g->n);
	stack[top++] = i;
	seen[i] = 1;
	while (top) {
		size_t c = stack[--top];
		count++;
		for (size_t p = 0; p < g->nparents[c]; p++) {
			if (!seen[g->parents[c][p]]) {
				seen[g->parents[c][p]] = 1;
				stack[top++] = g->parents[c][p];
			}
		}
	}
	return count;
}

static bool approx_halfway(int weight, size_t n)
{
	long diff = 2L * weight - (long)n;

	return diff >= -1 && diff <= 1;
}

/*
 * git's do_find_bisection(): weights in its order, and with `shortcut`
 * the first commit found near halfway, as git returns it.  Returns that
 * commit's index, or -1 when the caller must pick the best.
 */
static long compute_weights(const struct graph *g, bool shortcut, int *w)
{
	char *seen = xmalloc(g->n ? g->n : 1);
	size_t *stack = xmalloc((g->n ? g->n : 1) * sizeof(*stack));
	size_t counted = 0;
	long found = -1;

	for (size_t i = 0; i < g->n; i++) {
		w[i] = g->nparents[i] == 0 ? 1 : g->nparents[i] == 1 ? -1 : -2;
		counted += w[i] == 1;
	}
	/* Merges: their parents' weights cannot be added, so count. */
	for (size_t i = 0; i < g->n && found < 0; i++) {
		if (w[i] != -2)
			continue;
		w[i] = count_distance(g, i, seen, stack);
		if (shortcut && approx_halfway(w[i], g->n))
			found = (long)i;
		counted++;
	}
	/* A single strand of pearls: one more than the parent. */
	while (counted < g->n && found < 0) {
		for (size_t i = 0; i < g->n && found < 0; i++) {
			if (w[i] >= 0)
				continue;
			size_t p = 0;
			while (p < g->nparents[i] && w[g->parents[i][p]] < 0)
				p++;
			if (p == g->nparents[i])
				continue;
			w[i] = w[g->parents[i][p]] + 1;
			counted++;
			if (shortcut && approx_halfway(w[i], g->n))
				found = (long)i;
		}
	}
	free(seen);
	free(stack);
	return found;
}

static int distance(int weight, size_t n)
{
	int other = (int)n - weight;

	return weight < other ? weight : other;
}

int bisect_choose(git_repository *repo, const git_oid *cands, size_t n,
		  const git_oid *skipped, size_t nskipped, git_oid *out)
{
	struct graph g = { 0 };
	int *w = xcalloc(n ? n : 1, sizeof(*w));
	long best = -1;
	int err;

	if ((err = graph_build(repo, cands, n, &g)) < 0)
		goto out;
	/* Without skips, exactly git's pick; with them, the best one not skipped. */
	best = compute_weights(&g, nskipped == 0, w);
	if (best < 0) {
		int best_distance = -1;

		for (size_t i = 0; i < n; i++) {
			int d = distance(w[i], n);

			if (d > best_distance && !oids_contain(skipped, nskipped, &cands[i])) {
				best = (long)i;
				best_distance = d;
			}
		}
		/* Distance 0 is the bad commit itself: nothing left to test. */
		if (best_distance <= 0)
			best = -1;
	}
	if (best >= 0)
		git_oid_cpy(out, &cands[best]);
out:
	graph_release(&g);
	free(w);
	if (err)
		return err;
	return best >= 0;
}

int bisect_steps_left(size_t n)
{
	int steps = 0;

	while (((size_t)1 << steps) < n)
		steps++;
	return steps;
}

static char *commit_subject(git_repository *repo, const git_oid *oid)
{
	git_commit *c;
	char *s;

	if (git_commit_lookup(&c, repo, oid) < 0)
		return xstrdup("");
	s = xstrdup(git_commit_summary(c) ? git_commit_summary(c) : "");
	git_commit_free(c);
	return s;
}

/* A fresh step for commit, tested. */
static int step_test(git_repository *repo, const git_oid *commit, bisect_test_fn test, void *ctx,
		     struct bisect_step *s)
{
	memset(s, 0, sizeof(*s));
	git_oid_cpy(&s->commit, commit);
	s->subject = commit_subject(repo, commit);
	return test(ctx, commit, s);
}

int bisect_run(git_repository *repo, const git_oid *good, const git_oid *bad, bool fixed,
	       bisect_test_fn test, void *ctx,
	       void (*progress)(void *ctx, const struct bisect *b, const git_oid *next,
				int step, int steps_estimate),
	       struct bisect **out)
{
	struct bisect *b = xcalloc(1, sizeof(*b));
	git_oid *cands = NULL;
	size_t n = 0;
	int err = 0;

	b->repo = repo;
	b->fixed = fixed;
	git_oid_cpy(&b->old, fixed ? bad : good);
	git_oid_cpy(&b->new, fixed ? good : bad);
	oids_push(&b->olds, &b->nolds, &b->old);

	for (;;) {
		git_oid next;
		int chosen;

		free(cands);
		cands = NULL;
		if ((err = bisect_candidates(repo, &b->new, b->olds, b->nolds, &cands, &n)) < 0)
			goto out;
		if (n <= 1) {
			b->found = true;
			git_oid_cpy(&b->culprit, &b->new);
			break;
		}
		if ((chosen = bisect_choose(repo, cands, n, b->skipped, b->nskipped, &next)) < 0) {
			err = chosen;
			goto out;
		}
		if (!chosen) {
			/* Newest first, as git lists them. */
			for (size_t i = n; i-- > 0;)
				oids_push(&b->range, &b->nrange, &cands[i]);
			break;
		}
		if (progress)
			progress(ctx, b, &next, (int)b->nsteps + 1,
				 (int)b->nsteps + bisect_steps_left(n));

		b->steps = xrealloc(b->steps, (b->nsteps + 1) * sizeof(*b->steps));
		struct bisect_step *s = &b->steps[b->nsteps++];
		if ((err = step_test(repo, &next, test, ctx, s)) < 0)
			goto out;
		if (s->verdict == BISECT_SKIP)
			oids_push(&b->skipped, &b->nskipped, &next);
		else if (s->verdict == (fixed ? BISECT_BAD : BISECT_GOOD))
			oids_push(&b->olds, &b->nolds, &next);
		else
			git_oid_cpy(&b->new, &next);
	}
out:
	free(cands);
	if (err) {
		bisect_free(b);
		return err;
	}
	*out = b;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void bisect_step_copy(struct bisect_step *to, const struct bisect_step *from)
{
	*to = *from;
	to->subject = dup_or_null(from->subject);
	to->note = dup_or_null(from->note);
	to->test = dup_or_null(from->test);
	to->crash = dup_or_null(from->crash);
	to->console = dup_or_null(from->console);
	to->setups = dup_or_null(from->setups);
	to->config = dup_or_null(from->config);
}

void bisect_step_release(struct bisect_step *st)
{
	free(st->subject);
	free(st->note);
	free(st->test);
	free(st->crash);
	free(st->console);
	free(st->setups);
	free(st->config);
}

void bisect_free(struct bisect *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nsteps; i++)
		bisect_step_release(&b->steps[i]);
	free(b->steps);
	free(b->olds);
	free(b->skipped);
	free(b->range);
	free(b);
}

const struct bisect_step *bisect_find_step(const struct bisect *b, const git_oid *commit)
{
	for (size_t i = 0; i < b->nsteps; i++)
		if (git_oid_equal(&b->steps[i].commit, commit))
			return &b->steps[i];
	return NULL;
}

const char *bisect_verdict_name(enum bisect_verdict v, bool fixed)
{
	static const char *const names[] = {
		[BISECT_GOOD] = "good", [BISECT_BAD] = "bad", [BISECT_SKIP] = "skip",
	};
	static const char *const fix_names[] = {
		[BISECT_GOOD] = "fixed", [BISECT_BAD] = "broken", [BISECT_SKIP] = "skip",
	};

	return fixed ? fix_names[v] : names[v];
}

/* Whether ancestor is a proper ancestor of commit; a graph that cannot be read is an error. */
static int is_ancestor(git_repository *repo, const git_oid *ancestor, const git_oid *commit)
{
	int rc = git_graph_descendant_of(repo, commit, ancestor);

	if (rc < 0)
		return error_set(ERR_GENERIC, "cannot walk from %s: %s", git_oid_tostr_s(commit),
				 gitutil_error());
	return rc;
}

int bisect_check_ends(git_repository *repo, const git_oid *good, const char *good_name,
		      const git_oid *bad, const char *bad_name, bool fixed)
{
	/* git's old and new: a regression goes from GOOD to BAD, a fix from BAD to GOOD. */
	const git_oid *old = fixed ? bad : good, *new = fixed ? good : bad;
	const char *old_term = fixed ? "bad" : "good", *new_term = fixed ? "good" : "bad";
	const char *old_name = fixed ? bad_name : good_name, *new_name = fixed ? good_name : bad_name;
	int rc;

	if (git_oid_equal(good, bad))
		return error_set(ERR_NOTFOUND, "GOOD '%s' and BAD '%s' are the same commit %.12s",
				 good_name, bad_name, git_oid_tostr_s(good));
	if ((rc = is_ancestor(repo, old, new)) != 0)
		return rc < 0 ? rc : 0;
	if ((rc = is_ancestor(repo, new, old)) < 0)
		return rc;
	if (rc)
		return error_set(ERR_NOTFOUND, "some %s revs are not ancestors of the %s rev: the ends look swapped, %s '%s' is an ancestor of %s '%s'; %s",
				 old_term, new_term, fixed ? "GOOD" : "BAD", new_name,
				 fixed ? "BAD" : "GOOD", old_name,
				 fixed ? "to find the commit that broke the test, leave out --fixed"
				       : "to find the commit that fixed the test, add --fixed");
	return error_set(ERR_NOTFOUND, "some %s revs are not ancestors of the %s rev: %s '%s' is not an ancestor of %s '%s'; bisect from their merge base",
			 old_term, new_term, fixed ? "BAD" : "GOOD", old_name, fixed ? "GOOD" : "BAD",
			 new_name);
}

static void log_step(struct strbuf *sb, const struct bisect_step *s, bool fixed)
{
	const char *verdict = bisect_verdict_name(s->verdict, fixed);
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), &s->commit);
	strbuf_addf(sb, "# %s: [%s] %s\n", verdict, hex, s->subject ? s->subject : "");
	/* Why, as a comment `git bisect replay` passes over: "another bug: ...", "does not build". */
	if (s->verdict == BISECT_SKIP && s->note)
		strbuf_addf(sb, "# skipped: %s\n", s->note);
	strbuf_addf(sb, "git bisect %s %s\n", verdict, hex);
}

void bisect_format_log(struct strbuf *sb, const struct bisect *b,
		       const struct bisect_step *good_end, const struct bisect_step *bad_end)
{
	char hex[GIT_OID_HEXSZ + 1];

	/* As git logs a start with its terms: each argument in single quotes. */
	strbuf_addstr(sb, b->fixed ? "git bisect start '--term-old=broken' '--term-new=fixed'\n"
				   : "git bisect start\n");
	log_step(sb, bad_end, b->fixed);
	log_step(sb, good_end, b->fixed);
	for (size_t i = 0; i < b->nsteps; i++)
		log_step(sb, &b->steps[i], b->fixed);
	if (b->found) {
		char *subject = commit_subject(b->repo, &b->culprit);
		git_oid_tostr(hex, sizeof(hex), &b->culprit);
		strbuf_addf(sb, "# first %s commit: [%s] %s\n", b->fixed ? "fixed" : "bad", hex,
			    subject);
		free(subject);
	} else if (b->nrange) {
		strbuf_addstr(sb, "# only skipped commits left to test\n");
		for (size_t i = 0; i < b->nrange; i++) {
			char *subject = commit_subject(b->repo, &b->range[i]);
			git_oid_tostr(hex, sizeof(hex), &b->range[i]);
			strbuf_addf(sb, "# possible first %s commit: [%s] %s\n",
				    b->fixed ? "fixed" : "bad", hex, subject);
			free(subject);
		}
	}
}

void bisect_fail_rate(const struct bisect *b, const struct bisect_step *bad_end, int *failed,
		      int *total)
{
	*failed = bad_end->failed_runs;
	*total = bad_end->runs;
	for (size_t i = 0; i < b->nsteps; i++) {
		if (b->steps[i].verdict == BISECT_BAD) {
			*failed += b->steps[i].failed_runs;
			*total += b->steps[i].runs;
		}
	}
}

double bisect_confidence(int runs, int failed, int total)
{
	if (total <= 0 || failed <= 0)
		return 0.0;
	return 1.0 - pow(1.0 - (double)failed / total, runs);
}

int bisect_test_once(git_repository *repo, const struct bisect *b, const git_oid *commit,
		     bisect_test_fn test, void *ctx, struct bisect_step *out)
{
	const struct bisect_step *known = b ? bisect_find_step(b, commit) : NULL;

	if (!known)
		return step_test(repo, commit, test, ctx, out);
	bisect_step_copy(out, known);
	return 0;
}

int bisect_verify(const struct bisect *b, const struct bisect_step *good_end,
		  const struct bisect_step *bad_end, bisect_test_fn test, void *ctx,
		  struct bisect_verification *v)
{
	const struct bisect_step *new_end = b->fixed ? good_end : bad_end;
	git_repository *repo = b->repo;
	git_commit *culprit = NULL, *onto = NULL;
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_oid, revert_oid;
	int err;

	if ((err = bisect_test_once(repo, b, &b->culprit, test, ctx, &v->culprit)) < 0)
		return err;
	if (git_commit_lookup(&culprit, repo, &b->culprit) < 0 ||
	    git_commit_lookup(&onto, repo, &new_end->commit) < 0) {
		err = error_set(ERR_GENERIC, "cannot read the culprit or %s", b->fixed ? "GOOD" : "BAD");
		goto out;
	}
	if (git_commit_parentcount(culprit) > 0) {
		v->have_parent = true;
		if ((err = bisect_test_once(repo, b, git_commit_parent_id(culprit, 0), test, ctx,
					    &v->parent)) < 0)
			goto out;
	}
	/* A merge is reverted against its first parent, as `git revert -m 1`. */
	git_revert_options opts = GIT_REVERT_OPTIONS_INIT;
	if (git_commit_parentcount(culprit) > 1)
		opts.mainline = 1;
	if (git_revert_commit(&index, repo, culprit, onto, opts.mainline, &opts.merge_opts) < 0 ||
	    git_index_has_conflicts(index)) {
		error_clear();
		goto out;
	}
	v->reverts_cleanly = true;
	char *message = xasprintf("Revert \"%s\"\n\nfpubench: verifying the culprit %s\n",
				  git_commit_summary(culprit), git_oid_tostr_s(&b->culprit));
	if (git_index_write_tree_to(&tree_oid, index, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_oid) < 0 ||
	    git_signature_now(&sig, "fpubench", "fpubench@localhost") < 0 ||
	    git_commit_create(&revert_oid, repo, NULL, sig, sig, NULL, message, tree, 1,
			      (const git_commit **)&onto) < 0) {
		free(message);
		err = error_set(ERR_GENERIC, "cannot commit the revert of %s", git_oid_tostr_s(&b->culprit));
		goto out;
	}
	free(message);
	v->have_revert = true;
	err = bisect_test_once(repo, NULL, &revert_oid, test, ctx, &v->revert);
out:
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	git_commit_free(culprit);
	git_commit_free(onto);
	return err;
}
