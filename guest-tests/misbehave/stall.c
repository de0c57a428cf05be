/*
 * stall: init that prints the header, the plan and one result, then
 * stops printing forever.  The host must keep the pass of the first test
 * and give the boot TIMEOUT ("init stopped between tests").
 */
#include "mb.h"

int main(int argc, char **argv, char **envp)
{
	struct ktap top;

	(void)argc;
	(void)argv;
	(void)envp;
	mb_start(&top, 2);
	mb_pass(&top, 1, "stall_first");
	mb_hang();
}
