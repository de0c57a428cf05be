#include "archive.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/str.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <git2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_EPOCHS 4096

static void add_message(struct archive *a, const char *buf, size_t len)
{
	struct mail *m;

	if (mail_parse(&m, buf, len) < 0) {
		error_clear();
		a->skipped++;
		return;
	}
	if (a->nmails == a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 64;
		a->mails = xrealloc(a->mails, a->alloc * sizeof(*a->mails));
	}
	a->mails[a->nmails++] = m;
}

static bool is_empty_line(const char *p, const char *end)
{
	return (end - p >= 1 && p[0] == '\n') || (end - p >= 2 && p[0] == '\r' && p[1] == '\n');
}

/* ">From ", ">>From ": an mboxrd-quoted line; one '>' comes off. */
static bool is_quoted_from(const char *p, const char *end)
{
	while (p < end && *p == '>')
		p++;
	return str_has_prefix(p, (size_t)(end - p), "From ");
}

void archive_add_mbox(struct archive *a, const char *buf, size_t len)
{
	const char *end = buf + len, *p = buf;
	struct strbuf msg = STRBUF_INIT;
	bool after_empty = true, in_message = false;

	if (!str_has_prefix(buf, (size_t)(end - buf), "From ")) {
		add_message(a, buf, len);
		return;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		if (after_empty && str_has_prefix(p, (size_t)(end - p), "From ")) {
			if (in_message)
				add_message(a, msg.buf, msg.len);
			strbuf_reset(&msg);
			in_message = true;
		} else if (*p == '>' && is_quoted_from(p, next)) {
			p++;
		}
		strbuf_add(&msg, p, (size_t)(next - p));
		after_empty = is_empty_line(p, next);
		p = next;
	}
	if (in_message)
		add_message(a, msg.buf, msg.len);
	strbuf_release(&msg);
}

static int add_file(struct archive *a, const char *path, bool mbox)
{
	struct strbuf sb = STRBUF_INIT;
	int err = file_read(path, &sb);

	if (err == 0) {
		if (mbox)
			archive_add_mbox(a, sb.buf, sb.len);
		else
			add_message(a, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	return err;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir that do not start with '.', sorted. */
static int list_dir(const char *dir, struct strlist *names)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return error_set_errno(ERR_INPUT, "cannot read archive '%s'", dir);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			strlist_push(names, xstrdup(e->d_name));
	closedir(d);
	if (names->n)
		qsort(names->v, names->n, sizeof(*names->v), compare_names);
	return 0;
}

static int add_maildir(struct archive *a, const char *path)
{
	static const char *const subdirs[] = { "cur", "new" };
	int err = 0;

	for (size_t i = 0; i < 2 && !err; i++) {
		char *dir = xasprintf("%s/%s", path, subdirs[i]);
		struct strlist names = STRLIST_INIT;
		if (is_dir(dir) && (err = list_dir(dir, &names)) == 0) {
			for (size_t j = 0; j < names.n && !err; j++) {
				char *file = xasprintf("%s/%s", dir, names.v[j]);
				err = add_file(a, file, false);
				free(file);
			}
		}
		strlist_release(&names);
		free(dir);
	}
	return err;
}

/* Every commit's "m" blob, oldest first; public-inbox writes "d" for a deletion. */
static int add_epoch(struct archive *a, const char *path)
{
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid oid;
	int err = 0, rc;

	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
	    git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_push_head(walk) < 0) {
		err = error_set(ERR_INPUT, "cannot read archive '%s': %s", path, gitutil_error());
		goto out;
	}
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		git_commit *commit = NULL;
		git_tree *tree = NULL;
		git_tree_entry *entry = NULL;
		git_blob *blob = NULL;

		if (git_commit_lookup(&commit, repo, &oid) < 0 || git_commit_tree(&tree, commit) < 0) {
			err = error_set(ERR_INPUT, "cannot read archive '%s': %s", path,
					gitutil_error());
		} else if (git_tree_entry_bypath(&entry, tree, "m") == 0 &&
			   git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) == 0) {
			add_message(a, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
		}
		git_blob_free(blob);
		git_tree_entry_free(entry);
		git_tree_free(tree);
		git_commit_free(commit);
		if (err)
			goto out;
	}
	if (rc != GIT_ITEROVER)
		err = error_set(ERR_INPUT, "cannot read archive '%s': %s", path, gitutil_error());
out:
	git_error_clear();
	git_revwalk_free(walk);
	git_repository_free(repo);
	return err;
}

/* Epochs are git/0.git, git/1.git, ...; the numbers, not the names, give the order. */
static int add_inbox(struct archive *a, const char *path)
{
	int err = 0;

	for (int n = 0; n < MAX_EPOCHS && !err; n++) {
		char *epoch = xasprintf("%s/git/%d.git", path, n);
		if (!is_dir(epoch)) {
			free(epoch);
			break;
		}
		err = add_epoch(a, epoch);
		free(epoch);
	}
	return err;
}

/* A file that holds messages but not one mail is no archive: say so rather than skip it. */
static int add_file_of_mail(struct archive *a, const char *path)
{
	size_t nmails = a->nmails, skipped = a->skipped;
	int err = add_file(a, path, true);

	if (!err && a->nmails == nmails && a->skipped > skipped)
		err = error_set(ERR_INPUT, "archive '%s' holds no mail (mbox, maildir or "
				"public-inbox repository)", path);
	return err;
}

int archive_add(struct archive *a, const char *path)
{
	struct stat st;
	char *cur = xasprintf("%s/cur", path), *new_dir = xasprintf("%s/new", path);
	char *inbox = xasprintf("%s/git/0.git", path), *objects = xasprintf("%s/objects", path);
	int err;

	if (stat(path, &st) < 0)
		err = error_set_errno(ERR_NOTFOUND, "cannot read archive '%s'", path);
	else if (S_ISREG(st.st_mode))
		err = add_file_of_mail(a, path);
	else if (is_dir(cur) || is_dir(new_dir))
		err = add_maildir(a, path);
	else if (is_dir(inbox))
		err = add_inbox(a, path);
	else if (is_dir(objects))
		err = add_epoch(a, path);
	else
		err = error_set(ERR_INPUT,
				"archive '%s' is no mbox, maildir or public-inbox repository", path);
	free(cur);
	free(new_dir);
	free(inbox);
	free(objects);
	return err;
}

void archive_release(struct archive *a)
{
	for (size_t i = 0; i < a->nmails; i++)
		mail_free(a->mails[i]);
	free(a->mails);
	*a = (struct archive)ARCHIVE_INIT;
}
