#include "signal.h"

#include "sys.h"

#define STRINGIFY(x) STRINGIFY_(x)
#define STRINGIFY_(x) #x

/* The layout rt_sigaction reads on i386 (include/linux/signal_types.h). */
struct kernel_sigaction {
	signal_action_fn handler;
	unsigned long flags;
	void (*restorer)(void);
	unsigned long long mask;
};

/* Where a handler returns to: the kernel has left the rt frame on the stack. */
void signal_restorer(void);
__asm__(".text\n"
	".globl signal_restorer\n"
	".type signal_restorer, @function\n"
	"signal_restorer:\n"
	"	movl $" STRINGIFY(__NR_rt_sigreturn) ", %eax\n"
	"	int $0x80\n");

int signal_set_action(int sig, signal_action_fn fn)
{
	struct kernel_sigaction act = {
		.handler = fn,
		.flags = SA_SIGINFO | SA_RESTORER,
		.restorer = signal_restorer,
		.mask = 0,
	};

	return (int)sys_rt_sigaction(sig, &act, NULL);
}
