/*
 * plan-missing: a plan of 3 tests, 2 results, then "done".  The host must
 * fail the boot's plan ("ktap_plan") and say how many tests are missing.
 */
#include "mb.h"

int main(int argc, char **argv, char **envp)
{
	struct ktap top;

	(void)argc;
	(void)argv;
	(void)envp;
	mb_start(&top, 3);
	mb_pass(&top, 1, "plan_first");
	mb_pass(&top, 2, "plan_second");
	mb_done(&top);
}
