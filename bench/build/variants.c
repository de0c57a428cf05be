#include "variants.h"

#include "apply.h"
#include "series.h"
#include "tree.h"

#include "lib/error.h"
#include "lib/gitutil.h"
#include "lib/xalloc.h"

#include <stdlib.h>

int variants_commit(struct kernel_tree *t, const struct series *s, const struct series_variant *v,
		    git_oid *out)
{
	git_reference *ref = NULL;
	char *name;
	int err = apply_series(t, s, v->npatches, out);

	if (err < 0 || !t->repo)
		return err;
	name = xasprintf(VARIANTS_REF_PREFIX "%s", v->name);
	if (git_reference_create(&ref, t->repo, name, out, 1, "fpubench: the series' variant") < 0)
		err = error_set(ERR_CACHE, "cannot name variant '%s' in '%s': %s", v->name, t->path,
				gitutil_error());
	git_reference_free(ref);
	free(name);
	return err;
}
