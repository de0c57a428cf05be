/*
 * matrix: boots every (kernel, CPU setup) pair and turns the consoles into
 * cells, one per (kernel, setup, test).
 *
 * All of a setup's tests run in one boot.  When a test takes the kernel
 * down, the guest is booted again with `fpubench_start=` set past it, so
 * one crash costs one extra boot and the later tests still get verdicts.
 * A (kernel, setup) pair gets at most MATRIX_MAX_BOOTS boots, whatever plan
 * the guest announces.  Boots run in parallel over all hosts, each host's
 * `jobs` at a time; a (kernel, setup) pair whose boot fails for the
 * infrastructure's sake (not the kernel's) is tried once more on another
 * host that takes it (matrix_host_takes()).  A kernel whose minimum CPU
 * family is above a setup's model (a 586 kernel on a 486) is not booted
 * there: the pair is one `skip` cell, "boot", whose reason says "kernel
 * requires …"; a pair no host takes is an `error` cell.  With fail_fast,
 * the first unmet cell (matrix_cells_stop()) ends the run: no boot starts
 * after it, the boots still running are destroyed (guest_spec's cancel),
 * and each pair that did not get all its tests' cells gets one more "boot"
 * cell, a skip marked not_run and not met.  A struct matrix owns its cells;
 * free it with matrix_free().
 */
#ifndef FPUBENCH_MATRIX_H
#define FPUBENCH_MATRIX_H

#include "errors.h"

#include "cpu.h"
#include "judge/cell.h"
#include "judge/expect.h"
#include "judge/verdict.h"

#include <stdbool.h>
#include <stddef.h>

#define MATRIX_MAX_BOOTS 32	/* per (kernel, setup): well above guest-tests' count */

struct guest_conn;
struct strbuf;

struct matrix_kernel {
	const char *variant;
	const char *bzimage;
	const char *commit;
	const char *build_id;
	const char *initrd;	/* absolute; the payload differs per variant */
	const char *provenance;	/* the commit's provenance as a JSON object, or NULL */
	const char *version;	/* the tree's Makefile says, "6.12.118"; NULL if unknown */
	int min_family;		/* the lowest CPU family it runs on; 0: any */
	char *const *warnings;	/* config options it was built without */
	size_t nwarnings;
};


/* What each guest gets. */
#define MATRIX_GUEST_MEMORY_MIB 64

struct guest_spec;
struct guest_outcome;

/* Where a lab's boot ran: its job (caller frees both). */
struct matrix_job {
	char *id;
	char *url;	/* its page; a lab of one's, its log's path relative to the run directory */
};

/*
 * A lab (lab/lab.h): boot() takes a guest_spec and does what guest_run()
 * does, the console file and the outcome, and names its job.  ERR_LAB: the
 * lab failed (offline, no answer, no kernel output): tried elsewhere;
 * ERR_LAB_JOB: an error cell with the lab's message.
 */
struct matrix_lab {
	void *arg;
	int (*boot)(void *arg, const struct guest_spec *spec, double timeout_s,
		    struct guest_outcome *out, struct matrix_job *job);
};

/*
 * A libvirt connection, or a lab, and how many guests it runs at once.
 * Every host boots the QEMU setups; a board setup (cpu_setup.board) boots
 * only on a lab that lists it in `boards`.
 */
struct matrix_host {
	struct guest_conn *conn;	/* NULL for a lab */
	const struct matrix_lab *lab;	/* NULL for libvirt */
	const char *uri;		/* the lab's "lab NAME" */
	int jobs;
	const char *const *boards;	/* a lab's boards, by name */
	size_t nboards;
};

/* Whether the host boots the setup: a QEMU setup anywhere, a board only in a lab that holds it. */
bool matrix_host_takes(const struct matrix_host *h, const struct cpu_setup *cpu);

/* Called with the cells of each boot as soon as it ends, all fields set; calls are serialised. */
typedef void matrix_boot_fn(void *arg, const struct matrix_cell *cells, size_t ncells,
			    size_t groups_done, size_t ngroups);

struct matrix_options {
	const struct matrix_host *hosts;
	size_t nhosts;
	const char *run_id;
	int round;		/* tells apart boots of one run in names and logs */
	const char *run_dir;	/* absolute */
	double boot_timeout_s;
	const struct expect_rule *expects;	/* none: every cell is to pass */
	size_t nexpects;
	const char *const *tests;	/* run only these tests (fpubench_tests=), keep their cells; none: all */
	size_t ntests;
	matrix_boot_fn *on_boot;	/* or NULL */
	void *on_boot_arg;
	bool fail_fast;		/* stop at the first unmet cell (--fail-fast) */
};

struct matrix {
	struct matrix_cell *cells;
	size_t ncells;
	bool interrupted;
	bool stopped_early;	/* fail_fast stopped it: some pairs have a not_run cell */
};

/*
 * Runs the matrix.  Failures of single boots become `error` cells; only a
 * failure that stops the whole run returns an error code (ERR_CPU for a
 * CPU that libvirt refuses, since every later boot would fail alike).
 */
int matrix_run(const struct matrix_options *opts, const struct matrix_kernel *kernels,
	       size_t nkernels, const struct cpu_setup *setups, size_t nsetups,
	       struct matrix **out);

void matrix_free(struct matrix *m);

/* Whether a boot's cells stop the run: with fail_fast, when one is not met. */
bool matrix_cells_stop(const struct matrix_options *opts, const struct matrix_cell *cells,
		       size_t ncells);


/* Appends the tests, comma-separated, as init's fpubench_tests= takes them. */
void matrix_tests_join(struct strbuf *sb, const char *const *tests, size_t ntests);

/*
 * The whole kernel command line of a boot on `cpu` that runs `tests` (none:
 * all) from test `start` on, appended to cmdline: what every place a
 * kernel boots (a libvirt guest, a LAVA job) gives it.
 */
void matrix_boot_cmdline(struct strbuf *cmdline, const struct cpu_setup *cpu,
			 const char *const *tests, size_t ntests, int start);

/* Whether the kernel boots on the setup: not when its CPU family is below the kernel's minimum. */
bool matrix_pair_boots(const struct matrix_kernel *k, const struct cpu_setup *cpu);

/* The setup as console logs name it: "pentium2,-fxsr" is "pentium2_-fxsr" (caller frees). */
char *matrix_setup_slug(const char *spec);

#endif
