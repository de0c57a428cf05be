#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "provenance/facts.h"
#include "provenance/match.h"
#include "provenance/patchid.h"
#include "test_provenance_repo.h"
#include "lib/array.h"

/* git patch-id --stable of a text: the first id it prints, or "" for none. */
static char *git_patch_id(const char *text, size_t len)
{
	char *dir = test_tmpdir(), *in = xasprintf("%s/in", dir);
	const char *argv[] = { "git", "patch-id", "--stable", NULL };

	assert_int_equal(file_write_atomic(in, text, len), 0);
	char *out = test_run_git(dir, argv, in);
	char *space = strchr(out, ' ');
	if (space)
		*space = '\0';
	unlink(in);
	test_rmtree(dir);
	free(in);
	free(dir);
	return out;
}

static void check_text(const char *text, size_t len)
{
	char hex[GIT_OID_HEXSZ + 1], *expected = git_patch_id(text, len);
	git_oid id;

	patchid_from_text(&id, text, len);
	const char *ours = git_oid_is_zero(&id) ? "" : git_oid_tostr(hex, sizeof(hex), &id);
	if (strcmp(expected, ours) != 0)
		fail_msg("git says '%s', we say '%s' for:\n%.*s", expected, ours, (int)len, text);
	free(expected);
}

#define DIFF_F "diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n"
#define DIFF_G "diff --git a/g b/g\nindex 3333333..4444444 100644\n--- a/g\n+++ b/g\n"

