/*
 * facts: what a commit says about its own provenance, read with libgit2.
 *
 * A struct commit_facts holds the commit's id, summary and author, its
 * trailers and history references, its patch-id (all zero for a merge or
 * an empty commit) and, when FACTS_CHANGES is asked for, the changed
 * lines that fuzzy matching compares.  It owns everything; facts_free()
 * accepts NULL.
 *
 * facts_read_many() spreads many commits over threads.  libgit2 objects
 * must not be shared between threads, so each thread opens its own
 * handle on the repository; the caller's handle is used only by the
 * calling thread.
 */
#ifndef FPUBENCH_FACTS_H
#define FPUBENCH_FACTS_H

#include "changes.h"
#include "patchid.h"
#include "trailers.h"

#include <git2.h>
#include <stdint.h>

enum facts_flags {
	FACTS_CHANGES = 1 << 0,
	/* For a commit with no Link:/Message-ID:, its patch-ids under other diff algorithms. */
	FACTS_PATCH_VARIANTS = 1 << 1,
};

struct commit_facts {
	git_oid id;
	char *summary;
	char *author_name;
	char *author_email;
	int64_t time;
	unsigned parents;
	struct trailers *trailers;
	git_oid patch_id;
	git_oid variant_ids[PATCHID_NVARIANTS];	/* all zero unless FACTS_PATCH_VARIANTS */
	struct changes *changes;	/* NULL unless FACTS_CHANGES; empty for a merge */
};

/* ERR_NOTFOUND names a commit the repository does not have. */
int facts_read(struct commit_facts **out, git_repository *repo, const git_oid *id,
	       unsigned flags);

/*
 * (*out)[i] holds the facts of ids[i]; free with facts_free_many().  On
 * failure *out is NULL and the error names the first commit that failed.
 */
int facts_read_many(struct commit_facts ***out, git_repository *repo, const git_oid *ids,
		    size_t n, unsigned flags);

void facts_free(struct commit_facts *f);

void facts_free_many(struct commit_facts **v, size_t n);

#endif
