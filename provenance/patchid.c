#include "patchid.h"
#include "patchid_state.h"

#include "commitdiff.h"

#include "lib/ctype.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/spawn.h"
#include "lib/str.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* git's shortest abbreviation of an object id. */
#define MIN_ABBREV 7

/*
 * git abbreviates the blob ids of an index line to a length that grows
 * with the packed object count (7 below 2^14 objects, 12 for a kernel),
 * then as far as needed to be unique; the patch-id of a binary file
 * hashes them, so they must come out the same.
 */
static int default_abbrev(git_repository *repo)
{
	char *dir = xasprintf("%sobjects/pack", git_repository_commondir(repo));
	DIR *d = opendir(dir);
	unsigned long long count = 0;
	struct dirent *e;
	int bits = 0;

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 4, ".idx") != 0)
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		uint32_t head[2 + 256];
		if (f && fread(head, sizeof(head), 1, f) == 1) {
			/* Version 2 starts with "\377tOc" and a version; version 1 with the fan-out. */
			bool v2 = memcmp(head, "\377tOc", 4) == 0;
			count += ntohl(v2 ? head[2 + 255] : head[255]);
		}
		if (f)
			fclose(f);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
	while (count >> bits)
		bits++;
	/* git: the highest bit's position plus one, halved and rounded up. */
	int len = bits ? (bits + 1) / 2 : 0;
	return len < MIN_ABBREV ? MIN_ABBREV : len;
}

static void unique_abbrev(char *out, git_odb *odb, const git_oid *id, int min_len)
{
	char hex[GIT_OID_HEXSZ + 1];
	int len = min_len;

	git_oid_tostr(hex, sizeof(hex), id);
	for (; len < GIT_OID_HEXSZ; len++) {
		git_oid prefix, found;
		git_oid_fromstrn(&prefix, hex, (size_t)len);
		int rc = git_odb_exists_prefix(&found, odb, &prefix, (size_t)len);
		/* Unique when nothing else, or only the object itself, has the prefix. */
		if (rc == GIT_ENOTFOUND || (rc == 0 && git_oid_equal(&found, id)))
			break;
	}
	git_error_clear();
	memcpy(out, hex, (size_t)len);
	out[len] = '\0';
}

struct diff_feed {
	struct patchid_state st;
	git_repository *repo;
	git_odb *odb;
	int abbrev;		/* 0 until a binary file needs it */
	bool hunkless;		/* a text file with no hunks: git prints no ---/+++ */
	struct strbuf line;	/* a hunk line with its origin put back */
	int err;
};

static void feed_binary_index(struct diff_feed *f, const git_diff_delta *delta)
{
	char pre[GIT_OID_HEXSZ + 1], post[GIT_OID_HEXSZ + 1];

	if (!f->abbrev)
		f->abbrev = default_abbrev(f->repo);
	if (!f->odb && git_repository_odb(&f->odb, f->repo) < 0) {
		f->err = error_set(ERR_GENERIC, "cannot open the object database: %s",
				   gitutil_error());
		return;
	}
	unique_abbrev(pre, f->odb, &delta->old_file.id, f->abbrev);
	unique_abbrev(post, f->odb, &delta->new_file.id, f->abbrev);
	char *line = xasprintf("index %s..%s\n", pre, post);
	patchid_state_feed_line(&f->st, line, strlen(line));
	free(line);
}

static int feed_diff_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
			  const git_diff_line *line, void *payload)
{
	struct diff_feed *f = payload;
	const char *text = line->content, *end = text + line->content_len;

	(void)hunk;
	switch (line->origin) {
	case GIT_DIFF_LINE_FILE_HDR:
		while (text < end) {
			const char *nl = memchr(text, '\n', (size_t)(end - text));
			const char *next = nl ? nl + 1 : end;
			size_t n = (size_t)(next - text);
			if ((delta->flags & GIT_DIFF_FLAG_BINARY) && str_has_prefix(text, n, "index "))
				feed_binary_index(f, delta);
			else if (!(f->hunkless && (str_has_prefix(text, n, "--- ") ||
						   str_has_prefix(text, n, "+++ "))))
				patchid_state_feed_line(&f->st, text, n);
			text = next;
		}
		break;
	case GIT_DIFF_LINE_CONTEXT:
	case GIT_DIFF_LINE_ADDITION:
	case GIT_DIFF_LINE_DELETION:
		strbuf_reset(&f->line);
		strbuf_addch(&f->line, line->origin);
		strbuf_add(&f->line, text, line->content_len);
		patchid_state_feed_line(&f->st, f->line.buf, f->line.len);
		break;
	case GIT_DIFF_LINE_CONTEXT_EOFNL:
	case GIT_DIFF_LINE_ADD_EOFNL:
	case GIT_DIFF_LINE_DEL_EOFNL:
		/* "\n\\ No newline at end of file\n": the newline ends the last line. */
		if (text < end && *text == '\n')
			text++;
		patchid_state_feed_lines(&f->st, text, (size_t)(end - text));
		break;
	case GIT_DIFF_LINE_BINARY:
		/* A binary file renamed or re-moded unchanged: git shows no "Binary files" line. */
		if (git_oid_equal(&delta->old_file.id, &delta->new_file.id))
			break;
		patchid_state_feed_lines(&f->st, text, line->content_len);
		break;
	default:
		patchid_state_feed_lines(&f->st, text, line->content_len);
	}
	return f->err;
}

