#include "runtime.h"

#include "array.h"
#include "error.h"
#include "fileutil.h"
#include "xalloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where each piece is in a layout, from the executable's directory. */
static const char *const layouts[][RUNTIME_KMOD + 1] = {
	{	/* installed */
		[RUNTIME_GUEST] = RUNTIME_INSTALL_DATA "/guest",
		[RUNTIME_SERIES] = RUNTIME_INSTALL_DATA "/patches",
		[RUNTIME_CONF] = RUNTIME_INSTALL_DATA "/fpubench.conf",
		[RUNTIME_KMOD] = RUNTIME_INSTALL_DATA "/kmod",
	},
	{	/* the build tree */
		[RUNTIME_GUEST] = RUNTIME_BUILD_GUEST,
		[RUNTIME_SERIES] = RUNTIME_BUILD_SRC "/patches",
		[RUNTIME_CONF] = RUNTIME_BUILD_SRC "/bench/fpubench.conf",
		[RUNTIME_KMOD] = RUNTIME_BUILD_SRC "/guest-tests/kmod",
	},
};

int runtime_data_path_for(char **out, const char *exe, enum runtime_data what)
{
	const char *slash = strrchr(exe, '/');
	char *dir = xstrndup(exe, slash ? (size_t)(slash - exe) : 0);
	int err = 0;

	*out = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(layouts) && !*out; i++) {
		char *conf = xasprintf("%s/%s", dir, layouts[i][RUNTIME_CONF]);

		if (file_exists(conf))
			*out = xasprintf("%s/%s", dir, layouts[i][what]);
		free(conf);
	}
	/* "/usr/share/fpubench/patches" reads better than "/usr/bin/../share/fpubench/patches". */
	char *real = *out ? realpath(*out, NULL) : NULL;
	if (real) {
		free(*out);
		*out = real;
	}
	if (!*out)
		err = error_set(ERR_NOTFOUND, "no fpubench data beside '%s' (no '%s/%s' nor '%s/%s')",
				exe, dir, layouts[0][RUNTIME_CONF], dir, layouts[1][RUNTIME_CONF]);
	free(dir);
	return err;
}

int runtime_data_path(char **out, enum runtime_data what)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	*out = NULL;
	if (n < 0)
		return error_set_errno(ERR_NOTFOUND, "cannot find this executable '/proc/self/exe'");
	exe[n] = '\0';
	return runtime_data_path_for(out, exe, what);
}

/*
 * $VAR/fpubench, else ~/FALLBACK/fpubench (/tmp for a user without a home).
 * The XDG specification has a relative or empty $VAR ignored.
 */
static char *xdg_dir(const char *var, const char *fallback)
{
	const char *xdg = getenv(var);
	const char *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		return xasprintf("%s/fpubench", xdg);
	return xasprintf("%s/%s/fpubench", home && *home ? home : "/tmp", fallback);
}

char *runtime_user_dir(enum runtime_user which)
{
	const char *env = getenv("FPUBENCH_CACHE");

	if (which == RUNTIME_USER_DATA)
		return xdg_dir("XDG_DATA_HOME", ".local/share");
	if (env && *env)
		return xstrdup(env);
	return xdg_dir("XDG_CACHE_HOME", ".cache");
}
