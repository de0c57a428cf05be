#include "commitdiff.h"

#include "patchid.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RENAME_LIMIT 1000	/* diff.renameLimit's default */
#define RENAME_PERCENT 50

/* diffcore-delta.c and diffcore-rename.c */
#define SPAN_HASHBASE 107927
#define SPAN_MAX_BYTES 64
#define MAX_SCORE 60000
#define MIN_SCORE (MAX_SCORE * RENAME_PERCENT / 100)
#define FIRST_FEW_BYTES 8000

/*
 * git's rename similarity (diffcore-delta.c): the blob cut into spans of
 * up to 64 bytes ending at newlines, each hashed; the score is the bytes
 * of spans the two blobs share over the larger size.
 */
struct span_count {
	uint32_t hash;
	uint32_t bytes;
};

struct span_sig {
	size_t size;
	size_t n;
	struct span_count *spans;	/* sorted by hash, no repeats */
};

static int compare_spans(const void *a, const void *b)
{
	const struct span_count *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static int sig_from_buffer(void **out, const git_diff_file *file, const char *buf, size_t len,
			   void *payload)
{
	struct span_sig *sig = xcalloc(1, sizeof(*sig));
	bool text = !memchr(buf, '\0', len < FIRST_FEW_BYTES ? len : FIRST_FEW_BYTES);
	size_t alloc = 16, n = 0, count = 0;
	uint32_t accum1 = 0, accum2 = 0;

	(void)file;
	(void)payload;
	sig->size = len;
	sig->spans = xmalloc(alloc * sizeof(*sig->spans));
	for (size_t i = 0; i < len; i++) {
		uint32_t c = (unsigned char)buf[i], old1 = accum1;

		/* A CR before LF does not count in text. */
		if (text && c == '\r' && i + 1 < len && buf[i + 1] == '\n')
			continue;
		accum1 = (accum1 << 7) ^ (accum2 >> 25);
		accum2 = (accum2 << 7) ^ (old1 >> 25);
		accum1 += c;
		if (++count < SPAN_MAX_BYTES && c != '\n' && i + 1 < len)
			continue;
		if (n == alloc) {
			alloc *= 2;
			sig->spans = xrealloc(sig->spans, alloc * sizeof(*sig->spans));
		}
		sig->spans[n++] = (struct span_count){ (accum1 + accum2 * 0x61) % SPAN_HASHBASE,
						       (uint32_t)count };
		count = 0;
		accum1 = accum2 = 0;
	}
	qsort(sig->spans, n, sizeof(*sig->spans), compare_spans);
	for (size_t i = 0; i < n; i++) {
		if (sig->n && sig->spans[sig->n - 1].hash == sig->spans[i].hash)
			sig->spans[sig->n - 1].bytes += sig->spans[i].bytes;
		else
			sig->spans[sig->n++] = sig->spans[i];
	}
	*out = sig;
	return 0;
}

/* libgit2 asks for this only for work-tree files, which a tree diff has none of. */
static int sig_from_file(void **out, const git_diff_file *file, const char *path, void *payload)
{
	struct strbuf sb = STRBUF_INIT;
	int err = file_read(path, &sb) < 0 ? GIT_ENOTFOUND : sig_from_buffer(out, file, sb.buf,
									 sb.len, payload);

	strbuf_release(&sb);
	return err;
}

static void sig_free(void *sig, void *payload)
{
	(void)payload;
	if (sig)
		free(((struct span_sig *)sig)->spans);
	free(sig);
}

static int sig_similarity(int *score, void *a, void *b, void *payload)
{
	const struct span_sig *x = a, *y = b;
	size_t max = x->size > y->size ? x->size : y->size;
	size_t delta = max - (x->size < y->size ? x->size : y->size);
	unsigned long long copied = 0;
	size_t i = 0, j = 0;

	(void)payload;
	*score = 0;
	/* git does not consider edits that change the size this much. */
	if (!max || (unsigned long long)max * (MAX_SCORE - MIN_SCORE) <
			    (unsigned long long)delta * MAX_SCORE)
		return 0;
	while (i < x->n && j < y->n) {
		if (x->spans[i].hash < y->spans[j].hash) {
			i++;
		} else if (x->spans[i].hash > y->spans[j].hash) {
			j++;
		} else {
			uint32_t bx = x->spans[i++].bytes, by = y->spans[j++].bytes;
			copied += bx < by ? bx : by;
		}
	}
	/* git prints, and compares with the threshold, the score floored to a percentage. */
	*score = (int)(copied * MAX_SCORE / max * 100 / MAX_SCORE);
	return 0;
}

static git_diff_similarity_metric git_similarity = {
	sig_from_file, sig_from_buffer, sig_free, sig_similarity, NULL,
};

/*
 * Adds to paths every file that differs between trees a and b (either may
 * be NULL), descending only into subtrees whose ids differ.  libgit2 1.5's
 * tree-to-tree diff reads every tree of both sides, ~5,000 for one commit
 * of the kernel; given these paths it reads only the changed ones.
 */
static int changed_paths(git_repository *repo, const git_tree *a, const git_tree *b,
			 const char *prefix, struct strlist *paths);

static int entry_changed(git_repository *repo, const git_tree_entry *ea, const git_tree_entry *eb,
			 const char *prefix, struct strlist *paths)
{
	const git_tree_entry *e = ea ? ea : eb;
	char *path = xasprintf("%s%s", prefix, git_tree_entry_name(e));
	git_tree *ta = NULL, *tb = NULL;
	int err = 0;

	if (ea && eb && git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb) &&
	    git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)))
		goto out;
	if (ea && git_tree_entry_type(ea) == GIT_OBJECT_TREE &&
	    git_tree_lookup(&ta, repo, git_tree_entry_id(ea)) < 0)
		err = -1;
	if (!err && eb && git_tree_entry_type(eb) == GIT_OBJECT_TREE &&
	    git_tree_lookup(&tb, repo, git_tree_entry_id(eb)) < 0)
		err = -1;
	if (err) {
		err = error_set(ERR_GENERIC, "cannot read tree '%s': %s", path, gitutil_error());
		goto out;
	}
	/* A side that is a file there (not a tree) is a changed path of its own. */
	if ((ea && !ta) || (eb && !tb))
		strlist_push(paths, xstrdup(path));	/* each path is met once */
	if (ta || tb) {
		char *dir = xasprintf("%s/", path);
		err = changed_paths(repo, ta, tb, dir, paths);
		free(dir);
	}
