#include "gitutil.h"

#include <git2.h>

const char *gitutil_error(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}