/* git's quote_c_style() with core.quotePath on: "a/x" stays, "a/\303\244" is quoted. */
static void add_git_path(struct strbuf *sb, const char *prefix, const char *path)
{
	static const char letters[] = "\\a\\b\\t\\n\\v\\f\\r";
	bool quote = false;

	for (const char *p = path; *p && !quote; p++)
		quote = (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f || *p == '"' ||
			*p == '\\';
	if (!quote) {
		strbuf_addf(sb, "%s%s", prefix, path);
		return;
	}
	strbuf_addf(sb, "\"%s", prefix);
	for (const char *p = path; *p; p++) {
		unsigned char c = (unsigned char)*p;
		const char *letter = c >= 7 && c <= 13 ? letters + 2 * (c - 7) : NULL;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (letter)
			strbuf_add(sb, letter, 2);
		else if (c < 0x20 || c >= 0x7f)
			strbuf_addf(sb, "\\%03o", c);
		else
			strbuf_addch(sb, (char)c);
	}
	strbuf_addch(sb, '"');
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * libgit2 1.5 finds no renames of symbolic links; git finds the exact
 * ones (same target), preferring a source with the same base name.  Each
 * pair is fed as git prints it and both of its deltas marked done.
 */
static void feed_symlink_renames(struct diff_feed *f, git_diff *diff, bool *done)
{
	size_t n = git_diff_num_deltas(diff);
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *dst = git_diff_get_delta(diff, i);
		size_t best = SIZE_MAX;
		bool best_same = false;

		if (dst->status != GIT_DELTA_ADDED || dst->new_file.mode != GIT_FILEMODE_LINK)
			continue;
		for (size_t j = 0; j < n; j++) {
			const git_diff_delta *src = git_diff_get_delta(diff, j);
			if (done[j] || src->status != GIT_DELTA_DELETED ||
			    src->old_file.mode != GIT_FILEMODE_LINK ||
			    !git_oid_equal(&src->old_file.id, &dst->new_file.id))
				continue;
			bool same = strcmp(base_name(src->old_file.path),
					   base_name(dst->new_file.path)) == 0;
			if (best == SIZE_MAX || (same && !best_same)) {
				best = j;
				best_same = same;
			}
		}
		if (best == SIZE_MAX)
			continue;
		const char *from = git_diff_get_delta(diff, best)->old_file.path;
		const char *to = dst->new_file.path;
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "diff --git ");
		add_git_path(&sb, "a/", from);
		strbuf_addch(&sb, ' ');
		add_git_path(&sb, "b/", to);
		strbuf_addstr(&sb, "\nsimilarity index 100%\nrename from ");
		add_git_path(&sb, "", from);
		strbuf_addstr(&sb, "\nrename to ");
		add_git_path(&sb, "", to);
		strbuf_addch(&sb, '\n');
		patchid_state_feed_lines(&f->st, sb.buf, sb.len);
		done[i] = done[best] = true;
	}
	strbuf_release(&sb);
}

int patchid_from_diff(git_oid *out, git_repository *repo, git_diff *diff)
{
	struct diff_feed f = { .repo = repo, .line = STRBUF_INIT };
	size_t n = git_diff_num_deltas(diff);
	bool *done = xcalloc(n ? n : 1, sizeof(*done));

	patchid_state_init(&f.st);
	feed_symlink_renames(&f, diff, done);
	for (size_t i = 0; i < n && !f.err; i++) {
		git_patch *patch = NULL;
		if (done[i])
			continue;
		if (git_patch_from_diff(&patch, diff, i) < 0) {
			f.err = error_set(ERR_GENERIC, "cannot make a patch: %s", gitutil_error());
			break;
		}
		if (!patch)
			continue;
		f.hunkless = !(git_patch_get_delta(patch)->flags & GIT_DIFF_FLAG_BINARY) &&
			     !git_patch_num_hunks(patch);
		if (git_patch_print(patch, feed_diff_line, &f) < 0 && !f.err)
			f.err = error_set(ERR_GENERIC, "cannot print a patch: %s", gitutil_error());
		git_patch_free(patch);
	}
	if (!f.err)
		patchid_state_finish(&f.st, out);
	git_odb_free(f.odb);
	strbuf_release(&f.line);
	patchid_state_release(&f.st);
	free(done);
	return f.err;
}

