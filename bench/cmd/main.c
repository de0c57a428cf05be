/*
 * fpubench's entry point: cmd_main() (cmd.h, dispatch.c) finds the
 * command, parses its options from the table in options.c, calls it and
 * turns what it returns into the exit status.
 */
#include "cmd.h"

int main(int argc, char **argv)
{
	return cmd_main(argc, argv);
}
