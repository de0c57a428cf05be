/*
 * flood: init that begins a test and then writes to the console as fast
 * as the UART takes it, forever.  The host must stop the guest once the
 * console log passes its cap (CONSOLE_MAX in judge/console.h) and fail
 * the test, with bounded memory and disk.
 *
 * The lines are indented diagnostics, which the scanner keeps while the
 * test runs: the flood also tests that nothing it keeps grows with it.
 * They leave in large writes without tcdrain, the fastest a guest can go.
 */
#include "mb.h"

#define FLOOD_LINE "    # flood: the quick brown fox jumps over the lazy dog 0123456789\n"
#define FLOOD_LINES 1024

static char flood_buf[FLOOD_LINES * (sizeof(FLOOD_LINE) - 1)];

int main(int argc, char **argv, char **envp)
{
	struct ktap top;

	(void)argc;
	(void)argv;
	(void)envp;
	for (size_t i = 0; i < sizeof(flood_buf); i++)
		flood_buf[i] = FLOOD_LINE[i % (sizeof(FLOOD_LINE) - 1)];
	mb_start(&top, 1);
	mb_begin(&top, 1, "flood");
	for (;;)
		mb_raw(flood_buf, sizeof(flood_buf));
}