static void test_text_equals_git(void **state)
{
	static const char *const texts[] = {
		/* A mail: message, diffstat, diff, signature. */
		"From: a@x\n\nMessage.\n---\n f | 2 +-\n\n" DIFF_F "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n"
		"-- \n2.39.5\n",
		DIFF_F "@@ -1 +1 @@\n-b\n+c\n",
		DIFF_F "@@ -1 +1,2 @@\n-b\n+c\n+d\n",
		DIFF_F "@@ -0,0 +1 @@\n+only\n",
		DIFF_F "@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n",
		DIFF_F "@@ -1,2 +1,2 @@\n-a \t b\n+c\n d\n" DIFF_G "@@ -5,2 +5,3 @@\n x\n+y\n z\n",
		"diff --git a/bin b/bin\nindex 1234567..89abcde 100644\nBinary files a/bin and b/bin differ\n"
		DIFF_F "@@ -1 +1 @@\n-b\n+c\n",
		"diff --git a/bin b/bin\nnew file mode 100644\nindex 0000000..89abcde\nGIT binary patch\n"
		"literal 3\nKcmZ?wW&i*H00031\n\nliteral 0\nHcmV?d00001\n\n",
		"diff --git a/m b/m\nold mode 100644\nnew mode 100755\n",
		"diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
		"diff --git a/a b/b\nsimilarity index 90%\nrename from a\nrename to b\nindex 1..2 100644\n"
		"--- a/a\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n",
		/* A second commit ends the first patch. */
		DIFF_F "@@ -1 +1 @@\n-b\n+c\ncommit 0123456789012345678901234567890123456789\n" DIFF_G
		"@@ -1 +1 @@\n-x\n+y\n",
		"no diff at all\n",
		"",
		DIFF_F "@@ -1,2 +1,2 @@\n-b\n",
		"plain diff -u output\n--- f.orig\t2024-01-01\n+++ f\t2024-01-01\n@@ -1 +1 @@\n-a\n+b\n",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		check_text(texts[i], strlen(texts[i]));
	/* A NUL in the text is where git's line ends. */
	check_text(DIFF_F "@@ -1 +1 @@\n-b\0junk\n+c\n", sizeof(DIFF_F "@@ -1 +1 @@\n-b\0junk\n+c\n") - 1);
}

static void test_file_order_and_white_space_do_not_matter(void **state)
{
	const char *a = DIFF_F "@@ -1 +1 @@\n-b\n+c\n" DIFF_G "@@ -1 +1 @@\n-x\n+y\n";
	const char *b = DIFF_G "@@ -1 +1 @@\n-x\n+  y\n" DIFF_F "@@ -1 +1 @@\n-b\n+c\n";
	git_oid x, y;

	(void)state;
	patchid_from_text(&x, a, strlen(a));
	patchid_from_text(&y, b, strlen(b));
	assert_true(git_oid_equal(&x, &y));
}

struct history {
	char *dir;
	git_repository *repo;
	git_oid tip;
};

static const char hundred[] =
	"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n"
	"26\n27\n28\n29\n30\n31\n32\n33\n34\n35\n36\n37\n38\n39\n40\n41\n42\n43\n44\n45\n46\n47\n48\n"
	"49\n50\n51\n52\n53\n54\n55\n56\n57\n58\n59\n60\n61\n62\n63\n64\n65\n66\n67\n68\n69\n70\n71\n"
	"72\n73\n74\n75\n76\n77\n78\n79\n80\n81\n82\n83\n84\n85\n86\n87\n88\n89\n90\n91\n92\n93\n94\n"
	"95\n96\n97\n98\n99\n100\n";

/* The cases where libgit2's patch-id and git patch-id --stable were seen to part ways, one commit each. */
static void build_corner_cases(struct history *h)
{
	git_repository *r = h->repo;
	const char *tail70 = strstr(hundred, "\n31\n") + 1;
	char *edited = xstrdup(hundred);
	edited[strstr(edited, "\n5\n") - edited + 1] = 'V';
	struct test_file root[] = { { "a.txt", hundred, 0, 0 }, { "bin.dat", "x\0y", 3, 0 } };
	struct test_file binmod[] = { { "bin.dat", "x\0z", 3, 0 } };
	struct test_file rename[] = { { "a.txt", NULL, 0, 0 }, { "b.txt", hundred, 0, 0 } };
	struct test_file rename_edit[] = { { "b.txt", NULL, 0, 0 }, { "c.txt", edited, 0, 0 } };
	struct test_file rename_cut[] = { { "c.txt", NULL, 0, 0 }, { "d.txt", tail70, 0, 0 } };
	struct test_file mode[] = { { "d.txt", tail70, 0, GIT_FILEMODE_BLOB_EXECUTABLE } };
	struct test_file empty[] = { { "empty", "", 0, 0 } };
	struct test_file empty_rename[] = { { "empty", NULL, 0, 0 }, { "empty2", "", 0, 0 } };
	struct test_file link[] = { { "link", "d.txt", 0, GIT_FILEMODE_LINK } };
	struct test_file gitlink[] = {
		{ "sub", "1234567890123456789012345678901234567890", 0, GIT_FILEMODE_COMMIT } };
	struct test_file gitlink_rm[] = { { "sub", NULL, 0, 0 } };
	/* Renames libgit2 alone shows otherwise: a binary file unchanged, symbolic links. */
	struct test_file bin_rename[] = { { "bin.dat", NULL, 0, 0 }, { "bin2.dat", "x\0z", 3, 0 } };
	struct test_file bin_rename_mode[] = {
		{ "bin2.dat", NULL, 0, 0 }, { "bin3.dat", "x\0z", 3, GIT_FILEMODE_BLOB_EXECUTABLE } };
	struct test_file links[] = {
		{ "l/a", "d.txt", 0, GIT_FILEMODE_LINK }, { "l/b", "d.txt", 0, GIT_FILEMODE_LINK },
		{ "l/s/a", "d.txt", 0, GIT_FILEMODE_LINK }, { "l/\xc3\xa4\t\"", "x", 0, GIT_FILEMODE_LINK } };
	struct test_file links_rename[] = {
		{ "l/a", NULL, 0, 0 }, { "l/b", NULL, 0, 0 }, { "l/s/a", NULL, 0, 0 },
		{ "l/\xc3\xa4\t\"", NULL, 0, 0 }, { "m/a", "d.txt", 0, GIT_FILEMODE_LINK },
		{ "m/b", "d.txt", 0, GIT_FILEMODE_LINK }, { "m/c", "d.txt", 0, GIT_FILEMODE_LINK },
		{ "m/\xc3\xb6\\", "x", 0, GIT_FILEMODE_LINK } };
	struct test_file link_retarget[] = { { "m/a", NULL, 0, 0 }, { "m/z", "e.txt", 0, GIT_FILEMODE_LINK } };
	struct test_file bin_rm[] = { { "bin3.dat", NULL, 0, 0 } };
	struct { struct test_file *f; size_t n; } steps[] = {
		{ binmod, 1 }, { rename, 2 }, { rename_edit, 2 }, { rename_cut, 2 }, { mode, 1 },
		{ empty, 1 }, { empty_rename, 2 }, { link, 1 }, { gitlink, 1 }, { gitlink_rm, 1 },
		{ bin_rename, 2 }, { bin_rename_mode, 2 }, { links, 4 }, { links_rename, 8 },
		{ link_retarget, 2 }, { bin_rm, 1 }, { NULL, 0 },
	};

	h->tip = test_commit(r, NULL, root, 2, "root\n", "a", "a@x", 1700000000);
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++)
		h->tip = test_commit(r, &h->tip, steps[i].f, steps[i].n, "step\n", "a", "a@x",
				     1700000001 + (git_time_t)i);
	free(edited);
}

