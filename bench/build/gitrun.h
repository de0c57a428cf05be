/*
 * gitrun: the bench's runs of git itself on a tree of the cache (git
 * apply, git mailinfo), where libgit2 does not do what git does: each run
 * with an argv array (lib/spawn.h), its output in a log file read back.
 */
#ifndef FPUBENCH_GITRUN_H
#define FPUBENCH_GITRUN_H

struct kernel_tree;

/*
 * The environment of the bench's git runs: the tree's repository named,
 * so that a GIT_DIR of the caller's (a hook's, say) does not send git
 * elsewhere; the user's configuration left out; English, for the parsers.
 */
struct gitrun_env {
	char *vars[3];
	const char *env[7];
};

/* The environment for a run on t; index: GIT_INDEX_FILE, or NULL for the repository's own. */
void gitrun_env_init(struct gitrun_env *e, const struct kernel_tree *t, const char *index);

void gitrun_env_release(struct gitrun_env *e);

/* What git said into the log file, read back; "" when nothing.  Caller frees. */
char *gitrun_log_text(const char *log);

#endif
