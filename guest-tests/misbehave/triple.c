/*
 * triple: the machine goes down in the middle of a test, without a result.
 *
 * A real triple fault needs ring 0 (lidt of an empty IDT, then any
 * exception), and this kernel gives user space no way there: no modules of
 * our own in the payload, no /dev/mem, no /proc/sysrq-trigger, no ioperm
 * for the keyboard controller's reset line.  The nearest a user program
 * gets is taking the kernel down: PID 1 executes ud2, the SIGILL kills it,
 * the kernel panics ("Attempted to kill init!"), and panic=-1 resets the
 * machine at once, which ends the domain as a triple fault's reset would.
 * The host must give the running test CRASH with the panic as its title.
 */
#include "mb.h"

int main(int argc, char **argv, char **envp)
{
	struct ktap top;

	(void)argc;
	(void)argv;
	(void)envp;
	mb_start(&top, 1);
	mb_begin(&top, 1, "triple");
	__asm__ volatile("ud2");
	mb_hang();
}
