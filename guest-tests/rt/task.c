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

/*
 * A system call that makes a thread on a stack from task_thread_stack(),
 * its number and arguments the input operands: the parent gets its return
 * value in `ret`, the thread pops fn, calls it with the argument above and
 * exits alone.  One trampoline for clone and clone3.
 */
#define TASK_THREAD_SYSCALL(ret, ...)                                                     \
	__asm__ volatile("int $0x80\n\t"                                                   \
			 "testl %%eax, %%eax\n\t"                                          \
			 "jnz 1f\n\t"                                                      \
			 "popl %%eax\n\t"                                                  \
			 "call *%%eax\n\t"                                                 \
			 "movl %[exit], %%eax\n\t"                                         \
			 "xorl %%ebx, %%ebx\n\t"                                           \
			 "int $0x80\n"                                                     \
			 "1:"                                                              \
			 : "=a"(ret)                                                       \
			 : [exit] "i"(__NR_exit), __VA_ARGS__                              \
			 : "memory")

/* The new stack holds fn, then its argument: the thread pops fn and calls it. */
static uint32_t *task_thread_stack(struct task_thread *thread, void (*fn)(void *arg), void *arg)
{
	uint32_t *sp = thread->stack + TASK_STACK_BYTES / 4;

	*--sp = (uint32_t)arg;
	*--sp = (uint32_t)fn;
	return sp;
}

long task_thread_start_tls(struct task_thread *thread, void (*fn)(void *arg), void *arg,
			   struct user_desc *tls)
{
	const unsigned long flags = TASK_THREAD_FLAGS | (tls ? CLONE_SETTLS : 0);
	uint32_t *sp = task_thread_stack(thread, fn, arg);
	long ret;

	/* i386 clone(flags, newsp, parent_tid, tls, child_tid). */
	TASK_THREAD_SYSCALL(ret, "0"(__NR_clone), "b"(flags), "c"(sp), "d"(&thread->tid), "S"(tls),
			    "D"(&thread->tid));
	return ret;
}

long task_thread_start(struct task_thread *thread, void (*fn)(void *arg), void *arg)
{
	return task_thread_start_tls(thread, fn, arg, NULL);
}

long task_thread_start_clone3(struct task_thread *thread, void (*fn)(void *arg), void *arg,
			      struct user_desc *tls)
{
	uint32_t *sp = task_thread_stack(thread, fn, arg);
	struct clone_args args = {
		.flags = TASK_THREAD_FLAGS | (tls ? CLONE_SETTLS : 0),
		.child_tid = (uint32_t)&thread->tid,
		.parent_tid = (uint32_t)&thread->tid,
		.stack = (uint32_t)thread->stack,
		.stack_size = (uint32_t)((char *)sp - (char *)thread->stack),
		.tls = (uint32_t)tls,
	};
	long ret;

	/* The kernel starts the child at the stack's top, args.stack + args.stack_size. */
	TASK_THREAD_SYSCALL(ret, "0"(__NR_clone3), "b"(&args), "c"(sizeof(args)));
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
