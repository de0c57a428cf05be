/*
 * signal: installing signal handlers without libc.
 *
 * The kernel's rt_sigaction takes its own struct (handler, flags, restorer,
 * 64-bit mask), not libc's, and a handler can only return through a
 * restorer that calls rt_sigreturn: this module supplies both.  The
 * handler's third argument points at a struct ucontext (<asm/ucontext.h>),
 * whose uc_mcontext.fpstate is the saved FPU image the kernel reloads on
 * return.
 *
 * A handler installed without SA_SIGINFO gets the old i386 frame instead
 * (__setup_frame() in arch/x86/kernel/signal.c): the signal number, then
 * the struct sigcontext itself on the stack, which is how the old handler
 * type below receives it; it returns through a restorer that pops the
 * signal number and calls sigreturn (not rt_sigreturn), which finds the
 * frame 8 bytes below %esp.
 */
#ifndef GT_SIGNAL_H
#define GT_SIGNAL_H

#include <asm/signal.h>
#include <asm/siginfo.h>
#include <asm/sigcontext.h>	/* before ucontext.h, which needs struct sigcontext */
#include <asm/ucontext.h>

typedef void (*signal_action_fn)(int sig, siginfo_t *info, void *ucontext);

/* `sc` is the frame's own sigcontext: &sc is 8 bytes above the frame's start. */
typedef void (*signal_old_fn)(int sig, struct sigcontext sc);

/* Where the kernel put a frame (its first word, the return address), from the handler's arguments. */
static inline unsigned long signal_rt_frame(const siginfo_t *info)
{
	return (unsigned long)info - 16;	/* pretcode, sig, pinfo, puc */
}

static inline unsigned long signal_old_frame(const struct sigcontext *sc)
{
	return (unsigned long)sc - 8;		/* pretcode, sig */
}

/* Installs `fn` for `sig` with an empty mask and no SA_RESTART.  0 or -errno. */
int signal_set_action(int sig, signal_action_fn fn);

/* The same with `flags` added to SA_SIGINFO (SA_ONSTACK, SA_NODEFER). */
int signal_set_action_flags(int sig, signal_action_fn fn, unsigned long flags);

/* Installs `fn` without SA_SIGINFO, so that it gets the old frame, with `flags` added. */
int signal_set_old_action(int sig, signal_old_fn fn, unsigned long flags);

/* The restorers the three above install, with SA_RESTORER: rt_sigreturn and sigreturn. */
void signal_restorer(void);
void signal_old_restorer(void);

/*
 * rt_sigaction of `fn` with exactly `flags` (no SA_SIGINFO or SA_RESTORER
 * added) and `restorer`, an empty mask: for a test of the kernel's own
 * restorer, or of a handler's entry registers.  0 or -errno.
 */
int signal_set_raw(int sig, void (*fn)(void), unsigned long flags, void (*restorer)(void));

#endif
