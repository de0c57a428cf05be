/*
 * bisect_mail: what `fpubench bisect` adds to a verified culprit for the
 * people who must act: regression.eml in the run directory (see
 * record/regression.h), its posting found through provenance.h.
 *
 * bisect_mail_note_failure() remembers, on a step, the first failing
 * cell (test, crash title, console) and every failing CPU setup; the
 * step owns the copies.  bisect_mail_write() never fails the bisection: a
 * report it cannot write (no sender, an unreadable archive) is said on
 * stderr with the reason, and the verdict stands.  Nothing is sent: it
 * prints the file and the command that sends it.
 */
#ifndef FPUBENCH_BISECT_MAIL_H
#define FPUBENCH_BISECT_MAIL_H

#include "bisect/bisect.h"

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

void bisect_mail_note_failure(struct bisect_step *st, const char *test, const char *crash,
			      const char *console, const char *setup);

struct bisect_mail {
	git_repository *repo;		/* where the culprit is */
	const char *run_dir;		/* absolute; the steps' consoles are relative to it */
	const struct bisect *b;
	const struct bisect_step *good_end, *bad_end, *culprit;
	bool revert_verified;
	const char *const *archives;	/* mail archives to find the posting in */
	size_t narchives;
	const char *conf_from;		/* [report] from, or NULL */
	const char *reproduce;		/* the commands that reproduce it, one a line */
};

/* Returns the path written (the caller frees it), or NULL when none was. */
char *bisect_mail_write(const struct bisect_mail *in);

#endif
