/*
 * garbage: well-formed KTAP whose text is hostile: NUL bytes, invalid
 * UTF-8 (a lone continuation byte, an overlong '/', a surrogate, 0xff),
 * and terminal escapes (clear screen, OSC window title, OSC 52 clipboard
 * write, a colour) in the cpu line, test names, diagnostics and a forged
 * crash report.  The host must read it as usual (test 1 passes, test 2
 * fails with its diagnostics as the reason, test 3 crashes with the forged
 * report's title) and must never put those bytes raw into results.json or
 * on its terminal.
 */
#include "mb.h"

#define ESC "\x1b"
#define CLEAR ESC "[2J" ESC "[H"
#define TITLE ESC "]0;pwned\x07"
#define CLIPBOARD ESC "]52;c;cm0gLXJmIH4K\x07"
#define RED ESC "[31m"
#define NUL "\0"
#define BAD_UTF8 "\x80" "\xc0\xaf" "\xed\xa0\x80" "\xff\xfe"
#define HOSTILE CLEAR TITLE CLIPBOARD RED NUL BAD_UTF8

int main(int argc, char **argv, char **envp)
{
	struct ktap top;

	(void)argc;
	(void)argv;
	(void)envp;
	ktap_init(&top, 0);
	ktap_header(&top);
	MB_RAW("# fpubench: cpu vendor=" HOSTILE "\n");
	ktap_plan(&top, 3);

	MB_RAW("# fpubench: begin 1 garbage" HOSTILE "name\n");
	MB_RAW("ok 1 garbage" HOSTILE "name\n");
	ktap_diag(&top, "fpubench: duration_ms 1");

	MB_RAW("# fpubench: begin 2 garbage_diag\n"
	       "    KTAP version 1\n"
	       "    1..1\n"
	       "    not ok 1 sub" HOSTILE "test\n"
	       "    # expected 1" HOSTILE ", got 2\n"
	       "not ok 2 garbage_diag\n");
	ktap_diag(&top, "fpubench: duration_ms 1");

	/* init never uses printk, but nothing stops it from looking like the kernel. */
	MB_RAW("# fpubench: begin 3 garbage_crash\n"
	       "[    1.000000] BUG: unable to handle page fault" HOSTILE "\n"
	       "[    1.000000] EIP: evil" HOSTILE "_func+0x1/0x2\n"
	       "ok 3 garbage_crash\n");
	ktap_diag(&top, "fpubench: duration_ms 1");
	mb_done(&top);
}
