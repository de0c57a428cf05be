#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/array.h"
#include "lib/error.h"
#include "provenance/facts.h"
#include "test_provenance_repo.h"

/*
 * The property test: a generated history of COMMITS commits with varied
 * diffs (several files and hunks, renames with and without edits,
 * renames git does not see as renames, mode changes, binary files,
 * empty files, symlinks, gitlinks, names that sort differently as paths
 * and as strings, merges) and varied trailer blocks.  Every commit's
 * Link values must equal `git log --format='%(trailers:key=Link,valueonly)'`
 * and every patch-id `git log -p | git patch-id --stable`.
 */
#define COMMITS 240
#define MAX_FILES 64

struct gen_file {
	char *path;
	struct strbuf data;
	git_filemode_t mode;
	bool live;
};

struct gen {
	uint64_t seed;
	struct gen_file files[MAX_FILES];
	size_t nfiles;
	unsigned serial;
};

static unsigned rnd(struct gen *g, unsigned n)
{
	g->seed = g->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((g->seed >> 33) % n);
}

static void text_lines(struct gen *g, struct strbuf *sb, unsigned n)
{
	static const char *const words[] = { "fpu", "save", "state", "fnsave", "fwait", "regs",
					     "\tif (x)", "return 0;", "}", "", "  indented",
					     "trailing space ", "tab\there" };
	for (unsigned i = 0; i < n; i++)
		strbuf_addf(sb, "%s %u %s\n", words[rnd(g, 13)], rnd(g, 1000),
			    words[rnd(g, 13)]);
}

static struct gen_file *new_file(struct gen *g, const char *dir, git_filemode_t mode)
{
	static const char *const names[] = { "a-b.c", "a.b", "a_b", "A.c", "core.c", "fpu.h",
					     "x", "z.txt" };
	struct gen_file *f = &g->files[g->nfiles++];

	f->path = xasprintf("%s%s%u%s", dir, names[rnd(g, 8)], g->serial++, rnd(g, 2) ? "" : ".in");
	strbuf_init(&f->data);
	f->mode = mode;
	f->live = true;
	return f;
}

static struct gen_file *pick(struct gen *g, git_filemode_t mode)
{
	for (unsigned tries = 0; tries < 64; tries++) {
		struct gen_file *f = &g->files[rnd(g, (unsigned)g->nfiles)];
		if (f->live && f->mode == mode)
			return f;
	}
	return NULL;
}

/* Replaces, inserts or deletes a few lines at a few places. */
static void edit_text(struct gen *g, struct strbuf *sb, unsigned hunks)
{
	for (unsigned h = 0; h < hunks; h++) {
		size_t lines = 0, at, from = 0, to;
		for (size_t i = 0; i < sb->len; i++)
			lines += sb->buf[i] == '\n';
		at = lines ? rnd(g, (unsigned)lines) : 0;
		for (size_t i = 0, l = 0; i < sb->len && l < at; i++)
			if (sb->buf[i] == '\n' && ++l == at)
				from = i + 1;
		to = from;
		for (unsigned d = rnd(g, 3); d && to < sb->len; d--) {
			const char *nl = memchr(sb->buf + to, '\n', sb->len - to);
			to = nl ? (size_t)(nl - sb->buf) + 1 : sb->len;
		}
		struct strbuf out = STRBUF_INIT;
		strbuf_add(&out, sb->buf, from);
		text_lines(g, &out, rnd(g, 4));
		strbuf_add(&out, sb->buf + to, sb->len - to);
		strbuf_release(sb);
		*sb = out;
	}
}

static const char *const trailer_blocks[] = {
	"Signed-off-by: A <a@x>\n",
	"Link: https://lore.kernel.org/r/%u.1-1-a@x\nSigned-off-by: A <a@x>\n",
	("Signed-off-by: A <a@x>\nLink: https://patch.msgid.link/%u@x\n"
	 "Link: https://bugzilla.kernel.org/show_bug.cgi?id=%u\n"),
	"Link: http://lkml.kernel.org/r/%u-git-send-email-a@x\n",
	"link: https://lore.kernel.org/all/%u@x/T/#u   \nLink :\n  https://folded/%u\n",
	"Link: https://lore.kernel.org/r/%u@x\nnot a trailer\nstill not\nSigned-off-by: A <a@x>\n",
	"Link: https://lore.kernel.org/r/%u@x\nnot a trailer\nstill not\nnor this\nSigned-off-by: A\n",
	"---\nLink: https://lore.kernel.org/r/%u@x\n",
	"Reviewed-by: R <r@x>\nLink: https://lore.kernel.org/r/%u@x\n\tcontinued\n",
	"Link: https://lore.kernel.org/r/%u@x\r\nSigned-off-by: A <a@x>\r\n",
	"(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)\nLink: https://x/%u\n",
};