/* Every commit's patch-id, as "<patch-id> <commit>\n" lines sorted like `sort`. */
static char *sorted_lines(char *text)
{
	size_t n = 0;
	char **lines = NULL;
	struct strbuf sb = STRBUF_INIT;

	for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n")) {
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = p;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			char *t = lines[j];
			lines[j] = lines[j - 1];
			lines[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s\n", lines[i]);
	free(lines);
	return strbuf_detach(&sb);
}

static char *our_patch_ids(git_repository *repo)
{
	git_revwalk *walk;
	git_oid id;
	struct strbuf sb = STRBUF_INIT;
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];

	assert_int_equal(git_revwalk_new(&walk, repo), 0);
	assert_int_equal(git_revwalk_push_head(walk), 0);
	while (git_revwalk_next(&id, walk) == 0) {
		git_commit *c;
		git_oid pid;
		assert_int_equal(git_commit_lookup(&c, repo, &id), 0);
		assert_int_equal(patchid_from_commit(&pid, repo, c), 0);
		if (!git_oid_is_zero(&pid))
			strbuf_addf(&sb, "%s %s\n", git_oid_tostr(a, sizeof(a), &pid),
				    git_oid_tostr(b, sizeof(b), &id));
		git_commit_free(c);
	}
	git_revwalk_free(walk);
	char *sorted = sorted_lines(sb.buf);
	strbuf_release(&sb);
	return sorted;
}

static char *git_patch_ids(const char *dir)
{
	const char *log[] = { "git", "log", "-p", "--format=commit %H", NULL };
	const char *pid[] = { "git", "patch-id", "--stable", NULL };
	char *in = xasprintf("%s/.git/log-p", dir);
	char *text = test_run_git(dir, log, NULL);

	assert_int_equal(file_write_atomic(in, text, strlen(text)), 0);
	char *ids = test_run_git(dir, pid, in);
	char *sorted = sorted_lines(ids);
	free(ids);
	free(text);
	free(in);
	return sorted;
}

static void test_commits_equal_git(void **state)
{
	struct history h;

	(void)state;
	h.repo = test_repo_new(&h.dir);
	build_corner_cases(&h);
	char *ours = our_patch_ids(h.repo), *theirs = git_patch_ids(h.dir);
	assert_string_equal(ours, theirs);
	free(ours);
	free(theirs);
	git_repository_free(h.repo);
	test_rmtree(h.dir);
	free(h.dir);
}

