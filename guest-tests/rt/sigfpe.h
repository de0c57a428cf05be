/*
 * sigfpe: a SIGFPE handler that records what the kernel delivered and
 * repairs the frame so that the faulting instruction runs again
 * harmlessly, for tests that count and inspect SIGFPEs.
 *
 * The record holds the first SIGFPE since sigfpe_forget(): si_code,
 * si_addr, the frame's eip, trapno and err, and its fsave-format FPU header.  The repair is
 * x87_sigframe_forget_exception() unless the test installs its own edit.
 * If a second SIGFPE comes at an fwait, the repair did not reach the FPU:
 * the handler steps over the fwait so that the test can report instead of
 * trapping forever.
 */
#ifndef GT_SIGFPE_H
#define GT_SIGFPE_H

#include "signal.h"
#include "x87.h"

#include <stdbool.h>
#include <stdint.h>

struct sigfpe_record {
	int count;
	int si_code;
	uint32_t fault_addr;	/* si_addr */
	uint32_t eip;
	uint32_t trapno;	/* sigcontext: the trap's vector, 16 (#MF) for x87 exceptions */
	uint32_t err;		/* sigcontext: its error code, 0 for #MF */
	bool frame_missing;		/* uc_mcontext.fpstate was NULL */
	struct x87_fsave frame;		/* before the repair */
};

extern volatile struct sigfpe_record sigfpe_seen;

/* Edits the frame's FPU image instead of the default repair; NULL restores the default. */
typedef void (*sigfpe_edit_fn)(struct _fpstate *fp);

/* Installs the recording handler.  0 or -errno. */
int sigfpe_install(sigfpe_edit_fn edit);

void sigfpe_forget(void);

#endif