static char *message(struct gen *g, unsigned i)
{
	struct strbuf sb = STRBUF_INIT;
	char *trailers = xasprintf(trailer_blocks[rnd(g, ARRAY_SIZE(trailer_blocks))], i, i);

	strbuf_addf(&sb, "x86/fpu: change %u\n\nBody of change %u.\n", i, i);
	if (rnd(g, 4) == 0)
		strbuf_addstr(&sb, "\nSee Link: in the middle of a paragraph.\n");
	strbuf_addf(&sb, "\n%s", trailers);
	free(trailers);
	return strbuf_detach(&sb);
}

static bool in_changes(const struct test_file *out, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].path == path)
			return true;
	return false;
}

/* One commit's worth of changes; out[] points into g, which stays unchanged until committed. */
static size_t mutate(struct gen *g, struct test_file *out, char **owned, size_t *nowned)
{
	size_t n = 0;
	unsigned what = rnd(g, 20);

	if (what < 9) {
		for (unsigned k = 1 + rnd(g, 4); k; k--) {
			struct gen_file *f = pick(g, GIT_FILEMODE_BLOB);
			if (f && !in_changes(out, n, f->path)) {
				edit_text(g, &f->data, 1 + rnd(g, 3));
				out[n++] = (struct test_file){ f->path, f->data.buf, f->data.len, f->mode };
			}
		}
	} else if (what < 12 && g->nfiles < MAX_FILES) {
		/* A rename: pure, lightly edited, or edited past what git calls a rename. */
		struct gen_file *f = pick(g, GIT_FILEMODE_BLOB), *t;
		if (!f)
			return 0;
		t = new_file(g, rnd(g, 2) ? "arch/" : "", f->mode);
		strbuf_add(&t->data, f->data.buf, f->data.len);
		unsigned kind = rnd(g, 3);
		if (kind == 1)
			edit_text(g, &t->data, 1);
		else if (kind == 2)
			edit_text(g, &t->data, 12);
		f->live = false;
		out[n++] = (struct test_file){ f->path, NULL, 0, 0 };
		out[n++] = (struct test_file){ t->path, t->data.buf, t->data.len, t->mode };
	} else if (what == 12) {
		struct gen_file *f = pick(g, rnd(g, 2) ? GIT_FILEMODE_BLOB : GIT_FILEMODE_BLOB_EXECUTABLE);
		if (!f)
			return 0;
		f->mode = f->mode == GIT_FILEMODE_BLOB ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
		if (rnd(g, 2))
			edit_text(g, &f->data, 1);
		out[n++] = (struct test_file){ f->path, f->data.buf, f->data.len, f->mode };
	} else if (what == 13) {
		/* A binary file, changed or new. */
		struct gen_file *f = rnd(g, 2) || g->nfiles == MAX_FILES ? &g->files[0] :
				     new_file(g, "fw/", GIT_FILEMODE_BLOB);
		strbuf_reset(&f->data);
		for (unsigned i = 0; i < 64; i++)
			strbuf_addch(&f->data, (char)(i == 3 ? 0 : rnd(g, 256)));
		out[n++] = (struct test_file){ f->path, f->data.buf, f->data.len, f->mode };
	} else if (what == 14 && g->nfiles < MAX_FILES) {
		struct gen_file *f = new_file(g, "", GIT_FILEMODE_BLOB);
		if (rnd(g, 2))
			text_lines(g, &f->data, 1 + rnd(g, 30));
		/* An empty new file has no hunks, which git prints differently. */
		out[n++] = (struct test_file){ f->path, f->data.len ? f->data.buf : "", f->data.len,
					       f->mode };
	} else if (what == 15) {
		struct gen_file *f = pick(g, GIT_FILEMODE_BLOB);
		if (f && g->nfiles > 8) {
			f->live = false;
			out[n++] = (struct test_file){ f->path, NULL, 0, 0 };
		}
	} else if (what == 16 && g->nfiles < MAX_FILES) {
		struct gen_file *f = new_file(g, "", GIT_FILEMODE_LINK);
		strbuf_addf(&f->data, "target-%u", rnd(g, 100));
		out[n++] = (struct test_file){ f->path, f->data.buf, f->data.len, f->mode };
	} else if (what == 17) {
		char *sha = xasprintf("%040x", rnd(g, 1u << 30));
		owned[(*nowned)++] = sha;
		out[n++] = (struct test_file){ "sub", sha, 0, GIT_FILEMODE_COMMIT };
	} else {
		/* Several files, several hunks, in one commit. */
		for (unsigned k = 0; k < 3; k++) {
			struct gen_file *f = pick(g, GIT_FILEMODE_BLOB);
			if (f && !in_changes(out, n, f->path)) {
				edit_text(g, &f->data, 3);
				out[n++] = (struct test_file){ f->path, f->data.buf, f->data.len, f->mode };
			}
		}
	}
	return n;
}