/* Why patchid.c hashes the patch itself: git_diff_patchid() leaves binary files out. */
static void test_libgit2_patchid_differs_from_git(void **state)
{
	struct history h;
	git_commit *c, *p;
	git_tree *t, *pt;
	git_diff *diff;
	git_oid theirs, ours;

	(void)state;
	h.repo = test_repo_new(&h.dir);
	struct test_file one[] = { { "bin.dat", "x\0y", 3, 0 } }, two[] = { { "bin.dat", "x\0z", 3, 0 } };
	git_oid first = test_commit(h.repo, NULL, one, 1, "1\n", "a", "a@x", 1700000000);
	git_oid second = test_commit(h.repo, &first, two, 1, "2\n", "a", "a@x", 1700000001);
	assert_int_equal(git_commit_lookup(&c, h.repo, &second), 0);
	assert_int_equal(git_commit_parent(&p, c, 0), 0);
	assert_int_equal(git_commit_tree(&t, c), 0);
	assert_int_equal(git_commit_tree(&pt, p), 0);
	assert_int_equal(git_diff_tree_to_tree(&diff, h.repo, pt, t, NULL), 0);
	assert_int_equal(git_diff_patchid(&theirs, diff, NULL), 0);
	assert_int_equal(patchid_from_commit(&ours, h.repo, c), 0);
	assert_false(git_oid_equal(&theirs, &ours));
	char *expected = git_patch_ids(h.dir), hex[GIT_OID_HEXSZ + 1];
	assert_non_null(strstr(expected, git_oid_tostr(hex, sizeof(hex), &ours)));
	assert_null(strstr(expected, git_oid_tostr(hex, sizeof(hex), &theirs)));
	free(expected);
	git_diff_free(diff);
	git_tree_free(pt);
	git_tree_free(t);
	git_commit_free(p);
	git_commit_free(c);
	git_repository_free(h.repo);
	test_rmtree(h.dir);
	free(h.dir);
}

static void test_merges_and_empty_commits_have_none(void **state)
{
	struct history h;
	git_commit *c, *parents[2];
	git_signature *sig;
	git_tree *tree;
	git_oid merge, pid;

	(void)state;
	h.repo = test_repo_new(&h.dir);
	struct test_file f1[] = { { "f", "1\n", 0, 0 } }, f2[] = { { "g", "2\n", 0, 0 } };
	git_oid base = test_commit(h.repo, NULL, f1, 1, "base\n", "a", "a@x", 1700000000);
	git_oid left = test_commit(h.repo, &base, f2, 1, "left\n", "a", "a@x", 1700000001);
	git_oid empty = test_commit(h.repo, &left, NULL, 0, "empty\n", "a", "a@x", 1700000002);
	assert_int_equal(git_commit_lookup(&parents[0], h.repo, &empty), 0);
	assert_int_equal(git_commit_lookup(&parents[1], h.repo, &base), 0);
	assert_int_equal(git_commit_tree(&tree, parents[0]), 0);
	assert_int_equal(git_signature_new(&sig, "a", "a@x", 1700000003, 0), 0);
	assert_int_equal(git_commit_create(&merge, h.repo, NULL, sig, sig, NULL, "merge\n", tree, 2,
					   (const git_commit **)parents), 0);
	assert_int_equal(git_commit_lookup(&c, h.repo, &merge), 0);
	assert_int_equal(patchid_from_commit(&pid, h.repo, c), 0);
	assert_true(git_oid_is_zero(&pid));
	assert_int_equal(patchid_from_commit(&pid, h.repo, parents[0]), 0);
	assert_true(git_oid_is_zero(&pid));
	git_commit_free(c);
	git_commit_free(parents[0]);
	git_commit_free(parents[1]);
	git_tree_free(tree);
	git_signature_free(sig);
	git_repository_free(h.repo);
	test_rmtree(h.dir);
	free(h.dir);
}

/*
 * The diff reads only the subtrees that changed: with an unchanged
 * directory's tree object gone from the repository, the patch-id is still
 * git's.  (libgit2's own tree-to-tree diff reads every tree.)
 */
