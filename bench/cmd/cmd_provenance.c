#include "cmd.h"

#include "lib/date.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/jsonw.h"
#include "provenance/provenance.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHORT_SHA 12

static const char *const history_phrases[] = {
	[TRAILERS_REF_FIXES] = "fixes",
	[TRAILERS_REF_UPSTREAM] = "backport of",
	[TRAILERS_REF_CHERRY_PICK] = "cherry-picked from",
	[TRAILERS_REF_REVERT] = "reverts",
	[TRAILERS_REF_INTRODUCED_BY] = "introduced by",
	[TRAILERS_REF_MENTION] = "mentions",
};

static void print_refs(const struct trailers_ref *refs, size_t n, const char *label)
{
	for (size_t i = 0; i < n; i++) {
		printf("  %-14s %s %.*s", i ? "" : label, history_phrases[refs[i].kind], SHORT_SHA,
		       refs[i].sha);
		if (refs[i].subject)
			printf(" (\"%s\")", refs[i].subject);
		putchar('\n');
	}
}

static void print_list(const char *label, const struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		printf("  %-14s %s\n", i ? "" : label, l->v[i]);
}

static const char *plural(size_t n)
{
	return n == 1 ? "y" : "ies";
}

static void print_link_quality(const struct match_result *r)
{
	const struct match_version *last = r->nversions ? &r->versions[r->nversions - 1] : NULL;

	switch (r->link) {
	case MATCH_LINK_NONE:
		printf("  %-14s no Link names a message", "Link quality:");
		break;
	case MATCH_LINK_UNKNOWN:
		printf("  %-14s its message-ids are not in the archives", "Link quality:");
		break;
	case MATCH_LINK_FINAL:
		printf("  %-14s names the final version (v%u)", "Link quality:", last->version);
		break;
	case MATCH_LINK_EARLIER:
		printf("  %-14s names an earlier version, not the final v%u", "Link quality:",
		       last->version);
		break;
	case MATCH_LINK_ELSEWHERE:
		printf("  %-14s names a message outside the version chain", "Link quality:");
		break;
	}
	if (r->unreached_reviewed) {
		printf("; %zu earlier version%s with review discussion %s not reachable from it:",
		       r->unreached_reviewed, r->unreached_reviewed == 1 ? "" : "s",
		       r->unreached_reviewed == 1 ? "is" : "are");
		const char *sep = " ";
		for (size_t i = 0; i + 1 < r->nversions; i++) {
			const struct match_version *v = &r->versions[i];
			if (v->replies && !v->reached) {
				printf("%sv%u (%zu repl%s)", sep, v->version, v->replies, plural(v->replies));
				sep = ", ";
			}
		}
	}
	putchar('\n');
}

/* The postings, the version chain and the Link's quality; mails as the report's. */
static void print_match(const struct match_result *r, struct mail *const *mails)
{
	char date[32];

	if (!r->npostings) {
		printf("  %-14s none found\n", "Postings:");
		return;
	}
	for (size_t i = 0; i < r->npostings; i++) {
		const struct mail *m = mails[r->postings[i].mail];
		printf("  %-14s %s%s%s%s %.2f <%s> %s\n", i ? "" : "Postings:",
		       match_method_name(r->postings[i].method),
		       r->postings[i].variant ? " (" : "",
		       r->postings[i].variant ? r->postings[i].variant : "",
		       r->postings[i].variant ? ")" : "", r->postings[i].confidence,
		       m->message_id ? m->message_id : "?", m->subject);
	}
	for (size_t i = 0; i < r->nversions; i++) {
		const struct match_version *v = &r->versions[i];
		const struct mail *m = mails[v->mail];
		char *lore = m->message_id ? link_lore_url(m->message_id) : xstrdup("(no message-id)");
		date_format_iso8601(date, sizeof(date), m->time);
		date[10] = '\0';
		printf("  %-14s v%u%s %s, %zu repl%s: %s\n", i ? "" : "Versions:", v->version,
		       v->resend ? " RESEND" : "", m->time ? date : "(no date)", v->replies,
		       plural(v->replies), lore);
		if (i)
			printf("  %-14s   since v%u: %s\n", "", r->versions[i - 1].version, v->changes);
		for (size_t t = 0; t < v->review_tags.n; t++)
			printf("  %-14s   %s\n", "", v->review_tags.v[t]);
		free(lore);
	}
	if (r->applied_changes)
		printf("  %-14s commit, since v%u: %s\n", "", r->versions[r->nversions - 1].version,
		       r->applied_changes);
	print_link_quality(r);
}

