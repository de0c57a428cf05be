#include "version.h"

#include "lib/error.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* "= value" after a Makefile variable's name at the start of a line, trimmed; NULL if not that line. */
static const char *makefile_value(const char *line, const char *eol, const char *name, size_t *len)
{
	size_t n = strlen(name);
	const char *p = line + n;

	if ((size_t)(eol - line) < n || memcmp(line, name, n) != 0)
		return NULL;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p == eol || *p++ != '=')
		return NULL;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	while (eol > p && (eol[-1] == ' ' || eol[-1] == '\t' || eol[-1] == '\r'))
		eol--;
	*len = (size_t)(eol - p);
	return p;
}

static bool all_of(const char *s, size_t len, const char *set)
{
	for (size_t i = 0; i < len; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

int version_parse(const char *name, const char *makefile, size_t len, char *out,
			 size_t size)
{
	static const char *const keys[] = { "VERSION", "PATCHLEVEL", "SUBLEVEL", "EXTRAVERSION" };
	static const char digits[] = "0123456789";
	const char *value[4] = { NULL };
	size_t vlen[4] = { 0 };

	for (const char *p = makefile, *end = makefile + len; p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;

		for (size_t k = 0; k < 4; k++)
			if (!value[k])
				value[k] = makefile_value(p, eol, keys[k], &vlen[k]);
		p = nl ? nl + 1 : end;
	}
	/* As the Makefile's KERNELVERSION: the EXTRAVERSION is "-rc3" and the like. */
	if (!value[0] || !value[1] || !value[2] || !vlen[0] || !vlen[1] || !vlen[2] ||
	    vlen[0] > 4 || vlen[1] > 4 || vlen[2] > 6 || vlen[3] > 32 ||
	    !all_of(value[0], vlen[0], digits) || !all_of(value[1], vlen[1], digits) ||
	    !all_of(value[2], vlen[2], digits) ||
	    !all_of(value[3] ? value[3] : "", vlen[3], "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_+~"))
		return error_set(ERR_INPUT, "'%s' is not a kernel tree: its Makefile gives no VERSION, PATCHLEVEL and SUBLEVEL",
				 name);
	snprintf(out, size, "%.*s.%.*s.%.*s%.*s", (int)vlen[0], value[0], (int)vlen[1], value[1],
		 (int)vlen[2], value[2], (int)vlen[3], value[3] ? value[3] : "");
	return 0;
}

int version_check(const char *what, const char *version)
{
	int major = 0, minor = 0;

	if (sscanf(version, "%d.%d", &major, &minor) != 2 ||
	    major < TREE_OLDEST_MAJOR || (major == TREE_OLDEST_MAJOR && minor < TREE_OLDEST_MINOR))
		return error_set(ERR_INPUT, "kernel tree '%s' is Linux %s, older than %d.%d, the oldest fpubench builds",
				 what, version, TREE_OLDEST_MAJOR, TREE_OLDEST_MINOR);
	return 0;
}

void version_series(const char *version, char *out, size_t size)
{
	const char *dot = strchr(version, '.');

	dot = dot ? strchr(dot + 1, '.') : NULL;
	snprintf(out, size, "%.*s", dot ? (int)(dot - version) : (int)strlen(version), version);
}
