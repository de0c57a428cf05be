#include "apply.h"

#include "applied_note.h"
#include "gitrun.h"
#include "mailinfo.h"
#include "patchfile.h"
#include "series.h"
#include "tree.h"
#include "lib/date.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/jsonw.h"
#include "lib/notice.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define APPLIED_REF_PREFIX "refs/fpubench/applied/"

/* The files of one git run, in the repository's git directory (the cache lock keeps them ours). */
struct apply_run {
	char *index;		/* the throwaway index */
	char *patch;		/* the diff git reads */
	char *log;		/* what git said */
};

/* One file of the patch: where it was, where it goes, and how many hunks it has. */
struct apply_file {
	const char *old_path, *new_path;
	size_t nhunks;
	bool threeway;
};

/*
 * The throwaway index: the parent's entries for every path the patch
 * names (a new file's path too, so that git refuses one that exists).
 */
static int index_write_touched(git_tree *tree, const char *path,
			       const struct apply_file *files, size_t nfiles)
{
	git_index *index = NULL;
	int err = 0;

	unlink(path);
	if (git_index_open(&index, path) < 0)
		goto git_fail;
	for (size_t i = 0; i < nfiles; i++) {
		const char *paths[2] = { files[i].old_path, files[i].new_path };

		for (size_t j = 0; j < 2; j++) {
			git_tree_entry *te = NULL;
			git_index_entry e = { 0 };

			if (!paths[j] || git_index_get_bypath(index, paths[j], 0) ||
			    git_tree_entry_bypath(&te, tree, paths[j]) < 0)
				continue;
			if (git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
				git_tree_entry_free(te);
				continue;
			}
			e.path = paths[j];
			e.mode = git_tree_entry_filemode(te);
			git_oid_cpy(&e.id, git_tree_entry_id(te));
			int rc = git_index_add(index, &e);
			git_tree_entry_free(te);
			if (rc < 0)
				goto git_fail;
		}
	}
	if (git_index_write(index) < 0)
		goto git_fail;
	goto out;
git_fail:
	err = error_set(ERR_GENERIC, "cannot write the index '%s': %s", path, gitutil_error());
out:
	git_index_free(index);
	return err;
}

/* `git apply --cached -v` on the throwaway index; --3way when asked.  Git's exit status or an error. */
static int run_git_apply(const struct kernel_tree *t, const struct apply_run *run, bool threeway)
{
	const char *argv[] = { "git", "apply", "--cached", "-v", threeway ? "--3way" : run->patch,
			       threeway ? run->patch : NULL, NULL };
	struct gitrun_env e;
	int rc;

	gitrun_env_init(&e, t, run->index);
	unlink(run->log);
	rc = spawn_run(argv, t->path, run->log, e.env);
	gitrun_env_release(&e);
	return rc;
}

/* The text of git's first "error: " or "fatal: " line that names what went wrong, or NULL. */
static char *git_said_error(const char *said)
{
	for (const char *line = said; line && *line; ) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);

		if ((strncmp(line, "error: ", 7) == 0 || strncmp(line, "fatal: ", 7) == 0) &&
		    strncmp(line + 7, "while searching for:", 20) != 0)
			return xstrndup(line + 7, (size_t)(end - line - 7));
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/*
 * The one-line error of a patch git would not apply: the file and line
 * that the straight attempt names ("patch failed: PATH:LINE"), and why no
 * three-way merge saved it.
 */
static int apply_failure(const char *label, const char *direct, const char *merge)
{
	const char *failed = strstr(direct, "error: patch failed: ");
	const char *eol = failed ? strchrnul(failed, '\n') : NULL;
	const char *colon = NULL;
	char *first = git_said_error(direct);
	const char *why_merge;
	int err;

	for (const char *q = failed ? failed + 21 : NULL; q && q < eol; q++)
		if (*q == ':')
			colon = q;
	if (strstr(merge, "with conflicts."))
		why_merge = ", and its three-way merge has conflicts";
	else if (strstr(merge, "lacks the necessary blob"))
		why_merge = ", and the repository lacks the blob its index line names for a three-way merge";
	else if (strstr(merge, "Falling back to direct application"))
		why_merge = ", nor to the blob its index line names for a three-way merge";
	else
		why_merge = ", and no three-way merge applies it";
	if (colon)
		err = error_set(ERR_APPLY, "cannot apply patch %s to '%.*s': the hunk at line %.*s does not apply at any offset%s",
				label, (int)(colon - failed - 21), failed + 21,
				(int)(eol - colon - 1), colon + 1, why_merge);
	else
		err = error_set(ERR_APPLY, "cannot apply patch %s: %s", label,
				first ? first : "git apply refused it");
	free(first);
	return err;
}

