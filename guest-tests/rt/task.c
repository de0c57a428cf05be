#include "task.h"

#include "sys.h"

#include <asm/errno.h>
#include <linux/futex.h>
#include <linux/sched.h>

long task_vfork_snapshot(unsigned long clone_flags, struct x87_fsave *child_saw)
{
	long ret;

	/* The child's %edi is the parent's: it points at the buffer. */
	__asm__ volatile("int $0x80\n\t"
			 "testl %%eax, %%eax\n\t"
			 "jnz 1f\n\t"
			 "fnsave (%%edi)\n\t"
			 "movl %[exit], %%eax\n\t"
			 "xorl %%ebx, %%ebx\n\t"
			 "int $0x80\n"
			 "1:"
			 : "=a"(ret)
			 : "0"(clone_flags ? __NR_clone : __NR_vfork), "b"(clone_flags), "c"(0),
			   "d"(0), "S"(0), "D"(child_saw), [exit] "i"(__NR_exit_group)
			 : "memory");
	return ret;
}

long task_thread_start(struct task_thread *thread, void (*fn)(void *arg), void *arg)
{
	const unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				    CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID |
				    CLONE_CHILD_CLEARTID;
	uint32_t *sp = thread->stack + TASK_STACK_BYTES / 4;
	long ret;

	/* The new stack holds fn, then its argument: the thread pops fn and calls it. */
	*--sp = (uint32_t)arg;
	*--sp = (uint32_t)fn;
	/* i386 clone(flags, newsp, parent_tid, tls, child_tid). */
	__asm__ volatile("int $0x80\n\t"
			 "testl %%eax, %%eax\n\t"
			 "jnz 1f\n\t"
			 "popl %%eax\n\t"
			 "call *%%eax\n\t"
			 "movl %[exit], %%eax\n\t"
			 "xorl %%ebx, %%ebx\n\t"
			 "int $0x80\n"
			 "1:"
			 : "=a"(ret)
			 : "0"(__NR_clone), "b"(flags), "c"(sp), "d"(&thread->tid), "S"(0),
			   "D"(&thread->tid), [exit] "i"(__NR_exit)
			 : "memory");
	return ret;
}

long task_thread_join(struct task_thread *thread)
{
	int tid;

	while ((tid = thread->tid) != 0) {
		long err = sys_call5(__NR_futex_time64, (long)&thread->tid, FUTEX_WAIT, tid, 0, 0);

		if (err < 0 && err != -EAGAIN && err != -EINTR)
			return err;
	}
	return 0;
}
