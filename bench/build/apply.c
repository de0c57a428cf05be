#include "apply.h"

#include "patchfile.h"
#include "series.h"
#include "tree.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define APPLIED_REF_PREFIX "refs/fpubench/applied/"

/* Names the first file of the diff that does not apply, for the message. */
static const char *failing_path(git_repository *repo, git_tree *tree, git_diff *diff)
{
	size_t n = git_diff_num_deltas(diff);

	for (size_t i = 0; i < n; i++) {
		git_patch *patch = NULL;
		git_buf buf = GIT_BUF_INIT_CONST(NULL, 0);
		git_diff *single = NULL;
		git_index *index = NULL;
		int bad = 1;

		if (git_patch_from_diff(&patch, diff, i) == 0 &&
		    git_patch_to_buf(&buf, patch) == 0 &&
		    git_diff_from_buffer(&single, buf.ptr, buf.size) == 0)
			bad = git_apply_to_tree(&index, repo, tree, single, NULL) < 0;
		git_index_free(index);
		git_diff_free(single);
		git_buf_dispose(&buf);
		git_patch_free(patch);
		if (bad)
			return git_diff_get_delta(diff, i)->old_file.path;
	}
	return NULL;
}

static int apply_diff(git_repository *repo, const char *name, const struct patchfile *p,
		      git_commit *parent, git_oid *out)
{
	git_diff *diff = NULL;
	git_tree *tree = NULL, *new_tree = NULL;
	git_index *index = NULL;
	git_signature *author = NULL, *committer = NULL;
	git_oid tree_oid;
	int err = ERR_APPLY;

	if (git_diff_from_buffer(&diff, p->diff, strlen(p->diff)) < 0) {
		error_set(ERR_APPLY, "cannot apply patch '%s': %s", name, gitutil_error());
		goto out;
	}
	if (git_commit_tree(&tree, parent) < 0)
		goto git_fail;
	if (git_apply_to_tree(&index, repo, tree, diff, NULL) < 0) {
		char *why = xstrdup(gitutil_error());
		const char *path = failing_path(repo, tree, diff);

		if (path)
			error_set(ERR_APPLY, "cannot apply patch '%s' to '%s': %s", name, path, why);
		else
			error_set(ERR_APPLY, "cannot apply patch '%s': %s", name, why);
		free(why);
		goto out;
	}
	if (git_index_write_tree_to(&tree_oid, index, repo) < 0 ||
	    git_tree_lookup(&new_tree, repo, &tree_oid) < 0 ||
	    git_signature_new(&author, p->author_name, p->author_email, p->author_time,
			      p->author_tz) < 0 ||
	    /* The committer's date is the author's, so the same series gives the same shas. */
	    git_signature_new(&committer, TREE_COMMITTER_NAME, TREE_COMMITTER_EMAIL, p->author_time,
			      p->author_tz) < 0 ||
	    git_commit_create(out, repo, NULL, author, committer, NULL, p->message, new_tree, 1,
			      (const git_commit **)&parent) < 0)
		goto git_fail;
	err = 0;
	goto out;
git_fail:
	err = error_set(ERR_GENERIC, "cannot commit patch '%s': %s", name, gitutil_error());
out:
	git_signature_free(author);
	git_signature_free(committer);
	git_index_free(index);
	git_tree_free(new_tree);
	git_tree_free(tree);
	git_diff_free(diff);
	return err;
}

int kernel_tree_apply(struct kernel_tree *t, const git_oid *parent, const char *patch_path,
		      git_oid *out)
{
	struct strbuf text = STRBUF_INIT, key_text = STRBUF_INIT;
	struct patchfile p = PATCHFILE_INIT;
	git_commit *parent_commit = NULL;
	git_reference *ref = NULL;
	char parent_hex[GIT_OID_HEXSZ + 1], key_hex[GIT_OID_HEXSZ + 1];
	git_oid key;
	char *ref_name = NULL;
	int err;

	if ((err = file_read(patch_path, &text)) < 0)
		goto out;
	git_oid_tostr(parent_hex, sizeof(parent_hex), parent);
	strbuf_addf(&key_text, "%s\n", parent_hex);
	strbuf_add(&key_text, text.buf, text.len);
	git_odb_hash(&key, key_text.buf, key_text.len, GIT_OBJECT_BLOB);
	git_oid_tostr(key_hex, sizeof(key_hex), &key);
	ref_name = xasprintf(APPLIED_REF_PREFIX "%s", key_hex);
	if (git_reference_name_to_id(out, t->repo, ref_name) == 0)
		goto out;

	if ((err = patchfile_parse(&p, patch_path, text.buf, text.len)) < 0)
		goto out;
	if (git_commit_lookup(&parent_commit, t->repo, parent) < 0) {
		err = error_set(ERR_GENERIC, "cannot find commit %s: %s", parent_hex, gitutil_error());
		goto out;
	}
	if ((err = apply_diff(t->repo, patch_path, &p, parent_commit, out)) < 0)
		goto out;
	if (git_reference_create(&ref, t->repo, ref_name, out, 1, "fpubench: apply") < 0)
		err = error_set(ERR_GENERIC, "cannot create '%s': %s", ref_name, gitutil_error());
out:
	git_reference_free(ref);
	git_commit_free(parent_commit);
	patchfile_release(&p);
	strbuf_release(&text);
	strbuf_release(&key_text);
	free(ref_name);
	return err;
}

int kernel_tree_apply_series(struct kernel_tree *t, const struct series *s, size_t n,
			     git_oid *out)
{
	git_oid_cpy(out, &t->base);
	for (size_t i = 0; i < n; i++) {
		git_oid parent = *out;
		int err = kernel_tree_apply(t, &parent, s->patches[i], out);
		if (err < 0)
			return err;
	}
	return 0;
}

int kernel_tree_checkout(struct kernel_tree *t, const git_oid *commit)
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
