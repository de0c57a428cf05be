#include "kconfig.h"

#include "lib/array.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The families by the lowest CPU a kernel built for them runs on.  M486SX
 * and MELAN are left out: the one has no FPU to test, the other is a 486
 * anyway.  Linux 7.1 drops the 486 choices, and later trees may drop M586.
 */
const struct kconfig_family kconfig_families[] = {
	{ "CONFIG_M486", 4 },
	{ "CONFIG_M586", 5 },
	{ "CONFIG_M586TSC", 5 },
	{ "CONFIG_M586MMX", 5 },
	{ "CONFIG_M686", 6 },
};
const size_t kconfig_families_count = ARRAY_SIZE(kconfig_families);

/*
 * What the bench cannot work without; any other option of the fragment
 * may go missing with a warning.  A 32-bit kernel with a real x87 (no
 * emulation), the serial console and printk that carry every verdict,
 * the initramfs and ELF loader of the guest's init, BUG and KALLSYMS for
 * crash reports with their function names, modules for fpu_kmod, and
 * what the reproducers and selftests call (futexes, POSIX timers, uids).
 */
static const char *const needed_options[] = {
	"CONFIG_64BIT", "CONFIG_X86_32", "CONFIG_MATH_EMULATION", "CONFIG_PRINTK", "CONFIG_TTY",
	"CONFIG_SERIAL_8250", "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_BLK_DEV_INITRD",
	"CONFIG_BINFMT_ELF", "CONFIG_BUG", "CONFIG_KALLSYMS", "CONFIG_MODULES", "CONFIG_FUTEX",
	"CONFIG_POSIX_TIMERS", "CONFIG_MULTIUSER",
};

/* "CONFIG_FOO=y" -> want "CONFIG_FOO=y"; "# CONFIG_FOO is not set" -> want unset. */
static int config_line_option(const char *line, size_t len, char *name, size_t name_size,
			      bool *want_unset)
{
	const char *p = line, *end = line + len;

	*want_unset = false;
	if (len > 2 && line[0] == '#' && line[1] == ' ') {
		p += 2;
		*want_unset = true;
	}
	if ((size_t)(end - p) < 8 || strncmp(p, "CONFIG_", 7) != 0)
		return 0;
	const char *q = p + 7;
	while (q < end && (*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') ||
			   (*q >= '0' && *q <= '9')))
		q++;
	if (*want_unset ? (size_t)(end - q) != 11 || strncmp(q, " is not set", 11) != 0
			: q == end || *q != '=')
		return 0;
	if ((size_t)(q - p) >= name_size)
		return 0;
	memcpy(name, p, (size_t)(q - p));
	name[q - p] = '\0';
	return 1;
}

/* The value line of option `name` in the config ("CONFIG_X=y"), or NULL. */
static const char *config_find(const char *config, const char *name, size_t *len)
{
	size_t n = strlen(name);

	for (const char *p = config; p && *p; ) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l > n && strncmp(p, name, n) == 0 && p[n] == '=') {
			*len = l;
			return p;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static bool option_needed(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(needed_options); i++)
		if (strcmp(needed_options[i], name) == 0)
			return true;
	for (size_t i = 0; i < kconfig_families_count; i++)
		if (strcmp(kconfig_families[i].option, name) == 0)
			return true;
	return false;
}

const struct kconfig_family *kconfig_lowest_family(const char *kconfig_cpu, size_t len)
{
	for (size_t i = 0; i < kconfig_families_count; i++) {
		/* "config M486": the option's name without CONFIG_, alone on its line. */
		const char *name = kconfig_families[i].option + 7;
		size_t n = strlen(name);

		for (const char *p = kconfig_cpu, *end = kconfig_cpu + len; p < end; ) {
			const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
			size_t l = (size_t)(eol - p);

			while (l && (p[l - 1] == ' ' || p[l - 1] == '\t' || p[l - 1] == '\r'))
				l--;
			if (l == 7 + n && memcmp(p, "config ", 7) == 0 && memcmp(p + 7, name, n) == 0)
				return &kconfig_families[i];
			p = nl ? nl + 1 : end;
		}
	}
	return NULL;
}

bool kconfig_sets(const char *text, const char *option)
{
	size_t len;
	const char *line = config_find(text, option, &len);

	return line && len == strlen(option) + 2 && line[len - 1] == 'y';
}

const struct kconfig_family *kconfig_family_set(const char *text)
{
	for (size_t i = 0; i < kconfig_families_count; i++)
		if (kconfig_sets(text, kconfig_families[i].option))
			return &kconfig_families[i];
	return NULL;
}

char *kconfig_fragment(const char *fragment, const struct kconfig_family *family)
{
	size_t n = strlen(fragment);

	if (!family || kconfig_family_set(fragment))
		return xstrdup(fragment);
	return xasprintf("%s%s# The lowest processor family this tree offers (fpubench's choice).\n%s=y\n",
			 fragment, n && fragment[n - 1] != '\n' ? "\n" : "", family->option);
}

int kconfig_min_family(const char *config)
{
	const struct kconfig_family *f = kconfig_family_set(config);
	size_t len;
	const char *line = config_find(config, "CONFIG_X86_MINIMUM_CPU_FAMILY", &len);
	int min = line ? atoi(line + strlen("CONFIG_X86_MINIMUM_CPU_FAMILY=")) : 0;

	return f && f->family > min ? f->family : min;
}

int kconfig_check(const char *fragment_name, const char *fragment, const char *config,
		  const char *version, struct strlist *warnings)
{
	for (const char *p = fragment; p && *p; ) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char name[128];
		bool want_unset;

		if (l && p[l - 1] == '\r')
			l--;
		if (config_line_option(p, l, name, sizeof(name), &want_unset)) {
			size_t have_len = 0;
			const char *have = config_find(config, name, &have_len);
			bool ok = want_unset ? !have : have && have_len == l && strncmp(have, p, l) == 0;
			char *why = have ? xasprintf("the final .config has '%.*s'", (int)have_len, have)
					 : xstrdup("not in the final .config");

			if (!ok && option_needed(name)) {
				int err = error_set(ERR_CONFIG, "config option '%.*s' from '%s' was dropped by Linux %s (%s)",
						    (int)l, p, fragment_name, version, why);
				free(why);
				return err;
			}
			if (!ok)
				strlist_push(warnings, xasprintf("config option '%.*s' from '%s' was dropped by Linux %s (%s); built without it",
								 (int)l, p, fragment_name, version, why));
			free(why);
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}