/* A side commit off tip's parent, and a merge of it into tip that keeps tip's tree. */
static git_oid merge(git_repository *repo, const git_oid *tip, git_time_t when, git_oid *side_out)
{
	git_commit *c, *parent, *side_commit, *parents[2];
	git_signature *sig;
	git_tree *tree;
	git_oid side, out;
	struct test_file f = { "side.txt", "from a side branch\n", 0, 0 };

	assert_int_equal(git_commit_lookup(&c, repo, tip), 0);
	assert_int_equal(git_commit_parent(&parent, c, 0), 0);
	side = test_commit(repo, git_commit_id(parent), &f, 1,
			   "side\n\nLink: https://lore.kernel.org/r/side@x\n", "S", "s@x", when);
	*side_out = side;
	assert_int_equal(git_commit_lookup(&side_commit, repo, &side), 0);
	parents[0] = c;
	parents[1] = side_commit;
	assert_int_equal(git_commit_tree(&tree, c), 0);
	assert_int_equal(git_signature_new(&sig, "M", "m@x", when + 1, 0), 0);
	assert_int_equal(git_commit_create(&out, repo, NULL, sig, sig, NULL,
					   "Merge side\n\nLink: https://lore.kernel.org/r/merge@x\n",
					   tree, 2, (const git_commit **)parents), 0);
	test_set_head(repo, &out);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(side_commit);
	git_commit_free(parent);
	git_commit_free(c);
	return out;
}

struct history {
	char *dir;
	git_repository *repo;
	git_oid ids[COMMITS + 8];
	size_t n;
};

static void generate(struct history *h)
{
	struct gen g = { .seed = 2011 };
	struct test_file root[12];
	size_t nroot = 0;

	h->repo = test_repo_new(&h->dir);
	new_file(&g, "fw/", GIT_FILEMODE_BLOB);
	strbuf_add(&g.files[0].data, "\x7f" "ELF\0\1\2", 7);
	for (unsigned i = 0; i < 9; i++) {
		struct gen_file *f = new_file(&g, i % 3 ? "arch/x86/" : "", GIT_FILEMODE_BLOB);
		text_lines(&g, &f->data, 20 + rnd(&g, 120));
	}
	new_file(&g, "", GIT_FILEMODE_BLOB);	/* empty */
	for (size_t i = 0; i < g.nfiles; i++, nroot++)
		root[nroot] = (struct test_file){ g.files[i].path,
						  g.files[i].data.len ? g.files[i].data.buf : "",
						  g.files[i].data.len, g.files[i].mode };
	h->ids[h->n++] = test_commit(h->repo, NULL, root, nroot, "root\n", "R", "r@x", 1700000000);
	for (unsigned i = 1; i < COMMITS; i++) {
		struct test_file changes[8];
		char *owned[8], *msg = message(&g, i);
		size_t nowned = 0, n = mutate(&g, changes, owned, &nowned);
		git_time_t when = 1700000000 + 60 * (git_time_t)i;

		h->ids[h->n] = test_commit(h->repo, &h->ids[h->n - 1], changes, n, msg, "Ada", "ada@x",
					   when);
		h->n++;
		if (i % 97 == 0) {
			/* The side commit, then the merge, which the next commit builds on. */
			h->ids[h->n + 1] = merge(h->repo, &h->ids[h->n - 1], when + 10, &h->ids[h->n]);
			h->n += 2;
		}
		free(msg);
		for (size_t k = 0; k < nowned; k++)
			free(owned[k]);
	}
	for (size_t i = 0; i < g.nfiles; i++) {
		free(g.files[i].path);
		strbuf_release(&g.files[i].data);
	}
}

