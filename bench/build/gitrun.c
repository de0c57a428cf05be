#include "gitrun.h"

#include "tree.h"

#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdlib.h>

void gitrun_env_init(struct gitrun_env *e, const struct kernel_tree *t, const char *index)
{
	size_t n = 0;

	e->vars[0] = xasprintf("GIT_DIR=%s", git_repository_path(t->repo));
	e->vars[1] = xasprintf("GIT_WORK_TREE=%s", t->path);
	e->vars[2] = index ? xasprintf("GIT_INDEX_FILE=%s", index) : NULL;
	for (size_t i = 0; i < 3; i++)
		if (e->vars[i])
			e->env[n++] = e->vars[i];
	e->env[n++] = "LC_ALL=C";
	e->env[n++] = "GIT_CONFIG_NOSYSTEM=1";
	e->env[n++] = "GIT_CONFIG_GLOBAL=/dev/null";
	e->env[n] = NULL;
}

void gitrun_env_release(struct gitrun_env *e)
{
	for (size_t i = 0; i < 3; i++)
		free(e->vars[i]);
}

char *gitrun_log_text(const char *log)
{
	struct strbuf text = STRBUF_INIT;

	if (file_read(log, &text) < 0)
		error_clear();
	return strbuf_detach(&text);
}
