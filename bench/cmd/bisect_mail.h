/*
 * bisect_mail: what `fpubench bisect` adds to a verified culprit for the
 * people who must act: regression.eml in the run directory (see
 * record/regression.h), its posting found through provenance.h.
 *
 * bisect_mail_note_failure() remembers, on a step, the first failing
 * cell (test, crash title, console) and every failing CPU setup; the
 * step owns the copies.  bisect_mail_keep_config() keeps the .config a
 * step was built with in the run directory (config/<commit>), since the
 * build directory holds the last build's only.
 *
 * The mail names only what a stranger has: the commit ids, the URL of a
 * remote of the user's repository whose branch (refs/remotes/NAME/...)
 * holds the culprit, when one does (http, https or git URLs, without
 * credentials: a local path or an ssh URL is nobody else's), and the
 * bench's commands with its version; it attaches the culprit's .config
 * and failing console.  A culprit no public remote holds is said not to
 * be public, and gets no #regzbot line.
 *
 * bisect_mail_write() never fails the bisection: a report it cannot write
 * (no sender, an unreadable archive) is said on stderr with the reason,
 * and the verdict stands.  Nothing is sent: it prints the file and the
 * command that sends it.
 */
#ifndef FPUBENCH_BISECT_MAIL_H
#define FPUBENCH_BISECT_MAIL_H

#include "bisect/bisect.h"

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

void bisect_mail_note_failure(struct bisect_step *st, const char *test, const char *crash,
			      const char *console, const char *setup);

/* Sets st->config; a copy that fails is said on stderr, and the step has none. */
void bisect_mail_keep_config(struct bisect_step *st, const char *run_dir, const char *build_dir);

struct bisect_mail {
	git_repository *repo;		/* where the culprit is */
	const char *repo_dir;		/* the user's repository, whose remotes say if it is public */
	const char *run_dir;		/* absolute; the steps' consoles are relative to it */
	const struct bisect *b;
	const struct bisect_step *good_end, *bad_end, *culprit;
	bool revert_verified;
	const char *const *archives;	/* mail archives to find the posting in */
	size_t narchives;
	const char *conf_from;		/* [report] from, or NULL */
	const char *version;		/* the bench's */
	/* Options, each after a space, shell-quoted: */
	const char *test_args;		/* what `fpubench test --tree .` needs: --cpu and --test */
	const char *bisect_args;	/* what `fpubench bisect` needs besides its ends */
};

/* Returns the path written (the caller frees it), or NULL when none was. */
char *bisect_mail_write(const struct bisect_mail *in);

#endif