static void print_commit(const struct provenance_commit *c, struct mail *const *mails)
{
	const struct commit_facts *f = c->facts;
	const struct trailers *t = f->trailers;
	char hex[GIT_OID_HEXSZ + 1];

	printf("commit %s\n", git_oid_tostr(hex, sizeof(hex), &f->id));
	printf("  %s\n", f->summary);
	printf("  %-14s %s <%s>\n", "Author:", f->author_name, f->author_email);
	printf("  %-14s %s\n", "Patch-id:", git_oid_is_zero(&f->patch_id) ?
	       (f->parents > 1 ? "none (a merge)" : "none (no change)") :
	       git_oid_tostr(hex, sizeof(hex), &f->patch_id));
	for (size_t i = 0; i < t->nlinks; i++) {
		printf("  %-14s %s\n", "Link:", t->links[i].value);
		if (t->links[i].lore_url)
			printf("  %-14s -> %s\n", "", t->links[i].lore_url);
		else
			printf("  %-14s (%s, names no message)\n", "", link_kind_name(t->links[i].kind));
	}
	/* Message-ids that came from Message-ID: trailers rather than from a Link. */
	for (size_t i = 0; i < t->message_ids.n; i++) {
		bool from_link = false;
		for (size_t l = 0; l < t->nlinks; l++)
			from_link |= t->links[l].message_id &&
				     strcmp(t->links[l].message_id, t->message_ids.v[i]) == 0;
		if (from_link)
			continue;
		char *lore = link_lore_url(t->message_ids.v[i]);
		printf("  %-14s %s\n  %-14s -> %s\n", "Message-ID:", t->message_ids.v[i], "", lore);
		free(lore);
	}
	print_refs(t->fixes, t->nfixes, "Fixes:");
	print_refs(t->history, t->nhistory, "History:");
	print_list("Closes:", &t->closes);
	print_list("Reported-by:", &t->reported_by);
	print_list("Change-Id:", &t->change_ids);
	print_list("Signed-off-by:", &t->signed_off_by);
	if (c->match)
		print_match(c->match, mails);
	putchar('\n');
}

/* --list: a line a message, "DATE vN SUBJECT <MESSAGE-ID>". */
static void print_message(const struct provenance_message *msg)
{
	const struct mail *m = msg->mail;
	char date[32];

	date_format_iso8601(date, sizeof(date), m->time);
	printf("%s v%u %s <%s>\n", m->time ? date : "?", msg->subject->version, m->subject,
	       m->message_id ? m->message_id : "?");
}

/*
 * provenance: the report of each REV and RANGE (or with --list the
 * archives' messages) on standard output; with --json FILE also the JSON
 * there, and with --json - the JSON alone in the report's place.
 */
int cmd_provenance(struct options *o)
{
	const struct provenance_request req = {
		.repo = o->repo,
		.archives = o->archives.v,
		.narchives = o->archives.n,
		.list = o->list,
		.revs = o->operands.v,
		.nrevs = o->operands.n,
	};
	struct provenance_report *r;
	bool text = !o->json || strcmp(o->json, "-") != 0;
	int err;

	if (o->list && !o->archives.n)
		return error_set(ERR_USAGE, "--list needs an --archive");
	if (o->list && o->operands.n)
		return error_set(ERR_USAGE, "--list takes no revision, not '%s'", o->operands.v[0]);
	if (!o->list && !o->operands.n)
		return error_set(ERR_USAGE, "no revision given (see 'fpubench provenance --help')");
	if (o->json && (err = file_output_check(o->json, "--json")) < 0)
		return err;
	if ((err = provenance_report_build(&r, &req)) < 0)
		return err;
	if (r->skipped)
		fprintf(stderr, "fpubench: skipped %zu messages that are not mail\n", r->skipped);
	for (size_t i = 0; text && i < r->nmessages; i++)
		print_message(&r->messages[i]);
	for (size_t i = 0; text && i < r->ncommits; i++)
		print_commit(&r->commits[i], r->mails);
	if (fflush(stdout) != 0)
		err = error_set_errno(ERR_GENERIC, "cannot write the report to standard output");
	if (err == 0 && o->json)
		err = jsonw_write(r->json, o->json);
	provenance_report_free(r);
	return err;
}

static const struct opt provenance_options[] = {
	{ "list", 0, NULL, OPT_FLAG, OPT_FIELD(list), 0, 0,
	  "list the messages the archives hold, instead of commits" },
	OPT_ROW_REPO,
	OPT_ROW_ARCHIVE,
	OPT_ROW_JSON,
	OPT_END,
};

const struct command_def cmd_provenance_def = {
	CMD_PROVENANCE, "provenance", "fpubench provenance [OPTION]... REV|RANGE...\n"
	"   or: fpubench provenance --archive PATH... --list",
	"what each commit says of its postings, and the postings themselves",
	"For each commit: its trailers, Link message-ids and lore URLs, history\n"
	"references and patch-id; with mail archives, the postings that match it, how\n"
	"they matched and the earlier versions of the series.",
	provenance_options, cmd_provenance, true,
};
