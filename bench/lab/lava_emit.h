/*
 * lava_emit: `fpubench lava --emit DIR`, the matrix as LAVA jobs for a lab
 * admin to submit by hand.  DIR gets each kernel's bzImage-VARIANT beside
 * its initramfs-VARIANT.cpio (already there: the session builds payloads
 * in its run directory, which is DIR), jobs/VARIANT-SETUP.yaml for every
 * (kernel, setup) pair the matrix would boot (lava_job.h), and SHA256SUMS
 * over all of them in sha256sum(1)'s format.  A pair the matrix skips (a
 * kernel above the setup's CPU family) gets no job.  A board setup
 * ("@NAME") gets a job for its board (lava_job_use_board()).
 */
#ifndef FPUBENCH_LAVA_EMIT_H
#define FPUBENCH_LAVA_EMIT_H

#include "boot/cpu.h"
#include "boot/matrix.h"
#include "lava_job.h"

#include <stddef.h>

struct lava_emit {
	const char *dir;		/* absolute; holds the initramfs files */
	const char *url;		/* the artefacts' URL prefix; NULL: file://DIR */
	const char *run_id;
	double timeout_s;
	const char *const *tests;	/* the boots run only these; none: all */
	size_t ntests;
	const struct matrix_kernel *kernels;
	size_t nkernels;
	const struct cpu_setup *setups;
	size_t nsetups;
	const struct lava_board *boards;	/* what the board setups name */
	size_t nboards;
};

/* Writes everything; *njobs says how many jobs. */
int lava_emit_write(const struct lava_emit *e, size_t *njobs);

#endif