static struct apply_file *file_by_path(struct apply_file *files, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(files[i].new_path ? files[i].new_path : files[i].old_path, path) == 0)
			return &files[i];
	return NULL;
}

/*
 * The hunks of every file and how git placed them, from its -v output:
 * "Checking patch P..." opens a file (a rename says "A => B"), "Hunk #N
 * succeeded at L (offset K lines)." moves a hunk, and "Applied patch to
 * 'P' cleanly." is a three-way merge of the whole file.  A hunk git does
 * not mention went where its @@ line said.
 */
static struct json_object *apply_read_placements(const char *log, struct apply_file *files,
						 size_t nfiles)
{
	struct json_object *hunks = json_object_new_array();
	struct strbuf text = STRBUF_INIT;
	struct apply_file *cur = NULL;
	/* offsets[i][h]: file i's hunk h+1 moved by it, or 0 */
	int **offsets = xcalloc(nfiles ? nfiles : 1, sizeof(*offsets));

	for (size_t i = 0; i < nfiles; i++)
		offsets[i] = xcalloc(files[i].nhunks ? files[i].nhunks : 1, sizeof(**offsets));
	if (file_read(log, &text) < 0)
		error_clear();
	for (char *line = text.buf, *next; line && *line; line = next) {
		size_t len;
		int n, at, off;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		len = strlen(line);
		if (strncmp(line, "Checking patch ", 15) == 0 && len > 18 &&
		    strcmp(line + len - 3, "...") == 0) {
			char *path = line + 15, *arrow = strstr(path, " => ");

			line[len - 3] = '\0';
			cur = file_by_path(files, nfiles, arrow ? arrow + 4 : path);
		} else if (cur && sscanf(line, "Hunk #%d succeeded at %d (offset %d line", &n, &at,
					 &off) == 3 && n >= 1 && (size_t)n <= cur->nhunks) {
			offsets[cur - files][n - 1] = off;
		} else if (strncmp(line, "Applied patch to '", 18) == 0 && len > 28 &&
			   strcmp(line + len - 10, "' cleanly.") == 0) {
			line[len - 10] = '\0';
			struct apply_file *f = file_by_path(files, nfiles, line + 18);
			if (f)
				f->threeway = true;
		}
	}
	for (size_t i = 0; i < nfiles; i++) {
		for (size_t h = 0; h < files[i].nhunks; h++) {
			struct json_object *o = json_object_new_object();
			int off = offsets[i][h];

			json_object_object_add(o, "file", jsonw_string(files[i].new_path ? files[i].new_path
										: files[i].old_path));
			json_object_object_add(o, "hunk", json_object_new_int((int)h + 1));
			json_object_object_add(o, "placed", jsonw_string(files[i].threeway ? "three-way"
									  : off ? "offset" : "exact"));
			if (!files[i].threeway && off)
				json_object_object_add(o, "offset", json_object_new_int(off));
			json_object_array_add(hunks, o);
		}
		free(offsets[i]);
	}
	free(offsets);
	strbuf_release(&text);
	return hunks;
}

