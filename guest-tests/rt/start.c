#include "start.h"

#include "auxv.h"
#include "sys.h"

/*
 * At entry %esp points at argc, then argv[0..argc-1], NULL, envp..., NULL,
 * then the auxiliary vector.
 * %ebp = 0 ends the frame chain; the i386 ABI wants %esp 16-byte aligned at
 * each call, and the kernel does not promise it.
 */
__asm__(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	xorl %ebp, %ebp\n"
	"	movl %esp, %eax\n"
	"	andl $-16, %esp\n"
	"	subl $12, %esp\n"
	"	pushl %eax\n"
	"	call start_main\n");

__attribute__((noreturn, used)) void start_main(long *sp);

void start_main(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	char **e = envp;

	while (*e)
		e++;
	auxv_vector = (const uint32_t *)(e + 1);

	sys_exit_group(main(argc, argv, envp));
}
