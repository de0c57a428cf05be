/*
 * kconfig: the kernel configuration the bench asks for, fitted to a tree.
 *
 * The config fragment (patches/fpu.config) names no processor family: the
 * bench reads the tree's arch/x86/Kconfig.cpu and adds the lowest family
 * it offers from kconfig_families[] (M486 where it exists, else M586, and
 * so on), unless the fragment names one itself.  After olddefconfig every
 * option of the fragment is checked in the final .config: one the bench
 * needs to work (kconfig.c lists them) stops the build, any other is a
 * warning naming the option and the tree's version.
 *
 * Everything here is pure, for unit tests.  Strings returned are
 * allocated; the table entries are static.
 */
#ifndef FPUBENCH_KCONFIG_H
#define FPUBENCH_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct strlist;

struct kconfig_family {
	const char *option;	/* "CONFIG_M486" */
	int family;		/* the lowest CPU family a kernel built for it runs on */
};

/* Lowest first; docs/fpubench-run.md ("Kernel trees") documents the table. */
extern const struct kconfig_family kconfig_families[];
extern const size_t kconfig_families_count;

/*
 * The lowest family of the table that Kconfig.cpu's text (len bytes)
 * declares with a `config` line, or NULL when it offers none.
 */
const struct kconfig_family *kconfig_lowest_family(const char *kconfig_cpu, size_t len);

/* Whether the fragment or config text sets `option` ("CONFIG_X") to y. */
bool kconfig_sets(const char *text, const char *option);

/* The table's family that the fragment or config text sets to y, or NULL. */
const struct kconfig_family *kconfig_family_set(const char *text);

/*
 * The fragment to merge: the fragment's text, plus the family's line when
 * the fragment sets none of the table's families.
 */
char *kconfig_fragment(const char *fragment, const struct kconfig_family *family);

/*
 * The lowest CPU family the kernel of a final .config runs on: the larger
 * of CONFIG_X86_MINIMUM_CPU_FAMILY, which its boot code enforces, and the
 * family it was compiled for (a 6.1 M586 kernel boots on a 486 but is
 * built with -march=i586).  0 when the config says neither.
 */
int kconfig_min_family(const char *config);

/*
 * Checks that every option the fragment (named fragment_name) sets is in
 * the final config text of Linux `version`.  An option the bench needs
 * that is not there is ERR_CONFIG naming it; any other is pushed on
 * *warnings as one line.
 */
int kconfig_check(const char *fragment_name, const char *fragment, const char *config,
		  const char *version, struct strlist *warnings);

#endif