static void test_unchanged_subtrees_are_not_read(void **state)
{
	struct history h;
	git_commit *c, *base_commit;
	git_tree *tree;
	git_oid pid, want;

	(void)state;
	h.repo = test_repo_new(&h.dir);
	struct test_file f1[] = { { "dir/sub/x", "x\n", 0, 0 }, { "f", "1\n", 0, 0 } };
	struct test_file f2[] = { { "f", "2\n", 0, 0 } };
	git_oid base = test_commit(h.repo, NULL, f1, 2, "base\n", "a", "a@x", 1700000000);
	git_oid tip = test_commit(h.repo, &base, f2, 1, "change f\n", "a", "a@x", 1700000001);
	assert_int_equal(git_commit_lookup(&c, h.repo, &tip), 0);
	assert_int_equal(patchid_from_commit(&want, h.repo, c), 0);
	git_commit_free(c);
	git_repository_free(h.repo);

	assert_int_equal(git_repository_open(&h.repo, h.dir), 0);
	assert_int_equal(git_commit_lookup(&base_commit, h.repo, &base), 0);
	assert_int_equal(git_commit_tree(&tree, base_commit), 0);
	const git_oid *dir = git_tree_entry_id(git_tree_entry_byname(tree, "dir"));
	char hex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(hex, sizeof(hex), dir);
	char *loose = xasprintf("%s/.git/objects/%.2s/%s", h.dir, hex, hex + 2);
	assert_int_equal(unlink(loose), 0);
	git_tree_free(tree);
	git_commit_free(base_commit);
	git_repository_free(h.repo);

	assert_int_equal(git_repository_open(&h.repo, h.dir), 0);
	assert_int_equal(git_commit_lookup(&c, h.repo, &tip), 0);
	assert_int_equal(patchid_from_commit(&pid, h.repo, c), 0);
	assert_true(git_oid_equal(&pid, &want));
	git_commit_free(c);
	git_repository_free(h.repo);
	test_rmtree(h.dir);
	free(loose);
	free(h.dir);
}

/* A shallow clone's last commit is a root to git, whatever parents it names. */
static void test_shallow_clone_cut_is_a_root(void **state)
{
	struct history h;
	char *clone = NULL, hex[GIT_OID_HEXSZ + 1];
	git_repository *repo;
	git_commit *c;
	git_oid pid;

	(void)state;
	h.repo = test_repo_new(&h.dir);
	build_corner_cases(&h);
	clone = xasprintf("%s/shallow", h.dir);
	char *url = xasprintf("file://%s", h.dir);
	const char *argv[] = { "git", "clone", "-q", "--depth", "1", url, clone, NULL };
	free(test_run_git(h.dir, argv, NULL));
	assert_int_equal(git_repository_open(&repo, clone), 0);
	assert_int_equal(git_commit_lookup(&c, repo, &h.tip), 0);
	assert_int_equal(patchid_from_commit(&pid, repo, c), 0);
	char *expected = git_patch_ids(clone);
	assert_non_null(strstr(expected, git_oid_tostr(hex, sizeof(hex), &pid)));
	free(expected);
	git_commit_free(c);
	git_repository_free(repo);
	free(url);
	free(clone);
	git_repository_free(h.repo);
	test_rmtree(h.dir);
	free(h.dir);
}

/*
 * Moving a function makes myers and patience diff differently: the poster's
 * git may have used either.  The commit's patience patch-id is git's, and
 * a posting made with `git format-patch --patience` is found by it.
 */
