/*
 * cpu: a CPU setup, written `MODEL[,-FEATURE|,+FEATURE]...[:KERNEL-PARAMS]`
 * as in QEMU's -cpu, e.g. `486`, `pentium2,-fxsr`, `pentium3:nofxsr`.
 *
 * The part before the colon is the libvirt CPU model with features
 * disabled (-) or required (+); the part after it is appended to the
 * kernel command line (commas there stand for spaces, since a setup is one
 * word).  `@NAME[:KERNEL-PARAMS]` is a lab's real board, a [board NAME]
 * of the config: no QEMU model, booted only by a lab that holds it; the
 * FPU path it claims (board_fsave) is set by whoever knows the board.  A
 * struct cpu_setup owns its strings; cpu_setup_release() frees them.
 */
#ifndef FPUBENCH_CPU_H
#define FPUBENCH_CPU_H

#include <stdbool.h>
#include <stddef.h>

#define CPU_FEATURES_MAX 16

struct cpu_feature {
	char *name;
	bool enable;
};

struct cpu_setup {
	char *spec;		/* as written */
	char *cpu;		/* the part before the colon */
	char *model;
	struct cpu_feature features[CPU_FEATURES_MAX];
	size_t nfeatures;
	char *cmdline;		/* extra kernel parameters, "" if none */
	char *board;		/* "@NAME": the board's name (model is it too); NULL: QEMU's */
	bool board_fsave;	/* a board: its kernel must report FSAVE (else FXSAVE) */
};

/* 0, or ERR_USAGE naming the spec. */
int cpu_setup_parse(struct cpu_setup *out, const char *spec);

void cpu_setup_release(struct cpu_setup *c);

/*
 * Whether the kernel should save the FPU with FSAVE on this setup: the
 * model lacks FXSR (a board: it claims FSAVE, board_fsave), fxsr is
 * disabled, or `nofxsr` is on the command line.
 */
bool cpu_setup_uses_fsave(const struct cpu_setup *c);

/*
 * The CPU family of the setup's model (4 for the 486, 5 for the Pentium,
 * 6 for the P6 and QEMU's generic models), or 0 for a model the bench
 * does not know and for a board, which every kernel is booted on.
 */
int cpu_setup_family(const struct cpu_setup *c);


#endif
