/*
 * nightly_bisect: a git tree's run bisects its own new failure.
 *
 * When a run of a git tree fails where the previous complete run of that
 * tree passed, the bench runs `fpubench bisect` (itself, as a child, with
 * the run's config, cache and the cell's CPU setup and test) between the
 * two runs' commits, into <run_dir>/bisect/.  The child needs the cache
 * lock and the embedded libvirt root, so the run's session hands them
 * over first (session_hand_over()) and boots nothing after.
 * A budget bounds the child: past it, it is interrupted (SIGTERM) and the
 * outcome is "over budget".  The outcome, culprit, confidence and the
 * regression.eml written go into the history and report.html.  Nothing
 * here changes the run's exit status: the new failure still makes it 1.
 */
#ifndef FPUBENCH_NIGHTLY_BISECT_H
#define FPUBENCH_NIGHTLY_BISECT_H

#include "run/runlog.h"
#include "run/session.h"

#define NIGHTLY_BISECT_BUDGET_S 3600.0

struct nightly_bisect {
	struct session *s;
	struct runlog *rec;
	const struct results_run *run;
	const struct matrix *m;
	const char *repo;		/* the tree's repository */
	const char *conf_path;		/* passed on: the sender, the series, the hosts */
	double budget_s;
};

/* 0, or an error of the history or the reports; the bisection's own failures are its outcome. */
int nightly_bisect(const struct nightly_bisect *in);

#endif
