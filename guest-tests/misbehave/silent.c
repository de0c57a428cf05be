/*
 * silent: init that never prints.  The host must give the boot TIMEOUT
 * after its limit and destroy the domain.
 */
#include "mb.h"

int main(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	mb_hang();
}
