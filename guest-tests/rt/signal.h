/*
 * signal: installing SA_SIGINFO handlers without libc.
 *
 * The kernel's rt_sigaction takes its own struct (handler, flags, restorer,
 * 64-bit mask), not libc's, and a handler can only return through a
 * restorer that calls rt_sigreturn: this module supplies both.  The
 * handler's third argument points at a struct ucontext (<asm/ucontext.h>),
 * whose uc_mcontext.fpstate is the saved FPU image the kernel reloads on
 * return.
 */
#ifndef GT_SIGNAL_H
#define GT_SIGNAL_H

#include <asm/signal.h>
#include <asm/siginfo.h>
#include <asm/sigcontext.h>	/* before ucontext.h, which needs struct sigcontext */
#include <asm/ucontext.h>

typedef void (*signal_action_fn)(int sig, siginfo_t *info, void *ucontext);

/* Installs `fn` for `sig` with an empty mask and no SA_RESTART.  0 or -errno. */
int signal_set_action(int sig, signal_action_fn fn);

#endif