/* Writes the throwaway index's files of the patch over the parent's tree. */
static int tree_from_index(git_repository *repo, git_tree *parent, const char *path,
			   const struct apply_file *files, size_t nfiles, git_oid *out)
{
	git_tree_update *updates = xcalloc(2 * nfiles + 1, sizeof(*updates));
	git_index *index = NULL;
	size_t n = 0;
	int err = 0;

	if (git_index_open(&index, path) < 0)
		goto git_fail;
	for (size_t i = 0; i < nfiles; i++) {
		const char *paths[2] = { files[i].old_path, files[i].new_path };

		for (size_t j = 0; j < 2; j++) {
			const git_index_entry *e;
			git_tree_entry *te = NULL;
			bool dup = false;

			if (!paths[j])
				continue;
			for (size_t k = 0; k < n; k++)
				dup |= strcmp(updates[k].path, paths[j]) == 0;
			if (dup)
				continue;
			if ((e = git_index_get_bypath(index, paths[j], 0))) {
				updates[n].action = GIT_TREE_UPDATE_UPSERT;
				git_oid_cpy(&updates[n].id, &e->id);
				updates[n].filemode = (git_filemode_t)e->mode;
				updates[n++].path = paths[j];
			} else if (git_tree_entry_bypath(&te, parent, paths[j]) == 0) {
				updates[n].action = GIT_TREE_UPDATE_REMOVE;
				updates[n++].path = paths[j];
				git_tree_entry_free(te);
			}
		}
	}
	if (git_tree_create_updated(out, repo, parent, n, updates) < 0)
		goto git_fail;
	goto out;
git_fail:
	err = error_set(ERR_GENERIC, "cannot write the patched tree: %s", gitutil_error());
out:
	git_index_free(index);
	free(updates);
	return err;
}

/* "'s.mbx'" or "'s.mbx' (2/3 \"subject\")": which patch, for messages. */
static char *patch_label(const char *name, const struct patchfile *p)
{
	const char *nl = strchr(p->message, '\n');

	if (p->count <= 1)
		return xasprintf("'%s'", name);
	return xasprintf("'%s' (%zu/%zu \"%.*s\")", name, p->number, p->count,
			 (int)(nl ? nl - p->message : (ptrdiff_t)strlen(p->message)), p->message);
}

/* The files the diff touches, with their hunk counts; *n of them (caller frees). */
static struct apply_file *files_of(git_diff *diff, size_t *n)
{
	struct apply_file *files;

	*n = git_diff_num_deltas(diff);
	files = xcalloc(*n ? *n : 1, sizeof(*files));
	for (size_t i = 0; i < *n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_patch *patch = NULL;

		files[i].old_path = d->status == GIT_DELTA_ADDED ? NULL : d->old_file.path;
		files[i].new_path = d->status == GIT_DELTA_DELETED ? NULL : d->new_file.path;
		if (git_patch_from_diff(&patch, diff, i) == 0)
			files[i].nhunks = git_patch_num_hunks(patch);
		git_patch_free(patch);
	}
	return files;
}

/* The patch's commit on parent, of the tree tree_oid: its author's, and the author's date. */
static int commit_patch(git_repository *repo, const struct patchfile *p, git_commit *parent,
			const git_oid *tree_oid, git_oid *out)
{
	git_signature *author = NULL, *committer = NULL;
	git_tree *tree = NULL;
	int err = 0;

	if (git_tree_lookup(&tree, repo, tree_oid) < 0 ||
	    git_signature_new(&author, p->author_name, p->author_email, p->author_time,
			      p->author_tz) < 0 ||
	    /* The committer's date is the author's, so the same series gives the same shas. */
	    git_signature_new(&committer, TREE_COMMITTER_NAME, TREE_COMMITTER_EMAIL, p->author_time,
			      p->author_tz) < 0 ||
	    git_commit_create(out, repo, NULL, author, committer, NULL, p->message, tree, 1,
			      (const git_commit **)&parent) < 0)
		err = -1;
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(tree);
	return err;
}

