/*
 * fresh: the x87 state a new program starts with.
 *
 * The probe is init itself, run again through execve with FRESH_PROBE_ARG
 * and a pipe's file descriptor: before it executes any other x87
 * instruction, it saves the state with fnsave (which does not wait, so a
 * pending exception that leaked through execve is seen, not raised) and
 * writes the image to the pipe.  The contract is fpu__clear_user_states()
 * in arch/x86/kernel/fpu/core.c, called from execve's fpu_flush_thread():
 * the state fninit gives, FCW 0x037f, FSW 0, every register empty, and the
 * pointers zero (QEMU's TCG does not load them on frstor, so there they
 * are zero whatever init_fpstate holds).
 */
#ifndef GT_FRESH_H
#define GT_FRESH_H

#include "fpstate.h"
#include "ktap.h"
#include "x87.h"

#include <stdbool.h>

#define FRESH_PROBE_ARG "fpubench-fresh-probe"

/* Whether init was started as the probe. */
bool fresh_is_probe(int argc, char **argv);

/* The probe's main(): writes its initial state to the fd in argv[2]. */
int fresh_probe_main(char **argv);

/* execve()s the probe, which reports on `write_fd`.  Returns -errno only on failure. */
long fresh_exec_probe(int write_fd);

/* Whether `image` is the state fninit gives, FCW, FSW and tag word, saying `where`. */
void fresh_check(struct ktap_check *check, const char *where, const struct x87_fsave *image);

/*
 * Checks the probe's report of `got` bytes: the whole image, the state
 * fresh_check() wants, and the pointers zero.
 */
void fresh_check_report(struct ktap_check *check, const struct x87_fsave *image, long got);

/*
 * Forks a child that loads `spec` (which may leave an exception pending)
 * and execve()s the probe, and checks the probe's report and exit status.
 */
void fresh_run_probe(struct ktap_check *check, const struct fpstate_spec *spec);

#endif
