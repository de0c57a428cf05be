#include "bisect_mail.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "provenance/provenance.h"
#include "record/regression.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Enough console to reach the crash report of a boot that ran every test. */
#define CONSOLE_READ_MAX (4u << 20)

void bisect_mail_note_failure(struct bisect_step *st, const char *test, const char *crash,
			      const char *console, const char *setup)
{
	if (!st->test) {
		st->test = xstrdup(test);
		st->crash = crash ? xstrdup(crash) : NULL;
		st->console = console ? xstrdup(console) : NULL;
	}
	if (!st->setups) {
		st->setups = xstrdup(setup);
		return;
	}
	/* Each setup once: a setup's cells fail together, and again in each run. */
	size_t n = strlen(setup);
	for (const char *p = st->setups; p; p = strstr(p, ", ") ? strstr(p, ", ") + 2 : NULL)
		if (strncmp(p, setup, n) == 0 && (!p[n] || strncmp(p + n, ", ", 2) == 0))
			return;
	char *more = xasprintf("%s, %s", st->setups, setup);
	free(st->setups);
	st->setups = more;
}

/* The id's domain is the sender's, as mail clients make theirs. */
static char *new_message_id(const char *from, const git_oid *culprit, time_t now)
{
	const char *at = strrchr(from, '@');
	size_t n = at ? strcspn(at + 1, ">") : 0;
	char stamp[32];
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	return xasprintf("fpubench-%s-%.12s@%.*s", stamp, git_oid_tostr_s(culprit),
			 n ? (int)n : 9, n ? at + 1 : "localhost");
}

static void console_excerpt(struct strbuf *out, const char *run_dir, const char *console)
{
	struct strbuf log = STRBUF_INIT;
	char *path = xasprintf("%s/%s", run_dir, console);
	bool cut;

	if (file_read_capped(path, CONSOLE_READ_MAX, &log, &cut) == 0)
		regression_console_excerpt(out, log.buf, log.len);
	else
		error_clear();
	free(path);
	strbuf_release(&log);
}

char *bisect_mail_write(const struct bisect_mail *in)
{
	struct provenance_reply reply;
	struct strbuf mail = STRBUF_INIT, excerpt = STRBUF_INIT;
	char *from = NULL, *message_id = NULL, *path = NULL, culprit[GIT_OID_HEXSZ + 1];
	char good[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];
	time_t now = time(NULL);
	int failed, total;

	if (provenance_reply_find(&reply, in->repo, &in->b->culprit, in->archives,
				  in->narchives) < 0) {
		fprintf(stderr, "fpubench: no regression.eml: %s\n", error_last());
		error_clear();
		return NULL;
	}
	if (regression_sender(&from, in->conf_from, in->repo) < 0) {
		fprintf(stderr, "fpubench: %s\n", error_last());
		error_clear();
		goto out;
	}
	message_id = new_message_id(from, &in->b->culprit, now);
	if (in->culprit->console)
		console_excerpt(&excerpt, in->run_dir, in->culprit->console);
	bisect_fail_rate(in->b, in->bad_end, &failed, &total);
	git_oid_tostr(culprit, sizeof(culprit), &in->b->culprit);
	git_oid_tostr(good, sizeof(good), &in->good_end->commit);
	git_oid_tostr(bad, sizeof(bad), &in->bad_end->commit);
	struct regression r = {
		.from = from,
		.message_id = message_id,
		.date = (int64_t)now,
		.culprit = culprit,
		.culprit_subject = reply.summary,
		.author = reply.author,
		.people = (const char *const *)reply.people.v,
		.npeople = reply.people.n,
		.reply_to = reply.message_id,
		.reply_subject = reply.subject,
		.references = (const char *const *)reply.references.v,
		.nreferences = reply.references.n,
		.recipients = (const char *const *)reply.recipients.v,
		.nrecipients = reply.recipients.n,
		.found_by = reply.found_by,
		.test = in->culprit->test ? in->culprit->test : "?",
		.setups = in->culprit->setups ? in->culprit->setups : "?",
		.crash = in->culprit->crash,
		.good = good,
		.bad = bad,
		.steps = in->b->nsteps,
		.runs = in->good_end->runs,
		.confidence = bisect_confidence(in->good_end->runs, failed, total),
		.revert_verified = in->revert_verified,
		.console = excerpt.buf,
		.reproduce = in->reproduce,
	};
	regression_format(&mail, &r);
	path = xasprintf("%s/regression.eml", in->run_dir);
	if (file_write_atomic(path, mail.buf, mail.len) < 0) {
		fprintf(stderr, "fpubench: no regression.eml: %s\n", error_last());
		error_clear();
		free(path);
		path = NULL;
		goto out;
	}
	printf("regression: %s (%s)\n  send it with: git send-email '%s'\n", path,
	       reply.message_id ? "a reply to the patch's posting" : "a new thread", path);
out:
	provenance_reply_release(&reply);
	strbuf_release(&mail);
	strbuf_release(&excerpt);
	free(message_id);
	free(from);
	return path;
}
