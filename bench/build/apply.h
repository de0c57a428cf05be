/*
 * apply: patches as commits of a kernel tree's repository, and checkouts.
 *
 * Patches are applied as `git am -3` applies them: every patch of a patch
 * file (patchfile.h: an mbox, a maildir, one mail or diff) in order, each
 * as its own commit that keeps the patch's author, date and message, as
 * `git mailinfo` reads them from a mail (encoded names and subjects, an
 * in-body From:); the committer's date is the author's, so the same
 * series gives the same commits.  git itself places the hunks (`git apply --cached`, run with
 * an argv array): where its context is, at an offset when the lines moved,
 * never with fuzz; when that fails and the patch's "index A..B" line names
 * a blob the repository has, by a three-way merge from it (`--3way`).  A
 * merge with conflicts is refused, as `git am -3` stops on one.
 *
 * git works on a throwaway index holding only the files the patch
 * touches, built from the parent's tree, so a patch costs one or two
 * short git runs whatever the size of the tree; its result is written
 * back as a tree with libgit2.  (Measured on Debian's 6.1 tree: see
 * bench/OPTIMISATIONS.md, "Patches through git apply".)
 *
 * How each hunk was placed ("exact", "offset" with its line count,
 * "three-way") is kept as JSON in a git note on the patch's commit
 * (refs/notes/fpubench/applied), so it is known again when the commit
 * comes from the cache: apply_notes_json() gathers the notes of a
 * kernel's patches for its record.  A patch's commit is remembered under
 * refs/fpubench/applied/<hash of parent and patch>, so the same series on
 * the same base is applied once.  Only a build checks a commit out.
 */
#ifndef FPUBENCH_APPLY_H
#define FPUBENCH_APPLY_H

#include <git2.h>
#include <json-c/json.h>
#include <stddef.h>

struct kernel_tree;
struct series;

/*
 * Applies every patch of the file or maildir at patch_path on `parent`;
 * *out is the last one's commit.  Says (notice()) how each patch was
 * placed.  Messages name the file `name` (as the user gave it, "-" for
 * standard input; NULL: patch_path).  ERR_APPLY names the patch file, the
 * message and the file that did not apply; ERR_INPUT a file that holds no
 * patch or holds junk.
 */
int apply_patch_file(struct kernel_tree *t, const git_oid *parent,
		      const char *patch_path, const char *name, git_oid *out);

/* Applies the patches of the first n patch files of the series on the base, quietly. */
int apply_series(struct kernel_tree *t, const struct series *s, size_t n,
			     git_oid *out);

/*
 * The patches applied below `commit` (its first parents back to the
 * first commit the bench did not apply), oldest first, as a JSON array of
 * each patch's note: {"subject", "message", "of", "commit", "hunks":
 * [{"file", "hunk", "placed", "offset"}]}.  NULL when there is none.
 */
struct json_object *apply_notes_json(const struct kernel_tree *t, const git_oid *commit);

/* Checks `commit` out in the tree's work tree, rewriting only the files that differ. */
int apply_checkout(struct kernel_tree *t, const git_oid *commit);

#endif