out:
	git_tree_free(ta);
	git_tree_free(tb);
	free(path);
	return err;
}

static int changed_paths(git_repository *repo, const git_tree *a, const git_tree *b,
			 const char *prefix, struct strlist *paths)
{
	size_t na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;
	int err = 0;

	for (size_t i = 0; i < na && !err; i++) {
		const git_tree_entry *ea = git_tree_entry_byindex(a, i);
		err = entry_changed(repo, ea, b ? git_tree_entry_byname(b, git_tree_entry_name(ea)) : NULL,
				    prefix, paths);
	}
	for (size_t i = 0; i < nb && !err; i++) {
		const git_tree_entry *eb = git_tree_entry_byindex(b, i);
		if (!a || !git_tree_entry_byname(a, git_tree_entry_name(eb)))
			err = entry_changed(repo, NULL, eb, prefix, paths);
	}
	return err;
}

/*
 * The parents git sees: none for a commit a shallow clone cut its history
 * at (listed in the repository's "shallow" file), which git diffs as a
 * root; libgit2 1.5 knows nothing of shallow clones.
 */
unsigned commitdiff_parents(git_repository *repo, const git_commit *commit)
{
	char *path = xasprintf("%sshallow", git_repository_commondir(repo));
	char hex[GIT_OID_HEXSZ + 1];
	struct strbuf list = STRBUF_INIT;
	unsigned n = git_commit_parentcount(commit);

	if (n && file_exists(path) && file_read(path, &list) == 0) {
		git_oid_tostr(hex, sizeof(hex), git_commit_id(commit));
		for (const char *p = list.buf; (p = strstr(p, hex)); p += GIT_OID_HEXSZ)
			if ((p == list.buf || p[-1] == '\n') &&
			    (p[GIT_OID_HEXSZ] == '\n' || !p[GIT_OID_HEXSZ]))
				n = 0;
	}
	error_clear();
	strbuf_release(&list);
	free(path);
	return n;
}

int patchid_diff_commit(git_diff **out, git_repository *repo, const git_commit *commit)
{
	return commitdiff_make(out, repo, commit, GIT_DIFF_INDENT_HEURISTIC);
}

int commitdiff_make(git_diff **out, git_repository *repo, const git_commit *commit,
		    uint32_t flags)
{
	struct strlist paths = STRLIST_INIT;
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
	git_commit *parent = NULL;
	git_tree *tree = NULL, *parent_tree = NULL;
	git_diff *diff = NULL;
	int err = 0;

	*out = NULL;
	opts.flags |= flags;
	/* libgit2 would follow the repository's diff.noprefix and diff.mnemonicPrefix; git's ids use a/ b/. */
	opts.old_prefix = "a";
	opts.new_prefix = "b";
	find.flags = GIT_DIFF_FIND_RENAMES;
	find.rename_threshold = RENAME_PERCENT;
	find.rename_limit = RENAME_LIMIT;
	find.metric = &git_similarity;
	if (git_commit_tree(&tree, commit) < 0 ||
	    (commitdiff_parents(repo, commit) && (git_commit_parent(&parent, commit, 0) < 0 ||
						git_commit_tree(&parent_tree, parent) < 0))) {
		err = error_set(ERR_GENERIC, "cannot read commit %s: %s",
				git_oid_tostr_s(git_commit_id(commit)), gitutil_error());
		goto out;
	}
	/* A root commit adds every file: the whole walk is the diff. */
	if (parent_tree) {
		if ((err = changed_paths(repo, parent_tree, tree, "", &paths)) < 0)
			goto out;
		if (!paths.n) {
			/* No path at all would mean every path; an empty commit's diff is empty. */
			if (git_diff_from_buffer(&diff, "", 0) < 0)
				err = error_set(ERR_GENERIC, "cannot make an empty diff: %s", gitutil_error());
			else
				*out = diff;
			goto out;
		}
		opts.pathspec.strings = paths.v;
		opts.pathspec.count = paths.n;
		opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	}
	if (git_diff_tree_to_tree(&diff, repo, parent_tree, tree, &opts) < 0 ||
	    git_diff_find_similar(diff, &find) < 0) {
		err = error_set(ERR_GENERIC, "cannot diff commit %s: %s",
				git_oid_tostr_s(git_commit_id(commit)), gitutil_error());
		git_diff_free(diff);
		goto out;
	}
	*out = diff;
out:
	strlist_release(&paths);
	git_tree_free(parent_tree);
	git_tree_free(tree);
	git_commit_free(parent);
	return err;
}

