/*
 * gcov: sends the kernel's gcov data to the host over the console, the
 * guest's only channel, in coverage boots (a kernel built with
 * CONFIG_GCOV_KERNEL; the host puts `fpubench_gcov=1` on its command line).
 *
 * It mounts debugfs, walks its gcov/ directory and writes every .gcda file
 * there as top-level diagnostics (../README.md, "Coverage data"):
 *
 *     # fpubench: gcda PATH
 *     # gcda HEX            (64 bytes a line, lowercase hex)
 *     # fpubench: gcda-end LENGTH CRC32
 *     ...
 *     # fpubench: gcda-done COUNT
 *
 * PATH is the file's path under gcov/, which is the object's path in the
 * kernel's build directory; LENGTH its bytes and CRC32 their zlib CRC-32
 * (8 hex digits), so the host can tell a file that arrived whole.  Hex,
 * not base64: a data line can spell no word of a crash report.  A file
 * that cannot be read ends in `# fpubench: gcda-error TEXT` instead, and
 * COUNT counts only the whole ones.
 */
#ifndef GT_GCOV_H
#define GT_GCOV_H

#include "ktap.h"

/* Sends every .gcda file; reports failures on the console, never returns one. */
void gcov_send(const struct ktap *top);

#endif
