/*
 * coverage: line coverage of the kernel's FPU code on each CPU setup
 * (`fpubench test --coverage DIR`), with gcov in the guest and lcov on the
 * host.
 *
 * The kernel is the tested one (`patched`, with any --patch) plus
 * patches/gcov/profile-fpu.patch, which gives gcov counters to the FPU
 * objects only, built with fpu.config and patches/gcov/gcov.config merged:
 * a variant of its own, "<variant>-gcov", so no other build changes.  Its
 * boots carry COVERAGE_CMDLINE, on which the guest's init sends the .gcda
 * files over the console once its tests are done (judge/gcda.h).
 *
 * coverage_write() decodes each boot's data, puts every file beside its
 * .gcno (a copy of the build's object tree under DIR/data/), runs lcov with
 * the gcov of the compiler that built the kernel, and writes DIR/:
 *   SETUP.info   each setup's tracefile (its boots merged), SETUP as the
 *                console logs name it (pentium2_-fxsr.info);
 *   fsave.info   the FSAVE setups merged; all.info every setup;
 *   html/        genhtml's report of all.info, html/fsave/ of fsave.info,
 *                and html/fsave/unreached.html, record/unreached.h's page;
 *   summary.txt  record/lcov.h's summary, then record/unreached.h's of
 *                the lines no FSAVE setup executes, sorted by the
 *                reasons of `patches`/gcov/unreached.list.
 * What an earlier run left there under these names (every *.info) is
 * removed first.
 * Source paths (SF:) are relative to the kernel tree's top.  A setup whose
 * data did not arrive whole, or that no boot sent data for, is left out; one
 * with a boot that sent none (a test took the kernel down, or the time
 * limit came first) is partial.  Both are named on stderr and in
 * summary.txt; no FSAVE setup's data at all is an error.  The session
 * holds one kernel, the coverage variant.
 */
#ifndef FPUBENCH_COVERAGE_H
#define FPUBENCH_COVERAGE_H

#include "session.h"

#include <git2.h>

/* On the kernel command line of a coverage boot; init sees it as fpubench_gcov in its environment. */
#define COVERAGE_CMDLINE "fpubench_gcov=1"

/* The kernel parameters of a coverage boot: COVERAGE_CMDLINE and `append` (may be NULL). */
char *coverage_append(const char *append);

/*
 * Builds `commit` with the gcov patch and fragment from `patches` on top
 * of `fragment`, as "<variant>-gcov", and adds it to the session.
 * ERR_USAGE when none of the session's setups uses FSAVE, ERR_NOTFOUND
 * for a missing gcov file, ERR_APPLY, ERR_BUILD, and ERR_CONFIG when the
 * kernel dropped CONFIG_GCOV_KERNEL or CONFIG_DEBUG_FS.
 */
int coverage_add_kernel(struct session *s, const char *patches, const char *fragment,
			const char *variant, const git_oid *commit);

/* Writes DIR as above from the boots of `m`; `patches` as for coverage_add_kernel(). */
int coverage_write(const struct session *s, const struct matrix *m, const char *dir,
		   const char *patches);

#endif
