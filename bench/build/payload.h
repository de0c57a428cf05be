/*
 * payload: what goes into a guest's initramfs, built on the host.
 *
 *   /init                  guest-tests' init (build/guest/init)
 *   /selftests/test_*      the kernel's own x87 selftests from the cached tree,
 *                          -m32 -static against glibc, built once per base tree
 *   /fpu_kmod.ko           guest-tests/kmod built against the variant's O= dir,
 *                          left out when the boot does not run PAYLOAD_KMOD_TEST
 *
 * The archive is per variant, since the module is.  Paths in the guest are
 * fixed: init knows them (guest-tests/README.md).
 */
#ifndef FPUBENCH_PAYLOAD_H
#define FPUBENCH_PAYLOAD_H

#include <stddef.h>

struct kernel_tree;
struct kernel_build;

/*
 * One guest test as the guest's build lists it (<guest dir>/tests.list,
 * written by guest-tests/Makefile from each GT_TEST()): its KTAP name, its
 * tags as LTP's ("linux-git=f994d99cf140 function=save_fpregs_to_fpstate",
 * "" for none) and the contract it guards.
 */
struct payload_test {
	char *name;
	char *tags;
	char *guards;
};

/* The guest's tests, in its order; ERR_NOTFOUND when it has no list (not built). */
int payload_read_tests(const char *guest_dir, struct payload_test **out, size_t *n);

void payload_tests_free(struct payload_test *tests, size_t n);

/* The values of one kind of tag ("linux-git": the commits it guards), space-separated; caller frees. */
char *payload_test_tag(const struct payload_test *t, const char *kind);

/* The guest test that loads the module. */
#define PAYLOAD_KMOD_TEST "fpu_kmod"

/* The kernel's x87 selftests that run in the guest. */
extern const char *const payload_selftests[];
extern const unsigned payload_selftests_count;

/*
 * Builds the selftests from the tree's pristine sources into
 * <cache>/selftests/<base>, once; *dir_out names that directory (caller
 * frees).  ERR_BUILD with the log's path when gcc fails.
 */
int payload_build_selftests(struct kernel_tree *t, char **dir_out);

/*
 * Builds the test module in `kmod_src` against the build, into
 * <build dir>/fpubench-kmod, unless it is there already for the same build
 * id and sources; *ko_out names the .ko (caller frees).  The same sources
 * built there for an earlier build of the directory are built again
 * incrementally, as Kbuild builds the kernel.
 */
int payload_build_kmod(const struct kernel_build *b, const char *kmod_src, char **ko_out);

/* Writes the initramfs for one variant; a NULL `ko` leaves the module out. */
int payload_write_initramfs(const char *path, const char *init, const char *selftests_dir,
			    const char *ko);

#endif
