#include "bisect_mail.h"

#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "lib/gitutil.h"
#include "provenance/provenance.h"
#include "record/regression.h"
#include "record/report.h"

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

void bisect_mail_keep_config(struct bisect_step *st, const char *run_dir, const char *build_dir)
{
	struct strbuf text = STRBUF_INIT;
	char *from = xasprintf("%s/.config", build_dir), *dir = xasprintf("%s/config", run_dir);
	char *name = xasprintf("config/%s", git_oid_tostr_s(&st->commit));
	char *to = xasprintf("%s/%s", run_dir, name);

	if (file_read(from, &text) < 0 || dir_create(dir, ERR_GENERIC) < 0 ||
	    file_write_atomic(to, text.buf, text.len) < 0) {
		fprintf(stderr, "fpubench: the mail will have no .config of %.12s: %s\n",
			git_oid_tostr_s(&st->commit), error_last());
		error_clear();
	} else {
		free(st->config);
		st->config = name;
		name = NULL;
	}
	strbuf_release(&text);
	free(from);
	free(dir);
	free(name);
	free(to);
}

/* A URL a stranger can fetch (http, https, git), without the user's credentials; NULL if none. */
static char *public_url(const char *url)
{
	static const char *const schemes[] = { "https://", "http://", "git://" };

	for (size_t i = 0; url && i < ARRAY_SIZE(schemes); i++) {
		size_t n = strlen(schemes[i]);
		if (strncmp(url, schemes[i], n) != 0)
			continue;
		const char *host = url + n, *slash = strchr(host, '/'), *at = strchr(host, '@');
		if (at && (!slash || at < slash))
			host = at + 1;
		return *host ? xasprintf("%s%s", schemes[i], host) : NULL;
	}
	return NULL;
}

/* Where the culprit is public: a remote's URL and its branch that holds it. */
struct public_place {
	char *url;
	char *branch;
	git_oid tip;
};

/* Whether the branch at tip holds commit: it is the tip or one of its ancestors. */
static bool holds(git_repository *repo, const git_oid *tip, const git_oid *commit)
{
	return git_oid_equal(tip, commit) || git_graph_descendant_of(repo, tip, commit) == 1;
}

/*
 * The first public remote of repo, in its config's order, with a branch
 * (refs/remotes/NAME/BRANCH) that holds commit.  false when none does.
 */
static bool public_place_find(struct public_place *out, git_repository *repo, const git_oid *commit)
{
	git_strarray names = { 0 };
	bool found = false;

	memset(out, 0, sizeof(*out));
	if (git_remote_list(&names, repo) < 0)
		names.count = 0;
	for (size_t i = 0; i < names.count && !found; i++) {
		git_remote *remote = NULL;
		git_reference_iterator *it = NULL;
		git_reference *ref;
		char *glob = xasprintf("refs/remotes/%s/*", names.strings[i]);
		char *url = NULL;

		if (git_remote_lookup(&remote, repo, names.strings[i]) == 0)
			url = public_url(git_remote_url(remote));
		git_remote_free(remote);
		if (url && git_reference_iterator_glob_new(&it, repo, glob) == 0) {
			while (!found && git_reference_next(&ref, it) == 0) {
				const git_oid *tip = git_reference_target(ref);	/* NULL: HEAD, symbolic */
				if (tip && holds(repo, tip, commit)) {
					found = true;
					out->url = url;
					url = NULL;
					out->branch = xstrdup(git_reference_name(ref) + strlen(glob) - 1);
					git_oid_cpy(&out->tip, tip);
				}
				git_reference_free(ref);
			}
		}
		git_reference_iterator_free(it);
		free(url);
		free(glob);
	}
	git_strarray_dispose(&names);
	git_error_clear();
	return found;
}

/*
 * The commands a stranger runs, in a kernel repository of theirs: full
 * ids, `--tree .` and `--repo .`, never a path of this machine.
 */
static void reproduce(struct strbuf *sb, const struct bisect_mail *in, git_repository *user,
		      const struct public_place *place, bool public)
{
	char culprit[GIT_OID_HEXSZ + 1], good[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];

	git_oid_tostr(culprit, sizeof(culprit), &in->b->culprit);
	git_oid_tostr(good, sizeof(good), &in->good_end->commit);
	git_oid_tostr(bad, sizeof(bad), &in->bad_end->commit);
	if (public)
		strbuf_addf(sb, "# in a kernel git repository, with fpubench %s\ngit fetch %s %s\n",
			    in->version, place->url, place->branch);
	else
		strbuf_addf(sb, "# in a kernel git repository that holds %.12s, with fpubench %s\n",
			    culprit, in->version);
	strbuf_addf(sb, "git checkout %s\nfpubench test --tree .%s\n", culprit, in->test_args);
	/* The bisection again, when its ends are where the reader can fetch them too. */
	if (!public || (holds(user, &place->tip, &in->good_end->commit) &&
			holds(user, &place->tip, &in->bad_end->commit)))
		strbuf_addf(sb, "fpubench bisect --repo . --good %s --bad %s%s\n", good, bad,
			    in->bisect_args);
}

