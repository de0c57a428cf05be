/*
 * lab: a LAVA lab as a place where the matrix's boots run, beside libvirt
 * hosts (struct matrix_lab, boot/matrix.h).  A boot is one LAVA job
 * (lava_job.h) that boots the guest_spec's kernel and initramfs with its
 * whole command line on the setup's CPU; the job's log becomes the boot's
 * console file (lava_log.h), so the judge reads it as it reads a libvirt
 * guest's, and LAVA's own verdict is used only to tell a lab's failure
 * from a kernel's:
 *
 *  - a job LAVA refuses, or whose log is not YAML, truncated or
 *    console-less but not for the lab's sake: ERR_LAB_JOB, an error cell
 *    with LAVA's message, naming the job;
 *  - `error_type: Infrastructure` (or Canceled) with no kernel output, a
 *    lab that does not answer, an offline device: ERR_LAB, tried once
 *    elsewhere as a libvirt boot that failed for the infrastructure;
 *  - anything with kernel output is judged from the console: LAVA calls a
 *    kernel oops "Infrastructure, Connection closed" too.
 *
 * A board setup (cpu_setup.board) is a job for the board's device type
 * and boot method (lava_job_use_board()); a QEMU setup, for device_type.
 *
 * Engines: LAB_LAVA_RUN runs Debian's `lava-run` on this machine (no
 * server; as root), with a device file the bench writes per boot for the
 * setup's CPU (lava-run renders no device template: the job context's
 * extra_options would be lost) and a dispatcher file with dispatcher_ip.
 * Artefacts go by file:// URL unless an artefacts directory is given, where
 * each file is copied once under its sha256 (its URL prefix, or file://).
 * Each boot's files (job.yaml, device.yaml, lava.log) are kept in
 * RUN/lab/NAME/, the console in the console file as for libvirt.  A
 * lava-run job has no page: its URL is its log's path relative to the run
 * directory (report.html, beside it, links it), "lab/NAME/lava.log", and
 * none when lava-run left no log; a server's job, URL/scheduler/job/ID.
 */
#ifndef FPUBENCH_LAB_H
#define FPUBENCH_LAB_H

#include "boot/errors.h"
#include "boot/matrix.h"
#include "lava_job.h"

#include <stddef.h>

enum lab_engine {
	LAB_LAVA_RUN,
	LAB_REST,
};

struct lab_spec {
	const char *name;
	enum lab_engine engine;
	const char *url;		/* rest: the server */
	const char *token;		/* rest: never printed */
	const char *artefacts;		/* a directory to copy the files into, or NULL */
	const char *artefacts_url;	/* its URL as the lab sees it; NULL: file://artefacts */
	const char *device_type;	/* NULL: qemu */
	const char *const *tags;
	size_t ntags;
	double queue_s;			/* rest: how long a job may wait for a device; 0: default */
	const struct lava_board *boards;	/* rest: the boards it holds, each a setup "@NAME" */
	size_t nboards;
};

struct lab;

/* Where the boots' files go in the run directory. */
#define LAB_DIR "lab"

/*
 * Opens the lab: lava-run must be installed and we root; a server must
 * answer with its version.  Copies what it keeps of spec.
 */
int lab_open(struct lab **out, const struct lab_spec *spec);

/* Where each boot's files go: RUN/lab/NAME; before the first boot. */
void lab_use_dir(struct lab *l, const char *run_dir);

/* What the matrix boots through; valid while the lab is. */
const struct matrix_lab *lab_matrix(struct lab *l);

/* Makes every running job end (cancelled); async-signal-safe. */
void lab_interrupt(void);

void lab_free(struct lab *l);

#endif
