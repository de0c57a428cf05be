#include "signal.h"

#include "sys.h"

#define STRINGIFY(x) STRINGIFY_(x)
#define STRINGIFY_(x) #x

/* The layout rt_sigaction reads on i386 (include/linux/signal_types.h). */
struct kernel_sigaction {
	void (*handler)(void);		/* either handler type: the flags tell the kernel which */
	unsigned long flags;
	void (*restorer)(void);
	unsigned long long mask;
};

/* Where a handler returns to: the kernel has left the rt frame on the stack. */
__asm__(".text\n"
	".globl signal_restorer\n"
	".type signal_restorer, @function\n"
	"signal_restorer:\n"
	"	movl $" STRINGIFY(__NR_rt_sigreturn) ", %eax\n"
	"	int $0x80\n");

/* The old frame's: its handler returned onto the signal number, above the sigcontext. */
__asm__(".text\n"
	".globl signal_old_restorer\n"
	".type signal_old_restorer, @function\n"
	"signal_old_restorer:\n"
	"	popl %eax\n"
	"	movl $" STRINGIFY(__NR_sigreturn) ", %eax\n"
	"	int $0x80\n");

int signal_set_raw(int sig, void (*fn)(void), unsigned long flags, void (*restorer)(void))
{
	struct kernel_sigaction act = {
		.handler = fn,
		.flags = flags,
		.restorer = restorer,
		.mask = 0,
	};

	return (int)sys_rt_sigaction(sig, &act, NULL);
}

static int signal_install(int sig, void (*fn)(void), unsigned long flags, void (*restorer)(void))
{
	return signal_set_raw(sig, fn, flags | SA_RESTORER, restorer);
}

/* void (*)(void) is the function pointer type GCC lets any other convert to. */
int signal_set_action_flags(int sig, signal_action_fn fn, unsigned long flags)
{
	return signal_install(sig, (void (*)(void))fn, flags | SA_SIGINFO, signal_restorer);
}

int signal_set_action(int sig, signal_action_fn fn)
{
	return signal_set_action_flags(sig, fn, 0);
}

int signal_set_old_action(int sig, signal_old_fn fn, unsigned long flags)
{
	return signal_install(sig, (void (*)(void))fn, flags, signal_old_restorer);
}