/* A file of the run directory, made safe to show, as an attachment's data; false if unreadable. */
static bool attachment_read(struct strbuf *out, const char *run_dir, const char *name)
{
	struct strbuf raw = STRBUF_INIT;
	char *path = xasprintf("%s/%s", run_dir, name);
	bool cut, ok = file_read_capped(path, CONSOLE_READ_MAX, &raw, &cut) == 0;

	if (ok)
		report_add_safe(out, raw.buf, raw.len);
	error_clear();
	free(path);
	strbuf_release(&raw);
	return ok;
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

/* The culprit's .config and failing console, as the mail attaches them; returns how many. */
static size_t attach_culprit_files(struct regression_attachment *files, struct strbuf *config,
				   struct strbuf *console, const struct bisect_mail *in)
{
	size_t n = 0;

	if (in->culprit->config && attachment_read(config, in->run_dir, in->culprit->config))
		files[n++] = (struct regression_attachment){ "config", config->buf, config->len };
	if (in->culprit->console && attachment_read(console, in->run_dir, in->culprit->console))
		files[n++] = (struct regression_attachment){ "console.log", console->buf,
							     console->len };
	return n;
}

/* What the bisection found, into r: the culprit, its ends (hex into the buffers) and the odds. */
static void mail_set_finding(struct regression *r, const struct bisect_mail *in,
			     char *culprit, char *good, char *bad)
{
	int failed, total;

	bisect_fail_rate(in->b, in->bad_end, &failed, &total);
	git_oid_tostr(culprit, GIT_OID_HEXSZ + 1, &in->b->culprit);
	git_oid_tostr(good, GIT_OID_HEXSZ + 1, &in->good_end->commit);
	git_oid_tostr(bad, GIT_OID_HEXSZ + 1, &in->bad_end->commit);
	r->culprit = culprit;
	r->test = in->culprit->test ? in->culprit->test : "?";
	r->setups = in->culprit->setups ? in->culprit->setups : "?";
	r->crash = in->culprit->crash;
	r->good = good;
	r->bad = bad;
	r->steps = in->b->nsteps;
	r->runs = in->good_end->runs;
	r->confidence = bisect_confidence(in->good_end->runs, failed, total);
	r->revert_verified = in->revert_verified;
}

/* Writes regression.eml into run_dir and says how to send it; returns its path, or NULL. */
static char *mail_save(const char *run_dir, const struct strbuf *mail, bool reply)
{
	char *path = xasprintf("%s/regression.eml", run_dir);

	if (file_write_atomic(path, mail->buf, mail->len) < 0) {
		fprintf(stderr, "fpubench: no regression.eml: %s\n", error_last());
		error_clear();
		free(path);
		return NULL;
	}
	printf("regression: %s (%s)\n  send it with: git send-email '%s'\n", path,
	       reply ? "a reply to the patch's posting" : "a new thread", path);
	return path;
}

char *bisect_mail_write(const struct bisect_mail *in)
{
	struct provenance_reply reply;
	struct strbuf mail = STRBUF_INIT, excerpt = STRBUF_INIT, commands = STRBUF_INIT;
	struct strbuf config = STRBUF_INIT, console = STRBUF_INIT;
	struct regression_attachment files[2];
	struct public_place place = { 0 };
	git_repository *user = NULL;
	char *from = NULL, *message_id = NULL, *path = NULL;
	char culprit[GIT_OID_HEXSZ + 1], good[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];
	time_t now = time(NULL);
	size_t nfiles;
	bool public = false;

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
	if (git_repository_open_ext(&user, in->repo_dir, 0, NULL) == 0)
		public = public_place_find(&place, user, &in->b->culprit);
	git_error_clear();
	reproduce(&commands, in, user, &place, public);
	nfiles = attach_culprit_files(files, &config, &console, in);
	struct regression r = {
		.from = from,
		.message_id = message_id,
		.date = (int64_t)now,
		.culprit_subject = reply.summary,
		.culprit_url = public ? place.url : NULL,
		.culprit_branch = place.branch,
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
		.console = excerpt.buf,
		.reproduce = commands.buf,
		.attachments = files,
		.nattachments = nfiles,
	};
	mail_set_finding(&r, in, culprit, good, bad);
	regression_format(&mail, &r);
	path = mail_save(in->run_dir, &mail, reply.message_id != NULL);
out:
	provenance_reply_release(&reply);
	git_repository_free(user);
	free(place.url);
	free(place.branch);
	strbuf_release(&mail);
	strbuf_release(&excerpt);
	strbuf_release(&commands);
	strbuf_release(&config);
	strbuf_release(&console);
	free(message_id);
	free(from);
	return path;
}
