/*
 * gcda: the kernel's gcov data (.gcda files) that a coverage boot's init
 * sends over the console, decoded and checked (guest-tests/README.md,
 * "Coverage data").
 *
 * The console is untrusted: gcda_scan() reads exactly `len` bytes of
 * anything and accepts a boot's data only when every file arrived whole:
 * each block between `# fpubench: gcda PATH` and `# fpubench: gcda-end
 * LENGTH CRC32` holds only `# gcda HEX` lines of at most GCDA_LINE_BYTES
 * bytes, their bytes have that length and zlib's CRC-32, and
 * `# fpubench: gcda-done COUNT` counts the blocks.  Any other line (the
 * kernel's printk, the tests' KTAP) is skipped; a line that breaks into a
 * block is therefore only noticed when it damages it.
 *
 * Pure, no I/O.  A struct gcda_set owns its files; gcda_set_free().
 */
#ifndef FPUBENCH_GCDA_H
#define FPUBENCH_GCDA_H

#include <stdbool.h>
#include <stddef.h>

#define GCDA_LINE_BYTES 64	/* bytes of one data line, 128 hex digits */
#define GCDA_PATH_MAX 1024

struct gcda_file {
	char *path;		/* as sent: the object's absolute path in the build directory */
	unsigned char *data;
	size_t len;
};

struct gcda_set {
	bool sent;		/* the console holds coverage data at all */
	struct gcda_file *files;
	size_t nfiles;
};

/*
 * 0 and *out (free with gcda_set_free()); a console without any gcda line
 * gives an empty set whose `sent` is false (a boot that crashed before its
 * tests were done sends none).  ERR_INPUT, naming the console `name` and
 * the file, when a block is cut short or damaged, the guest reported a
 * file it could not read (`gcda-error`), a path is sent twice or is not an
 * absolute path to a .gcda file, or gcda-done is missing or miscounts.
 */
int gcda_scan(const char *name, const char *buf, size_t len, struct gcda_set **out);

/*
 * The path of `f` below the build directory `dir` (absolute, no trailing
 * slash), "arch/x86/kernel/fpu/core.gcda", or NULL when it is not below
 * it: only the build's own files may be looked up.  A kernel built in
 * another directory (a cache moved or copied after the build) names that
 * one; kbuild builds such a kernel again where the cache is now.
 */
const char *gcda_path_in(const struct gcda_file *f, const char *dir);

void gcda_set_free(struct gcda_set *s);

#endif
