/*
 * task: new tasks made with raw clone(2) and vfork(2), for the tests of the
 * state a new task starts with (fpu_clone() in arch/x86/kernel/fpu/core.c).
 *
 * task_vfork_snapshot() makes a child that shares the parent's memory and
 * stack (vfork, or clone with CLONE_VM|CLONE_VFORK): the child does nothing
 * but fnsave its x87 state into the caller's buffer and exit, all in one
 * asm block, so it never touches the stack it shares.  The parent resumes
 * when the child has exited and must reap it (proc_wait()).
 *
 * task_thread_start() makes a thread (CLONE_VM|CLONE_THREAD|CLONE_SIGHAND
 * and the rest of what pthread_create() passes) on the stack inside the
 * caller's struct task_thread, which must outlive the thread: static
 * storage.  The thread runs fn(arg), then exits alone (exit, not
 * exit_group).  task_thread_start_tls() also gives it the TLS entry `tls`
 * (CLONE_SETTLS: an entry set_thread_area() allocated), and
 * task_thread_start_clone3() does the same through clone3(2).
 * task_thread_join() waits for the kernel to clear the thread's tid
 * (CLONE_CHILD_CLEARTID) with futex_time64.  task_yield() is
 * sched_yield(2).
 */
#ifndef GT_TASK_H
#define GT_TASK_H

#include "sys.h"
#include "x87.h"

#include <stdint.h>

#include <asm/ldt.h>		/* struct user_desc */
#include <linux/sched.h>	/* CLONE_* */

#define TASK_STACK_BYTES 8192

/* What pthread_create() passes, less CLONE_SETTLS. */
#define TASK_THREAD_FLAGS                                                                   \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |   \
	 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

struct task_thread {
	volatile int tid;	/* set by the kernel at clone, cleared when the thread exits */
	uint32_t stack[TASK_STACK_BYTES / 4] __attribute__((aligned(16)));
};

/*
 * `clone_flags` 0: vfork(); otherwise clone(clone_flags), which needs
 * CLONE_VM|CLONE_VFORK.  The child's pid, or -errno.
 */
long task_vfork_snapshot(unsigned long clone_flags, struct x87_fsave *child_saw);

/* sched_yield(2): 0. */
static inline long task_yield(void)
{
	return sys_call3(__NR_sched_yield, 0, 0, 0);
}

/* The thread's tid, or -errno. */
long task_thread_start(struct task_thread *thread, void (*fn)(void *arg), void *arg);

/* The same with CLONE_SETTLS and `tls` (NULL: without). */
long task_thread_start_tls(struct task_thread *thread, void (*fn)(void *arg), void *arg,
			   struct user_desc *tls);

/* The same through clone3(2): the thread's tid, or -errno (-ENOSYS before 5.3). */
long task_thread_start_clone3(struct task_thread *thread, void (*fn)(void *arg), void *arg,
			      struct user_desc *tls);

/* 0 once the thread has exited, or -errno. */
long task_thread_join(struct task_thread *thread);

#endif