/* Lets git place the hunks, then writes the commit and its note. */
static int apply_patch(struct kernel_tree *t, const char *name, const struct patchfile *p,
		       git_commit *parent, struct json_object *note, git_oid *out)
{
	git_repository *repo = t->repo;
	const char *gitdir = git_repository_path(repo);
	struct apply_run run = {
		.index = xasprintf("%sfpubench-apply.index", gitdir),
		.patch = xasprintf("%sfpubench-apply.patch", gitdir),
		.log = xasprintf("%sfpubench-apply.log", gitdir),
	};
	struct apply_file *files = NULL;
	git_diff *diff = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	char *label = patch_label(name, p), *direct = NULL, *merge = NULL;
	size_t nfiles;
	git_oid tree_oid;
	int err, rc;

	if (git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) < 0) {
		err = error_set(ERR_APPLY, "cannot apply patch %s: %s", label, gitutil_error());
		goto out;
	}
	files = files_of(diff, &nfiles);
	if (git_commit_tree(&tree, parent) < 0)
		goto git_fail;
	if ((err = index_write_touched(tree, run.index, files, nfiles)) < 0 ||
	    (err = file_write_atomic_mode(run.patch, p->diff, strlen(p->diff),
					  KERNEL_CACHE_FILE_MODE)) < 0)
		goto out;
	/* As `git am -3`: straight first, then the three-way merge. */
	if ((rc = run_git_apply(t, &run, false)) == 1) {
		direct = gitrun_log_text(run.log);
		if ((err = index_write_touched(tree, run.index, files, nfiles)) < 0)
			goto out;
		rc = run_git_apply(t, &run, true);
	}
	if (rc < 0) {
		err = rc;
		goto out;
	}
	if (rc != 0) {
		merge = gitrun_log_text(run.log);
		err = apply_failure(label, direct ? direct : merge, merge);
		goto out;
	}
	if (git_index_open(&index, run.index) < 0)
		goto git_fail;
	if (git_index_has_conflicts(index)) {
		err = error_set(ERR_APPLY, "cannot apply patch %s: the three-way merge has conflicts",
				label);
		goto out;
	}
	json_object_object_add(note, "hunks", apply_read_placements(run.log, files, nfiles));
	if ((err = tree_from_index(repo, tree, run.index, files, nfiles, &tree_oid)) < 0)
		goto out;
	if (commit_patch(repo, p, parent, &tree_oid, out) < 0)
		goto git_fail;
	err = 0;
	goto out;
git_fail:
	err = error_set(ERR_GENERIC, "cannot commit patch %s: %s", label, gitutil_error());
out:
	unlink(run.index);
	unlink(run.patch);
	unlink(run.log);
	free(run.index);
	free(run.patch);
	free(run.log);
	free(files);
	free(label);
	free(direct);
	free(merge);
	git_index_free(index);
	git_tree_free(tree);
	git_diff_free(diff);
	return err;
}

/* One patch of a file on *commit, from the cache when it was applied before. */
static int apply_one(struct kernel_tree *t, const char *name, const struct patchfile *p,
		     bool tell, git_oid *commit)
{
	struct strbuf key_text = STRBUF_INIT, said = STRBUF_INIT;
	git_commit *parent = NULL;
	git_reference *ref = NULL;
	struct json_object *note = NULL;
	char parent_hex[GIT_OID_HEXSZ + 1], key_hex[GIT_OID_HEXSZ + 1], *ref_name, *label;
	git_oid key, out;
	int err = 0;

	/* What the commit is made of: its parent, author, date, message and diff. */
	git_oid_tostr(parent_hex, sizeof(parent_hex), commit);
	strbuf_addf(&key_text, "%s\n%s <%s> %lld %d\n%s\n%s", parent_hex, p->author_name,
		    p->author_email, (long long)p->author_time, p->author_tz, p->message, p->diff);
	git_odb_hash(&key, key_text.buf, key_text.len, GIT_OBJECT_BLOB);
	git_oid_tostr(key_hex, sizeof(key_hex), &key);
	ref_name = xasprintf(APPLIED_REF_PREFIX "%s", key_hex);
	label = patch_label(name, p);
	if (git_reference_name_to_id(&out, t->repo, ref_name) == 0 &&
	    (note = applied_note_read(t->repo, &out)))
		goto done;
	if (git_commit_lookup(&parent, t->repo, commit) < 0) {
		err = error_set(ERR_GENERIC, "cannot find commit %s: %s", parent_hex, gitutil_error());
		goto out;
	}
	note = json_object_new_object();
	{
		const char *nl = strchr(p->message, '\n');
		char *subject = xstrndup(p->message, nl ? (size_t)(nl - p->message) : strlen(p->message));

		json_object_object_add(note, "subject", jsonw_string(subject));
		free(subject);
	}
	json_object_object_add(note, "message", json_object_new_int64((int64_t)p->number));
	json_object_object_add(note, "of", json_object_new_int64((int64_t)p->count));
	if ((err = apply_patch(t, name, p, parent, note, &out)) < 0 ||
	    (err = applied_note_write(t->repo, &out, note)) < 0)
		goto out;
	if (git_reference_create(&ref, t->repo, ref_name, &out, 1, "fpubench: apply") < 0) {
		err = error_set(ERR_GENERIC, "cannot create '%s': %s", ref_name, gitutil_error());
		goto out;
	}
done:
	if (tell) {
		applied_note_text(&said, note);
		notice("applied patch %s as %.12s: %s", label, git_oid_tostr_s(&out), said.buf);
	}
	git_oid_cpy(commit, &out);
out:
	json_object_put(note);
	git_reference_free(ref);
	git_commit_free(parent);
	strbuf_release(&key_text);
	strbuf_release(&said);
	free(ref_name);
	free(label);
	return err;
}

