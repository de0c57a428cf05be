#include "kernels.h"

#include "build/apply.h"
#include "build/series.h"
#include "build/tree.h"
#include "build/variants.h"
#include "coverage.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/gitutil.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* A git tree's branch as it is, one kernel named after the tree. */
static int add_git_tree(struct session *s, const struct kernels_request *rq)
{
	git_oid commit;
	int err;

	if ((err = kernel_tree_resolve(rq->git_repo, rq->git_branch ? rq->git_branch : "HEAD",
				       &commit)) < 0 ||
	    (err = kernel_tree_open_repo(&s->tree, s->cfg.cache, rq->git_repo)) < 0)
		return err;
	return session_add_kernel(s, rq->git_name, &commit, rq->fragment);
}

/* A directory as it is: one build directory per path, so `git bisect run` builds incrementally. */
static int add_dir(struct session *s, const struct kernels_request *rq)
{
	char *abs = path_absolute(rq->dir), hex[9], *variant;
	int err;

	gitutil_path_key(abs, hex, sizeof(hex));
	variant = xasprintf("tree-%s", hex);
	free(abs);
	if ((err = kernel_tree_open_dir(&s->tree, s->cfg.cache, rq->dir)) == 0)
		err = session_add_kernel(s, variant, NULL, rq->fragment);
	free(variant);
	return err;
}

/* `patched` with the patch files on top, each patch its own commit; or its gcov variant. */
static int add_test(struct session *s, const struct kernels_request *rq, const struct series *series)
{
	const struct series_variant *v = series_find_variant(series, KERNELS_TEST_VARIANT);
	const char *name = rq->npatches ? "test" : KERNELS_TEST_VARIANT;
	git_oid commit;
	int err;

	if (!v)
		return error_set(ERR_INPUT, "no variant '%s' in '%s/variants'", KERNELS_TEST_VARIANT,
				 rq->patches);
	if ((err = variants_commit(s->tree, series, v, &commit)) < 0)
		return err;
	for (size_t i = 0; i < rq->npatches; i++) {
		git_oid parent = commit;

		if ((err = apply_patch_file(s->tree, &parent, rq->patch_paths[i], rq->patch_names[i],
					    &commit)) < 0)
			return err;
	}
	if (rq->coverage)
		return coverage_add_kernel(s, rq->patches, rq->fragment, name, &commit);
	return session_add_kernel(s, name, &commit, rq->fragment);
}

/* The series' variants, all or those named. */
static int add_variants(struct session *s, const struct kernels_request *rq,
			const struct series *series)
{
	for (size_t j = 0; j < rq->nvariants; j++)
		if (!series_find_variant(series, rq->variants[j]))
			return error_set(ERR_USAGE, "unknown variant '%s' (see '%s/variants')",
					 rq->variants[j], rq->patches);
	for (size_t i = 0; i < series->nvariants; i++) {
		const struct series_variant *v = &series->variants[i];
		bool wanted = rq->nvariants == 0;
		git_oid commit;
		int err;

		for (size_t j = 0; j < rq->nvariants; j++)
			wanted |= strcmp(rq->variants[j], v->name) == 0;
		if (!wanted)
			continue;
		if ((err = variants_commit(s->tree, series, v, &commit)) < 0 ||
		    (err = session_add_kernel(s, v->name, &commit, rq->fragment)) < 0)
			return err;
	}
	return 0;
}

int kernels_add(struct session *s, const struct kernels_request *rq)
{
	struct series *series = NULL;
	int err;

	if (rq->git_repo)
		return add_git_tree(s, rq);
	if (rq->dir)
		return add_dir(s, rq);
	if ((err = series_load(&series, rq->patches)) == 0 &&
	    (err = kernel_tree_open(&s->tree, s->cfg.cache, rq->tarball)) == 0)
		err = rq->test ? add_test(s, rq, series) : add_variants(s, rq, series);
	series_free(series);
	return err;
}
