/*
 * plan-extra: a plan of 2 tests, 3 results, then "done".  The host must
 * fail the boot's plan ("ktap_plan") and name the extra test.
 */
#include "mb.h"

int main(int argc, char **argv, char **envp)
{
	struct ktap top;

	(void)argc;
	(void)argv;
	(void)envp;
	mb_start(&top, 2);
	mb_pass(&top, 1, "plan_first");
	mb_pass(&top, 2, "plan_second");
	mb_pass(&top, 3, "plan_third");
	mb_done(&top);
}
