/*
 * Helpers the provenance tests share: throwaway repositories built with
 * libgit2 in temporary directories, and git itself run with an argv
 * array (fork and exec, never a shell) to compare with.  Everything here
 * asserts instead of returning errors: a helper that fails fails the test.
 */
#ifndef TEST_PROVENANCE_REPO_H
#define TEST_PROVENANCE_REPO_H

#include "provenance/archive.h"
#include "lib/array.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <ftw.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct test_file {
	const char *path;
	const char *data;	/* NULL removes the path */
	size_t len;		/* 0: strlen(data) */
	git_filemode_t mode;	/* 0: a regular file */
};

static inline char *test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = xasprintf("%s/fpubench-prov-XXXXXX", base && *base ? base : "/tmp");

	assert_non_null(mkdtemp(dir));
	return dir;
}

static inline int test_rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static inline void test_rmtree(const char *dir)
{
	nftw(dir, test_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline git_repository *test_repo_new(char **dir)
{
	git_repository *repo;

	*dir = test_tmpdir();
	assert_int_equal(git_repository_init(&repo, *dir, 0), 0);
	return repo;
}

/* Points HEAD's branch at id, whatever it pointed at before. */
static inline void test_set_head(git_repository *repo, const git_oid *id)
{
	git_reference *head, *ref;

	assert_int_equal(git_reference_lookup(&head, repo, "HEAD"), 0);
	assert_int_equal(git_reference_create(&ref, repo, git_reference_symbolic_target(head), id, 1,
					      NULL), 0);
	git_reference_free(ref);
	git_reference_free(head);
}

/* A commit on top of parent (NULL: a root commit) with files changed as listed; HEAD moves to it. */
static inline git_oid test_commit(git_repository *repo, const git_oid *parent,
				  const struct test_file *files, size_t n, const char *message,
				  const char *author, const char *email, git_time_t when)
{
	git_index *index;
	git_commit *parent_commit = NULL;
	git_tree *tree = NULL;
	git_signature *sig;
	git_oid tree_id, id;

	assert_int_equal(git_index_new(&index), 0);
	if (parent) {
		assert_int_equal(git_commit_lookup(&parent_commit, repo, parent), 0);
		assert_int_equal(git_commit_tree(&tree, parent_commit), 0);
		assert_int_equal(git_index_read_tree(index, tree), 0);
		git_tree_free(tree);
	}
	for (size_t i = 0; i < n; i++) {
		if (!files[i].data) {
			assert_int_equal(git_index_remove_bypath(index, files[i].path), 0);
			continue;
		}
		git_index_entry e = { 0 };
		e.path = files[i].path;
		e.mode = files[i].mode ? files[i].mode : GIT_FILEMODE_BLOB;
		size_t len = files[i].len ? files[i].len : strlen(files[i].data);
		/* A gitlink's data is the commit it points at. */
		if (e.mode == GIT_FILEMODE_COMMIT)
			assert_int_equal(git_oid_fromstr(&e.id, files[i].data), 0);
		else
			assert_int_equal(git_blob_create_from_buffer(&e.id, repo, files[i].data, len), 0);
		assert_int_equal(git_index_add(index, &e), 0);
	}
	assert_int_equal(git_index_write_tree_to(&tree_id, index, repo), 0);
	assert_int_equal(git_tree_lookup(&tree, repo, &tree_id), 0);
	assert_int_equal(git_signature_new(&sig, author, email, when, 60), 0);
	const git_commit *parents[1] = { parent_commit };
	assert_int_equal(git_commit_create(&id, repo, NULL, sig, sig, NULL, message, tree,
					   parent ? 1 : 0, parents), 0);
	test_set_head(repo, &id);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(parent_commit);
	git_index_free(index);
	return id;
}

/* A commit that applies a git diff to parent's tree. */
static inline git_oid test_commit_diff(git_repository *repo, const git_oid *parent,
				       const char *diff_text, const char *message, const char *author,
				       const char *email, git_time_t when)
{
	git_commit *parent_commit;
	git_tree *tree, *new_tree;
	git_index *index;
	git_diff *diff;
	git_signature *sig;
	git_oid tree_id, id;

	assert_int_equal(git_commit_lookup(&parent_commit, repo, parent), 0);
	assert_int_equal(git_commit_tree(&tree, parent_commit), 0);
	assert_int_equal(git_diff_from_buffer(&diff, diff_text, strlen(diff_text)), 0);
	assert_int_equal(git_apply_to_tree(&index, repo, tree, diff, NULL), 0);
	assert_int_equal(git_index_write_tree_to(&tree_id, index, repo), 0);
	assert_int_equal(git_tree_lookup(&new_tree, repo, &tree_id), 0);
	assert_int_equal(git_signature_new(&sig, author, email, when, 60), 0);
	const git_commit *parents[1] = { parent_commit };
	assert_int_equal(git_commit_create(&id, repo, NULL, sig, sig, NULL, message, new_tree, 1,
					   parents), 0);
	test_set_head(repo, &id);
	git_signature_free(sig);
	git_tree_free(new_tree);
	git_index_free(index);
	git_diff_free(diff);
	git_tree_free(tree);
	git_commit_free(parent_commit);
	return id;
}

/*
 * Runs git with argv (argv[0] is "git") in dir, stdin from in_path (NULL:
 * /dev/null), and returns its stdout.  No user or system configuration.
 */
static inline char *test_run_git(const char *dir, const char *const *argv, const char *in_path)
{
	char *out_path = xasprintf("%s/.git-out", dir);
	struct strbuf out = STRBUF_INIT;
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || fd < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || chdir(dir) < 0)
			_exit(127);
		setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
		setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(file_read(out_path, &out), 0);
	unlink(out_path);
	free(out_path);
	return strbuf_detach(&out);
}

/*
 * The fixture story: the mails of tests/fixtures/provenance/ and a
 * repository whose commits are what was applied from them.
 */
#define FIXTURES "tests/fixtures/provenance/"
#define ADA "Ada Lovelace", "ada@example.org"
#define DAVE "Dave Hacker", "dave@example.net"

static const char *const tree_files[] = {
	"arch/x86/kernel/fpu/core.c",
	"arch/x86/include/asm/fpu/internal.h",
	"arch/x86/include/asm/i387.h",
};

static const char *const archives[] = {
	FIXTURES "series.mbox", FIXTURES "resend.mbox", FIXTURES "multipart-crlf.mbox",
	FIXTURES "maintainer-edit.mbox", FIXTURES "seed.mbox",
};

/* The commits of the fixture story, in the order they were applied. */
enum { A, B, C, D, E, F, G, BASE, NCOMMITS };

static inline const struct mail *mail_by_id(const struct archive *a, const char *id)
{
	for (size_t i = 0; i < a->nmails; i++)
		if (a->mails[i]->message_id && strcmp(a->mails[i]->message_id, id) == 0)
			return a->mails[i];
	fail_msg("no mail '%s' in the fixtures", id);
	return NULL;
}

static inline size_t mail_index(const struct archive *a, const char *id)
{
	const struct mail *m = mail_by_id(a, id);

	for (size_t i = 0; i < a->nmails; i++)
		if (a->mails[i] == m)
			return i;
	return SIZE_MAX;
}

static inline char *read_fixture(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(file_read(path, &sb), 0);
	return strbuf_detach(&sb);
}

static inline void test_story_archive(struct archive *a)
{
	for (size_t i = 0; i < ARRAY_SIZE(archives); i++)
		assert_int_equal(archive_add(a, archives[i]), 0);
	assert_int_equal(a->skipped, 0);
}

static inline void test_story_commits(git_repository *repo, const struct archive *a, git_oid *c)
{
	struct test_file base[3];
	char *text[3], *edit, *fuzzy;

	for (size_t i = 0; i < 3; i++) {
		char *path = xasprintf(FIXTURES "tree/%s", tree_files[i]);
		text[i] = read_fixture(path);
		base[i] = (struct test_file){ tree_files[i], text[i], 0, 0 };
		free(path);
	}
	c[BASE] = test_commit(repo, NULL, base, 3, "base\n", "Base", "base@example.org", 1700000000);
	c[A] = test_commit_diff(repo, &c[BASE],
		mail_by_id(a, "20240115100000.3000-1-ada@example.org")->patch,
		"x86/fpu: Use FNSAVE for the legacy save path\n\nUse FNSAVE.\n\n"
		"Signed-off-by: Ada Lovelace <ada@example.org>\n"
		"Link: https://lore.kernel.org/r/20240115100000.3000-1-ada@example.org\n",
		ADA, 1705300000);
	c[B] = test_commit_diff(repo, &c[A],
		mail_by_id(a, "20240115100000.3000-2-ada@example.org")->patch,
		"x86/fpu: Say why frstor() waits\n\nSay so.\n\n"
		"Signed-off-by: Ada Lovelace <ada@example.org>\n"
		"Link: https://patch.msgid.link/20240108100000.2000-2-ada@example.org\n",
		ADA, 1705300100);
	c[C] = test_commit_diff(repo, &c[B], mail_by_id(a, "20240110.dave-1@example.net")->patch,
		"x86/fpu: Drop a stale comment about FXSR\n\nSigned-off-by: Dave Hacker <dave@example.net>\n",
		DAVE, 1705500000);
	c[D] = test_commit_diff(repo, &c[C], mail_by_id(a, "87jzmultipart.fsf@example.com")->patch,
		"x86/fpu: Clear exceptions before FNINIT\n", "J\xc3\xbcrgen Gro\xc3\x9f",
		"jgross@example.com", 1705500100);
	edit = read_fixture(FIXTURES "applied-edit.diff");
	c[E] = test_commit_diff(repo, &c[D], edit,
		"x86/fpu: Check for FXSR before FXSAVE\n\nSigned-off-by: Dave Hacker <dave@example.net>\n"
		"[maintainer: use cpu_feature_enabled(), add a comment]\n", DAVE, 1705500200);
	fuzzy = read_fixture(FIXTURES "applied-fuzzy.diff");
	c[F] = test_commit_diff(repo, &c[E], fuzzy,
		"x86/fpu: Clear exceptions when the registers are reset\n", DAVE, 1705500300);
	c[G] = test_commit_diff(repo, &c[F],
		mail_by_id(a, "1302106003-366952-1-git-send-email-hans.rosenfeld@amd.com")->patch,
		"x86-32, fpu: Fix FPU exception handling on non-SSE systems\n\n"
		"This bug was introduced by commit 58a992b9cbaf449aeebd3575c3695a9eb5d95b5e:\n"
		"\tx86-32, fpu: Rewrite fpu_save_init()\n\n"
		"Link: http://lkml.kernel.org/r/1302106003-366952-1-git-send-email-hans.rosenfeld@amd.com\n",
		"Hans Rosenfeld", "hans.rosenfeld@amd.com", 1302105603);
	for (size_t i = 0; i < 3; i++)
		free(text[i]);
	free(edit);
	free(fuzzy);
}

#endif