static void history_free(struct history *h)
{
	git_repository_free(h->repo);
	test_rmtree(h->dir);
	free(h->dir);
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "<patch-id> <commit>" lines, sorted, as `git patch-id` prints them. */
static char *sorted(char **lines, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	qsort(lines, n, sizeof(*lines), compare_strings);
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(&sb, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return strbuf_detach(&sb);
}

static char *git_ids(const char *dir)
{
	const char *log[] = { "git", "log", "-p", "--format=commit %H", NULL };
	const char *pid[] = { "git", "patch-id", "--stable", NULL };
	char *in = xasprintf("%s/.git/log-p", dir), *text = test_run_git(dir, log, NULL);
	char **lines = NULL;
	size_t n = 0;

	assert_int_equal(file_write_atomic(in, text, strlen(text)), 0);
	char *ids = test_run_git(dir, pid, in);
	for (char *p = strtok(ids, "\n"); p; p = strtok(NULL, "\n")) {
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = xstrdup(p);
	}
	free(ids);
	free(text);
	free(in);
	return sorted(lines, n);
}

static void test_links_and_patch_ids_equal_git(void **state)
{
	struct history h = { 0 };
	struct commit_facts **facts;
	char hex[GIT_OID_HEXSZ + 1], pid[GIT_OID_HEXSZ + 1];
	char **lines = NULL;
	size_t nlines = 0, checked = 0;

	(void)state;
	generate(&h);
	assert_true(h.n >= 200);
	assert_int_equal(facts_read_many(&facts, h.repo, h.ids, h.n, 0), 0);

	/* Link values, commit by commit. */
	const char *argv[] = { "git", "log", "--format=%H%x02%(trailers:key=Link,valueonly)%x01",
			       NULL };
	char *out = test_run_git(h.dir, argv, NULL);
	for (char *p = out; *p;) {
		char *sep = strchr(p, '\x02'), *end = sep ? strchr(sep, '\x01') : NULL;
		assert_non_null(end);
		*sep = *end = '\0';
		for (size_t i = 0; i < h.n; i++) {
			if (strcmp(git_oid_tostr(hex, sizeof(hex), &facts[i]->id), p) != 0)
				continue;
			struct strbuf ours = STRBUF_INIT;
			for (size_t l = 0; l < facts[i]->trailers->nlinks; l++)
				strbuf_addf(&ours, "%s\n", facts[i]->trailers->links[l].value);
			if (strcmp(ours.buf, sep + 1) != 0)
				fail_msg("commit %s: git's Links '%s', ours '%s'", p, sep + 1, ours.buf);
			strbuf_release(&ours);
			checked++;
		}
		p = end + 1 + (end[1] == '\n');
	}
	assert_int_equal(checked, h.n);
	free(out);

	for (size_t i = 0; i < h.n; i++) {
		if (git_oid_is_zero(&facts[i]->patch_id))
			continue;
		lines = xrealloc(lines, (nlines + 1) * sizeof(*lines));
		lines[nlines++] = xasprintf("%s %s", git_oid_tostr(pid, sizeof(pid), &facts[i]->patch_id),
					    git_oid_tostr(hex, sizeof(hex), &facts[i]->id));
	}
	char *ours = sorted(lines, nlines), *theirs = git_ids(h.dir);
	assert_true(nlines >= 200);
	assert_string_equal(ours, theirs);
	free(ours);
	free(theirs);
	facts_free_many(facts, h.n);
	history_free(&h);
}

static void test_facts_of_one_commit(void **state)
{
	char *dir;
	git_repository *repo = test_repo_new(&dir);
	struct test_file f = { "f", "1\n", 0, 0 };
	git_oid id = test_commit(repo, NULL, &f, 1,
				 "x86: Summary line\n\nFixes: 0123456789ab (\"x\")\n", "Ada L", "ada@x",
				 1700000000);
	struct commit_facts *facts;

	(void)state;
	assert_int_equal(facts_read(&facts, repo, &id, FACTS_CHANGES), 0);
	assert_string_equal(facts->summary, "x86: Summary line");
	assert_string_equal(facts->author_name, "Ada L");
	assert_string_equal(facts->author_email, "ada@x");
	assert_int_equal(facts->time, 1700000000);
	assert_int_equal(facts->parents, 0);
	assert_int_equal(facts->trailers->nfixes, 1);
	assert_false(git_oid_is_zero(&facts->patch_id));
	assert_int_equal(facts->changes->nfiles, 1);
	assert_string_equal(facts->changes->files[0].path, "f");
	facts_free(facts);
	facts_free(NULL);
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}

static void test_an_unknown_commit_fails_by_name(void **state)
{
	char *dir;
	git_repository *repo = test_repo_new(&dir);
	struct test_file f = { "f", "1\n", 0, 0 };
	git_oid ids[80];
	struct commit_facts **facts = NULL;

	(void)state;
	ids[0] = test_commit(repo, NULL, &f, 1, "a\n", "a", "a@x", 1700000000);
	for (size_t i = 1; i < 80; i++)
		ids[i] = ids[0];
	assert_int_equal(git_oid_fromstr(&ids[50], "0123456789012345678901234567890123456789"), 0);
	assert_int_equal(facts_read_many(&facts, repo, ids, 80, 0), ERR_NOTFOUND);
	assert_null(facts);
	assert_non_null(strstr(error_last(), "cannot find commit 0123456789012345678901234567890123456789"));
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_and_patch_ids_equal_git),
		cmocka_unit_test(test_facts_of_one_commit),
		cmocka_unit_test(test_an_unknown_commit_fails_by_name),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