static void test_patch_ids_under_other_diff_algorithms(void **state)
{
	static const char before[] = "void a()\n{\n\tfoo();\n}\n\nvoid b()\n{\n\tbar();\n}\n\n"
				     "void c()\n{\n\tbaz();\n}\n";
	static const char after[] = "void a()\n{\n\tfoo();\n}\n\nvoid c()\n{\n\tbaz();\n}\n\n"
				    "void b()\n{\n\tbar();\n}\n\nvoid d()\n{\n\tqux();\n}\n";
	struct history h;
	struct test_file f1[] = { { "f.c", before, 0, 0 } }, f2[] = { { "f.c", after, 0, 0 } };
	git_oid ids[PATCHID_NVARIANTS];
	git_commit *c;
	char hex[GIT_OID_HEXSZ + 1];

	(void)state;
	h.repo = test_repo_new(&h.dir);
	git_oid base = test_commit(h.repo, NULL, f1, 1, "base\n", "a", "a@x", 1700000000);
	git_oid tip = test_commit(h.repo, &base, f2, 1, "f: move c before b\n", "Ada", "ada@x",
				  1700000001);
	assert_int_equal(git_commit_lookup(&c, h.repo, &tip), 0);
	/* A user's setting that would change `git show`'s diff, which the bench overrides. */
	const char *noprefix[] = { "git", "config", "diff.noprefix", "true", NULL };
	const char *unset[] = { "git", "config", "--unset", "diff.noprefix", NULL };
	free(test_run_git(h.dir, noprefix, NULL));
	assert_int_equal(patchid_variants(ids, h.repo, c), 0);
	free(test_run_git(h.dir, unset, NULL));
	git_oid_tostr(hex, sizeof(hex), &tip);
	const char *show[] = { "git", "show", "--patience", hex, NULL };
	char *text = test_run_git(h.dir, show, NULL), *patience = git_patch_id(text, strlen(text));
	assert_string_equal(patchid_variant_name(2), "patience");
	assert_string_equal(git_oid_tostr(hex, sizeof(hex), &ids[2]), patience);
	assert_false(git_oid_equal(&ids[0], &ids[2]));
	free(patience);
	free(text);
	/* libgit2 has no histogram: git itself diffs those two, whatever the user's config says. */
	for (size_t v = 6; v < 8; v++) {
		const char *hist[] = { "git", "-c", "diff.noprefix=false", "show", "--histogram",
				       v == 6 ? "--indent-heuristic" : "--no-indent-heuristic", hex, NULL };
		char *histogram;

		git_oid_tostr(hex, sizeof(hex), &tip);
		text = test_run_git(h.dir, hist, NULL);
		histogram = git_patch_id(text, strlen(text));
		assert_string_equal(patchid_variant_name(v),
				    v == 6 ? "histogram" : "histogram --no-indent-heuristic");
		assert_string_equal(git_oid_tostr(hex, sizeof(hex), &ids[v]), histogram);
		free(histogram);
		free(text);
	}

	/* The posting, as the poster's git made it. */
	git_oid_tostr(hex, sizeof(hex), &tip);
	const char *fp[] = { "git", "format-patch", "--stdout", "--patience", "-1", hex, NULL };
	char *mbox = test_run_git(h.dir, fp, NULL);
	struct archive a = ARCHIVE_INIT;
	struct commit_facts *facts;
	archive_add_mbox(&a, mbox, strlen(mbox));
	assert_int_equal(a.nmails, 1);
	struct match_index *idx = match_index_new(a.mails, a.nmails);
	assert_int_equal(facts_read(&facts, h.repo, &tip, FACTS_CHANGES), 0);
	struct match_result *r = match_commit(idx, facts);
	/* Without the other patch-ids the subject finds it, less surely. */
	assert_int_equal(r->npostings, 1);
	assert_int_equal(r->postings[0].method, MATCH_SUBJECT);
	match_result_free(r);
	facts_free(facts);
	assert_int_equal(facts_read(&facts, h.repo, &tip, FACTS_CHANGES | FACTS_PATCH_VARIANTS), 0);
	r = match_commit(idx, facts);
	assert_int_equal(r->npostings, 1);
	assert_int_equal(r->postings[0].method, MATCH_PATCH_ID_VARIANT);
	assert_string_equal(r->postings[0].variant, "patience");
	assert_string_equal(match_method_name(r->postings[0].method), "patch-id-other-diff");
	match_result_free(r);
	facts_free(facts);
	match_index_free(idx);
	archive_release(&a);
	free(mbox);
	git_commit_free(c);
	git_repository_free(h.repo);
	test_rmtree(h.dir);
	free(h.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_equals_git),
		cmocka_unit_test(test_file_order_and_white_space_do_not_matter),
		cmocka_unit_test(test_commits_equal_git),
		cmocka_unit_test(test_libgit2_patchid_differs_from_git),
		cmocka_unit_test(test_merges_and_empty_commits_have_none),
		cmocka_unit_test(test_unchanged_subtrees_are_not_read),
		cmocka_unit_test(test_patch_ids_under_other_diff_algorithms),
		cmocka_unit_test(test_shallow_clone_cut_is_a_root),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
