#include "facts.h"
#include "link.h"
#include "provenance.h"

#include "lib/error.h"
#include "lib/gitutil.h"
#include "patchid.h"
#include "lib/strbuf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 8
#define COMMITS_PER_THREAD 32	/* fewer are not worth a thread and a repository handle */

static int read_changes(struct commit_facts *f, git_repository *repo, const git_commit *commit)
{
	git_diff *diff = NULL;
	git_buf text = { 0 };
	int err;

	if (f->parents > 1) {
		f->changes = changes_parse("", 0);
		return 0;
	}
	if ((err = patchid_diff_commit(&diff, repo, commit)) < 0)
		return err;
	if (git_diff_to_buf(&text, diff, GIT_DIFF_FORMAT_PATCH) < 0)
		err = error_set(ERR_GENERIC, "cannot print commit %s: %s", git_oid_tostr_s(&f->id),
				gitutil_error());
	else if ((err = patchid_from_diff(&f->patch_id, repo, diff)) == 0)
		f->changes = changes_parse(text.ptr, text.size);
	git_buf_dispose(&text);
	git_diff_free(diff);
	return err;
}

int facts_read(struct commit_facts **out, git_repository *repo, const git_oid *id,
	       unsigned flags)
{
	struct commit_facts *f = xcalloc(1, sizeof(*f));
	git_commit *commit = NULL;
	int err;

	*out = NULL;
	git_oid_cpy(&f->id, id);
	if (git_commit_lookup(&commit, repo, id) < 0) {
		err = error_set(ERR_NOTFOUND, "cannot find commit %s: %s", git_oid_tostr_s(id),
				gitutil_error());
		goto out;
	}
	const git_signature *author = git_commit_author(commit);
	const char *summary = git_commit_summary(commit);
	f->summary = xstrdup(summary ? summary : "");
	f->author_name = xstrdup(author->name);
	f->author_email = xstrdup(author->email);
	f->time = author->when.time;
	f->parents = git_commit_parentcount(commit);
	f->trailers = trailers_parse(git_commit_message(commit));
	/* The changed lines come from the same diff as the patch-id. */
	if (flags & FACTS_CHANGES)
		err = read_changes(f, repo, commit);
	else
		err = patchid_from_commit(&f->patch_id, repo, commit);
	/* Only where a Link cannot say which posting it was: 7 more diffs of the commit. */
	if (!err && (flags & FACTS_PATCH_VARIANTS) && !f->trailers->message_ids.n)
		err = patchid_variants(f->variant_ids, repo, commit);
out:
	git_commit_free(commit);
	if (err)
		facts_free(f);
	else
		*out = f;
	return err;
}

struct batch {
	const char *path;
	const git_oid *ids;
	size_t n;
	unsigned flags;
	struct commit_facts **out;
	atomic_size_t next;
	atomic_bool failed;
	pthread_mutex_t lock;
	size_t failed_at;	/* under lock: the lowest index that failed */
	int err;
	char *message;
};

static void batch_fail(struct batch *b, size_t at, int err)
{
	pthread_mutex_lock(&b->lock);
	if (!b->err || at < b->failed_at) {
		b->err = err;
		b->failed_at = at;
		free(b->message);
		b->message = xstrdup(error_last());
	}
	pthread_mutex_unlock(&b->lock);
	atomic_store(&b->failed, true);
}

static void *batch_worker(void *arg)
{
	struct batch *b = arg;
	git_repository *repo;

	if (git_repository_open_ext(&repo, b->path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		batch_fail(b, 0, error_set(ERR_GENERIC, "cannot open repository '%s': %s",
					   b->path, gitutil_error()));
		return NULL;
	}
	for (size_t i; !atomic_load(&b->failed) && (i = atomic_fetch_add(&b->next, 1)) < b->n;) {
		int err = facts_read(&b->out[i], repo, &b->ids[i], b->flags);
		if (err)
			batch_fail(b, i, err);
	}
	git_repository_free(repo);
	return NULL;
}

static size_t thread_count(size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t threads = n / COMMITS_PER_THREAD;

	if (cpus > 0 && threads > (size_t)cpus)
		threads = (size_t)cpus;
	return threads > MAX_THREADS ? MAX_THREADS : threads;
}

int facts_read_many(struct commit_facts ***out, git_repository *repo, const git_oid *ids,
		    size_t n, unsigned flags)
{
	struct batch b = { .path = git_repository_path(repo), .ids = ids, .n = n,
			   .flags = flags, .out = xcalloc(n ? n : 1, sizeof(*b.out)) };
	pthread_t threads[MAX_THREADS];
	size_t nthreads = thread_count(n), started = 0;

	*out = NULL;
	pthread_mutex_init(&b.lock, NULL);
	atomic_init(&b.next, 0);
	atomic_init(&b.failed, false);
	for (; started < nthreads; started++)
		if (pthread_create(&threads[started], NULL, batch_worker, &b) != 0)
			break;
	/* Few commits, or no threads to be had: this thread does the rest. */
	for (size_t i; started == 0 && !b.err && (i = atomic_fetch_add(&b.next, 1)) < n;) {
		int err = facts_read(&b.out[i], repo, &ids[i], flags);
		if (err)
			batch_fail(&b, i, err);
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_destroy(&b.lock);
	if (b.err) {
		/* The message was set in the thread that failed; carry it over. */
		error_set(b.err, "%s", b.message);
		free(b.message);
		facts_free_many(b.out, n);
		return b.err;
	}
	*out = b.out;
	return 0;
}

void facts_free(struct commit_facts *f)
{
	if (!f)
		return;
	free(f->summary);
	free(f->author_name);
	free(f->author_email);
	trailers_free(f->trailers);
	changes_free(f->changes);
	free(f);
}

void facts_free_many(struct commit_facts **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		facts_free(v[i]);
	free(v);
}

int provenance_story_read(struct provenance_story *out, git_repository *repo,
			  const git_oid *commit)
{
	struct commit_facts *f = NULL;
	int err = facts_read(&f, repo, commit, 0);

	if (err < 0)
		return err;
	out->summary = xstrdup(f->summary);
	for (size_t i = 0; i < f->trailers->message_ids.n && !out->lore_url; i++) {
		out->lore_url = link_lore_url(f->trailers->message_ids.v[i]);
		if (out->lore_url)
			out->message_id = xstrdup(f->trailers->message_ids.v[i]);
	}
	if (!git_oid_is_zero(&f->patch_id))
		git_oid_tostr(out->patch_id, sizeof(out->patch_id), &f->patch_id);
	facts_free(f);
	return 0;
}

void provenance_story_release(struct provenance_story *story)
{
	free(story->summary);
	free(story->lore_url);
	free(story->message_id);
	*story = (struct provenance_story){ 0 };
}
