/*
 * session: what one invocation of the bench holds, and the steps that
 * `run`, `test` and `bisect` share: a kernel tree, the kernels built from
 * it, a libvirt connection, a run directory, and boots of the kernels on
 * the CPU setups.  session_release() frees all of it, in one place.
 *
 * The run directory is created only once something is about to boot, so a
 * run that fails before leaves none behind.
 */
#ifndef FPUBENCH_SESSION_H
#define FPUBENCH_SESSION_H

#include "conf.h"
#include "boot/cpu.h"
#include "build/apply.h"
#include "build/kbuild.h"
#include "build/tree.h"
#include "boot/matrix.h"

#include <stdbool.h>

struct guest_conn;

/* The cache's saved guests, under its lock like its builds. */
#define SESSION_SAVES_DIR "saves"

struct session_config {
	const char *cache;
	const struct conf_host *hosts;	/* none: the embedded driver in the cache, unless labs */
	size_t nhosts;
	const struct conf_lab *const *labs;	/* LAVA labs that boot beside the hosts */
	size_t nlabs;
	const struct conf_board *boards;	/* the config's [board]s: what a "@NAME" setup is */
	size_t nboards;
	const char *results;
	const char *guest_dir;	/* holds init */
	const char *kmod_src;
	const char *seed_variant;	/* a first build directory starts as a copy of its */
	/*
	 * Each kernel's commit provenance for results.json (run and test).
	 * bisect names only its culprit's, and one of its ends may be a root
	 * commit, whose patch-id diffs the whole tree (20 s for the kernel).
	 */
	bool kernel_provenance;
	int jobs;		/* make jobs */
	int guests;		/* guests at once per host unless its spec says; 0: what it holds */
	double timeout_s;
	bool restore;		/* boot through the cache's saved guests (boot/restore.h) */
	const struct expect_rule *expects;	/* the [expect] rules; none: every cell is to pass */
	size_t nexpects;
	const char *append;	/* kernel parameters for every setup, or NULL */
	const char *const *tests;	/* the boots run only these tests; none: all */
	size_t ntests;
	bool fail_fast;		/* stop at the first unmet cell (matrix_options) */
	matrix_boot_fn *on_boot;	/* told of each boot's cells, or NULL */
	void *on_boot_arg;
};

struct session {
	struct session_config cfg;
	struct cpu_setup *setups;
	size_t nsetups;
	struct kernel_tree *tree;
	struct kernel_build **builds;
	struct matrix_kernel *kernels;
	char **initrds;
	char **provenance;	/* per kernel, JSON or NULL */
	size_t nkernels;
	struct matrix_host *hosts;	/* uri points into uris[]; libvirt hosts, then labs */
	char **uris;
	size_t nhosts;
	struct lab **labs;
	size_t nlabs;
	char *run_id;
	char *run_dir;
	char *selftests;
	int rounds;		/* matrix rounds so far, for unique names */
};

/* Parses the setups (the defaults when n is 0). */
int session_parse_setups(struct session *s, const char *const *specs, size_t n);

/* Builds commit (NULL: the work tree as it is) as a variant and adds it. */
int session_add_kernel(struct session *s, const char *variant, const git_oid *commit,
		       const char *fragment);

/* Drops the kernels (bisect tests one commit at a time). */
void session_clear_kernels(struct session *s);

/*
 * Connects to every host, clears stale domains in embedded roots, checks
 * the CPU models on each; opens every lab (its files go to the run
 * directory, so after session_create_run_dir()).  A session given only
 * labs boots nothing under libvirt.
 */
int session_connect(struct session *s);

/*
 * Lets a child bench (a nightly's `fpubench bisect`) have what this one
 * holds: its libvirt connections (an embedded root admits one process)
 * and the cache lock.  The session boots and builds nothing after; only
 * session_release() is left to call.
 */
void session_hand_over(struct session *s);

/* libvirt's own log lines, in the run directory (virt_log.h). */
#define SESSION_VIRT_LOG "libvirt.log"

/* Creates results/<run-id> and sends libvirt's log lines to its SESSION_VIRT_LOG. */
int session_create_run_dir(struct session *s);

/*
 * A run id, and `dir` (created) as the run directory instead of one in
 * the results: `lava --emit` writes its artefacts there, and boots nothing.
 */
int session_use_dir(struct session *s, const char *dir);

/* Builds the initramfs of every kernel that has none yet, in the run directory. */
int session_build_payloads(struct session *s);

/*
 * Boots every kernel on every setup `repeat` times and returns the cells;
 * the payload of kernels that have none yet is built first.
 */
int session_boot(struct session *s, int repeat, struct matrix **out);

/* Points results/latest at this run. */
int session_mark_latest(struct session *s);

void session_release(struct session *s);

#endif
