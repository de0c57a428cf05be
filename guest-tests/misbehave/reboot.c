/*
 * reboot: init that reboots at once, before it prints anything, on every
 * boot.  A reboot ends the domain (on_reboot=destroy), so the host must
 * see one boot without results and call it a crash, not a pass, and must
 * not boot it again and again.
 */
#include "mb.h"

int main(int argc, char **argv, char **envp)
{
	struct ktap top;

	(void)argc;
	(void)argv;
	(void)envp;
	ktap_init(&top, 0);
	mb_reboot(&top);
}
