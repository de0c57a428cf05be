#include "nightly_bisect.h"

#include "bisect/bisect_json.h"
#include "boot/embed.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* bisect's exit statuses (docs/fpubench-bisect.md). */
#define BISECT_VERIFIED 0
#define BISECT_RANGE 2
#define BISECT_ENDS 3
#define BISECT_UNVERIFIED 4

struct watch {
	double deadline;
	bool over;
};

static void check_budget(void *arg)
{
	struct watch *w = arg;

	if (!w->over && clock_seconds() > w->deadline) {
		w->over = true;
		spawn_interrupt();
	}
}

static const char *outcome_of(int status, bool over)
{
	if (over)
		return "over budget";
	switch (status) {
	case BISECT_VERIFIED: return "culprit";
	case BISECT_UNVERIFIED: return "unverified";
	case BISECT_RANGE: return "range";
	case BISECT_ENDS: return "ends not reproduced";
	default: return "failed";
	}
}

int nightly_bisect(const struct nightly_bisect *in)
{
	struct runlog_target t;
	struct bisect_json_summary found;
	char link[256];
	char *results = xasprintf("%s/bisect", in->s->run_dir);
	char *log = xasprintf("%s/bisect.out", in->s->run_dir);
	char *latest = xasprintf("%s/latest", results), *mail = NULL, *root = NULL, *uri = NULL;
	struct watch w = { .deadline = clock_seconds() + in->budget_s };
	int err, status;

	if ((err = runlog_new_failure(in->rec, &t)) <= 0)
		goto out;
	/*
	 * The embedded driver keeps its root's pid file locked until this
	 * process exits, so a child on the embedded driver gets a root of its own.
	 */
	root = xasprintf("%s/libvirt-bisect", in->s->cfg.cache);
	uri = embed_uri(root);
	/* This very binary, even if a rebuild has replaced its file since it started. */
	const char *argv[] = { "/proc/self/exe", "bisect", "--repo", in->repo, "--good", t.good, "--bad", t.bad,
			       "--cpu", t.cpu, "--test", t.test, "--results", results,
			       "--cache", in->s->cfg.cache, "--config", in->conf_path,
			       in->s->cfg.nhosts ? NULL : "--uri", uri, NULL };
	printf("bisect: the new failure %s %s %s, between %.12s and %.12s (log: %s)\n", t.variant,
	       t.cpu, t.test, t.good, t.bad, log);
	fflush(stdout);
	/* The child takes the cache lock and the libvirt root; this run is done with both. */
	session_hand_over(in->s);
	struct spawn_watch watch = { .stdin_fd = -1, .tick = check_budget, .arg = &w };
	status = spawn_run_watched(argv, NULL, log, NULL, &watch);
	char *path = xasprintf("%s/bisect.json", latest);
	/* A child stopped over budget or failed may leave none; a malformed one is said, not fatal. */
	if ((err = bisect_json_read(&found, path)) < 0 && err != ERR_NOTFOUND)
		fprintf(stderr, "fpubench: %s\n", error_last());
	error_clear();
	free(path);
	ssize_t ln = readlink(latest, link, sizeof(link) - 1);
	if (ln > 0) {
		link[ln] = '\0';
		const char *id = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		mail = xasprintf("bisect/%s/regression.eml", id);
		char *abs = xasprintf("%s/%s", in->s->run_dir, mail);
		if (!file_exists(abs)) {
			free(mail);
			mail = NULL;
		}
		free(abs);
	}
	struct history_bisection b = {
		.variant = t.variant, .cpu = t.cpu, .test = t.test, .good = t.good, .bad = t.bad,
		.outcome = outcome_of(status, w.over), .culprit = *found.culprit ? found.culprit : NULL,
		.confidence = found.confidence, .mail = mail,
	};
	printf("bisect: %s%s%.12s%s%s\n", b.outcome, b.culprit ? " " : "", found.culprit,
	       mail ? ", report to send: " : "", mail ? mail : "");
	err = runlog_bisection(in->rec, in->run, in->m, &b);
out:
	free(root);
	free(uri);
	runlog_target_release(&t);
	free(mail);
	free(latest);
	free(log);
	free(results);
	return err;
}