int patchid_from_commit(git_oid *out, git_repository *repo, const git_commit *commit)
{
	git_diff *diff;
	int err;

	memset(out, 0, sizeof(*out));
	if (commitdiff_parents(repo, commit) > 1)
		return 0;
	if ((err = patchid_diff_commit(&diff, repo, commit)) < 0)
		return err;
	err = patchid_from_diff(out, repo, diff);
	git_diff_free(diff);
	return err;
}

/* git's defaults come first: what patchid_from_commit() gives. */
static const struct {
	const char *name;
	uint32_t flags;
	const char *git_options[3];	/* for `git show`, when libgit2 cannot make the diff */
} variants[PATCHID_NVARIANTS] = {
	{ "myers", GIT_DIFF_INDENT_HEURISTIC, { NULL } },
	{ "myers --no-indent-heuristic", 0, { NULL } },
	{ "patience", GIT_DIFF_PATIENCE | GIT_DIFF_INDENT_HEURISTIC, { NULL } },
	{ "patience --no-indent-heuristic", GIT_DIFF_PATIENCE, { NULL } },
	{ "minimal", GIT_DIFF_MINIMAL | GIT_DIFF_INDENT_HEURISTIC, { NULL } },
	{ "minimal --no-indent-heuristic", GIT_DIFF_MINIMAL, { NULL } },
	{ "histogram", 0, { "--histogram", "--indent-heuristic", NULL } },
	{ "histogram --no-indent-heuristic", 0, { "--histogram", "--no-indent-heuristic", NULL } },
};

/* What a user's configuration could change in `git show`'s diff, set to git's defaults. */
static const char *const git_show_config[] = {
	"color.ui=false", "diff.noprefix=false", "diff.mnemonicPrefix=false", "diff.relative=false",
	"diff.renames=true", "diff.suppressBlankEmpty=false", "core.quotePath=true", NULL
};

/*
 * The patch-id of `git show OPTIONS COMMIT` as a poster's git would print
 * it: the user's diff configuration is overridden, so only OPTIONS differ
 * from git's defaults.  Zero when git cannot run or fails: one way fewer to
 * find a posting, not an error.
 */
static void patchid_by_git(git_oid *out, git_repository *repo, const git_commit *commit,
			   const char *const options[])
{
	char *path = path_temp("fpubench-show-XXXXXX");
	char *git_dir = xasprintf("--git-dir=%s", git_repository_path(repo));
	char hex[GIT_OID_HEXSZ + 1];
	struct strbuf text = STRBUF_INIT;
	const char *argv[24];
	size_t n = 0;
	int fd = mkstemp(path);

	memset(out, 0, sizeof(*out));
	git_oid_tostr(hex, sizeof(hex), git_commit_id(commit));
	argv[n++] = "git";
	argv[n++] = git_dir;
	for (size_t i = 0; git_show_config[i]; i++) {
		argv[n++] = "-c";
		argv[n++] = git_show_config[i];
	}
	argv[n++] = "show";
	argv[n++] = "--no-ext-diff";
	argv[n++] = "--no-textconv";
	argv[n++] = "--pretty=format:";
	for (size_t i = 0; options[i]; i++)
		argv[n++] = options[i];
	argv[n++] = hex;
	argv[n] = NULL;
	if (fd >= 0 && spawn_run(argv, NULL, path, NULL) == 0 && file_read(path, &text) == 0)
		patchid_from_text(out, text.buf, text.len);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	strbuf_release(&text);
	free(git_dir);
	free(path);
}

const char *patchid_variant_name(size_t i)
{
	return i < PATCHID_NVARIANTS ? variants[i].name : "?";
}

int patchid_variants(git_oid out[PATCHID_NVARIANTS], git_repository *repo,
		     const git_commit *commit)
{
	int err = 0;

	memset(out, 0, PATCHID_NVARIANTS * sizeof(*out));
	if (commitdiff_parents(repo, commit) > 1)
		return 0;
	for (size_t i = 0; i < PATCHID_NVARIANTS && !err; i++) {
		git_diff *diff;

		if (variants[i].git_options[0]) {
			patchid_by_git(&out[i], repo, commit, variants[i].git_options);
			continue;
		}
		if ((err = commitdiff_make(&diff, repo, commit, variants[i].flags)) < 0)
			break;
		err = patchid_from_diff(&out[i], repo, diff);
		git_diff_free(diff);
	}
	return err;
}
