/*
 * lava_job: one LAVA job definition per (kernel, setup) boot of the
 * matrix, as YAML written by libyaml's emitter.
 *
 * The job boots the bench's own bzImage and initramfs, fetched by URL and
 * checked by sha256, with the whole kernel command line of the boot
 * (guest_spec.cmdline): on a `qemu` device type through the kernel's
 * image_arg (`-append "..."`) with the setup's CPU in the context's
 * extra_options and no KVM; on a board deployed over TFTP, with the
 * command line as the context's extra_kernel_args.  A `monitors` test
 * shows the guest's top-level KTAP results in the lab's UI; the bench
 * itself judges the console (lava_log.h), never LAVA's results, since
 * LAVA cannot tell a kernel crash from a broken lab.
 *
 * Timeouts follow the bench's boot timeout: the boot and the test each
 * get it, the deployment LAVA_JOB_DEPLOY_S, the job their sum.  Metadata
 * names the run, variant, setup, tree version and commit.  The strings
 * are borrowed; nothing in them is trusted to be YAML-safe (the emitter
 * quotes), but a QEMU command line cannot hold '"' nor LAVA's '{' '}'
 * placeholders, so such a command line is ERR_INPUT.
 */
#ifndef FPUBENCH_LAVA_JOB_H
#define FPUBENCH_LAVA_JOB_H

#include "boot/cpu.h"
#include "lib/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

#define LAVA_JOB_DEPLOY_S 120	/* fetching two files of a few MB */

/*
 * A lab's real board (a [board NAME] of the config): its jobs go to its
 * device type with its boot method, deployed over TFTP.  LAVA_BOARD_BOOTS
 * are the boot methods LAVA's schema and its x86 device types give a TFTP
 * kernel and ramdisk ("commands: ramdisk").
 */
#define LAVA_BOARD_BOOTS "ipxe, grub or grub-efi"
struct lava_board {
	const char *name;
	const char *device_type;
	const char *boot_method;
	const char *const *tags;
	size_t ntags;
};

/* Whether LAVA boots a board's TFTP kernel that way (LAVA_BOARD_BOOTS). */
bool lava_board_boot_known(const char *method);

/* The board of that name, or NULL. */
const struct lava_board *lava_board_find(const struct lava_board *boards, size_t n,
					 const char *name);

struct lava_job {
	const char *name;		/* job_name */
	const char *device_type;	/* "qemu", or a board's */
	const char *boot_method;	/* a board's ("ipxe", "grub", ...); NULL: qemu */
	const char *const *tags;
	size_t ntags;
	const struct cpu_setup *cpu;	/* qemu: its model and features become -cpu */
	unsigned memory_mib;		/* qemu */
	const char *cmdline;		/* the whole kernel command line */
	const char *kernel_url, *kernel_sha256;
	const char *initrd_url, *initrd_sha256;
	double timeout_s;		/* the bench's boot timeout */
	/* metadata */
	const char *run_id, *variant, *setup, *version, *commit;
};

/* Points the job at the board: its device type, boot method and tags. */
void lava_job_use_board(struct lava_job *job, const struct lava_board *board);

/* Appends the job's YAML to out; ERR_INPUT names a command line QEMU cannot take. */
int lava_job_write(const struct lava_job *job, struct strbuf *out);

/* The `-cpu` value of a setup in QEMU's syntax: "pentium2,fxsr=off" (caller frees). */
char *lava_job_qemu_cpu(const struct cpu_setup *cpu);

#endif
