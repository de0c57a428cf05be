#include "gitutil.h"

#include <git2.h>
#include <string.h>

const char *gitutil_error(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

void gitutil_path_key(const char *path, char *hex, size_t size)
{
	git_oid key;

	git_odb_hash(&key, path, strlen(path), GIT_OBJECT_BLOB);
	git_oid_tostr(hex, size, &key);
}
