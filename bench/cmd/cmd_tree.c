#include "cmd.h"

#include "build/series.h"
#include "build/tree.h"
#include "build/variants.h"
#include "run/kernels.h"
#include "lib/error.h"

#include <stdio.h>

/*
 * tree: the cached kernel tree the series applies to, its version, and the
 * commit of every variant (named refs/fpubench/variants/NAME), so that a
 * patch can be written against `patched` and given to `test --patch`.
 */
int cmd_tree(struct options *o)
{
	struct kernel_tree *t = NULL;
	struct series *s = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	int err;

	if ((err = cmd_prepare(o, NULL)) < 0 || (err = series_load(&s, o->patches)) < 0 ||
	    (err = kernel_tree_open(&t, o->cache, o->tarball)) < 0)
		goto out;
	printf("tree     %s\n", t->path);
	printf("version  %s\n", t->version ? t->version : "unknown");
	printf("base     %s  refs/fpubench/base\n", git_oid_tostr(hex, sizeof(hex), &t->base));
	for (size_t i = 0; i < s->nvariants; i++) {
		git_oid commit;

		if ((err = variants_commit(t, s, &s->variants[i], &commit)) < 0)
			goto out;
		printf("variant  %s  " VARIANTS_REF_PREFIX "%s\n", git_oid_tostr(hex, sizeof(hex), &commit),
		       s->variants[i].name);
	}
	printf("\nA patch against %s: git -C %s worktree add DIR " VARIANTS_REF_PREFIX "%s,\n"
	       "commit in DIR, then git -C DIR format-patch " VARIANTS_REF_PREFIX "%s..\n",
	       KERNELS_TEST_VARIANT, t->path, KERNELS_TEST_VARIANT, KERNELS_TEST_VARIANT);
out:
	kernel_tree_free(t);
	series_free(s);
	return err < 0 ? err : EXIT_OK;
}

static const struct opt tree_options[] = {
	OPT_ROW_CACHE,
	OPT_ROW_PATCHES,
	OPT_ROW_TARBALL,
	OPT_END,
};

const struct command_def cmd_tree_def = {
	CMD_TREE, "tree", "fpubench tree [OPTION]...",
	"the cached kernel tree and the commit of each variant, to write patches against",
	"Opens (extracting it the first time) the kernel tree the series applies to and\n"
	"prints its path, its version, its pristine base and each variant's commit, named\n"
	"refs/fpubench/variants/NAME in the tree's repository. A patch for 'test --patch'\n"
	"is written against refs/fpubench/variants/patched.",
	tree_options, cmd_tree, false,
};