static int apply_file(struct kernel_tree *t, const git_oid *parent, const char *patch_path,
		      const char *name, bool tell, git_oid *out)
{
	struct patchfile_list list = PATCHFILE_LIST_INIT;
	int err;

	if (!name)
		name = patch_path;
	if ((err = patchfile_read(&list, patch_path, name)) < 0)
		return err;
	git_oid_cpy(out, parent);
	for (size_t i = 0; i < list.n && !err; i++)
		if (!list.v[i].mail || (err = mailinfo_decode(t, name, &list.v[i])) == 0)
			err = apply_one(t, name, &list.v[i], tell, out);
	patchfile_list_release(&list);
	return err;
}

int apply_patch_file(struct kernel_tree *t, const git_oid *parent, const char *patch_path,
		      const char *name, git_oid *out)
{
	return apply_file(t, parent, patch_path, name, true, out);
}

int apply_series(struct kernel_tree *t, const struct series *s, size_t n,
			     git_oid *out)
{
	git_oid_cpy(out, &t->base);
	for (size_t i = 0; i < n; i++) {
		git_oid parent = *out;
		int err = apply_file(t, &parent, s->patches[i], NULL, false, out);
		if (err < 0)
			return err;
	}
	return 0;
}

struct json_object *apply_notes_json(const struct kernel_tree *t, const git_oid *commit)
{
	struct json_object *newest_first = NULL, *list = NULL, *note;
	git_commit *c = NULL;
	git_oid at;

	if (!t->repo)
		return NULL;
	git_oid_cpy(&at, commit);
	while ((note = applied_note_read(t->repo, &at))) {
		json_object_object_add(note, "commit", jsonw_string(git_oid_tostr_s(&at)));
		if (!newest_first)
			newest_first = json_object_new_array();
		json_object_array_add(newest_first, note);
		if (git_commit_lookup(&c, t->repo, &at) < 0 || git_commit_parentcount(c) == 0)
			break;
		git_oid_cpy(&at, git_commit_parent_id(c, 0));
		git_commit_free(c);
		c = NULL;
	}
	git_commit_free(c);
	error_clear();
	for (size_t i = newest_first ? json_object_array_length(newest_first) : 0; i > 0; i--) {
		if (!list)
			list = json_object_new_array();
		json_object_array_add(list, json_object_get(json_object_array_get_idx(newest_first, i - 1)));
	}
	json_object_put(newest_first);
	return list;
}

int apply_checkout(struct kernel_tree *t, const git_oid *commit)
{
	git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
	git_object *obj = NULL;
	int err = 0;

	/* FORCE rewrites only the files that differ, so make sees just those change. */
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_object_lookup(&obj, t->repo, commit, GIT_OBJECT_COMMIT) < 0 ||
	    git_checkout_tree(t->repo, obj, &opts) < 0 ||
	    git_repository_set_head_detached(t->repo, commit) < 0)
		err = error_set(ERR_GENERIC, "cannot check out %s in '%s': %s",
				git_oid_tostr_s(commit), t->path, gitutil_error());
	git_object_free(obj);
	return err;
}
